"""Rush Hour: free the red car in the fewest moves.

Rush Hour: slide cars and trucks on a 6x6 lot until the red car reaches the exit, in the
fewest moves.

The task:
    A 6x6 grid holds vehicles two (cars) or three (trucks) cells long, each lying across or
    along the grid and able to slide only that way. The red car ``X`` lies on the third row;
    the exit is at the right end of that row. A move slides one vehicle any number of free
    cells forward or back. The answer is a plan with the fewest moves that brings ``X`` to
    the right edge. Puzzles are drawn as random lots; a breadth-first search over the lot's
    positions, backwards from every solved position, picks the start farthest from a
    solution (within the level's range), and an independent forward search certifies the
    fewest moves.

Observation:
    One user message: the grid (``.`` empty, one letter per vehicle) and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the moves in order, separated
    by spaces or commas; a move is the vehicle's letter, a direction ``U``, ``D``, ``L`` or
    ``R`` and the number of cells, e.g. ``AU2`` (case-insensitive). Checked by simulation:
    every slide along the vehicle's axis through free cells, ``X`` at the exit after the last
    move and not before, and no more moves than the fewest possible. Any shortest plan
    scores.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a legal shortest plan, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 13 or 14 vehicles besides X (dense lots hold the hard puzzles), and starts
        whose shortest plan has 2 (level 1) to 11 (level 10) moves, or the most found within
        a search budget proportional to that number.
    vehicles: Number of vehicles besides X, 1 to 14.
    min_moves: Fewest moves the start must need (the farthest start of several lots is
        taken when no lot reaches it).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Iterable

import numpy as np
from palaestra.envs.tasks._plans import plan_tokens, run_plan
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv

from palaestra.verdict import Verdict

SIZE = 6
EXIT_ROW = 2
LEVELS = {
    1: (14, 2),
    2: (14, 3),
    3: (13, 4),
    4: (14, 4),
    5: (14, 5),
    6: (14, 6),
    7: (14, 7),
    8: (14, 8),
    9: (14, 9),
    10: (14, 11),
}
"""(vehicles besides X, fewest moves at least) by level."""

LOTS = 60
"""Random lots tried for a start far enough from a solution (the farthest found is taken)."""
BUDGET_PER_MOVE = 2_500
"""Positions the search may visit per move asked for, over all lots; past it, the farthest
start found so far is taken. It bounds the generator's time at every level."""
MAX_STATES = 4_000
"""Lots with more positions than this are skipped (sparse lots are large and mostly easy)."""
PAD = SIZE
SLIDES = (-4, -3, -2, -1, 1, 2, 3, 4)
"""The signed distances a vehicle may slide in one move."""
BLOCKED = 1 << 40
"""A bit outside the lot's 36 cells: marks positions off the lot in the mask table."""

_MOVE = re.compile(r"[a-z][udlr][1-5]", re.IGNORECASE)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVW"


@dataclasses.dataclass(frozen=True)
class RushHourConfig:
    """Knobs.

    Attributes:
        vehicles: Vehicles besides the red car, 1 to 14.
        min_moves: Fewest moves the start must need, 1 to 30.
    """

    vehicles: int = 8
    min_moves: int = 6

    def __post_init__(self) -> None:
        if not isinstance(self.vehicles, int) or not 1 <= self.vehicles <= 14:
            raise ValueError(f"vehicles must be an integer from 1 to 14, got {self.vehicles!r}")
        if not isinstance(self.min_moves, int) or not 1 <= self.min_moves <= 30:
            raise ValueError(f"min_moves must be an integer from 1 to 30, got {self.min_moves!r}")


@dataclasses.dataclass(frozen=True)
class Vehicle:
    """A vehicle of the lot.

    A vehicle: its letter, whether it lies across (along a row), its length, and the row
    (across) or column (along a column) it moves in.
    """

    name: str
    across: bool
    length: int
    lane: int


def cells(vehicle: Vehicle, position: int) -> list[int]:
    """The cells (row * 6 + column) a vehicle covers from ``position`` (its lowest index)."""
    if vehicle.across:
        return [vehicle.lane * SIZE + position + i for i in range(vehicle.length)]
    return [(position + i) * SIZE + vehicle.lane for i in range(vehicle.length)]


