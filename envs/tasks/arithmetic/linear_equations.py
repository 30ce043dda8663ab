"""Linear equations and systems with a unique rational solution.

The task:
    "Solve 5x − 3 = 2x + 9" at low levels, up to systems of four equations in x, y, z, w with
    fractional solutions at level 10. The coefficients are integers.

Observation:
    One user message: the equations and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: every variable's value as
    ``x = 3/2, y = -1`` (commas or semicolons between assignments, any order). Values are
    integers, fractions ``p/q`` or terminating decimals, compared exactly by the ``numeric``
    verifier. With one variable a bare value (``3/2``) is accepted too.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every variable has its value, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; one equation (levels 1-3, from ``ax + b = c`` to unknowns on both sides
        with a fractional root), then 2, 3 and 4 unknowns with larger coefficients and
        fractional solutions.
    num_vars, max_coef, max_denominator, both_sides: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import numpy as np

from palaestra.envs.tasks.answers import decimal_text, number_text, parse_number, same_number
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

VARIABLES = ("x", "y", "z", "w")
_ASSIGNMENT = re.compile(r"\s*([a-zA-Z])\s*=\s*(.+?)\s*")


@dataclasses.dataclass(frozen=True)
class LinearEquationsConfig:
    """Knobs.

    Attributes:
        num_vars: Unknowns (1 to 4); as many equations.
        max_coef: Largest absolute coefficient before rows are cleared of fractions.
        max_denominator: Largest denominator of a solution value (1: integer solutions).
        both_sides: With one unknown, whether it appears on both sides.
    """

    num_vars: int = 1
    max_coef: int = 9
    max_denominator: int = 1
    both_sides: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.num_vars, int) or not 1 <= self.num_vars <= len(VARIABLES):
            raise ValueError(
                f"num_vars must be an integer from 1 to {len(VARIABLES)}, got {self.num_vars!r}"
            )
        if not isinstance(self.max_coef, int) or not 2 <= self.max_coef <= 1000:
            raise ValueError(f"max_coef must be an integer from 2 to 1000, got {self.max_coef!r}")
        if not isinstance(self.max_denominator, int) or not 1 <= self.max_denominator <= 100:
            raise ValueError(
                f"max_denominator must be an integer from 1 to 100, got {self.max_denominator!r}"
            )
        if not isinstance(self.both_sides, bool):
            raise ValueError(f"both_sides must be True or False, got {self.both_sides!r}")


def _side(coefs: list[int], names: tuple[str, ...], constant: int | None = None) -> str:
    """``3x - y + 2`` from coefficients (zero terms dropped)."""
    parts: list[str] = []
    for c, name in zip(coefs, names, strict=True):
        if c == 0:
            continue
        magnitude = "" if abs(c) == 1 else str(abs(c))
        sign = "-" if c < 0 else "+"
        parts.append(
            f"{sign} {magnitude}{name}" if parts else f"{'-' if c < 0 else ''}{magnitude}{name}"
        )
    if constant:
        parts.append(f"{'-' if constant < 0 else '+'} {abs(constant)}" if parts else str(constant))
    return " ".join(parts) if parts else "0"


def _bareiss_determinant(matrix: list[list[int]]) -> int:
    """The determinant of an integer matrix by fraction-free elimination."""
    m = [row[:] for row in matrix]
    n, sign, previous = len(m), 1, 1
    for k in range(n - 1):
        if m[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if m[i][k] != 0), None)
            if swap is None:
                return 0
            m[k], m[swap], sign = m[swap], m[k], -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // previous
        previous = m[k][k]
    return sign * m[n - 1][n - 1]


def gauss_jordan(rows: list[list[int]]) -> list[Fraction] | None:
    """The unique solution of the augmented system ``rows`` (Fraction elimination), or None."""
    m = [[Fraction(v) for v in row] for row in rows]
    n = len(m)
    for col in range(n):
        pivot = next((r for r in range(col, n) if m[r][col] != 0), None)
        if pivot is None:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        lead = m[col][col]
        m[col] = [v / lead for v in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0:
                factor = m[r][col]
                m[r] = [a - factor * b for a, b in zip(m[r], m[col], strict=True)]
    return [m[r][n] for r in range(n)]


def format_solution(names: list[str], values: list[Fraction]) -> str:
    """``x = 3/2, y = -1``."""
    return ", ".join(
        f"{name} = {number_text(value)}" for name, value in zip(names, values, strict=True)
    )


class LinearEquationsTask(Task[LinearEquationsConfig]):
    """Solve a linear equation or system."""

    name = "linear_equations"
    Config = LinearEquationsConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> LinearEquationsConfig:
        """One unknown, then two, three and four, with larger coefficients and fractional roots."""
        n, coef, den, both = {
            1: (1, 9, 1, False),
            2: (1, 12, 1, True),
            3: (1, 12, 6, True),
            4: (2, 6, 1, False),
            5: (2, 9, 4, False),
            6: (3, 5, 1, False),
            7: (3, 9, 3, False),
            8: (3, 12, 6, False),
            9: (4, 9, 3, False),
            10: (4, 12, 6, False),
        }[level]
        return LinearEquationsConfig(
            num_vars=n, max_coef=coef, max_denominator=den, both_sides=both
        )

    def _value(self, rng: np.random.Generator) -> Fraction:
        q = int(rng.integers(1, self.config.max_denominator + 1))
        return Fraction(
            int(rng.integers(-3 * self.config.max_coef, 3 * self.config.max_coef + 1)), q
        )

    def _single(self, rng: np.random.Generator) -> tuple[str, list[list[int]], list[Fraction]]:
        cfg = self.config
        value = self._value(rng)
        q = value.denominator
        while True:
            c = int(rng.integers(-cfg.max_coef, cfg.max_coef + 1)) if cfg.both_sides else 0
            k = int(rng.integers(1, max(1, cfg.max_coef // q) + 1)) * int(rng.choice([-1, 1]))
            a = c + q * k
            if a != 0 and (c != 0 or not cfg.both_sides):
                break
        b = int(rng.integers(-cfg.max_coef * 3, cfg.max_coef * 3 + 1))
        d = int((a - c) * value + b)
        left = _side([a], ("x",), b)
        right = _side([c], ("x",), d) if cfg.both_sides and c else str(d)
        return f"{left} = {right}", [[a - c, d - b]], [value]

    def _system(self, rng: np.random.Generator) -> tuple[str, list[list[int]], list[Fraction]]:
        cfg = self.config
        n = cfg.num_vars
        names = VARIABLES[:n]
        while True:
            matrix = [
                [int(v) for v in rng.integers(-cfg.max_coef, cfg.max_coef + 1, size=n)]
                for _ in range(n)
            ]
            if _bareiss_determinant(matrix) != 0:
                break
        values = [self._value(rng) for _ in range(n)]
        rows = []
        for coefs in matrix:
            rhs = sum((c * v for c, v in zip(coefs, values, strict=True)), Fraction(0))
            scale = rhs.denominator
            common = math.gcd(*[c * scale for c in coefs], int(rhs * scale))
            scale_row = [c * scale // common for c in coefs]
            rows.append(scale_row + [int(rhs * scale) // common])
        text = "\n".join(f"{_side(row[:n], names)} = {row[n]}" for row in rows)
        return text, rows, values

    def generate(self, rng: np.random.Generator) -> Problem:
        """A solution first, then integer coefficients with a non-zero determinant."""
        n = self.config.num_vars
        names = list(VARIABLES[:n])
        text, rows, values = self._single(rng) if n == 1 else self._system(rng)
        what = "the equation for x" if n == 1 else f"the system of equations for {', '.join(names)}"
        example = (
            "x = -7/2"
            if n == 1
            else ", ".join(
                f"{v} = {e}" for v, e in zip(names, ("2", "-7/2", "0.5", "-1"), strict=False)
            )
        )
        prompt = (
            f"Solve {what}:\n\n"
            f"{text}\n\n"
            "Give the value of every variable as exact numbers (integers, fractions p/q or "
            f"terminating decimals), written like {example}. {ANSWER_FORMAT}"
        )
        reference = format_solution(names, values)
        terms = len(re.findall(r"\d*[a-z]|\d+", text))
        data = {
            "variables": names,
            "rows": rows,
            "values": [number_text(v) for v in values],
            "terms": terms,
        }
        return Problem(prompt, reference, data)

    def solve(self, problem: Problem) -> str:
        """The solution the system was built from."""
        return problem.reference

    def _parse(self, answer: str, names: list[str]) -> dict[str, str] | str:
        if len(names) == 1 and parse_number(answer) is not None:
            return {names[0]: answer.strip()}
        items = [item for item in re.split(r"[,;]|\band\b|\n", answer) if item.strip()]
        if len(items) > 2 * len(names):
            return "too many assignments"
        out: dict[str, str] = {}
        for item in items:
            match = _ASSIGNMENT.fullmatch(item)
            if match is None:
                return f"{item.strip()[:30]!r} is not an assignment like x = 3/2"
            name, value = match[1].lower(), match[2]
            if name not in names:
                return f"{name} is not one of the variables {', '.join(names)}"
            if name in out:
                return f"{name} is assigned twice"
            if parse_number(value) is None:
                return f"{value[:30]!r} is not an exact number"
            out[name] = value
        missing = [n for n in names if n not in out]
        if missing:
            return f"no value for {', '.join(missing)}"
        return out

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Each variable's value must equal the solution exactly (the ``numeric`` verifier)."""
        names = problem.data["variables"]
        parsed = self._parse(answer, names)
        if isinstance(parsed, str):
            return self.malformed(answer, problem, parsed)
        for name, expected in zip(names, problem.data["values"], strict=True):
            if not same_number(parsed[name], Fraction(expected)):
                return self.wrong(answer, problem, f"{name} = {parsed[name]} is wrong")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Gauss-Jordan elimination over the printed integer system: unique iff full rank."""
        solution = gauss_jordan(problem.data["rows"])
        if solution is None:
            return Certificate(2)
        return Certificate(1 if solution == [Fraction(v) for v in problem.data["values"]] else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """One value off by one, one value negated, two different values swapped."""
        names = problem.data["variables"]
        values = [Fraction(v) for v in problem.data["values"]]
        out = []
        for i in range(len(values)):
            bumped = values[:]
            bumped[i] += 1
            out.append(format_solution(names, bumped))
        if values[0]:
            out.append(format_solution(names, [-values[0], *values[1:]]))
        if len(values) > 1 and values[0] != values[1]:
            out.append(format_solution(names, [values[1], values[0], *values[2:]]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other accepted forms of the reference answer.

        Reversed order with semicolons, decimals where they terminate, a bare value for one unknown.
        """
        names = problem.data["variables"]
        values = [Fraction(v) for v in problem.data["values"]]
        out = [
            "; ".join(
                f"{n}={number_text(v)}" for n, v in reversed(list(zip(names, values, strict=True)))
            )
        ]
        decimals = [decimal_text(v) for v in values]
        if all(d is not None for d in decimals):
            out.append(", ".join(f"{n} = {d}" for n, d in zip(names, decimals, strict=True)))
        if len(names) == 1:
            out.append(number_text(values[0]))
        return out

    def work(self, problem: Problem) -> float:
        """Elimination cost: n³ operations on numbers of the printed size, terms, fractions."""
        rows = problem.data["rows"]
        digits = max(len(str(abs(v))) for row in rows for v in row)
        fractions = sum(Fraction(v).denominator > 1 for v in problem.data["values"])
        return float(len(rows) ** 3 * digits + problem.data["terms"] + 2 * fractions)


class LinearEquationsEnv(TaskEnv):
    """Solve a linear equation or system; see the module docstring."""

    task_class = LinearEquationsTask
