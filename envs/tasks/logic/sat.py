"""SAT: find an assignment that satisfies a formula in conjunctive normal form.

The task:
    A CNF formula: clauses of literals over named boolean variables; each clause needs at
    least one true literal. Every instance is satisfiable by construction (clauses are drawn
    so that a hidden assignment satisfies them) and certified by z3. Any satisfying assignment
    scores, not only the hidden one.

Observation:
    One user message: the variables, the clauses and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: every variable with a value,
    ``a = 1, b = 0, ...`` (``:`` also accepted; values 1/0, true/false or T/F), separated
    by commas, semicolons or line breaks, in any order. A variable given twice, a missing
    variable or any other word makes the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every clause has a true literal, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4 variables and 2-literal clauses at level 1 up to 26 variables and about
        4.2 clauses per variable of 3 literals at level 10.
    variables: Number of variables (2-40).
    clause_size: Literals per clause (2-5).
    ratio: Clauses per variable (0.5-8).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import string
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import name_index, parse_assignment, z3_count
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

VALUES = {"1": True, "0": False, "true": True, "false": False, "t": True, "f": False}
LEVELS = {
    1: (4, 2, 2.5),
    2: (5, 2, 2.5),
    3: (6, 3, 4.0),
    4: (8, 3, 4.0),
    5: (10, 3, 4.2),
    6: (12, 3, 4.2),
    7: (15, 3, 4.2),
    8: (18, 3, 4.2),
    9: (22, 3, 4.2),
    10: (26, 3, 4.2),
}
"""(variables, clause size, clauses per variable) by level; 4.2 is near the 3-SAT threshold,
where planted instances have few solutions."""


@dataclasses.dataclass(frozen=True)
class SatConfig:
    """Knobs.

    Attributes:
        variables: Number of variables (2-40).
        clause_size: Literals per clause (2-5; at most the number of variables).
        ratio: Clauses per variable (0.5-8).
    """

    variables: int = 6
    clause_size: int = 3
    ratio: float = 4.0

    def __post_init__(self) -> None:
        if not isinstance(self.variables, int) or not 2 <= self.variables <= 40:
            raise ValueError(f"variables must be an integer from 2 to 40, got {self.variables!r}")
        if not isinstance(self.clause_size, int) or not 2 <= self.clause_size <= min(
            5, self.variables
        ):
            raise ValueError(
                "clause_size must be an integer from 2 to min(5, variables), "
                f"got {self.clause_size!r}"
            )
        if not isinstance(self.ratio, (int, float)) or not 0.5 <= self.ratio <= 8:
            raise ValueError(f"ratio must be a number from 0.5 to 8, got {self.ratio!r}")


def satisfied(clauses: list[list[int]], values: list[bool]) -> int:
    """How many clauses have a true literal (literal +i / -i: variable i-1 true / false)."""
    return sum(1 for clause in clauses if any(values[abs(lit) - 1] == (lit > 0) for lit in clause))


def variable_names(rng: np.random.Generator, n: int) -> list[str]:
    """Distinct lower-case letters drawn at random (x1, x2, ... past 26 variables), in order."""
    if n > 26:
        return [f"x{i + 1}" for i in range(n)]
    return sorted(string.ascii_lowercase[int(i)] for i in rng.choice(26, size=n, replace=False))


class SatTask(Task[SatConfig]):
    """Satisfy a CNF formula."""

    name = "sat"
    Config = SatConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> SatConfig:
        """More variables and clauses with the level."""
        variables, size, ratio = LEVELS[level]
        return SatConfig(variables=variables, clause_size=size, ratio=ratio)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A hidden assignment; random clauses, each with one literal made true if none was."""
        n, k = self.config.variables, self.config.clause_size
        names = variable_names(rng, n)
        hidden = [bool(x) for x in rng.integers(0, 2, size=n)]
        clauses: list[list[int]] = []
        seen: set[tuple[int, ...]] = set()
        target = max(1, round(self.config.ratio * n))
        while len(clauses) < target:
            # Batches of candidate clauses (numpy per clause would dominate the cost).
            picks = rng.integers(0, n, size=(2 * target, k))
            signs = rng.integers(0, 2, size=(2 * target, k)).astype(bool)
            flips = rng.integers(0, k, size=2 * target)
            for row, sign, flip in zip(picks.tolist(), signs.tolist(), flips.tolist(), strict=True):
                if len(set(row)) < k or len(clauses) >= target:
                    continue
                if not any(hidden[v] == s for v, s in zip(row, sign, strict=True)):
                    sign[flip] = hidden[row[flip]]
                clause = sorted(
                    (v + 1 if s else -(v + 1) for v, s in zip(row, sign, strict=True)), key=abs
                )
                if tuple(clause) not in seen:
                    seen.add(tuple(clause))
                    clauses.append(clause)
        reference = {name: int(v) for name, v in zip(names, hidden, strict=True)}
        lines = "\n".join(f"{i + 1}. {self._clause_text(c, names)}" for i, c in enumerate(clauses))
        prompt = (
            f"Find true/false values for the variables {', '.join(names)} "
            "that make every clause below true. "
            "A clause is true when at least one of its literals is true; ~x means 'not x'.\n"
            f"{lines}\n\n"
            "Give every variable a value, 1 for true and 0 for false, "
            "as 'name = value' separated by commas, "
            "e.g. <answer>m = 1, z = 0</answer>. Any satisfying assignment is accepted. "
            + ANSWER_FORMAT
        )
        return Problem(prompt, reference, {"names": names, "clauses": clauses})

    @staticmethod
    def _clause_text(clause: list[int], names: list[str]) -> str:
        return " | ".join(("" if lit > 0 else "~") + names[abs(lit) - 1] for lit in clause)

    def solve(self, problem: Problem) -> str:
        """The hidden assignment."""
        return ", ".join(f"{name} = {value}" for name, value in problem.reference.items())

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every clause must have a true literal under the given values."""
        names = problem.data["names"]
        parsed, why = parse_assignment(answer, name_index(names), VALUES)
        if parsed is None:
            return self.malformed(answer, problem, why)
        values = [parsed[name] for name in names]
        for i, clause in enumerate(problem.data["clauses"]):
            if not any(values[abs(lit) - 1] == (lit > 0) for lit in clause):
                return self.wrong(
                    parsed, problem, f"clause {i + 1} ({self._clause_text(clause, names)}) is false"
                )
        return self.correct(parsed, problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3 finds models of the clauses (counted up to 2)."""
        names, clauses = problem.data["names"], problem.data["clauses"]

        def build(z3):
            x = [z3.Bool(name) for name in names]
            solver = z3.Solver()
            for clause in clauses:
                solver.add(
                    z3.Or(
                        [x[abs(lit) - 1] if lit > 0 else z3.Not(x[abs(lit) - 1]) for lit in clause]
                    )
                )
            return solver, x

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """Single flips that falsify a clause, then a missing variable and an invalid value."""
        names, clauses = problem.data["names"], problem.data["clauses"]
        hidden = [bool(problem.reference[name]) for name in names]
        out = []
        for i in range(len(names)):
            flipped = hidden[:i] + [not hidden[i]] + hidden[i + 1 :]
            if satisfied(clauses, flipped) < len(clauses):
                out.append(
                    ", ".join(f"{name} = {int(v)}" for name, v in zip(names, flipped, strict=True))
                )
        pairs = [f"{name} = {int(v)}" for name, v in zip(names, hidden, strict=True)]
        out.append(", ".join(pairs[:-1]))
        out.append(", ".join(pairs[:-1] + [pairs[-1].split(" = ")[0] + " = 2"]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other satisfying assignments one or two flips away, and other spellings."""
        names, clauses = problem.data["names"], problem.data["clauses"]
        hidden = [bool(problem.reference[name]) for name in names]
        out = []
        for i in range(len(names)):
            for j in range(i, len(names)):
                other = list(hidden)
                other[i] = not other[i]
                if j != i:
                    other[j] = not other[j]
                if satisfied(clauses, other) == len(clauses) and len(out) < 3:
                    out.append(
                        ", ".join(
                            f"{name} = {int(v)}" for name, v in zip(names, other, strict=True)
                        )
                    )
        out.append(
            "; ".join(
                f"{name.upper()}: {'true' if v else 'false'}"
                for name, v in reversed(list(zip(names, hidden, strict=True)))
            )
        )
        out.append(
            "\n".join(f"{name}={'T' if v else 'F'}" for name, v in zip(names, hidden, strict=True))
        )
        return out

    def work(self, problem: Problem) -> float:
        """Literal occurrences times variables (unit propagation over a search of that size)."""
        data: Any = problem.data
        return float(sum(len(c) for c in data["clauses"]) * len(data["names"]))


class SatEnv(TaskEnv):
    """SAT; see the module docstring."""

    task_class = SatTask