def occupied(vehicles: list[Vehicle], state: tuple[int, ...]) -> list[int]:
    """Which vehicle (index) covers each cell, -1 where none."""
    grid = [-1] * (SIZE * SIZE)
    for k, (vehicle, position) in enumerate(zip(vehicles, state, strict=False)):
        for cell in cells(vehicle, position):
            grid[cell] = k
    return grid


def _masks(vehicle: Vehicle) -> tuple[int, ...]:
    """The cells a vehicle covers at each position, as bitmasks."""
    return tuple(sum(1 << c for c in cells(vehicle, p)) for p in range(SIZE - vehicle.length + 1))


def slides(
    vehicles: list[Vehicle], state: tuple[int, ...], masks: list[tuple[int, ...]] | None = None
) -> list[tuple[int, int, tuple[int, ...]]]:
    """Every move (vehicle index, signed distance) and the state it leads to."""
    masks = masks or [_masks(v) for v in vehicles]
    taken = 0
    for m, position in zip(masks, state, strict=False):
        taken |= m[position]
    out = []
    for k, position in enumerate(state):
        own = masks[k]
        others = taken & ~own[position]
        for sign in (-1, 1):
            end = position + sign
            while 0 <= end < len(own) and not own[end] & others:
                out.append((k, end - position, state[:k] + (end,) + state[k + 1 :]))
                end += sign
    return out


def solved(state: tuple[int, ...]) -> bool:
    """The red car (vehicle 0) touches the right edge."""
    return state[0] == SIZE - 2


def _placements() -> list[tuple[Vehicle, int, int]]:
    """Every way to put a vehicle on the lot (a vehicle, its position, its cells as a bitmask).

    No vehicle lies across the exit row: one to the right of X could never let it out.
    """
    out = []
    for across in (True, False):
        for length in (2, 3):
            for lane in range(SIZE):
                if across and lane == EXIT_ROW:
                    continue
                vehicle = Vehicle("", across, length, lane)
                for position in range(SIZE - length + 1):
                    out.append((vehicle, position, sum(1 << c for c in cells(vehicle, position))))
    return out


PLACEMENTS = _placements()


def random_lot(
    count: int, rng: np.random.Generator
) -> tuple[list[Vehicle], tuple[int, ...]] | None:
    """X on the exit row and ``count`` more vehicles, each drawn among the placements that fit.

    A quarter of the vehicles are trucks (while a truck still fits); None when the lot fills
    up before ``count`` vehicles are placed.
    """
    vehicles = [Vehicle("X", True, 2, EXIT_ROW)]
    positions = [int(rng.integers(0, SIZE - 2))]
    taken = sum(1 << c for c in cells(vehicles[0], positions[0]))
    for k in range(count):
        free = [p for p in PLACEMENTS if not p[2] & taken]
        if not free:
            return None
        truck = bool(rng.random() < 0.25)
        pool = [p for p in free if (p[0].length == 3) == truck] or free
        vehicle, position, mask = pool[int(rng.integers(len(pool)))]
        vehicles.append(dataclasses.replace(vehicle, name=LETTERS[k]))
        positions.append(position)
        taken |= mask
    return vehicles, tuple(positions)


@functools.cache
def _tables(across: bool, length: int, lane: int) -> tuple[np.ndarray, np.ndarray]:
    """A vehicle's rows of `Lot`'s ``masks`` and ``sweep`` tables (computed once per placement)."""
    own = _masks(Vehicle("", across, length, lane))
    masks = np.full(SIZE + 2 * PAD, BLOCKED, dtype=np.int64)
    masks[PAD : PAD + len(own)] = own
    sweep = np.full((SIZE, len(SLIDES)), BLOCKED, dtype=np.int64)
    for j, d in enumerate(SLIDES):
        for p in range(len(own)):
            end = p + d
            if 0 <= end < len(own):
                path = range(p + 1, end + 1) if d > 0 else range(end, p)
                sweep[p, j] = _union(own[q] for q in path)
    return masks, sweep


def _union(masks: Iterable[int]) -> int:
    """The union of bitmasks."""
    out = 0
    for m in masks:
        out |= m
    return out


