"""Sliding puzzle (8- and 15-puzzle), single turn: give a short plan.

Sliding puzzle (8- and 15-puzzle), single turn: give a short sequence of tile moves that
sorts the frame.

The task:
    A frame of n x n cells holds tiles 1 to n^2 - 1 and one gap (``.``). A move slides a
    tile next to the gap into it. The frame is solved when the tiles read 1, 2, 3, ... row
    by row with the gap last. Frames come from the interactive game
    `palaestra.envs.games.sliding_puzzle` (a seeded scramble of the solved frame). On 3x3
    frames (and the first 4x4 level) the answer must be a shortest solution (found by A*
    with an admissible heuristic, certified by an independent bidirectional breadth-first
    search); on the other 4x4 frames it may use at most as many moves as a weighted A*
    solution (at most three times the shortest, in practice about a third longer; frames that
    search cannot solve within its budget are redrawn).

Observation:
    One user message: the frame, the move limit, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the tiles moved, in order,
    separated by spaces or commas (``6 3 2`` slides tile 6, then 3, then 2 into the gap).
    Checked by simulation: every tile next to the gap when moved, the frame solved by the
    last move (not earlier), and no more moves than the limit. Any such solution scores.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a legal solution within the limit, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3x3 frames scrambled by 8 to 24 moves (shortest solution required), then
        4x4 frames scrambled by 24 (shortest solution required) to 50 moves.
    size: Frame side, 2 to 4.
    scramble: Moves of the game's scramble, 1 to 60.
    optimal: Require a shortest solution (else: no longer than a weighted A* solution).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import re

import numpy as np

from palaestra.envs.games.sliding_puzzle import SlidingPuzzleEnv
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.planning._plans import game_env, plan_tokens, run_plan
from palaestra.verdict import Verdict

LEVELS = {
    1: (3, 8),
    2: (3, 12),
    3: (3, 16),
    4: (3, 20),
    5: (3, 24),
    6: (4, 24),
    7: (4, 30),
    8: (4, 36),
    9: (4, 42),
    10: (4, 50),
}
"""(size, scramble) by level."""

_TILE = re.compile(r"\d{1,2}")
MAX_EXPANSIONS = 200_000
HEURISTIC_WEIGHT = 3.0
"""Weight of A* where a shortest solution is not required: the limit is then the length of
a solution at most three times the shortest (in practice about a third longer)."""
WEIGHTED_EXPANSIONS = 2_000
"""Budget of the weighted search; a frame it cannot solve within it is redrawn."""


@dataclasses.dataclass(frozen=True)
class SlidingPlanConfig:
    """Knobs.

    Attributes:
        size: Frame side, 2 to 4.
        scramble: Moves of the scramble, 1 to 60.
        optimal: Require a shortest solution.
    """

    size: int = 3
    scramble: int = 14
    optimal: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 2 <= self.size <= 4:
            raise ValueError(f"size must be an integer from 2 to 4, got {self.size!r}")
        if not isinstance(self.scramble, int) or not 1 <= self.scramble <= 60:
            raise ValueError(f"scramble must be an integer from 1 to 60, got {self.scramble!r}")
        if not isinstance(self.optimal, bool):
            raise ValueError(f"optimal must be True or False, got {self.optimal!r}")


def neighbours(n: int, cell: int) -> list[int]:
    """The cells beside ``cell`` in an n x n frame."""
    r, c = divmod(cell, n)
    return [
        rr * n + cc
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if 0 <= rr < n and 0 <= cc < n
    ]


def slide(n: int, tiles: tuple[int, ...], tile: int) -> tuple[tuple[int, ...], str]:
    """Slides ``tile`` into the gap; an illegal move returns a reason."""
    if not 1 <= tile < n * n:
        return tiles, f"there is no tile {tile}"
    gap, cell = tiles.index(0), tiles.index(tile)
    if cell not in neighbours(n, gap):
        return tiles, f"tile {tile} is not next to the gap"
    out = list(tiles)
    out[gap], out[cell] = tile, 0
    return tuple(out), ""


def solved_frame(n: int) -> tuple[int, ...]:
    """The solved frame."""
    return tuple(range(1, n * n)) + (0,)


def _line_conflict(n: int, tiles: tuple[int, ...], line: int, across: bool) -> int:
    """Extra moves forced by tiles of one line in the wrong order.

    Extra moves forced by tiles of one row (``across``) or column that sit in their goal
    line in the wrong order: two for each tile outside a longest correctly ordered subset.
    """
    cells = tiles[line * n : (line + 1) * n] if across else tiles[line::n]
    return _ordered_conflict(n, cells, line, across)


# A search meets the same few thousand lines of tiles again and again.
@functools.lru_cache(maxsize=1 << 16)
def _ordered_conflict(n: int, cells: tuple[int, ...], line: int, across: bool) -> int:
    """`_line_conflict` of a row (``across``) or column ``line`` whose tiles are ``cells``."""
    if across:
        goals = [(t - 1) % n for t in cells if t and (t - 1) // n == line]
    else:
        goals = [(t - 1) // n for t in cells if t and (t - 1) % n == line]
    if len(goals) < 2:
        return 0
    longest = [1] * len(goals)
    for i in range(len(goals)):
        for j in range(i):
            if goals[j] < goals[i] and longest[j] + 1 > longest[i]:
                longest[i] = longest[j] + 1
    return 2 * (len(goals) - max(longest))


def heuristic(n: int, tiles: tuple[int, ...]) -> int:
    """Manhattan distance plus linear conflicts (admissible: it never overestimates)."""
    total = 0
    for i, t in enumerate(tiles):
        if t:
            total += abs(i // n - (t - 1) // n) + abs(i % n - (t - 1) % n)
    for line in range(n):
        total += _line_conflict(n, tiles, line, True) + _line_conflict(n, tiles, line, False)
    return total


class _LineConflicts(dict):
    """`_ordered_conflict` of one line of packed frames (see `astar_plan`), by its cells' bits."""

    def __init__(self, n: int, line: int, across: bool, shifts: list[int]):
        super().__init__()
        self.n, self.line, self.across, self.shifts = n, line, across, shifts

    def __missing__(self, frame: int) -> int:
        cells = tuple(frame >> shift & 15 for shift in self.shifts)
        found = self[frame] = _ordered_conflict(self.n, cells, self.line, self.across)
        return found


