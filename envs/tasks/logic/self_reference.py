"""Self-reference puzzles: which of these statements are true?

The task:
    n numbered statements talk about each other's truth ("Exactly two of these statements
    are true", "Statement 3 is false", "Statements 1 and 4 are both true", "The number of
    true statements is prime"). A truth assignment is consistent when every statement's
    truth value is what it says. Exactly one consistent assignment exists (found by the
    generator's brute force, certified by z3).

Observation:
    One user message: the statements and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the numbers of the true
    statements, in any order, separated by commas (or spaces), or ``none``. A number given
    twice, out of range or any other word makes the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the set of true statements is the consistent one,
    else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4 statements about single statements and counts at level 1 up to 11
        statements with parity, primality and first/last-true statements at level 10.
    statements: Number of statements (2-12).
    complexity: 1 (counts and single references), 2 (also pairs: both, either, same, if)
        or 3 (also parity, primes, first and last true statement).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import MAX_ANSWER_CHARS, clean, z3_count
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LEVELS = {
    1: (4, 1),
    2: (4, 2),
    3: (5, 2),
    4: (6, 2),
    5: (6, 3),
    6: (7, 3),
    7: (8, 3),
    8: (9, 3),
    9: (10, 3),
    10: (11, 3),
}
"""(statements, complexity) by level."""

KINDS = {
    1: ("count", "is"),
    2: ("count", "is", "both", "either", "same", "if"),
    3: ("count", "is", "both", "either", "same", "if", "parity", "prime", "first", "last"),
}
PRIMES = {2, 3, 5, 7, 11}
REPAIRS_PER_STATEMENT = 8


@dataclasses.dataclass(frozen=True)
class SelfReferenceConfig:
    """Knobs.

    Attributes:
        statements: Number of statements (2-12).
        complexity: 1, 2 or 3 (see the module docstring).
    """

    statements: int = 5
    complexity: int = 2

    def __post_init__(self) -> None:
        if not isinstance(self.statements, int) or not 2 <= self.statements <= 12:
            raise ValueError(f"statements must be an integer from 2 to 12, got {self.statements!r}")
        if self.complexity not in (1, 2, 3):
            raise ValueError(f"complexity must be 1, 2 or 3, got {self.complexity!r}")


def holds(s: list[Any], truth: tuple[bool, ...] | list[bool]) -> bool:
    """Whether statement ``s`` is true when statement i's truth is ``truth[i]``."""
    kind = s[0]
    true_count = sum(truth)
    if kind == "count":
        counted = true_count if s[3] else len(truth) - true_count
        return {
            "exactly": counted == s[2],
            "at least": counted >= s[2],
            "at most": counted <= s[2],
        }[s[1]]
    if kind == "is":
        return truth[s[1]] == s[2]
    if kind == "both":
        return truth[s[1]] and truth[s[2]]
    if kind == "either":
        return truth[s[1]] != truth[s[2]]
    if kind == "same":
        return truth[s[1]] == truth[s[2]]
    if kind == "if":
        return not truth[s[1]] or truth[s[2]]
    if kind == "parity":
        return true_count % 2 == s[1]
    if kind == "prime":
        return true_count in PRIMES
    if kind == "first":
        return truth[s[1]] and not any(truth[: s[1]])
    if kind == "last":
        return truth[s[1]] and not any(truth[s[1] + 1 :])
    raise ValueError(f"unknown statement kind {kind!r}")


def render(s: list[Any], own: int) -> str:
    """The statement's text (numbers are 1-based; its own number reads "this statement")."""

    def ref(i: int) -> str:
        return "this statement" if i == own else f"statement {i + 1}"

    kind = s[0]
    if kind == "count":
        what = "true" if s[3] else "false"
        verb = "is" if s[2] == 1 else "are"
        noun = "statement" if s[2] == 1 else "statements"
        return f"{s[1].capitalize()} {s[2]} of these {noun} {verb} {what}."
    if kind == "is":
        text = f"{ref(s[1])} is {'true' if s[2] else 'false'}."
    elif kind == "both":
        text = f"{ref(s[1])} and {ref(s[2])} are both true."
    elif kind == "either":
        text = f"exactly one of {ref(s[1])} and {ref(s[2])} is true."
    elif kind == "same":
        text = f"{ref(s[1])} and {ref(s[2])} are both true or both false."
    elif kind == "if":
        text = f"if {ref(s[1])} is true, then {ref(s[2])} is true."
    elif kind == "parity":
        text = f"the number of true statements is {'odd' if s[1] else 'even'}."
    elif kind == "prime":
        text = "the number of true statements is a prime number."
    elif kind == "first":
        text = f"{ref(s[1])} is the first true statement."
    else:
        text = f"{ref(s[1])} is the last true statement."
    return text[0].upper() + text[1:]


