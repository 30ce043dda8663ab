"""Lights Out: switch every light off; pressing a light toggles it and its four neighbours.

The task:
    A ``size`` x ``size`` grid of lights. Pressing a cell toggles it and the cells above,
    below, left and right of it. The puzzle is solved when every light is off. Puzzles
    are made by pressing ``presses`` distinct random cells of a dark grid, so every
    puzzle is solvable in at most that many presses.

Observation:
    The rules, then the grid after every press: ``O`` on, ``.`` off, columns lettered
    from ``a`` and rows numbered from 1.

Action:
    The last ``<move>...</move>`` after any ``</think>``: the cell to press, e.g.
    ``<move>b3</move>``.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in the fewest presses still needed (solved
        exactly over GF(2)), as a share of the fewest at the start: each press of an
        optimal solution earns the same, each other press costs what it takes to undo
        (clipped at 0; a solved episode sums to exactly `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when every light is off; 0 otherwise.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable move or a cell off the grid.
    The best return is 1.0.

Episode end:
    Terminated when solved (success) or when the turn budget (twice the presses that
    made the puzzle plus `EXTRA_TURNS`; every turn counts) is spent.

Oracle:
    Presses a cell of the fewest-press solution: Gaussian elimination over GF(2), then
    the lightest combination with the null space of the press matrix.

Arguments:
    level: 1-10; 3x3 grids made by 2 presses up to 7x7 grids made by 14.
    size: Overrides the side (2-9).
    presses: Overrides the presses that make the puzzle (1 to size**2).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import (
    GameEnv,
    Potential,
    check_int,
    check_level,
    column_label,
    framed,
    level_value,
    no_options,
    parse_cell,
    parse_move,
)

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 10

LEVELS = ((3, 2), (3, 3), (4, 3), (4, 5), (5, 4), (5, 6), (5, 8), (6, 8), (7, 10), (7, 14))
"""Per level: side, presses that make the puzzle."""


@functools.lru_cache(maxsize=16)
def _solver(size: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Elimination data for ``size``: press masks, row operations, pivot columns, null space.

    Rows of the press matrix are cells and columns are presses (bit ``j`` of row ``i``:
    press ``j`` toggles cell ``i``). ``operations[r]`` is the mask of original rows whose
    sum became reduced row ``r``; ``pivots[r]`` is that row's pivot column (or -1).
    """
    cells = size * size
    masks = []
    for cell in range(cells):
        r, c = divmod(cell, size)
        mask = 1 << cell
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < size and 0 <= cc < size:
                mask |= 1 << (rr * size + cc)
        masks.append(mask)
    rows = list(masks)  # the matrix is symmetric: row i has bit j iff press j toggles cell i
    operations = [1 << i for i in range(cells)]
    pivots = [-1] * cells
    rank = 0
    for column in range(cells):
        pivot = next((r for r in range(rank, cells) if rows[r] >> column & 1), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        operations[rank], operations[pivot] = operations[pivot], operations[rank]
        for r in range(cells):
            if r != rank and rows[r] >> column & 1:
                rows[r] ^= rows[rank]
                operations[r] ^= operations[rank]
        pivots[rank] = column
        rank += 1
    pivot_columns = {p for p in pivots if p >= 0}
    null_space = []
    for free in range(cells):
        if free in pivot_columns:
            continue
        vector = 1 << free
        for r in range(rank):
            if rows[r] >> free & 1:
                vector |= 1 << pivots[r]
        null_space.append(vector)
    return tuple(masks), tuple(operations), tuple(pivots), tuple(null_space)


@functools.lru_cache(maxsize=16)
def _solutions(size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per cell, the elimination's presses for that one lit cell; and the null space's span.

    The span lists the sum of each combination of null-space vectors, combination ``k``
    (bit ``i``: vector ``i`` is in it) at index ``k``, so it starts with 0.
    """
    _, operations, pivots, null_space = _solver(size)
    single = []
    for cell in range(size * size):
        presses = 0
        for row, column in enumerate(pivots):
            if column >= 0 and operations[row] >> cell & 1:
                presses |= 1 << column
        single.append(presses)
    span = [0]
    for vector in null_space:
        span += [combination ^ vector for combination in span]
    return tuple(single), tuple(span)


def fewest_presses(lights: int, size: int) -> int:
    """The presses (a bit mask) of a lightest solution for the lit cells ``lights``.

    Solving is linear: the elimination's solution for ``lights`` is the sum (xor) of its
    solutions for each lit cell, and every solution is that one plus a sum of null-space
    vectors. Of equally light solutions, the one with the lowest combination index wins.
    """
    single, span = _solutions(size)
    solution = 0
    for cell in range(size * size):
        if lights >> cell & 1:
            solution ^= single[cell]
    return min((solution ^ combination for combination in span), key=int.bit_count)


class LightsOutEnv(GameEnv):
    """Lights Out; see the module docstring."""

    game_name = "lights_out"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("lights", "potential")

    def __init__(self, level: int = 3, size: int | None = None, presses: int | None = None):
        self.level = check_level(level)
        default_size, default_presses = level_value(level, LEVELS)
        self.size = check_int("size", size, 2, 9) if size is not None else default_size
        self.presses = (
            check_int("presses", presses, 1, self.size**2)
            if presses is not None
            else min(default_presses, self.size**2)
        )
        self.cells = self.size * self.size
        self.max_moves = 2 * self.presses + EXTRA_TURNS
        self.masks = _solver(self.size)[0]
        self.lights = 0
        self.potential = Potential(PROGRESS_REWARD, 1)

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        while True:
            lights = 0
            for cell in self.np_random.permutation(self.cells)[: self.presses].tolist():
                lights ^= self.masks[cell]
            if lights:
                break
        self.lights = lights
        self.potential = Potential(
            PROGRESS_REWARD, fewest_presses(lights, self.size).bit_count()
        )
        rules = (
            "Lights Out. Switch every light off. "
            "Pressing a cell toggles it and the cells above, below, left "
            f"and right of it. You have {self.max_moves} turns.\n"
            "Grid: O on, . off; columns are letters, rows numbers.\n"
            "Reply with one press per turn as <move>b3</move>.\n\n" + self.board()
        )
        return [user(rules)], {"level": self.level}

    def _step(self, action: Message) -> Step:
        try:
            row, column = parse_cell(
                parse_move(action.get("content"), example="b3"), self.size, self.size
            )
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        self.lights ^= self.masks[row * self.size + column]
        progress = self.potential.update(fewest_presses(self.lights, self.size).bit_count())
        name = f"{column_label(column)}{row + 1}"
        if not self.lights:
            return self.won(
                f"Pressed {name}. All lights are off!\n{self.board()}",
                reason=f"solved in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        lit = self.lights.bit_count()
        left = self.max_moves - self.turn
        text = f"Pressed {name}. Lights on: {lit}. Turns left: {left}.\n{self.board()}"
        return self.budgeted(Step([user(text)], {"progress": progress}))

    def random_action(self, rng: np.random.Generator) -> str:
        """A random cell."""
        cell = int(rng.integers(self.cells))
        return f"<move>{column_label(cell % self.size)}{cell // self.size + 1}</move>"

    def oracle_action(self) -> str:
        """A press of the fewest-press solution."""
        solution = fewest_presses(self.lights, self.size)
        cell = (solution & -solution).bit_length() - 1 if solution else 0
        r, c = divmod(cell, self.size)
        return f"<move>{column_label(c)}{r + 1}</move>"

    def _rows(self) -> list[list[str]]:
        marks = ["O" if self.lights >> cell & 1 else "." for cell in range(self.cells)]
        return [marks[r * self.size : (r + 1) * self.size] for r in range(self.size)]

    def board(self) -> str:
        """The grid with column letters and row numbers."""
        return framed(self._rows())

    def state_key(self) -> int:
        """The lit cells as a bit mask."""
        return self.lights

    def render_text(self) -> str:
        """The grid and the fewest presses still needed."""
        needed = fewest_presses(self.lights, self.size).bit_count()
        return f"{self.board()}\n{needed} presses needed, turn {self.turn}/{self.max_moves}"
