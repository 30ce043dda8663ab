"""Binairo (takuzu): fill a grid with 0s and 1s under three rules.

The task:
    An n x n grid (n even), some cells given. Fill every cell with 0 or 1 so that each row
    and column holds as many 0s as 1s, no row or column has three equal digits in a row, and
    no two rows and no two columns are the same. Every instance has exactly one solution
    (certified with z3, independently of the generator's solver).

Observation:
    One user message: the grid (``.`` for an empty cell) and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: n lines of n digits 0/1 (spaces
    or commas between them are ignored). Checked by the rules, so any valid completion
    scores; with a unique solution that is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid completion, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4x4 at level 1, then 6x6, 8x8 and 10x10, each first with some redundant
        givens and then with a minimal set (10x10 minimal at level 10).
    size: Grid size, an even number from 4 to 14.
    removal: Chance (0 to 1) that the generator tries to remove each given while the
        solution stays unique (1 gives a minimal puzzle).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import (
    OFF,
    ON,
    UNKNOWN,
    LineSearch,
    Patterns,
    changed_given,
    parse_symbol_grid,
    z3_count,
)
from palaestra.verdict import Verdict

LEVELS = {
    1: (4, 1.0),
    2: (6, 0.6),
    3: (6, 1.0),
    4: (8, 0.5),
    5: (8, 0.75),
    6: (8, 1.0),
    7: (10, 0.5),
    8: (10, 0.7),
    9: (10, 0.85),
    10: (10, 1.0),
}
"""(size, removal) by level. Larger grids are available through ``size``; 12x12 minimal
puzzles take the generator a few hundred milliseconds."""

SYMBOLS = {"0": "0", "1": "1"}


@dataclasses.dataclass(frozen=True)
class BinairoConfig:
    """Knobs.

    Attributes:
        size: Grid size, even, 4 to 14.
        removal: Chance that the generator tries to remove each given.
    """

    size: int = 8
    removal: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or self.size % 2 or not 4 <= self.size <= 14:
            raise ValueError(f"size must be an even integer from 4 to 14, got {self.size!r}")
        if not isinstance(self.removal, (int, float)) or not 0 <= self.removal <= 1:
            raise ValueError(f"removal must be a chance from 0 to 1, got {self.removal!r}")


@functools.cache
def valid_lines(n: int) -> Patterns:
    """Every line of n bits (bit i: cell i is 1) with n/2 ones and no three equal in a row."""
    out = []
    triple = 0b111
    for bits in range(1 << n):
        if bits.bit_count() != n // 2:
            continue
        if any((bits >> i) & triple in (0, triple) for i in range(n - 2)):
            continue
        out.append(bits)
    return Patterns(out, n)


def searcher(
    n: int, limit: int = 2, max_nodes: int = 5_000, rng: np.random.Generator | None = None
) -> LineSearch:
    """A search over the n x n grid: every row and column one of the valid lines, all distinct."""
    lines = valid_lines(n)
    rows = [([r * n + c for c in range(n)], lines) for r in range(n)]
    cols = [([r * n + c for r in range(n)], lines) for c in range(n)]
    return LineSearch(
        rows + cols,
        n * n,
        limit=limit,
        max_nodes=max_nodes,
        distinct=[range(n), range(n, 2 * n)],
        rng=rng,
    )


def broken_rule(grid: list[str]) -> str:
    """``""`` when the grid keeps every rule, else the first rule it breaks."""
    n = len(grid)
    columns = ["".join(row[c] for row in grid) for c in range(n)]
    for name, lines in (("row", grid), ("column", columns)):
        for i, line in enumerate(lines):
            if line.count("1") != n // 2:
                return f"{name} {i + 1} does not hold as many 0s as 1s"
            if "000" in line or "111" in line:
                return f"{name} {i + 1} has three equal digits in a row"
        if len(set(lines)) < n:
            return f"two {name}s are the same"
    return ""


class BinairoTask(Task[BinairoConfig]):
    """Complete a binairo grid."""

    name = "binairo"
    Config = BinairoConfig
    unique = True
    # 4x4 has only 72 solved grids, and each has few minimal sets of givens.
    duplicate_allowance = {1: 0.05}

    @classmethod
    def level_config(cls, level: int) -> BinairoConfig:
        """Larger grids, then fewer givens."""
        size, removal = LEVELS[level]
        return BinairoConfig(size=size, removal=removal)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random solved grid; givens removed in random order while the solution stays unique."""
        n = self.config.size
        # A random solution: the search branching on random cells with random values.
        truth = searcher(n, limit=1, max_nodes=10**6, rng=rng).run([UNKNOWN] * (n * n))[0]
        state = truth[:]
        for cell in (int(c) for c in rng.permutation(n * n)):
            if rng.random() >= self.config.removal:
                continue
            value = state[cell]
            state[cell] = UNKNOWN
            # Unique after removal iff no solution has the other digit here.
            trial = state[:]
            trial[cell] = OFF if value == ON else ON
            search = searcher(n, limit=1)
            if search.run(trial) or search.exhausted:
                state[cell] = value
        mark = {UNKNOWN: ".", ON: "1", OFF: "0"}
        givens = ["".join(mark[state[r * n + c]] for c in range(n)) for r in range(n)]
        solution = ["".join(mark[truth[r * n + c]] for c in range(n)) for r in range(n)]
        drawn = "\n".join(" ".join(row) for row in givens)
        prompt = (
            f"Solve this {n}x{n} binairo: fill every empty cell (.) with 0 or 1 so that every row "
            "and every "
            f"column contains as many 0s as 1s ({n // 2} of each), no row or column contains three "
            "equal digits "
            f"next to each other, and no two rows and no two columns are the same.\n\n{drawn}\n\n"
            f"Answer with the completed grid: {n} lines, one per row, each with the {n} digits of "
            "the row "
            f"(for example, a row of 6 could be written as 011010). {ANSWER_FORMAT}"
        )
        return Problem(prompt, solution, {"givens": givens})

    def solve(self, problem: Problem) -> str:
        """The grid the puzzle was made from."""
        return "\n".join(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """The givens kept and every rule kept."""
        givens = problem.data["givens"]
        n = len(givens)
        grid, why = parse_symbol_grid(answer, n, n, SYMBOLS)
        if grid is None:
            return self.malformed(answer, problem, why)
        changed = changed_given(grid, givens, empty=".")
        if changed:
            return self.wrong(grid, problem, changed)
        broken = broken_rule(grid)
        if broken:
            return self.wrong(grid, problem, broken)
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions with z3 over the three rules as stated in the prompt."""
        givens = problem.data["givens"]
        n = len(givens)

        def build(z3):
            x = [[z3.Bool(f"x{r}_{c}") for c in range(n)] for r in range(n)]
            s = z3.Solver()
            lines = x + [[x[r][c] for r in range(n)] for c in range(n)]
            for line in lines:
                s.add(z3.PbEq([(v, 1) for v in line], n // 2))
                for i in range(n - 2):
                    a, b, c = line[i : i + 3]
                    s.add(z3.Or(a, b, c), z3.Or(z3.Not(a), z3.Not(b), z3.Not(c)))
            for group in (lines[:n], lines[n:]):
                for i in range(n):
                    for j in range(i + 1, n):
                        s.add(z3.Or([a != b for a, b in zip(group[i], group[j], strict=False)]))
            for r, row in enumerate(givens):
                s.add([x[r][c] == (v == "1") for c, v in enumerate(row) if v != "."])
            return s, [v for row in x for v in row]

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """One cell flipped (its row then holds unequal counts); one given flipped."""
        grid = problem.reference
        givens = problem.data["givens"]
        n = len(grid)
        empties = [(r, c) for r in range(n) for c in range(n) if givens[r][c] == "."]
        fixed = [(r, c) for r in range(n) for c in range(n) if givens[r][c] != "."]
        out = []
        for r, c in empties[:3] + fixed[:1]:
            row = grid[r]
            flipped = row[:c] + ("0" if row[c] == "1" else "1") + row[c + 1 :]
            out.append("\n".join(grid[:r] + [flipped] + grid[r + 1 :]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: spaces or commas between digits, a code fence."""
        grid = problem.reference
        return [
            "\n".join(" ".join(row) for row in grid),
            "\n".join(",".join(row) for row in grid),
            "```\n" + "\n".join(grid) + "\n```",
        ]

    def work(self, problem: Problem) -> float:
        """The line solver's work: patterns examined plus search nodes."""
        givens = problem.data["givens"]
        n = len(givens)
        state = [{".": UNKNOWN, "1": ON, "0": OFF}[v] for row in givens for v in row]
        search = searcher(n, limit=1, max_nodes=10**7)
        search.run(state)
        return float(search.work)


class BinairoEnv(TaskEnv):
    """Complete a binairo; see the module docstring."""

    task_class = BinairoTask
