"""Sudoku: complete a 4x4, 6x6, 8x8 or 9x9 sudoku with a unique solution.

The task:
    A grid of n x n cells split into boxes (2x2 for n = 4, 2x3 for 6, 2x4 for 8, 3x3 for 9),
    some cells given. Fill the empty cells so that every row, column and box holds each of
    1..n exactly once. Every instance has exactly one solution (certified by an exact-cover
    counter independent of the generator's solver).

Observation:
    One user message: the grid (``.`` for an empty cell, bars between boxes) and the answer
    format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the completed grid, n lines of n
    digits. Digits may be separated by spaces, commas or bars or written together; a code
    fence and separator lines (``---+---``) are ignored. The answer is checked by the rules
    (every row, column and box a permutation of 1..n, every given kept), so any valid
    completion scores; with a unique solution that is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid completion, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4x4 at levels 1-2, 6x6 at 3-5, 9x9 at 6-10, with fewer givens as the level
        rises (9x9: 40 givens at level 6 down to minimal puzzles at level 10).
    size: 4, 6, 8 or 9.
    givens: Target number of givens: cells are removed in random order while the solution
        stays unique, until this many remain (or no cell can go).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import (
    DomainSearch,
    answer_grid,
    changed_given,
    exact_cover_count,
    parse_number_grid,
    peers_of,
    units_of,
)
from palaestra.verdict import Verdict

BOXES = {4: (2, 2), 6: (2, 3), 8: (2, 4), 9: (3, 3)}
"""Box shape (rows, columns) by grid size."""

LEVELS = {
    1: (4, 10),
    2: (4, 6),
    3: (6, 20),
    4: (6, 14),
    5: (6, 10),
    6: (9, 40),
    7: (9, 34),
    8: (9, 30),
    9: (9, 27),
    10: (9, 17),
}
"""(size, target givens) by level; 17 is below any 9x9 minimum, so level 10 removes while it can."""


@dataclasses.dataclass(frozen=True)
class SudokuConfig:
    """Knobs.

    Attributes:
        size: Grid size: 4, 6, 8 or 9.
        givens: Target number of givens (removal stops there or when no cell can go).
    """

    size: int = 6
    givens: int = 14

    def __post_init__(self) -> None:
        if self.size not in BOXES:
            raise ValueError(f"size must be one of {sorted(BOXES)}, got {self.size!r}")
        if not isinstance(self.givens, int) or not 0 <= self.givens <= self.size**2:
            raise ValueError(
                f"givens must be an integer from 0 to {self.size**2}, got {self.givens!r}"
            )


@functools.cache
def _geometry(n: int) -> dict[str, Any]:
    """The rows, columns and boxes as cell tuples, with each cell's peers and units."""
    br, bc = BOXES[n]
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    boxes = [
        tuple((r0 + r) * n + c0 + c for r in range(br) for c in range(bc))
        for r0 in range(0, n, br)
        for c0 in range(0, n, bc)
    ]
    units = tuple(rows + cols + boxes)
    return {"units": units, "peers": peers_of(units, n * n), "unit_of": units_of(units, n * n)}


def _masks(n: int, cells: list[int]) -> list[int]:
    full = (1 << n) - 1
    return [1 << (v - 1) if v else full for v in cells]


def searcher(n: int, limit: int) -> DomainSearch:
    """A fresh search over the n x n sudoku's rows, columns and boxes."""
    return DomainSearch(n, limit=limit, **_geometry(n))


def solve_cells(n: int, cells: list[int], limit: int = 2) -> DomainSearch:
    """Searches the puzzle (row-major cells, 0 = empty) for up to ``limit`` solutions."""
    search = searcher(n, limit)
    search.run(_masks(n, cells))
    return search