def _random_statement(rng: np.random.Generator, n: int, complexity: int) -> list[Any]:
    kinds = KINDS[complexity]
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "count":
        op = ("exactly", "at least", "at most")[int(rng.integers(3))]
        return [
            "count",
            op,
            int(rng.integers(1 if op != "exactly" else 0, n + 1)),
            bool(rng.random() < 0.7),
        ]
    if kind in ("is", "first", "last"):
        out = [kind, int(rng.integers(n))]
        return out + [bool(rng.integers(2))] if kind == "is" else out
    if kind in ("both", "either", "same", "if"):
        i, j = int(rng.integers(n)), int(rng.integers(n - 1))
        j += j >= i
        return [kind, i, j]
    if kind == "parity":
        return ["parity", int(rng.integers(2))]
    return ["prime"]


def _consistent_statement(
    rng: np.random.Generator,
    index: int,
    secret: tuple[bool, ...],
    rival: tuple[bool, ...] | None,
    taken: list[Any],
    complexity: int,
) -> list[Any] | None:
    """A new statement at position ``index`` that the secret makes consistent and the rival not."""
    for _ in range(40):
        s = _random_statement(rng, len(secret), complexity)
        if s in taken:
            continue  # two identical statements read like a typo
        if holds(s, secret) == secret[index] and (rival is None or holds(s, rival) != rival[index]):
            return s
    return None


def consistent(statements: list[list[Any]], truth: tuple[bool, ...]) -> bool:
    """Every statement's truth value is what it says."""
    return all(holds(s, truth) == truth[i] for i, s in enumerate(statements))


def consistent_assignments(statements: list[list[Any]], cap: int = 2) -> list[tuple[bool, ...]]:
    """Consistent truth assignments by brute force over all 2^n, up to ``cap``."""
    n = len(statements)
    out = []
    for mask in range(1 << n):
        truth = tuple(bool(mask >> i & 1) for i in range(n))
        if consistent(statements, truth):
            out.append(truth)
            if len(out) >= cap:
                break
    return out


