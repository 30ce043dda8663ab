"""Sliding puzzle (8-puzzle, 15-puzzle): slide numbered tiles into order.

The task:
    A ``size`` x ``size`` frame holds tiles 1 to ``size**2 - 1`` and one gap. A move
    slides a tile next to the gap into it. The puzzle is solved when the tiles read 1, 2,
    3, ... row by row with the gap last. Puzzles are scrambled from the solved frame by a
    seeded walk of ``scramble`` moves (never undoing the previous one), so every puzzle is
    solvable in at most ``scramble`` moves.

Observation:
    The rules, then the frame after every move (``.`` for the gap).

Action:
    The last ``<move>...</move>`` after any ``</think>``: the number of a tile next to the
    gap (``<move>5</move>``), or the direction that tile slides (``up``: the tile below
    the gap slides up). Any other tile, or a direction with no tile, is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in the tiles' total Manhattan distance to
        their places, as a share of that distance at the start (clipped at 0, so a
        solved episode's progress sums to exactly `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when solved; 0 otherwise.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated when solved (success) or when the turn budget (twice the scramble plus
    `EXTRA_TURNS`; every turn counts) is spent.

Oracle:
    Weighted A* (Manhattan distance plus linear conflicts, weight `HEURISTIC_WEIGHT`)
    from the current frame; if it runs out of `SOLVER_EXPANSIONS`, the scramble undone.

Arguments:
    level: 1-10; 3x3 frames scrambled by 6 to 30 moves, then 4x4 by 16 to 50.
    size: Overrides the side (2-5).
    scramble: Overrides the scramble length (1-200).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import heapq
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import (
    DIRECTION_ALIASES,
    GameEnv,
    Potential,
    check_int,
    check_level,
    level_value,
    no_options,
    parse_move,
)

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 10
HEURISTIC_WEIGHT = 1.4
SOLVER_EXPANSIONS = 30_000

LEVELS = ((3, 6), (3, 10), (3, 14), (3, 20), (3, 30), (4, 16), (4, 24), (4, 32), (4, 40), (4, 50))
"""Per level: side, scramble moves."""

# A tile that slides "up" comes from below the gap, and so on.
_SOURCE = {"up": (1, 0), "down": (-1, 0), "left": (0, 1), "right": (0, -1)}


# A search meets the same few thousand lines of tiles again and again.
@functools.lru_cache(maxsize=1 << 16)
def line_conflicts(cells: tuple[int, ...], line: int, vertical: bool, size: int) -> int:
    """Two moves per pair of tiles of row (or column) ``line`` in it but in reverse order.

    ``cells`` holds the line's tiles (0 for the gap).
    """
    if vertical:
        goals = [(t - 1) // size for t in cells if t and (t - 1) % size == line]
    else:
        goals = [(t - 1) % size for t in cells if t and (t - 1) // size == line]
    return 2 * sum(a > b for i, a in enumerate(goals) for b in goals[i + 1 :])


class _LineConflicts(dict):
    """`line_conflicts` of one row or column of packed frames, by the bits of its cells."""

    def __init__(self, line: int, vertical: bool, size: int, shifts: list[int], bits: int):
        super().__init__()
        self.line, self.vertical, self.size = line, vertical, size
        self.shifts, self.mask = shifts, (1 << bits) - 1  # of the line's cells, in order

    def __missing__(self, frame: int) -> int:
        cells = tuple(frame >> shift & self.mask for shift in self.shifts)
        found = self[frame] = line_conflicts(cells, self.line, self.vertical, self.size)
        return found


class SlidingPuzzleEnv(GameEnv):
    """The n-puzzle; see the module docstring."""

    game_name = "sliding_puzzle"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("tiles", "potential")

    def __init__(self, level: int = 3, size: int | None = None, scramble: int | None = None):
        self.level = check_level(level)
        default_size, default_scramble = level_value(level, LEVELS)
        self.size = check_int("size", size, 2, 5) if size is not None else default_size
        self.scramble = (
            check_int("scramble", scramble, 1, 200) if scramble is not None else default_scramble
        )
        self.cells = self.size * self.size
        self.max_moves = 2 * self.scramble + EXTRA_TURNS
        self.solved = tuple(range(1, self.cells)) + (0,)
        self.tiles = self.solved
        self.potential = Potential(PROGRESS_REWARD, 1)
        self._plan: dict[tuple[int, ...], int] = {}
        self._searched = False
        self._neighbours = [self._around(i) for i in range(self.cells)]
        self._bits = (self.cells - 1).bit_length()
        self._shifts = [self._bits * (self.cells - 1 - cell) for cell in range(self.cells)]

    def _around(self, cell: int) -> tuple[int, ...]:
        r, c = divmod(cell, self.size)
        return tuple(
            rr * self.size + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < self.size and 0 <= cc < self.size
        )

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        draws = self.np_random.random(self.scramble * 4).tolist()
        tiles = list(self.solved)
        gap, previous = self.cells - 1, -1
        history = [tuple(tiles)]
        k = 0
        while True:
            for _ in range(self.scramble):
                options_ = [n for n in self._neighbours[gap] if n != previous]
                nxt = options_[int(draws[k % len(draws)] * len(options_))]
                k += 1
                tiles[gap], tiles[nxt] = tiles[nxt], 0
                previous, gap = gap, nxt
                history.append(tuple(tiles))
            if tuple(tiles) != self.solved:
                break
        self.tiles = tuple(tiles)
        # The scramble undone, as tile moves keyed by frame (the oracle's fallback).
        self._plan = {}
        for before, after in zip(reversed(history[1:]), reversed(history[:-1]), strict=True):
            self._plan[before] = after[before.index(0)]
        self._searched = False
        self.potential = Potential(PROGRESS_REWARD, self.distance(self.tiles))
        rules = (
            f"Sliding puzzle. Slide the tiles into order: 1 to {self.cells - 1} row by row, "
            "the gap (.) last. A move slides a tile next to the gap into it. "
            f"You have {self.max_moves} turns.\n"
            "Reply with one move per turn: the tile's number, <move>5</move>, "
            "or the way it slides, "
            "<move>up</move> (the tile below the gap moves up).\n\n" + self.board()
        )
        return [user(rules)], {"level": self.level}

    def distance(self, tiles: tuple[int, ...]) -> int:
        """Total Manhattan distance of the tiles to their places."""
        size = self.size
        return sum(
            abs(i // size - (t - 1) // size) + abs(i % size - (t - 1) % size)
            for i, t in enumerate(tiles)
            if t
        )

    def _parse(self, content: str | None) -> int:
        move = parse_move(content, example="5")
        gap = self.tiles.index(0)
        if move.isdigit():
            tile = int(move)
            if not 1 <= tile < self.cells:
                raise InvalidAction(f"there is no tile {tile}; tiles are 1-{self.cells - 1}")
            cell = self.tiles.index(tile)
            if cell not in self._neighbours[gap]:
                raise InvalidAction(f"tile {tile} is not next to the gap")
            return cell
        direction = DIRECTION_ALIASES.get(move, move)
        if direction not in _SOURCE:
            raise InvalidAction(
                f"{move[:40]!r} is not a move; give a tile number or up, down, left, right"
            )
        dr, dc = _SOURCE[direction]
        r, c = divmod(gap, self.size)
        r, c = r + dr, c + dc
        if not (0 <= r < self.size and 0 <= c < self.size):
            raise InvalidAction(f"no tile can slide {direction}: the gap is at the edge")
        return r * self.size + c

    def _step(self, action: Message) -> Step:
        try:
            cell = self._parse(action.get("content"))
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        tiles = list(self.tiles)
        gap = tiles.index(0)
        tile = tiles[cell]
        tiles[gap], tiles[cell] = tile, 0
        self.tiles = tuple(tiles)
        progress = self.potential.update(self.distance(self.tiles))
        if self.tiles == self.solved:
            return self.won(
                f"Moved tile {tile}. Solved!\n{self.board()}",
                reason=f"solved in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        text = f"Moved tile {tile}. Turns left: {self.max_moves - self.turn}.\n{self.board()}"
        return self.budgeted(Step([user(text)], {"progress": progress}))

    # --- the oracle ----------------------------------------------------------------------------

    def _heuristic(self, tiles: tuple[int, ...]) -> int:
        """Manhattan distance plus two moves per linear conflict in a row or column."""
        return self.distance(tiles) + sum(
            self._conflicts(tiles, line, vertical)
            for line in range(self.size)
            for vertical in (False, True)
        )

    def _conflicts(self, tiles: tuple[int, ...], line: int, vertical: bool) -> int:
        """Two moves per pair of tiles in their goal row (or column) ``line``, in reverse order."""
        size = self.size
        cells = tiles[line::size] if vertical else tiles[line * size : (line + 1) * size]
        return line_conflicts(cells, line, vertical, size)

    # The search packs each frame into one integer, `_bits` per cell, the first cell in the
    # highest bits: integers then order as the frames' tuples do (so the heap breaks ties the
    # same way), a move is one addition and a frame hashes fast. This, and a move's change of
    # the heuristic looked up in `_slides`, make the search over twice as fast as on tuples;
    # the search is most of the cost of checking the oracle on many seeds.

    def _pack(self, tiles: tuple[int, ...]) -> int:
        frame = 0
        for tile in tiles:
            frame = frame << self._bits | tile
        return frame

    def _unpack(self, frame: int) -> tuple[int, ...]:
        mask = (1 << self._bits) - 1
        return tuple(frame >> shift & mask for shift in self._shifts)

    @functools.cached_property
    def _slides(self) -> list[dict[int, list[tuple[int, int, dict[int, int]]]]]:
        """How a move changes `_heuristic`: by gap, then the cell whose tile slides, then tile.

        Each entry is (the change of the tile's distance, the bits of the line whose
        conflicts may change or 0, that line's conflicts by its bits). Only the moved tile's
        distance changes, and the conflicts of a line it enters or leaves, and only if that
        is the tile's goal line: conflicts count the tiles in their goal line, so another
        line's tiles and their order stay the same.
        """
        size = self.size
        cell_masks = [((1 << self._bits) - 1) << shift for shift in self._shifts]
        line_masks, caches = {}, {}
        for line in range(size):
            for vertical in (False, True):
                cells = (
                    range(line, self.cells, size)
                    if vertical
                    else range(line * size, (line + 1) * size)
                )
                line_masks[line, vertical] = sum(cell_masks[cell] for cell in cells)
                shifts = [self._shifts[cell] for cell in cells]
                caches[line, vertical] = _LineConflicts(line, vertical, size, shifts, self._bits)
        slides = []
        for gap in range(self.cells):
            by_cell = {}
            for cell in self._neighbours[gap]:
                vertical = gap // size == cell // size  # along a row: the tile changes columns
                lines = (gap % size, cell % size) if vertical else (gap // size, cell // size)
                effects = [(0, 0, {})]  # the gap never slides
                for tile in range(1, self.cells):
                    goal = (tile - 1) % size if vertical else (tile - 1) // size
                    goal_r, goal_c = divmod(tile - 1, size)
                    change = sum(
                        sign * (abs(at // size - goal_r) + abs(at % size - goal_c))
                        for sign, at in ((1, gap), (-1, cell))
                    )
                    if goal in lines:
                        mask = line_masks[goal, vertical]
                        effects.append((change, mask, caches[goal, vertical]))
                    else:
                        effects.append((change, 0, {}))
                by_cell[cell] = effects
            slides.append(by_cell)
        return slides

    def solve(self) -> list[tuple[int, ...]] | None:
        """The frames of a short solution from the current one (weighted A*), or None."""
        shifts, mask = self._shifts, (1 << self._bits) - 1
        start, goal = self._pack(self.tiles), self._pack(self.solved)
        parents: dict[int, int | None] = {start: None}
        costs = {start: 0}
        estimates = {start: self._heuristic(self.tiles)}
        # Entries are unique up to the frame (a frame is pushed again only at a lower cost),
        # so the gap's cell at the end never takes part in the heap's comparisons.
        frontier = [(estimates[start], 0, start, self.tiles.index(0))]
        expanded = 0
        while frontier and expanded < SOLVER_EXPANSIONS:
            _, cost, frame, gap = heapq.heappop(frontier)
            if frame == goal:
                path = []
                while frame is not None:
                    path.append(self._unpack(frame))
                    frame = parents[frame]
                return path[::-1]
            if cost > costs[frame]:
                continue
            expanded += 1
            h = estimates[frame]
            for cell, effects in self._slides[gap].items():
                tile = frame >> shifts[cell] & mask
                after = frame + (tile << shifts[gap]) - (tile << shifts[cell])
                if cost + 1 < costs.get(after, 1 << 30):
                    costs[after] = cost + 1
                    parents[after] = frame
                    estimate = estimates.get(after)
                    if estimate is None:
                        change, line, conflicts = effects[tile]
                        estimate = h + change
                        if line:
                            estimate += conflicts[after & line] - conflicts[frame & line]
                        estimates[after] = estimate
                    heapq.heappush(
                        frontier, (cost + 1 + HEURISTIC_WEIGHT * estimate, cost + 1, after, cell)
                    )
        return None

    def random_action(self, rng: np.random.Generator) -> str:
        """A random direction."""
        return f"<move>{('up', 'down', 'left', 'right')[int(rng.integers(4))]}</move>"

    def oracle_action(self) -> str:
        """The next tile of a weighted-A* solution (or of the undone scramble)."""
        if self.tiles not in self._plan or not self._searched:
            self._searched = True
            path = self.solve()
            if path is not None:
                self._plan = {
                    before: before[after.index(0)]
                    for before, after in zip(path, path[1:], strict=False)
                }
        tile = self._plan.get(self.tiles)
        if tile is None:
            gap = self.tiles.index(0)
            tile = self.tiles[self._neighbours[gap][0]]
        return f"<move>{tile}</move>"

    # --- views ------------------------------------------------------------------------------------

    def _rows(self) -> list[list[str]]:
        width = len(str(self.cells - 1))
        return [
            [
                str(t).rjust(width) if t else ".".rjust(width)
                for t in self.tiles[r * self.size : (r + 1) * self.size]
            ]
            for r in range(self.size)
        ]

    def board(self) -> str:
        """The compact frame, one row per line."""
        return "\n".join(" ".join(row) for row in self._rows())

    def state_key(self) -> tuple[int, ...]:
        """The tiles, row by row (0 for the gap)."""
        return self.tiles

    def render_text(self) -> str:
        """The frame and the tiles' distance to their places."""
        distance = self.distance(self.tiles)
        return f"{self.board()}\ndistance {distance}, turn {self.turn}/{self.max_moves}"
