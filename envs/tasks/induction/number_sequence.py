"""Number sequences: continue an integer sequence made by a hidden rule.

The task:
    The first terms of a sequence; give the next term (or next few terms). The rule family:
    polynomials of degree 1 to 3 in the position, geometric sequences, affine recurrences
    (``t' = r t + c``), second-order linear recurrences (``t'' = p t' + q t``, Fibonacci-like),
    two interleaved arithmetic sequences, and alternating "add a, multiply by b" steps.

    The rule is identifiable: before an instance is accepted, every rule of the whole family
    (with rational parameters, whatever the level) is fitted to the shown terms by exact
    linear algebra; all rules that fit must agree on the asked terms, else one more term is
    shown (or the sequence is redrawn). The certificate refits the family independently
    (finite differences, ratios and small recurrence solves) and counts the distinct
    continuations.

Observation:
    One user message: the shown terms, how many terms to give and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the asked terms as integers
    separated by commas (or spaces), optionally in square brackets. Anything else is
    malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every asked term is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; arithmetic and geometric sequences and one asked term at level 1 up to the
        whole family, larger parameters and three asked terms at level 10.
    rules: How many rule kinds may be drawn, in order of difficulty (1-7).
    asked: Number of terms to give (1-3).
    scale: Size of the parameters (1-5).
    shown: Fewest terms shown (4-10); one more is shown half the time.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import parse_int_list
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

KINDS = (
    "arithmetic",
    "geometric",
    "quadratic",
    "affine",
    "interleaved",
    "recurrence",
    "cubic",
    "add_multiply",
)
"""Rule kinds in order of difficulty.

