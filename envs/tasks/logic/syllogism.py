"""Syllogisms: does a categorical statement follow from categorical premises?

The task:
    Premises of the four classical forms over made-up kinds ("All blips are vorns", "No
    vorns are tazes", "Some tazes are plims", "Some plims are not blips"), a chain of
    inferences plus distracting premises, and a statement about two kinds. The answer is
    True when the statement follows, False when its negation (the contradictory statement)
    follows, Unknown otherwise. Every kind named is assumed to have members (classical
    existential import), which the prompt says. Made-up words keep world knowledge out.

    The generator decides by reasoning over the 2^m regions of the Venn diagram of m kinds
    (a universal empties regions, a particular needs one non-empty); the certificate asks z3
    the same question about a propositional encoding (one variable per region).

Observation:
    One user message: the premises, the statement and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: ``True``, ``False`` or
    ``Unknown`` (case free, a trailing full stop allowed). Anything else is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for the right label, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3 kinds and 2 premises at level 1 up to 8 kinds and 10 premises at level
        10 (chains of up to 5 steps among distractors).
    kinds: Number of kinds (3-8).
    premises: Number of premises (2-12; at least kinds - 1 is useful).
    chain: Length of the inference chain (1-6).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import parse_label, z3_module
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LABELS = {"true": "True", "false": "False", "unknown": "Unknown"}
FORMS = ("all", "no", "some", "some_not")
CONTRADICTORY = {"all": "some_not", "some_not": "all", "no": "some", "some": "no"}
LEVELS = {
    1: (3, 2, 2),
    2: (4, 3, 2),
    3: (4, 4, 3),
    4: (5, 4, 3),
    5: (5, 5, 3),
    6: (6, 6, 4),
    7: (6, 7, 4),
    8: (7, 8, 5),
    9: (7, 9, 5),
    10: (8, 10, 5),
}
"""(kinds, premises, chain length) by level."""

_ONSETS = (
    "b",
    "bl",
    "br",
    "d",
    "dr",
    "f",
    "fl",
    "g",
    "gl",
    "gr",
    "j",
    "k",
    "kr",
    "l",
    "m",
    "n",
    "p",
    "pl",
    "pr",
    "r",
    "s",
    "sk",
    "sl",
    "sn",
    "sp",
    "st",
    "t",
    "tr",
    "v",
    "w",
    "z",
)
_VOWELS = ("a", "e", "i", "o", "u", "oo", "ee", "ai")
_CODAS = ("b", "d", "g", "k", "m", "n", "p", "rp", "rk", "t", "mp", "nk", "lt", "rn", "ft")


@dataclasses.dataclass(frozen=True)
class SyllogismConfig:
    """Knobs.

    Attributes:
        kinds: Number of kinds (3-8).
        premises: Number of premises (2-12).
        chain: Length of the inference chain (1-6, below ``kinds``).
    """

    kinds: int = 4
    premises: int = 4
    chain: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.kinds, int) or not 3 <= self.kinds <= 8:
            raise ValueError(f"kinds must be an integer from 3 to 8, got {self.kinds!r}")
        if not isinstance(self.premises, int) or not 2 <= self.premises <= 12:
            raise ValueError(f"premises must be an integer from 2 to 12, got {self.premises!r}")
        if not isinstance(self.chain, int) or not 1 <= self.chain <= min(
            6, self.kinds - 1, self.premises
        ):
            raise ValueError(
                "chain must be an integer from 1 to min(6, kinds - 1, premises), "
                f"got {self.chain!r}"
            )


def made_up_words(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct pronounceable made-up plural nouns."""
    words: list[str] = []
    while len(words) < n:

        def pick(options: tuple[str, ...]) -> str:
            return options[int(rng.integers(len(options)))]

        word = pick(_ONSETS) + pick(_VOWELS) + pick(_CODAS)
        if rng.random() < 0.4:
            word += pick(_VOWELS) + pick(_CODAS)
        word += "s"
        if word not in words:
            words.append(word)
    return words