@functools.cache
def _slides(n: int) -> list[list[tuple[int, list[tuple[int, int, dict[int, int]]]]]]:
    """How a move changes `heuristic`, by gap: (a cell beside it, by the tile that slides).

    Each entry is (the change of the tile's Manhattan distance, the bits of the line whose
    conflicts may change or 0, that line's conflicts by its bits). A move changes the
    distance of one tile and at most the conflicts of the two lines it moves between
    (columns for a move along a row, rows for a move along a column), and of those only
    the tile's goal line: conflicts count only the tiles in their goal line.
    """
    shifts = [4 * (n * n - 1 - cell) for cell in range(n * n)]
    lines = {}
    for line in range(n):
        for across in (True, False):
            cells = range(line * n, (line + 1) * n) if across else range(line, n * n, n)
            mask = sum(15 << shifts[cell] for cell in cells)
            cache = _LineConflicts(n, line, across, [shifts[cell] for cell in cells])
            lines[line, across] = (mask, cache)
    slides = []
    for gap in range(n * n):
        by_cell = []
        for cell in neighbours(n, gap):
            across = gap // n != cell // n  # a vertical move changes rows
            moved = (gap // n, cell // n) if across else (gap % n, cell % n)
            effects = [(0, 0, {})]  # the gap never slides
            for tile in range(1, n * n):
                r, c = (tile - 1) // n, (tile - 1) % n
                change = (
                    abs(gap // n - r) + abs(gap % n - c) - abs(cell // n - r) - abs(cell % n - c)
                )
                line = r if across else c
                effects.append((change, *lines[line, across]) if line in moved else (change, 0, {}))
            by_cell.append((cell, effects))
        slides.append(by_cell)
    return slides


def _pack(tiles: tuple[int, ...]) -> int:
    frame = 0
    for tile in tiles:
        frame = frame << 4 | tile
    return frame


def astar_plan(
    n: int, start: tuple[int, ...], weight: float = 1.0, max_expansions: int = MAX_EXPANSIONS
) -> list[int] | None:
    """A solution by (weighted) A*.

    A solution by A* with the admissible heuristic scaled by ``weight`` (1: a shortest
    solution; more: faster, at most ``weight`` times longer), or None past ``max_expansions``.

    Each child's heuristic is its parent's plus the move's change (`_slides`). The search
    packs each frame into one integer, four bits per cell, the first cell in the highest
    bits: integers order as the frames' tuples do (so the heap breaks ties the same way), a
    move is one addition and a frame hashes fast. Both make generating a problem over
    twice as fast.
    """
    shifts = [4 * (n * n - 1 - cell) for cell in range(n * n)]
    slides = _slides(n)
    goal, first = _pack(solved_frame(n)), _pack(start)
    parent: dict[int, tuple[int, int] | None] = {first: None}
    cost = {first: 0}
    h0 = heuristic(n, start)
    # Entries are unique up to the frame (a frame is pushed again only at a lower cost),
    # so the gap's cell at the end never takes part in the heap's comparisons.
    frontier = [(weight * h0, 0, h0, first, start.index(0))]
    expanded = 0
    while frontier and expanded < max_expansions:
        _, g, h, frame, gap = heapq.heappop(frontier)
        if frame == goal:
            plan = []
            while parent[frame] is not None:
                frame, tile = parent[frame]
                plan.append(tile)
            return plan[::-1]
        if g > cost[frame]:
            continue
        expanded += 1
        for cell, effects in slides[gap]:
            tile = frame >> shifts[cell] & 15
            after = frame + (tile << shifts[gap]) - (tile << shifts[cell])
            if g + 1 < cost.get(after, 1 << 30):
                cost[after] = g + 1
                parent[after] = (frame, tile)
                change, line, conflicts = effects[tile]
                if line:
                    change += conflicts[after & line] - conflicts[frame & line]
                heapq.heappush(
                    frontier, (g + 1 + weight * (h + change), g + 1, h + change, after, cell)
                )
    return None


def frame_text(n: int, tiles: tuple[int, ...] | list[int]) -> str:
    """The frame, one row per line, ``.`` for the gap."""
    width = len(str(n * n - 1))
    return "\n".join(
        " ".join((str(t) if t else ".").rjust(width) for t in tiles[r * n : (r + 1) * n])
        for r in range(n)
    )


class SlidingPuzzlePlanTask(Task[SlidingPlanConfig]):
    """Solve a sliding puzzle in few moves."""

    name = "sliding_puzzle_plan"
    Config = SlidingPlanConfig
    unique = False
    # Short scrambles of the 8-puzzle reach few frames: 8 moves at most a few hundred.
    duplicate_allowance = {1: 0.55, 2: 0.15, 3: 0.05}

    @classmethod
    def level_config(cls, level: int) -> SlidingPlanConfig:
        """Longer scrambles, then 4x4 frames; shortest solutions through the first 4x4 level."""
        size, scramble = LEVELS[level]
        return SlidingPlanConfig(size=size, scramble=scramble, optimal=level <= 6)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A scrambled frame of the game; A* gives the plan (weighted unless shortest is asked)."""
        n = self.config.size
        while True:
            env = game_env(SlidingPuzzleEnv, rng, size=n, scramble=self.config.scramble)
            tiles = tuple(env.tiles)
            if self.config.optimal:
                plan = astar_plan(n, tiles)
            else:
                plan = astar_plan(n, tiles, HEURISTIC_WEIGHT, WEIGHTED_EXPANSIONS)
            if plan:
                break
        limit = len(plan)
        rule = (
            "Find a shortest solution: it has exactly the fewest moves possible"
            if self.config.optimal
            else f"Find a solution with at most {limit} moves"
        )
        prompt = (
            f"Sliding puzzle: slide the tiles of this {n}x{n} frame into order, 1 to {n * n - 1} "
            "row by row with the "
            "gap (.) last. A move slides a tile that is next to the gap (above, below, left or "
            "right of it) into "
            f"the gap.\n\n{frame_text(n, tiles)}\n\n{rule}.\n\n"
            "Answer with the numbers of the tiles you slide, in order, separated by spaces (for "
            "example, 6 3 2 "
            f"slides tile 6, then tile 3, then tile 2). {ANSWER_FORMAT}"
        )
        return Problem(
            prompt,
            plan,
            {"size": n, "tiles": list(tiles), "limit": limit, "optimal": self.config.optimal},
        )

    def solve(self, problem: Problem) -> str:
        """The reference plan."""
        return " ".join(map(str, problem.reference))

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Replays the moves: all legal, solved at the end, within the limit."""
        n = problem.data["size"]
        tokens, why = plan_tokens(answer, _TILE, 4 * problem.data["limit"] + 10)
        if tokens is None:
            return self.malformed(answer, problem, why)
        moves = [int(t) for t in tokens]
        goal = solved_frame(n)
        why = run_plan(
            tuple(problem.data["tiles"]),
            moves,
            lambda tiles, t: slide(n, tiles, t),
            lambda tiles: tiles == goal,
        )
        if why:
            return self.wrong(answer, problem, why)
        if len(moves) > problem.data["limit"]:
            return self.wrong(
                answer,
                problem,
                f"{len(moves)} moves, more than the {problem.data['limit']} allowed",
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """An independent check of the reference and its length.

        The reference replayed; for a shortest-solution puzzle, a bidirectional breadth-first
        search (no heuristic) confirms that no shorter solution exists.
        """
        n = problem.data["size"]
        start, goal = tuple(problem.data["tiles"]), solved_frame(n)
        plan = problem.reference
        if (
            run_plan(start, plan, lambda tiles, t: slide(n, tiles, t), lambda tiles: tiles == goal)
            or len(plan) > problem.data["limit"]
        ):
            return Certificate(0)
        if not problem.data["optimal"]:
            return Certificate(1)
        return Certificate(1 if _bidirectional_depth(n, start, goal) == len(plan) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The last move dropped; a tile slid out and back added; the first move changed."""
        n = problem.data["size"]
        plan = problem.reference
        tiles = problem.data["tiles"]
        gap = tiles.index(0)
        other = next(tiles[c] for c in neighbours(n, gap) if tiles[c] != plan[0])
        out = [plan[:-1], [plan[0], plan[0], *plan], [other, *plan[1:]]]
        return [" ".join(map(str, m)) for m in out if m]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: commas, one move per line."""
        plan = [str(t) for t in problem.reference]
        return [", ".join(plan), "\n".join(plan)]

    def work(self, problem: Problem) -> float:
        """Moves of the reference plan."""
        return float(len(problem.reference))


def _bidirectional_depth(n: int, start: tuple[int, ...], goal: tuple[int, ...]) -> int | None:
    """Fewest moves between two frames, growing the smaller of two breadth-first frontiers."""
    if start == goal:
        return 0
    sides = [{start: 0}, {goal: 0}]
    fronts = [[start], [goal]]
    while fronts[0] and fronts[1]:
        k = 0 if len(fronts[0]) <= len(fronts[1]) else 1
        seen, other = sides[k], sides[1 - k]
        nxt = []
        best = None
        for tiles in fronts[k]:
            gap = tiles.index(0)
            for cell in neighbours(n, gap):
                moved = list(tiles)
                moved[gap], moved[cell] = moved[cell], 0
                key = tuple(moved)
                if key in seen:
                    continue
                seen[key] = seen[tiles] + 1
                if key in other:
                    total = seen[key] + other[key]
                    best = total if best is None else min(best, total)
                nxt.append(key)
        if best is not None:
            return best
        fronts[k] = nxt
    return None


class SlidingPuzzlePlanEnv(TaskEnv):
    """Solve a sliding puzzle in few moves; see the module docstring."""

    task_class = SlidingPuzzlePlanTask