``rules = k`` draws from those up to index k (the first two at k = 1).
"""

LEVELS = {
    1: (1, 1, 1, 5),
    2: (2, 1, 1, 5),
    3: (3, 1, 1, 6),
    4: (4, 1, 2, 6),
    5: (5, 1, 2, 6),
    6: (6, 1, 2, 7),
    7: (7, 1, 3, 7),
    8: (7, 2, 3, 7),
    9: (7, 2, 4, 7),
    10: (7, 3, 5, 7),
}
"""(rule kinds, asked terms, parameter scale, fewest shown terms) by level."""

EXTRA_TERMS = 4
"""Terms that may be added to the shown ones to make the rule identifiable."""

MAX_TERM = 10**7
"""Sequences with larger terms are redrawn (they test arithmetic, not induction)."""


@dataclasses.dataclass(frozen=True)
class NumberSequenceConfig:
    """Knobs.

    Attributes:
        rules: Rule kinds drawn (1-7, see `KINDS`).
        asked: Terms to give (1-3).
        scale: Size of the parameters (1-5).
        shown: Fewest terms shown (4-10).
    """

    rules: int = 3
    asked: int = 1
    scale: int = 1
    shown: int = 6

    def __post_init__(self) -> None:
        if not isinstance(self.rules, int) or not 1 <= self.rules <= 7:
            raise ValueError(f"rules must be an integer from 1 to 7, got {self.rules!r}")
        if not isinstance(self.asked, int) or not 1 <= self.asked <= 3:
            raise ValueError(f"asked must be an integer from 1 to 3, got {self.asked!r}")
        if not isinstance(self.scale, int) or not 1 <= self.scale <= 5:
            raise ValueError(f"scale must be an integer from 1 to 5, got {self.scale!r}")
        if not isinstance(self.shown, int) or not 4 <= self.shown <= 10:
            raise ValueError(f"shown must be an integer from 4 to 10, got {self.shown!r}")


# --- drawing rules -------------------------------------------------------------------------


def _nonzero(rng: np.random.Generator, low: int, high: int) -> int:
    while True:
        value = int(rng.integers(low, high + 1))
        if value:
            return value


def draw_rule(rng: np.random.Generator, kind: str, scale: int) -> dict[str, Any]:
    """Random parameters of one rule kind."""
    s = scale
    if kind == "arithmetic":
        return {
            "kind": kind,
            "a": int(rng.integers(-30 * s, 100 * s + 1)),
            "d": _nonzero(rng, -10 * s - 5, 10 * s + 10),
        }
    if kind == "geometric":
        return {
            "kind": kind,
            "a": _nonzero(rng, -40 * s, 60 * s),
            "r": (2, 3, -2, -3, 4, 5)[int(rng.integers(min(6, 3 + s)))],
        }
    if kind == "quadratic":
        c = [
            int(rng.integers(-10 * s, 20 * s + 1)),
            int(rng.integers(-5 * s, 5 * s + 1)),
            _nonzero(rng, -2 * s, 3 * s),
        ]
        return {"kind": kind, "c": c}
    if kind == "cubic":
        c = [
            int(rng.integers(-10 * s, 10 * s + 1)),
            int(rng.integers(-4 * s, 4 * s + 1)),
            int(rng.integers(-2 * s, 2 * s + 1)),
        ]
        return {"kind": kind, "c": c + [_nonzero(rng, -s, s)]}
    if kind == "affine":
        r = (2, 3, -2, 2, 3)[int(rng.integers(5))]
        return {
            "kind": kind,
            "t0": int(rng.integers(-5 * s, 10 * s + 1)),
            "r": r,
            "c": _nonzero(rng, -5 * s, 5 * s),
        }
    if kind == "recurrence":
        p, q = [(1, 1), (1, 2), (2, 1), (2, -1), (1, -1), (3, -1), (2, 2)][
            int(rng.integers(min(7, 3 + s)))
        ]
        t0, t1 = int(rng.integers(-3 * s, 6 * s + 1)), int(rng.integers(-3 * s, 8 * s + 1))
        return {"kind": kind, "t0": t0, "t1": t1, "p": p, "q": q}
    if kind == "interleaved":
        return {
            "kind": kind,
            "a": [int(rng.integers(-10 * s, 30 * s + 1)), int(rng.integers(-10 * s, 30 * s + 1))],
            "d": [_nonzero(rng, -4 * s, 6 * s), _nonzero(rng, -4 * s, 6 * s)],
        }
    t0, add = int(rng.integers(1, 6 * s + 1)), _nonzero(rng, -3 * s, 5 * s)
    return {
        "kind": kind,
        "t0": t0,
        "add": add,
        "times": int(rng.integers(2, 4)),
        "add_first": bool(rng.integers(2)),
    }


def terms(rule: dict[str, Any], count: int) -> list[int]:
    """The first ``count`` terms of a rule."""
    kind = rule["kind"]
    if kind == "arithmetic":
        return [rule["a"] + rule["d"] * i for i in range(count)]
    if kind == "geometric":
        return [rule["a"] * rule["r"] ** i for i in range(count)]
    if kind in ("quadratic", "cubic"):
        return [sum(c * i**e for e, c in enumerate(rule["c"])) for i in range(count)]
    if kind == "interleaved":
        return [rule["a"][i % 2] + rule["d"][i % 2] * (i // 2) for i in range(count)]
    out = [rule["t0"]]
    if kind == "recurrence":
        out.append(rule["t1"])
    while len(out) < count:
        if kind == "affine":
            out.append(rule["r"] * out[-1] + rule["c"])
        elif kind == "recurrence":
            out.append(rule["p"] * out[-1] + rule["q"] * out[-2])
        else:
            adding = (len(out) % 2 == 1) == rule["add_first"]
            out.append(out[-1] + rule["add"] if adding else out[-1] * rule["times"])
    return out[:count]


# --- the generator's identifiability check: exact linear algebra over the whole family ------
#
# Each kind is linear in its parameters once the shown terms are known: a list of equations
# (coefficients, right-hand side) and a continuation from parameters.

Equations = list[tuple[list[Fraction], Fraction]]


def _equations(
    kind: str, t: list[int]
) -> tuple[Equations, Callable[[list[Fraction], int], list[Fraction]]]:
    f = [Fraction(x) for x in t]
    n = len(f)
    if kind in ("arithmetic", "quadratic", "cubic"):
        degree = {"arithmetic": 1, "quadratic": 2, "cubic": 3}[kind]
        rows = [([Fraction(i**e) for e in range(degree + 1)], f[i]) for i in range(n)]
        return rows, lambda th, k: [
            sum(th[e] * (n + j) ** e for e in range(degree + 1)) for j in range(k)
        ]

    def recur(
        step: Callable[[list[Fraction], list[Fraction], int], Fraction],
    ) -> Callable[[list[Fraction], int], list[Fraction]]:
        def go(th: list[Fraction], k: int) -> list[Fraction]:
            seq = list(f)
            for _ in range(k):
                seq.append(step(th, seq, len(seq)))
            return seq[n:]

        return go

    if kind == "geometric":
        return [([f[i]], f[i + 1]) for i in range(n - 1)], recur(lambda th, s, i: th[0] * s[-1])
    if kind == "affine":
        return [([f[i], Fraction(1)], f[i + 1]) for i in range(n - 1)], recur(
            lambda th, s, i: th[0] * s[-1] + th[1]
        )
    if kind == "recurrence":
        return [([f[i + 1], f[i]], f[i + 2]) for i in range(n - 2)], recur(
            lambda th, s, i: th[0] * s[-1] + th[1] * s[-2]
        )
    if kind == "interleaved":
        # Parameters (even start, even step, odd start, odd step).
        rows = []
        for i in range(n):
            odd, half = i % 2, i // 2
            rows.append(
                (
                    [
                        Fraction(1 - odd),
                        Fraction(half * (1 - odd)),
                        Fraction(odd),
                        Fraction(half * odd),
                    ],
                    f[i],
                )
            )

        def go(th: list[Fraction], k: int) -> list[Fraction]:
            return [
                th[2 * ((n + j) % 2)] + th[2 * ((n + j) % 2) + 1] * ((n + j) // 2) for j in range(k)
            ]

        return rows, go
    # add_multiply with either phase: parameters (add, times); the phase is part of the kind.
    raise ValueError(kind)


def _add_multiply_equations(
    t: list[int], add_first: bool
) -> tuple[Equations, Callable[[list[Fraction], int], list[Fraction]]]:
    f = [Fraction(x) for x in t]
    n = len(f)
    rows = []
    for i in range(1, n):
        adding = (i % 2 == 1) == add_first
        rows.append(
            ([Fraction(1), Fraction(0)], f[i] - f[i - 1])
            if adding
            else ([Fraction(0), f[i - 1]], f[i])
        )

    def go(th: list[Fraction], k: int) -> list[Fraction]:
        seq = list(f)
        for _ in range(k):
            i = len(seq)
            seq.append(seq[-1] + th[0] if (i % 2 == 1) == add_first else seq[-1] * th[1])
        return seq[n:]

    return rows, go


def _solve(rows: Equations, width: int) -> tuple[list[Fraction], list[list[Fraction]]] | None:
    """A particular solution and a null-space basis of the equations, or None if inconsistent."""
    matrix = [list(a) + [b] for a, b in rows]
    pivots: list[int] = []
    r = 0
    for col in range(width):
        pivot = next((i for i in range(r, len(matrix)) if matrix[i][col] != 0), None)
        if pivot is None:
            continue
        matrix[r], matrix[pivot] = matrix[pivot], matrix[r]
        lead = matrix[r][col]
        # Fraction arithmetic is most of the generator's time: zeros (and a lead of 1) skip it.
        if lead != 1:
            matrix[r] = [x / lead if x else x for x in matrix[r]]
        for i in range(len(matrix)):
            if i != r and matrix[i][col] != 0:
                factor = matrix[i][col]
                matrix[i] = [
                    x - factor * y if y else x for x, y in zip(matrix[i], matrix[r], strict=True)
                ]
        pivots.append(col)
        r += 1
    if any(all(x == 0 for x in row[:width]) and row[width] != 0 for row in matrix):
        return None
    particular = [Fraction(0)] * width
    for i, col in enumerate(pivots):
        particular[col] = matrix[i][width]
    basis = []
    for free in (c for c in range(width) if c not in pivots):
        vector = [Fraction(0)] * width
        vector[free] = Fraction(1)
        for i, col in enumerate(pivots):
            vector[col] = -matrix[i][free]
        basis.append(vector)
    return particular, basis


AMBIGUOUS = ("ambiguous",)


def continuations(shown: list[int], asked: int) -> set[tuple[Any, ...]]:
    """The continuations every fitting rule of the family predicts.

    A rule that cannot decide predicts `AMBIGUOUS`.
    """
    out: set[tuple[Any, ...]] = set()
    systems = [_equations(kind, shown) for kind in KINDS if kind != "add_multiply"]
    systems += [_add_multiply_equations(shown, first) for first in (True, False)]
    for rows, predict in systems:
        width = len(rows[0][0]) if rows else 0
        solved = _solve(rows, width) if rows else None
        if not rows:
            out.add(AMBIGUOUS)
            continue
        if solved is None:
            continue
        particular, basis = solved
        if len(basis) > 2:
            out.add(AMBIGUOUS)
            continue
        # Parameters not pinned down: the continuation, a polynomial of degree <= asked in the
        # free ones, must not depend on them; a grid of asked + 2 points per direction decides.
        seen = set()
        for steps in itertools.product(range(asked + 2), repeat=len(basis)):
            theta = [
                p + sum(k * v[i] for k, v in zip(steps, basis, strict=True))
                for i, p in enumerate(particular)
            ]
            seen.add(tuple(predict(theta, asked)))
        out |= seen if len(seen) == 1 else {AMBIGUOUS}
    return out


class NumberSequenceTask(Task[NumberSequenceConfig]):
    """Continue an integer sequence."""

    name = "number_sequence"
    Config = NumberSequenceConfig
    unique = True
    # Level 1 draws only short arithmetic and geometric sequences of small numbers: a few
    # thousand distinct prompts, so a sample of 150 repeats one now and then.
    duplicate_allowance = {1: 0.02}

    @classmethod
    def level_config(cls, level: int) -> NumberSequenceConfig:
        """More rule kinds, larger parameters and more asked terms with the level."""
        rules, asked, scale, shown = LEVELS[level]
        return NumberSequenceConfig(rules=rules, asked=asked, scale=scale, shown=shown)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random rule; terms shown until every fitting rule of the family agrees."""
        cfg = self.config
        kinds = KINDS[: cfg.rules + 1]
        # Harder kinds weigh more as parameters grow; arithmetic keeps a steady small share.
        weights = np.array([2.0] + [1 + i * (cfg.scale - 1) / 2 for i in range(1, len(kinds))])
        while True:
            kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
            rule = draw_rule(rng, kind, cfg.scale)
            first = cfg.shown + int(rng.integers(2))
            full = terms(rule, first + EXTRA_TERMS + cfg.asked)
            if max(abs(x) for x in full) > MAX_TERM or len(set(full)) < 3:
                continue
            for count in range(first, first + EXTRA_TERMS + 1):
                shown, nxt = full[:count], full[count : count + cfg.asked]
                if continuations(shown, cfg.asked) == {tuple(Fraction(x) for x in nxt)}:
                    break
            else:
                continue
            break
        what = "the next term" if cfg.asked == 1 else f"the next {cfg.asked} terms"
        example = "<answer>" + ", ".join(("17", "-4", "250")[: cfg.asked]) + "</answer>"
        prompt = (
            f"Here are the first {len(shown)} terms of an integer sequence that follows a simple "
            "rule:\n"
            f"{', '.join(str(x) for x in shown)}\n\n"
            f"Give {what}{'' if cfg.asked == 1 else ', in order, separated by commas'}, e.g. "
            f"{example}. "
            + ANSWER_FORMAT
        )
        return Problem(prompt, nxt, {"shown": shown, "asked": cfg.asked, "rule": rule})

    def solve(self, problem: Problem) -> str:
        """The hidden rule's continuation."""
        return ", ".join(str(x) for x in problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """The asked terms, in order."""
        asked = problem.data["asked"]
        values = parse_int_list(answer, max_items=asked)
        if values is None or len(values) != asked:
            return self.malformed(
                answer,
                problem,
                f"expected {asked} integer{'s' if asked > 1 else ''} separated by commas",
            )
        if values != list(problem.reference):
            return self.wrong(values, problem, "the continuation is wrong")
        return self.correct(values, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts continuations by refitting the family.

        The refit uses finite differences, ratios and small recurrence solves.
        """
        shown, asked = problem.data["shown"], problem.data["asked"]
        found = {tuple(c) for c in _refit(shown, asked)}
        if len(found) != 1:
            return Certificate(len(found))
        return Certificate(1 if list(found.pop()) == list(problem.reference) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """Each asked term off by one either way; the last term missing."""
        reference = list(problem.reference)
        out = []
        for i in range(len(reference)):
            for delta in (1, -1):
                changed = list(reference)
                changed[i] += delta
                out.append(", ".join(str(x) for x in changed))
        if len(reference) > 1:
            out.append(", ".join(str(x) for x in reference[:-1]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Brackets, spaces."""
        reference = [str(x) for x in problem.reference]
        return ["[" + ", ".join(reference) + "]", " ".join(reference)]

    def work(self, problem: Problem) -> float:
        """Terms read times terms produced times the kinds the rule could be."""
        data = problem.data
        return float(len(data["shown"]) * data["asked"] * (KINDS.index(data["rule"]["kind"]) + 2))


def _refit(shown: list[int], asked: int) -> list[list[Any]]:
    """Continuations of every kind that fits, integers where possible.

    This is the certificate's own fitting, separate from `continuations`.
    """
    out: list[list[Any]] = []
    n = len(shown)
    # Polynomials up to degree 3: differences become constant.
    for degree in (1, 2, 3):
        rows = [list(shown)]
        for _ in range(degree):
            rows.append([b - a for a, b in zip(rows[-1], rows[-1][1:], strict=False)])
        if len(rows[-1]) >= 2 and len(set(rows[-1])) == 1:
            ext = [list(r) for r in rows]
            for _ in range(asked):
                ext[-1].append(ext[-1][-1])
                for level in range(degree - 1, -1, -1):
                    ext[level].append(ext[level][-1] + ext[level + 1][-1])
            out.append(ext[0][n:])
    # Geometric and affine: t' = r t + c from the first three terms, checked on the rest.
    for geometric in (True, False):
        for r, c in _affine_candidates(shown, geometric):
            if all(shown[i + 1] == r * shown[i] + c for i in range(n - 1)):
                seq = list(shown)
                for _ in range(asked):
                    seq.append(r * seq[-1] + c)
                out.append(seq[n:])
    # Second-order recurrences: Cramer's rule on the first two equations.
    det = shown[1] * shown[1] - shown[0] * shown[2]
    if n >= 5 and det != 0:
        p = Fraction(shown[2] * shown[1] - shown[0] * shown[3], det)
        q = Fraction(shown[1] * shown[3] - shown[2] * shown[2], det)
        if all(shown[i + 2] == p * shown[i + 1] + q * shown[i] for i in range(n - 2)):
            seq: list[Any] = list(shown)
            for _ in range(asked):
                seq.append(p * seq[-1] + q * seq[-2])
            out.append(seq[n:])
    # Two interleaved arithmetic sequences.
    even, odd = shown[0::2], shown[1::2]
    steps = [{b - a for a, b in zip(part, part[1:], strict=False)} for part in (even, odd)]
    if len(even) >= 3 and len(odd) >= 2 and all(len(s) == 1 for s in steps):
        seq = list(shown)
        for _ in range(asked):
            source = seq[len(seq) % 2 :: 2]
            seq.append(source[-1] + (source[-1] - source[-2]))
        out.append(seq[n:])
    # Alternating add and multiply, either phase.
    for add_first in (True, False):
        adds = {shown[i] - shown[i - 1] for i in range(1, n) if (i % 2 == 1) == add_first}
        ratios = {
            Fraction(shown[i], shown[i - 1]) if shown[i - 1] else None
            for i in range(1, n)
            if (i % 2 == 1) != add_first
        }
        if len(adds) == 1 and len(ratios) == 1 and None not in ratios:
            add, times = adds.pop(), ratios.pop()
            seq = list(shown)
            for _ in range(asked):
                i = len(seq)
                seq.append(seq[-1] + add if (i % 2 == 1) == add_first else seq[-1] * times)
            out.append(seq[n:])
    return out


def _affine_candidates(shown: list[int], geometric: bool) -> list[tuple[Fraction, Fraction]]:
    if geometric:
        return [(Fraction(shown[1], shown[0]), Fraction(0))] if shown[0] else []
    if shown[1] == shown[0]:
        return []
    r = Fraction(shown[2] - shown[1], shown[1] - shown[0])
    return [(r, shown[1] - r * shown[0])]


class NumberSequenceEnv(TaskEnv):
    """Number sequences; see the module docstring."""

    task_class = NumberSequenceTask