def render(statement: list[Any], words: list[str]) -> str:
    """``["all", 0, 1]`` -> "All blips are vorns"."""
    form, x, y = statement
    a, b = words[x], words[y]
    return {
        "all": f"All {a} are {b}",
        "no": f"No {a} are {b}",
        "some": f"Some {a} are {b}",
        "some_not": f"Some {a} are not {b}",
    }[form]


# --- the generator's reasoner: sets of Venn regions as bitmasks ------------------------------
#
# Region r (1 .. 2^m - 1) holds the things that are exactly the kinds whose bits r sets. A set
# of regions is an int with bit r set.


@functools.lru_cache(maxsize=4096)
def _regions(m: int, x: int, y: int, form: str) -> int:
    """The regions a statement is about: the ones a universal empties, or one a particular fills."""
    out = 0
    for r in range(1, 1 << m):
        in_x, in_y = bool(r >> x & 1), bool(r >> y & 1)
        if in_x and (in_y if form in ("no", "some") else not in_y):
            out |= 1 << r
    return out


def label(premises: list[list[Any]], statement: list[Any], m: int) -> str | None:
    """True/False/Unknown, or None when the premises contradict each other."""
    full = ((1 << (1 << m)) - 1) & ~1
    allowed = full
    needs = [_regions(m, t, t, "some") for t in range(m)]  # every kind has members
    for form, x, y in premises:
        if form in ("all", "no"):
            allowed &= ~_regions(m, x, y, form)
        else:
            needs.append(_regions(m, x, y, form))
    if any(need & allowed == 0 for need in needs):
        return None

    def follows(form: str, x: int, y: int) -> bool:
        regions = _regions(m, x, y, form)
        if form in ("all", "no"):
            # The model with every allowed region filled satisfies all particulars; it is the
            # one to beat.
            return regions & allowed == 0
        return any(need & allowed & ~regions == 0 for need in needs)

    form, x, y = statement
    if follows(form, x, y):
        return "True"
    if follows(CONTRADICTORY[form], x, y):
        return "False"
    return "Unknown"