class _Table:
    """Every truth assignment of n statements at once (row r: statement i true iff bit i of r)."""

    def __init__(self, n: int):
        self.n = n
        self.truth = (np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1 == 1
        self.count = self.truth.sum(axis=1)
        # before[:, i]: some statement before i is true; after[:, i]: some statement after i is.
        none = np.zeros((1 << n, 1), bool)
        self.before = np.concatenate(
            [none, np.logical_or.accumulate(self.truth, axis=1)[:, :-1]], axis=1
        )
        later = np.logical_or.accumulate(self.truth[:, ::-1], axis=1)[:, ::-1]
        self.after = np.concatenate([later[:, 1:], none], axis=1)

    def holds(self, s: list[Any]) -> np.ndarray:
        """`holds` over every assignment."""
        t, kind = self.truth, s[0]
        if kind == "count":
            counted = self.count if s[3] else self.n - self.count
            return {
                "exactly": counted == s[2],
                "at least": counted >= s[2],
                "at most": counted <= s[2],
            }[s[1]]
        if kind == "is":
            return t[:, s[1]] == s[2]
        if kind == "both":
            return t[:, s[1]] & t[:, s[2]]
        if kind == "either":
            return t[:, s[1]] != t[:, s[2]]
        if kind == "same":
            return t[:, s[1]] == t[:, s[2]]
        if kind == "if":
            return ~t[:, s[1]] | t[:, s[2]]
        if kind == "parity":
            return self.count % 2 == s[1]
        if kind == "prime":
            return np.isin(self.count, sorted(PRIMES))
        if kind == "first":
            return t[:, s[1]] & ~self.before[:, s[1]]
        return t[:, s[1]] & ~self.after[:, s[1]]

    def agrees(self, s: list[Any], index: int) -> np.ndarray:
        """Assignments under which statement ``index`` (which is ``s``) has the truth it claims."""
        return self.holds(s) == self.truth[:, index]

    def assignment(self, row: int) -> tuple[bool, ...]:
        """The truth values of one row."""
        return tuple(bool(x) for x in self.truth[row])


class SelfReferenceTask(Task[SelfReferenceConfig]):
    """Find the consistent truth assignment of self-referring statements."""

    name = "self_reference"
    Config = SelfReferenceConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> SelfReferenceConfig:
        """More statements and kinds with the level."""
        statements, complexity = LEVELS[level]
        return SelfReferenceConfig(statements=statements, complexity=complexity)

    def _statements(self, rng: np.random.Generator) -> list[list[Any]]:
        n, complexity = self.config.statements, self.config.complexity
        table = _Table(n)
        while True:
            secret = tuple(bool(x) for x in rng.integers(0, 2, size=n))
            statements: list[Any] = []
            for i in range(n):
                statements.append(
                    _consistent_statement(rng, i, secret, None, statements, complexity)
                )
            if any(s is None for s in statements):
                continue
            agree = [table.agrees(s, i) for i, s in enumerate(statements)]
            for _ in range(REPAIRS_PER_STATEMENT * n):
                rows = np.flatnonzero(np.logical_and.reduce(agree))
                if len(rows) == 1:
                    return statements
                rival = next(table.assignment(r) for r in rows[:2] if table.assignment(r) != secret)
                index = int(rng.integers(n))
                replacement = _consistent_statement(
                    rng, index, secret, rival, statements, complexity
                )
                if replacement is not None:
                    statements[index] = replacement
                    agree[index] = table.agrees(replacement, index)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A secret assignment, statements true to it, repaired until no rival is consistent."""
        statements = self._statements(rng)
        truth = consistent_assignments(statements, cap=1)[0]
        lines = "\n".join(f"{i + 1}. {render(s, i)}" for i, s in enumerate(statements))
        prompt = (
            f"Consider these {len(statements)} statements:\n{lines}\n\n"
            "Each statement is either true or false, "
            "and it is true exactly when what it says holds (about these statements). "
            "Exactly one assignment of truth values is consistent. Which statements are true? "
            "Give their numbers separated by commas, or none if no statement is true, e.g. "
            "<answer>2, 5</answer>. " + ANSWER_FORMAT
        )
        reference = [i + 1 for i, t in enumerate(truth) if t]
        return Problem(prompt, reference, {"statements": statements})

    def _answer(self, numbers: list[int]) -> str:
        return ", ".join(str(i) for i in numbers) if numbers else "none"

    def solve(self, problem: Problem) -> str:
        """Brute force over all assignments."""
        truth = consistent_assignments(problem.data["statements"], cap=1)[0]
        return self._answer([i + 1 for i, t in enumerate(truth) if t])

    def check(self, answer: str, problem: Problem) -> Verdict:
        """The set of true statements must be a consistent assignment (unique, so the one)."""
        statements = problem.data["statements"]
        n = len(statements)
        if len(answer) > MAX_ANSWER_CHARS:
            return self.malformed(answer, problem, "the answer is too long")
        body = clean(answer)
        if body.lower() in ("none", "no statements", "no statement"):
            numbers: list[int] = []
        else:
            tokens = re.split(r"\s*,\s*|\s+", body)
            if not body or any(not t.isdigit() or len(t) > 3 for t in tokens):
                return self.malformed(
                    answer, problem, "expected statement numbers separated by commas, or none"
                )
            numbers = [int(t) for t in tokens]
            if len(set(numbers)) != len(numbers) or any(not 1 <= x <= n for x in numbers):
                return self.malformed(
                    answer, problem, f"numbers must be distinct and from 1 to {n}"
                )
        truth = tuple(i + 1 in numbers for i in range(n))
        for i, s in enumerate(statements):
            if holds(s, truth) != truth[i]:
                state = "true" if truth[i] else "false"
                return self.wrong(
                    sorted(numbers), problem, f"statement {i + 1} cannot be {state}: {render(s, i)}"
                )
        return self.correct(sorted(numbers), problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3 counts consistent assignments (up to 2)."""
        statements = problem.data["statements"]
        n = len(statements)

        def build(z3):
            t = [z3.Bool(f"s{i}") for i in range(n)]
            count = z3.Sum([z3.If(x, 1, 0) for x in t])

            def formula(s: list[Any]):
                kind = s[0]
                if kind == "count":
                    counted = count if s[3] else n - count
                    return {
                        "exactly": counted == s[2],
                        "at least": counted >= s[2],
                        "at most": counted <= s[2],
                    }[s[1]]
                if kind == "is":
                    return t[s[1]] if s[2] else z3.Not(t[s[1]])
                if kind == "both":
                    return z3.And(t[s[1]], t[s[2]])
                if kind == "either":
                    return z3.Xor(t[s[1]], t[s[2]])
                if kind == "same":
                    return t[s[1]] == t[s[2]]
                if kind == "if":
                    return z3.Implies(t[s[1]], t[s[2]])
                if kind == "parity":
                    return count % 2 == s[1]
                if kind == "prime":
                    return z3.Or([count == p for p in sorted(PRIMES)])
                if kind == "first":
                    return z3.And(t[s[1]], *[z3.Not(x) for x in t[: s[1]]])
                return z3.And(t[s[1]], *[z3.Not(x) for x in t[s[1] + 1 :]])

            solver = z3.Solver()
            for i, s in enumerate(statements):
                solver.add(t[i] == formula(s))
            return solver, t

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """Each statement's truth toggled: true ones dropped first, then false ones added.

        (A superset of the reference would, as the first mutation, read as agreeing with it
        in a restated "Final answer:" line, which the shared extraction allows.)
        """
        n = len(problem.data["statements"])
        reference = set(problem.reference)
        order = sorted(reference) + [i for i in range(1, n + 1) if i not in reference]
        return [self._answer(sorted(reference ^ {i})) for i in order]

    def alternatives(self, problem: Problem) -> list[str]:
        """Reversed order, spaces instead of commas."""
        numbers = problem.reference
        if not numbers:
            return ["None", "none."]
        return [", ".join(str(i) for i in reversed(numbers)), " ".join(str(i) for i in numbers)]

    def work(self, problem: Problem) -> float:
        """Statement evaluations of the brute force: n * 2^n."""
        n = len(problem.data["statements"])
        return float(n * 2**n)


class SelfReferenceEnv(TaskEnv):
    """Self-reference puzzles; see the module docstring."""

    task_class = SelfReferenceTask