class Lot:
    """The positions of a lot's vehicles, searched in bulk.

    The positions of a lot's vehicles searched in bulk: a position is one integer (three
    bits per vehicle), and a whole layer of a breadth-first search moves at once in numpy.

    Attributes:
        vehicles: The vehicles, X first.
    """

    def __init__(self, vehicles: list[Vehicle]):
        self.vehicles = vehicles
        self.count = len(vehicles)
        self.shift = np.arange(self.count, dtype=np.int64) * 3
        self.rows = np.arange(self.count)
        self.visited = 0
        # masks[k, p + PAD]: cells of vehicle k at position p; off-lot positions hold only
        # the BLOCKED bit, which every vehicle's obstacles include, so they never fit.
        # sweep[k, p, j]: the cells vehicle k crosses sliding SLIDES[j] from position p (only
        # BLOCKED if that leaves the lot); delta[k, j]: the change of the position's code.
        tables = [_tables(v.across, v.length, v.lane) for v in vehicles]
        self.masks = np.stack([t[0] for t in tables])
        self.sweep = np.stack([t[1] for t in tables])
        self.delta = np.array(SLIDES, dtype=np.int64)[None, :] << self.shift[:, None]

    def encode(self, state: tuple[int, ...]) -> int:
        """A position as one integer."""
        return sum(p << (3 * k) for k, p in enumerate(state))

    def decode(self, code: int) -> tuple[int, ...]:
        """The inverse of `encode`."""
        return tuple((code >> (3 * k)) & 7 for k in range(self.count))

    def expand(self, codes: np.ndarray) -> np.ndarray:
        """Every position one slide away from any of ``codes`` (sorted, unique)."""
        positions = (codes[:, None] >> self.shift) & 7
        own = self.masks[self.rows, positions + PAD]
        taken = np.bitwise_or.reduce(own, axis=1)
        others = (taken[:, None] & ~own) | BLOCKED
        free = (self.sweep[self.rows, positions] & others[:, :, None]) == 0
        states, movers, kinds = np.nonzero(free)
        return np.unique(codes[states] + self.delta[movers, kinds])

    def layers(self, sources: np.ndarray, cap: int) -> list[np.ndarray] | None:
        """Breadth-first layers from ``sources`` (None past ``cap`` positions in all).

        Every slide can be undone, so the positions one slide from layer d lie in layers
        d - 1, d and d + 1: the layer before and this one are all a step must rule out.
        """
        layers = [np.unique(sources)]
        before = layers[0][:0]
        total = len(layers[0])
        self.visited += total
        while True:
            nxt = self.expand(layers[-1])
            nxt = nxt[~np.isin(nxt, np.concatenate((before, layers[-1])))]
            if not len(nxt):
                return layers
            total += len(nxt)
            self.visited += len(nxt)
            if total > cap:
                return None
            before = layers[-1]
            layers.append(nxt)


def distances(lot: Lot, start: tuple[int, ...], cap: int = MAX_STATES) -> list[np.ndarray] | None:
    """The lot's positions sorted by distance to a solution.

    The positions of the lot reachable from ``start`` by fewest moves to a solution (layer
    d holds those d moves away), or None past ``cap`` positions or when X can never get out.

    The positions are listed first; a breadth-first search from every solved one then sorts
    them by distance (moves can be undone).
    """
    found = lot.layers(np.array([lot.encode(start)], dtype=np.int64), cap)
    if found is None:
        return None
    every = np.concatenate(found)
    goals = every[(every & 7) == SIZE - 2]
    if not len(goals):
        return None
    return lot.layers(goals, cap)