class SyllogismTask(Task[SyllogismConfig]):
    """Decide whether a categorical statement follows."""

    name = "syllogism"
    Config = SyllogismConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> SyllogismConfig:
        """More kinds, premises and a longer chain with the level."""
        kinds, premises, chain = LEVELS[level]
        return SyllogismConfig(kinds=kinds, premises=premises, chain=chain)

    def _premises(self, rng: np.random.Generator) -> list[list[Any]]:
        m, count, length = self.config.kinds, self.config.premises, self.config.chain
        while True:
            order = [int(t) for t in rng.permutation(m)]
            chain = order[: length + 1]
            premises: list[list[Any]] = []
            negated = False
            for i in range(length):
                x, y = chain[i], chain[i + 1]
                roll = rng.random()
                if i == 0 and roll < 0.3:
                    form = "some"
                elif not negated and roll > 0.75:
                    form, negated = "no", True
                else:
                    form = "all"
                premises.append([form, x, y])
            tries = 0
            while len(premises) < count and tries < 50:
                tries += 1
                x, y = (int(t) for t in rng.choice(m, size=2, replace=False))
                candidate = [FORMS[int(rng.integers(4))], x, y]
                if (
                    candidate not in premises
                    and label(premises + [candidate], ["all", x, x], m) is not None
                ):
                    premises.append(candidate)
            if len(premises) == count and label(premises, ["all", 0, 0], m) is not None:
                return [premises[int(i)] for i in rng.permutation(count)]

    def generate(self, rng: np.random.Generator) -> Problem:
        """A chain with distractors; a statement whose label is uniform over those on offer."""
        m = self.config.kinds
        words = made_up_words(rng, m)
        premises = self._premises(rng)
        stated = {(f, x, y) for f, x, y in premises} | {
            (f, y, x) for f, x, y in premises if f in ("no", "some")
        }
        by_label: dict[str, list[list[Any]]] = {"True": [], "False": [], "Unknown": []}
        for x in range(m):
            for y in range(m):
                if x == y:
                    continue
                for form in FORMS:
                    if (form, x, y) in stated or (CONTRADICTORY[form], x, y) in stated:
                        continue
                    by_label[label(premises, [form, x, y], m) or "Unknown"].append([form, x, y])
        offered = [name for name in ("True", "False", "Unknown") if by_label[name]]
        answer = offered[int(rng.integers(len(offered)))]
        # Prefer kinds that no single premise relates, so that the answer takes a chain.
        together = {(x, y) for _, x, y in premises} | {(y, x) for _, x, y in premises}
        pool = [s for s in by_label[answer] if (s[1], s[2]) not in together] or by_label[answer]
        statement = pool[int(rng.integers(len(pool)))]
        lines = "\n".join(f"{i + 1}. {render(p, words)}." for i, p in enumerate(premises))
        prompt = (
            f"Premises:\n{lines}\n\n"
            f"Assume that each kind of thing named above ({', '.join(words)}) "
            "has at least one member.\n"
            f"Statement: {render(statement, words)}.\n\n"
            "Answer True if the statement follows from the premises, "
            "False if its negation follows from the premises, "
            "and Unknown if neither follows. Give one word: True, False or Unknown, e.g. "
            "<answer>Unknown</answer>. " + ANSWER_FORMAT
        )
        return Problem(
            prompt,
            answer,
            {"kinds": m, "words": words, "premises": premises, "statement": statement},
        )

    def solve(self, problem: Problem) -> str:
        """Venn-region reasoning."""
        data = problem.data
        return label(data["premises"], data["statement"], data["kinds"]) or "Unknown"

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One label, compared with the reasoner's."""
        given = parse_label(answer, LABELS)
        if given is None:
            return self.malformed(answer, problem, "the answer must be True, False or Unknown")
        if given != problem.reference:
            return self.wrong(given, problem, f"the answer is {problem.reference}")
        return self.correct(given, problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3 over one boolean per Venn region ("some thing is exactly these kinds")."""
        z3 = z3_module()
        data = problem.data
        m = data["kinds"]
        filled = {r: z3.Bool(f"r{r}") for r in range(1, 1 << m)}

        def regions(form: str, x: int, y: int) -> list[int]:
            return [
                r
                for r in filled
                if r >> x & 1 and (r >> y & 1 if form in ("no", "some") else not r >> y & 1)
            ]

        def formula(statement: list[Any]):
            form, x, y = statement
            if form in ("all", "no"):
                return z3.And([z3.Not(filled[r]) for r in regions(form, x, y)])
            return z3.Or([filled[r] for r in regions(form, x, y)])

        solver = z3.Solver()
        for t in range(m):
            solver.add(z3.Or([filled[r] for r in filled if r >> t & 1]))
        solver.add(*[formula(p) for p in data["premises"]])
        if solver.check() != z3.sat:
            return Certificate(0)

        def follows(statement: list[Any]) -> bool:
            solver.push()
            solver.add(z3.Not(formula(statement)))
            result = solver.check() == z3.unsat
            solver.pop()
            return result

        statement = data["statement"]
        if follows(statement):
            found = "True"
        elif follows([CONTRADICTORY[statement[0]], statement[1], statement[2]]):
            found = "False"
        else:
            found = "Unknown"
        return Certificate(1 if found == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The two other labels."""
        return [name for name in ("Unknown", "True", "False") if name != problem.reference]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other case and a full stop."""
        return [problem.reference.lower(), problem.reference.upper() + "."]

    def work(self, problem: Problem) -> float:
        """Venn regions times premises."""
        data = problem.data
        return float((1 << data["kinds"]) * len(data["premises"]))


class SyllogismEnv(TaskEnv):
    """Syllogisms; see the module docstring."""

    task_class = SyllogismTask
