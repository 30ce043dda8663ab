"""Nonogram: shade the cells of a grid so that each row and column shows its clue.

The task:
    Each row and column has a clue: the lengths of its runs of shaded cells, in order, with
    at least one blank cell between runs (``0`` for a line with no shaded cell). A few cells
    may be given. Every instance has exactly one solution (certified by a row-by-row search
    with column automata, independently of the generator's line solver).

Observation:
    One user message: the row clues (top to bottom), the column clues (left to right), the
    given cells if any (as a list), and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one line per row, one character
    per cell, ``#`` for shaded and ``.`` for blank (``1``/``0`` and ``x`` for blank are also
    read; spaces between cells are ignored). Checked by the rules: every clue and given must
    hold.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every clue and given holds, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; square grids of 5, 6, 7, 8, 9, 10, 11, 12, 13 and 15 cells a side.
    rows, cols: Grid shape, 2 to 20 each.
    density: Chance that a cell of the hidden picture is shaded.

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
    parse_symbol_grid,
)
from palaestra.verdict import Verdict

SIDES = {1: 5, 2: 6, 3: 7, 4: 8, 5: 9, 6: 10, 7: 11, 8: 12, 9: 13, 10: 15}
"""Grid side by level."""

SYMBOLS = {"#": "#", "1": "#", ".": ".", "0": ".", "x": "."}


@dataclasses.dataclass(frozen=True)
class NonogramConfig:
    """Knobs.

    Attributes:
        rows: Number of rows, 2 to 20.
        cols: Number of columns, 2 to 20.
        density: Chance that a cell of the hidden picture is shaded (0.2 to 0.8).
    """

    rows: int = 9
    cols: int = 9
    density: float = 0.55

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 2 <= value <= 20:
                raise ValueError(f"{name} must be an integer from 2 to 20, got {value!r}")
        if not isinstance(self.density, (int, float)) or not 0.2 <= self.density <= 0.8:
            raise ValueError(f"density must be from 0.2 to 0.8, got {self.density!r}")


def runs(line: list[bool] | str) -> list[int]:
    """The lengths of the shaded runs of a line (``True`` or ``#`` is shaded)."""
    out, count = [], 0
    for cell in line:
        if cell is True or cell == "#":
            count += 1
        elif count:
            out.append(count)
            count = 0
    if count:
        out.append(count)
    return out


@functools.lru_cache(maxsize=65536)
def placements(length: int, clue: tuple[int, ...]) -> Patterns:
    """`arrangements` indexed for the line search."""
    return Patterns(arrangements(length, clue), length)


@functools.lru_cache(maxsize=65536)
def arrangements(length: int, clue: tuple[int, ...]) -> tuple[int, ...]:
    """Every placement of the clue's runs in a line, as bitmasks (bit i: cell i shaded)."""
    if not clue:
        return (0,)
    out = []
    rest = sum(clue[1:]) + len(clue) - 1
    for start in range(length - rest - clue[0] + 1):
        block = ((1 << clue[0]) - 1) << start
        if len(clue) == 1:
            out.append(block)
            continue
        offset = start + clue[0] + 1
        out.extend(block | (tail << offset) for tail in arrangements(length - offset, clue[1:]))
    return tuple(out)


def line_search(
    rows: list[list[int]], cols: list[list[int]], limit: int = 2, max_nodes: int = 5_000
) -> LineSearch:
    """A search over the puzzle's lines, each with every placement of its clue."""
    R, C = len(rows), len(cols)
    lines = [
        ([r * C + c for c in range(C)], placements(C, tuple(clue))) for r, clue in enumerate(rows)
    ]
    lines += [
        ([r * C + c for r in range(R)], placements(R, tuple(clue))) for c, clue in enumerate(cols)
    ]
    return LineSearch(lines, R * C, limit=limit, max_nodes=max_nodes)


class NonogramTask(Task[NonogramConfig]):
    """Shade a grid to match row and column clues."""

    name = "nonogram"
    Config = NonogramConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> NonogramConfig:
        """Larger grids."""
        return NonogramConfig(rows=SIDES[level], cols=SIDES[level], density=0.55)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random picture; cells where a second solution differs are given until it is unique."""
        R, C = self.config.rows, self.config.cols
        picture = rng.random((R, C)) < self.config.density
        truth = [ON if v else OFF for v in picture.flatten().tolist()]
        rows = [runs(list(row)) for row in picture.tolist()]
        cols = [runs(list(col)) for col in picture.T.tolist()]
        state = [UNKNOWN] * (R * C)
        givens: list[list[int]] = []
        while True:
            solver = line_search(rows, cols)
            found = solver.run(state[:])
            others = [s for s in found if s != truth]
            if not others and not solver.exhausted:
                break
            # Reveal a cell the other solution gets wrong (any unknown cell if over budget).
            differ = [
                i
                for i in range(R * C)
                if state[i] == UNKNOWN and (not others or others[0][i] != truth[i])
            ]
            cell = differ[int(rng.integers(len(differ)))]
            state[cell] = truth[cell]
            givens.append([cell // C, cell % C, truth[cell]])
        givens.sort()
        solution = ["".join("#" if v else "." for v in row) for row in picture.tolist()]
        text_rows = "\n".join(
            f"row {r + 1}: {' '.join(map(str, clue)) or '0'}" for r, clue in enumerate(rows)
        )
        text_cols = "\n".join(
            f"column {c + 1}: {' '.join(map(str, clue)) or '0'}" for c, clue in enumerate(cols)
        )
        given_text = ""
        if givens:
            listed = ", ".join(
                f"({r + 1},{c + 1}) {'shaded' if v == ON else 'blank'}" for r, c, v in givens
            )
            given_text = f"\n\nGiven cells, as (row,column) from the top left: {listed}."
        prompt = (
            f"Solve this {R}x{C} nonogram: shade cells so that each row and column shows its clue. "
            "A clue lists "
            "the lengths of the runs of shaded cells in that line, in order (left to right for "
            "rows, top to "
            "bottom for columns), with at least one blank cell between runs; 0 means the line has "
            "no shaded "
            f"cell.\n\nRow clues (top to bottom):\n{text_rows}\n\nColumn clues (left to "
            f"right):\n{text_cols}"
            f"{given_text}\n\n"
            f"Answer with the grid: {R} lines, one per row, each with {C} characters: # for a "
            "shaded cell and . "
            f"for a blank one (for example, a row of 5 could be written as ##.#.). {ANSWER_FORMAT}"
        )
        data = {"rows": rows, "cols": cols, "givens": givens}
        return Problem(prompt, solution, data)

    def solve(self, problem: Problem) -> str:
        """The hidden picture."""
        return "\n".join(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every row and column shows its clue; every given cell is kept."""
        rows, cols = problem.data["rows"], problem.data["cols"]
        grid, why = parse_symbol_grid(answer, len(rows), len(cols), SYMBOLS)
        if grid is None:
            return self.malformed(answer, problem, why)
        for r, c, value in problem.data["givens"]:
            if (grid[r][c] == "#") != (value == ON):
                return self.wrong(
                    grid, problem, f"the given cell at row {r + 1}, column {c + 1} was changed"
                )
        for r, clue in enumerate(rows):
            if runs(grid[r]) != clue:
                return self.wrong(
                    grid, problem, f"row {r + 1} shows {runs(grid[r]) or [0]}, not {clue or [0]}"
                )
        for c, clue in enumerate(cols):
            column = [grid[r][c] for r in range(len(rows))]
            if runs(column) != clue:
                return self.wrong(
                    grid, problem, f"column {c + 1} shows {runs(column) or [0]}, not {clue or [0]}"
                )
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions row by row.

        Counts solutions row by row: each row's placements in turn, every column's prefix
        checked against its clue (a run automaton with room left for the rest), no line solving.
        """
        rows, cols = problem.data["rows"], problem.data["cols"]
        R, C = len(rows), len(cols)
        fixed = {(r, c): value == ON for r, c, value in problem.data["givens"]}

        def placements(clue: list[int], length: int) -> list[tuple[bool, ...]]:
            if not clue:
                return [(False,) * length]
            first, rest = clue[0], clue[1:]
            out = []
            for start in range(length - first - sum(rest) - len(rest) + 1):
                head = (False,) * start + (True,) * first
                if rest:
                    out += [
                        head + (False,) + tail for tail in placements(rest, length - len(head) - 1)
                    ]
                else:
                    out.append(head + (False,) * (length - len(head)))
            return out

        options = [
            [
                p
                for p in placements(clue, C)
                if all(p[c] == v for (r2, c), v in fixed.items() if r2 == r)
            ]
            for r, clue in enumerate(rows)
        ]

        def step(
            state: tuple[int, int], clue: list[int], shaded: bool, left: int
        ) -> tuple[int, int] | None:
            done, run = state  # runs finished, length of the open run
            if shaded:
                if done >= len(clue) or run + 1 > clue[done]:
                    return None
                state = (done, run + 1)
            elif run:
                if run != clue[done]:
                    return None
                state = (done + 1, 0)
            done, run = state
            need = sum(clue[done:]) - run + max(0, len(clue) - done - 1)
            return state if need <= left else None

        count = 0

        def descend(r: int, states: list[tuple[int, int]]) -> None:
            nonlocal count
            if r == R:
                if all(
                    d + (1 if run else 0) == len(clue)
                    for (d, run), clue in zip(states, cols, strict=False)
                ):
                    count += 1
                return
            for option in options[r]:
                nxt = []
                for c in range(C):
                    moved = step(states[c], cols[c], option[c], R - r - 1)
                    if moved is None:
                        break
                    nxt.append(moved)
                else:
                    descend(r + 1, nxt)
                    if count >= 2:
                        return

        descend(0, [(0, 0)] * C)
        return Certificate(min(count, 2))

    def mutations(self, problem: Problem) -> list[str]:
        """One cell flipped: first a blank of the top row shaded, then cells elsewhere."""
        grid = problem.reference
        R, C = len(grid), len(grid[0])
        top = grid[0].find(".")
        cells = [(0, top if top >= 0 else 0), (R - 1, C - 1), (R // 2, C // 2)]
        out = []
        for r, c in cells:
            row = grid[r]
            flipped = row[:c] + ("." if row[c] == "#" else "#") + row[c + 1 :]
            out.append("\n".join(grid[:r] + [flipped] + grid[r + 1 :]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: 1/0 digits, spaces between cells, x for blank in a code fence."""
        grid = problem.reference
        return [
            "\n".join(row.replace("#", "1").replace(".", "0") for row in grid),
            "\n".join(" ".join(row) for row in grid),
            "```\n" + "\n".join(row.replace(".", "x") for row in grid) + "\n```",
        ]

    def work(self, problem: Problem) -> float:
        """Placements examined by the line solver plus search nodes."""
        data = problem.data
        R, C = len(data["rows"]), len(data["cols"])
        state = [UNKNOWN] * (R * C)
        for r, c, value in data["givens"]:
            state[r * C + c] = value
        solver = line_search(data["rows"], data["cols"], limit=1, max_nodes=10**7)
        solver.run(state)
        return float(solver.work)


class NonogramEnv(TaskEnv):
    """Solve a nonogram; see the module docstring."""

    task_class = NonogramTask