def full_grid(n: int, rng: np.random.Generator) -> list[int]:
    """A random solved grid: a pattern with rows, bands, columns, stacks and digits shuffled."""
    br, bc = BOXES[n]
    bands = [int(b) for b in rng.permutation(n // br)]
    row_order = [b * br + int(r) for b in bands for r in rng.permutation(br)]
    stacks = [int(s) for s in rng.permutation(n // bc)]
    col_order = [s * bc + int(c) for s in stacks for c in rng.permutation(bc)]
    digits = [int(d) + 1 for d in rng.permutation(n)]
    grid = [digits[(bc * (r % br) + r // br + c) % n] for r in row_order for c in col_order]
    if br == bc and rng.integers(2):
        grid = [grid[c * n + r] for r in range(n) for c in range(n)]
    return grid


def carve(n: int, solution: list[int], target: int, rng: np.random.Generator) -> list[int]:
    """Removes givens in random order while the solution stays unique, down to ``target``."""
    cells = solution[:]
    givens = n * n
    full = (1 << n) - 1
    for cell in (int(c) for c in rng.permutation(n * n)):
        if givens <= target:
            break
        value = cells[cell]
        cells[cell] = 0
        # Unique after removal iff no solution puts another digit in this cell.
        masks = _masks(n, cells)
        masks[cell] = full & ~(1 << (value - 1))
        if searcher(n, 1).run(masks):
            cells[cell] = value
        else:
            givens -= 1
    return cells


def show(n: int, cells: list[int]) -> str:
    """The grid with ``.`` for empty cells and bars and rules between boxes."""
    br, bc = BOXES[n]
    lines = []
    for r in range(n):
        if r and r % br == 0:
            lines.append("-+-".join("-" * (2 * bc - 1) for _ in range(n // bc)))
        parts = []
        for c0 in range(0, n, bc):
            parts.append(
                " ".join(
                    str(cells[r * n + c]) if cells[r * n + c] else "." for c in range(c0, c0 + bc)
                )
            )
        lines.append(" | ".join(parts))
    return "\n".join(lines)


class SudokuTask(Task[SudokuConfig]):
    """Complete a sudoku with a unique solution."""

    name = "sudoku"
    Config = SudokuConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> SudokuConfig:
        """Larger grids, then fewer givens."""
        size, givens = LEVELS[level]
        return SudokuConfig(size=size, givens=givens)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random solved grid, carved while the solution stays unique."""
        n = self.config.size
        solution = full_grid(n, rng)
        cells = carve(n, solution, self.config.givens, rng)
        br, bc = BOXES[n]
        prompt = (
            f"Solve this {n}x{n} sudoku: fill the empty cells (shown as .) so that every row, "
            "every column "
            f"and every {br}x{bc} box (separated by bars and lines) contains each of the digits 1 "
            f"to {n} "
            f"exactly once.\n\n{show(n, cells)}\n\n"
            f"Answer with the completed grid: {n} lines, one per row, the {n} digits of a row "
            "separated by "
            "spaces (for example, a first row could be written as "
            f"{' '.join(str(d) for d in range(1, n + 1))}). "
            f"{ANSWER_FORMAT}"
        )
        grid = [solution[r * n : (r + 1) * n] for r in range(n)]
        givens = [cells[r * n : (r + 1) * n] for r in range(n)]
        return Problem(prompt, grid, {"size": n, "givens": givens})

    def solve(self, problem: Problem) -> str:
        """The solution found when the puzzle was made."""
        return answer_grid(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every row, column and box a permutation of 1..n, every given kept."""
        n = problem.data["size"]
        grid, why = parse_number_grid(answer, n, n, 1, n)
        if grid is None:
            return self.malformed(answer, problem, why)
        changed = changed_given(grid, problem.data["givens"])
        if changed:
            return self.wrong(grid, problem, changed)
        units = _geometry(n)["units"]
        flat = [v for row in grid for v in row]
        names = ["row"] * n + ["column"] * n + ["box"] * n
        for k, unit in enumerate(units):
            if len({flat[cell] for cell in unit}) != n:
                return self.wrong(grid, problem, f"{names[k]} {k % n + 1} repeats a digit")
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts completions with Algorithm X (cells, rows, columns, boxes as exact cover)."""
        n = problem.data["size"]
        br, bc = BOXES[n]
        rows = {}
        for r in range(n):
            for c in range(n):
                box = (r // br) * (n // bc) + c // bc
                for v in range(1, n + 1):
                    rows[r, c, v] = [("cell", r, c), ("row", r, v), ("col", c, v), ("box", box, v)]
        columns = {col for cover in rows.values() for col in cover}
        chosen = [
            (r, c, v)
            for r, row in enumerate(problem.data["givens"])
            for c, v in enumerate(row)
            if v
        ]
        return Certificate(exact_cover_count(columns, rows, chosen, cap=2))

    def mutations(self, problem: Problem) -> list[str]:
        """One empty cell filled with another digit; one given changed."""
        n = problem.data["size"]
        grid = problem.reference
        givens = problem.data["givens"]
        out = []
        empties = [(r, c) for r in range(n) for c in range(n) if not givens[r][c]]
        filled = [(r, c) for r in range(n) for c in range(n) if givens[r][c]]
        for r, c in empties[:3] + filled[:1]:
            mutant = [row[:] for row in grid]
            mutant[r][c] = grid[r][c] % n + 1
            out.append(answer_grid(mutant))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: digits run together, commas, a code fence with box bars."""
        n = problem.data["size"]
        grid = problem.reference
        together = "\n".join("".join(map(str, row)) for row in grid)
        commas = "\n".join(", ".join(map(str, row)) for row in grid)
        fenced = "```\n" + show(n, [v for row in grid for v in row]) + "\n```"
        return [together, commas, fenced]

    def work(self, problem: Problem) -> float:
        """The solver's work on the puzzle: search nodes plus cells fixed by propagation."""
        n = problem.data["size"]
        return float(
            solve_cells(n, [v for row in problem.data["givens"] for v in row], limit=1).work
        )


class SudokuEnv(TaskEnv):
    """Complete a sudoku; see the module docstring."""

    task_class = SudokuTask