def shortest_plan(lot: Lot, layers: list[np.ndarray], start: int) -> list[tuple[int, int]]:
    """A shortest plan from ``start``.

    A shortest plan from ``start``, read off layers grown from the solved positions: each
    step slides into the next layer down.
    """
    masks = [_masks(v) for v in lot.vehicles]
    state = lot.decode(start)
    path = [state]
    depth = next(d for d, layer in enumerate(layers) if start in set(layer.tolist()))
    for closer in reversed(layers[:depth]):
        codes = set(closer.tolist())
        state = next(
            after
            for _, _, after in slides(lot.vehicles, state, masks)
            if lot.encode(after) in codes
        )
        path.append(state)
    moves = []
    for before, after in zip(path, path[1:], strict=False):
        k = next(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
        moves.append((k, after[k] - before[k]))
    return moves


def move_text(vehicle: Vehicle, distance: int) -> str:
    """``AU2``: the letter, the direction and the number of cells."""
    if vehicle.across:
        direction = "R" if distance > 0 else "L"
    else:
        direction = "D" if distance > 0 else "U"
    return f"{vehicle.name}{direction}{abs(distance)}"


def draw(vehicles: list[Vehicle], state: tuple[int, ...]) -> list[str]:
    """The lot, one row per line."""
    grid = occupied(vehicles, state)
    return [
        "".join(
            vehicles[grid[r * SIZE + c]].name if grid[r * SIZE + c] >= 0 else "."
            for c in range(SIZE)
        )
        for r in range(SIZE)
    ]


def read_lot(rows: list[str]) -> tuple[list[Vehicle], tuple[int, ...]]:
    """Vehicles and positions from a drawn lot."""
    found: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch != ".":
                found.setdefault(ch, []).append((r, c))
    vehicles, positions = [], []
    for name in ["X", *sorted(n for n in found if n != "X")]:
        spots = found[name]
        across = len({r for r, _ in spots}) == 1
        vehicles.append(Vehicle(name, across, len(spots), spots[0][0] if across else spots[0][1]))
        positions.append(min(c for _, c in spots) if across else min(r for r, _ in spots))
    return vehicles, tuple(positions)


class RushHourTask(Task[RushHourConfig]):
    """Free the red car in the fewest moves."""

    name = "rush_hour"
    Config = RushHourConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> RushHourConfig:
        """More vehicles, starts farther from a solution."""
        vehicles, min_moves = LEVELS[level]
        return RushHourConfig(vehicles=vehicles, min_moves=min_moves)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random dense lot and a start in it the level's number of moves from a solution."""
        target = self.config.min_moves
        budget, spent = BUDGET_PER_MOVE * target, 0
        best = None
        for attempt in itertools.count():
            if best is not None and (attempt >= LOTS or spent > budget):
                break
            # A lot too crowded to place or to free X gets one vehicle fewer every LOTS draws.
            lot = random_lot(max(1, self.config.vehicles - attempt // LOTS), rng)
            if lot is None:
                continue
            vehicles, drawn = lot
            searched = Lot(vehicles)
            # Every position of the drawn lot, sorted by distance to a solution.
            layers = distances(searched, drawn)
            spent += searched.visited
            if layers is None:
                continue
            at = min(target, len(layers) - 1)
            if best is None or at > best[3]:
                code = int(layers[at][int(rng.integers(len(layers[at])))])
                best = (
                    vehicles,
                    searched.decode(code),
                    shortest_plan(searched, layers, code),
                    at,
                )
            if at >= target:
                break
        vehicles, start, moves, fewest = best
        plan = [move_text(vehicles[k], d) for k, d in moves]
        rows = draw(vehicles, start)
        prompt = (
            "Rush Hour on a 6x6 lot. Each letter is a vehicle (a car covers 2 cells, a truck 3); a "
            "vehicle lying "
            "across the lot slides only left and right, one lying along it only up and down, "
            "through empty cells "
            "(.). The exit is at the right end of row 3, where the red car X lies.\n\n"
            + "\n".join(rows)
            + "\n\n"
            "Slide vehicles until X touches the right edge, in the fewest moves possible (sliding "
            "one vehicle any "
            "number of cells counts as one move).\n\nAnswer with the moves in order, separated by "
            "spaces; write each "
            "move as the vehicle's letter, the direction U, D, L or R, and the number of cells "
            "(for example, AU2 XR3 "
            f"slides A up 2 cells, then X right 3). {ANSWER_FORMAT}"
        )
        return Problem(prompt, plan, {"rows": rows, "fewest": fewest})

    def solve(self, problem: Problem) -> str:
        """A breadth-first shortest plan."""
        return " ".join(problem.reference)

    @staticmethod
    def _apply(
        vehicles: list[Vehicle], state: tuple[int, ...], move: str
    ) -> tuple[tuple[int, ...], str]:
        names = [v.name for v in vehicles]
        name, direction, distance = move[0].upper(), move[1].upper(), int(move[2])
        if name not in names:
            return state, f"there is no vehicle {name}"
        k = names.index(name)
        vehicle = vehicles[k]
        if (direction in "LR") != vehicle.across:
            return (
                state,
                f"{name} cannot move {direction}: it slides "
                f"{'left and right' if vehicle.across else 'up and down'}",
            )
        signed = distance if direction in "RD" else -distance
        for _, d, after in slides(vehicles, state):
            if (
                after[k] == state[k] + signed
                and d == signed
                and after[:k] == state[:k]
                and after[k + 1 :] == state[k + 1 :]
            ):
                return after, ""
        return (
            state,
            f"{name} cannot slide {distance} cell(s) {direction}: the way is blocked or leaves the "
            "lot",
        )

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Replays the plan: every slide legal, X out at the end (not before), fewest moves."""
        tokens, why = plan_tokens(answer, _MOVE, 4 * problem.data["fewest"] + 10)
        if tokens is None:
            return self.malformed(answer, problem, why)
        vehicles, start = read_lot(problem.data["rows"])
        why = run_plan(start, tokens, lambda s, m: self._apply(vehicles, s, m), solved)
        if why:
            return self.wrong(answer, problem, why)
        if len(tokens) > problem.data["fewest"]:
            return self.wrong(
                answer, problem, f"{len(tokens)} moves, but {problem.data['fewest']} suffice"
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """An independent forward breadth-first search over grids.

        A forward breadth-first search over grids (cell by cell, not the generator's
        position vectors) confirms the fewest moves; the reference is replayed.
        """
        rows = problem.data["rows"]
        start = "".join(rows)
        depth = {start: 0}
        layer = [start]
        found = None
        while layer and found is None:
            nxt = []
            for grid in layer:
                if grid[EXIT_ROW * SIZE + SIZE - 1] == "X":
                    found = depth[grid]
                    break
                for after in _grid_moves(grid):
                    if after not in depth:
                        depth[after] = depth[grid] + 1
                        nxt.append(after)
            layer = nxt
        vehicles, state = read_lot(rows)
        valid = not run_plan(
            state, list(problem.reference), lambda s, m: self._apply(vehicles, s, m), solved
        )
        return Certificate(
            1 if valid and found == len(problem.reference) == problem.data["fewest"] else 0
        )

    def mutations(self, problem: Problem) -> list[str]:
        """The last move dropped; a slide and its undoing added; the last slide one cell short."""
        plan = problem.reference
        last = plan[-1]
        back = {"L": "R", "R": "L", "U": "D", "D": "U"}
        short = last[:2] + str(int(last[2]) - 1) if last[2] != "1" else None
        out = [plan[:-1], [plan[0], plan[0][0] + back[plan[0][1]] + plan[0][2], *plan]]
        if short:
            out.append([*plan[:-1], short])
        return [" ".join(m) for m in out if m]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: lower case, commas, one move per line."""
        plan = problem.reference
        return [" ".join(plan).lower(), ", ".join(plan), "\n".join(plan)]

    def work(self, problem: Problem) -> float:
        """Moves of the shortest plan."""
        return float(problem.data["fewest"])


def _grid_moves(grid: str) -> list[str]:
    """Every grid one slide away, found by scanning each vehicle's cells on the drawn grid."""
    out = []
    seen: set[str] = set()
    for _index, ch in enumerate(grid):
        if ch == "." or ch in seen:
            continue
        seen.add(ch)
        spots = [i for i, c in enumerate(grid) if c == ch]
        step = 1 if spots[1] - spots[0] == 1 else SIZE
        for sign in (-1, 1):
            moved = list(spots)
            while True:
                head = (moved[-1] if sign > 0 else moved[0]) + sign * step
                if (
                    step == 1
                    and head // SIZE != spots[0] // SIZE
                    or not 0 <= head < SIZE * SIZE
                    or grid[head] != "."
                ):
                    break
                moved = [i + sign * step for i in moved]
                cells_ = list(grid)
                for i in spots:
                    cells_[i] = "."
                for i in moved:
                    cells_[i] = ch
                out.append("".join(cells_))
    return out


class RushHourEnv(TaskEnv):
    """Free the red car; see the module docstring."""

    task_class = RushHourTask
