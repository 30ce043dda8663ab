"""Rush Hour: free the red car in the fewest moves.

Rush Hour: slide cars and trucks on a 6x6 lot until the red car reaches the exit, in the
fewest moves.

The task:
    A 6x6 grid holds vehicles two (cars) or three (trucks) cells long, each lying across or
    along the grid and able to slide only that way. The red car ``X`` lies on the third row;
    the exit is at the right end of that row. A move slides one vehicle any number of free
    cells forward or back. The answer is a plan with the fewest moves that brings ``X`` to
    the right edge. Puzzles are drawn as random lots, many at once, and searched together
    breadth-first: a lot whose drawn start is the level's number of moves (or a few more)
    from a solution gives the start that many moves before the end of a shortest plan;
    failing that for a few batches, the solvable lots are searched whole, backwards from
    every solved position. An independent forward search certifies the fewest moves.

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
import operator
import re
from collections.abc import Iterator

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.planning._plans import plan_tokens, run_plan
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

BATCH = 48
"""Random lots drawn and searched together (a layer of the search moves every lot at once)."""
LOTS = 4 * BATCH
"""Lots drawn, none of them solvable, before a lot gets one vehicle fewer."""
BUDGET_PER_MOVE = 6_000
"""Positions the search may visit per move asked for, over all lots; past it, the farthest
start found so far is taken. It bounds the generator's time at every level."""
MAX_STATES = 4_000
"""Lots with more positions than this are dropped (sparse lots are large and mostly easy)."""
PAD = SIZE
SLIDES = (-4, -3, -2, -1, 1, 2, 3, 4)
"""The signed distances a vehicle may slide in one move."""
BLOCKED = 1 << 40
"""A bit outside the lot's 36 cells: marks positions off the lot in the mask table."""
LOT_SHIFT = 48
"""A searched position's code holds its lot's index from this bit up (15 vehicles use 45)."""
TRUCKS = 0.25
"""The chance that a drawn vehicle is a truck (while a truck still fits)."""
REACH = 3
"""How many moves past the asked number a drawn start may be from a solution and still serve."""
ROUNDS = 4
"""Batches searched from their starts alone before the solvable lots are also searched whole."""

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


def _kinds() -> list[Vehicle]:
    """Every kind of vehicle by where it can go: X first, then across and along each lane.

    No vehicle lies across the exit row but X: one to the right of X could never let it out.
    """
    out = [Vehicle("X", True, 2, EXIT_ROW)]
    for across in (True, False):
        for length in (2, 3):
            for lane in range(SIZE):
                if not (across and lane == EXIT_ROW):
                    out.append(Vehicle("", across, length, lane))
    return out


def _sweeps(vehicle: Vehicle) -> np.ndarray:
    """The cells a vehicle crosses sliding each of `SLIDES` from each position.

    Only the BLOCKED bit where the slide would leave the lot.
    """
    own = _masks(vehicle)
    sweep = np.full((SIZE, len(SLIDES)), BLOCKED, dtype=np.int64)
    for p, (j, d) in itertools.product(range(len(own)), enumerate(SLIDES)):
        if 0 <= p + d < len(own):
            path = range(p + 1, p + d + 1) if d > 0 else range(p + d, p)
            sweep[p, j] = functools.reduce(operator.or_, (own[q] for q in path))
    return sweep


KINDS = _kinds()
# KIND_MASKS[kind, p + PAD]: the cells a vehicle of that kind covers at position p; positions
# off the lot hold only the BLOCKED bit, which every vehicle's obstacles include, so they never
# fit. KIND_SWEEPS[kind, p, j]: the cells it crosses sliding SLIDES[j] from position p.
KIND_MASKS = np.full((len(KINDS), SIZE + 2 * PAD), BLOCKED, dtype=np.int64)
for _kind, _vehicle in enumerate(KINDS):
    KIND_MASKS[_kind, PAD : PAD + SIZE - _vehicle.length + 1] = _masks(_vehicle)
KIND_SWEEPS = np.stack([_sweeps(v) for v in KINDS])
# Every way to put a vehicle other than X on the lot: its kind, position and cells.
PLACE_KIND, PLACE_AT = (
    np.array(column, dtype=np.int64)
    for column in zip(
        *(
            (kind, p)
            for kind, vehicle in enumerate(KINDS[1:], start=1)
            for p in range(SIZE - vehicle.length + 1)
        ),
        strict=True,
    )
)
PLACE_MASK = KIND_MASKS[PLACE_KIND, PLACE_AT + PAD]
KIND_ALONG = np.array([not v.across for v in KINDS])
KIND_LENGTH = np.array([v.length for v in KINDS])
KIND_LANE = np.array([v.lane for v in KINDS])
PLACE_TRUCK = np.array([KINDS[k].length == 3 for k in PLACE_KIND])


def random_lots(count: int, lots: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random lots: X on the exit row and ``count`` more vehicles, all lots drawn at once.

    Each vehicle is drawn among the placements that fit, a truck with chance `TRUCKS` while
    one still fits. Returns the kinds and the positions of the vehicles (one row per lot, X
    first) of the lots where all ``count`` vehicles fit, less those plainly `jammed`.
    """
    x = rng.integers(0, SIZE - 2, size=lots)
    chance = rng.random((2, count, lots))
    taken = KIND_MASKS[0, x + PAD]
    placed = np.ones(lots, dtype=bool)
    chosen = np.empty((lots, count), dtype=np.int64)
    for k in range(count):
        fits = (PLACE_MASK & taken[:, None]) == 0
        liked = fits & (PLACE_TRUCK == (chance[0, k] < TRUCKS)[:, None])
        pool = np.where(liked.any(axis=1)[:, None], liked, fits)
        sizes = pool.sum(axis=1)
        placed &= sizes > 0
        # The pick-th (from 0) placement of the pool: the first whose running count passes it.
        pick = (chance[1, k] * sizes).astype(np.int64)
        chosen[:, k] = np.argmax(np.cumsum(pool, axis=1) > pick[:, None], axis=1)
        taken |= np.where(placed, PLACE_MASK[chosen[:, k]], 0)
    kinds = np.column_stack((np.zeros(lots, dtype=np.int64), PLACE_KIND[chosen]))
    positions = np.column_stack((x, PLACE_AT[chosen]))
    keep = placed & ~jammed(kinds, positions)
    return kinds[keep], positions[keep]


def jammed(kinds: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Lots where X can never get out, told by the vehicles along the columns ahead of it.

    The vehicles along a column keep their order, and to clear the exit row they must fit in
    the two cells above it (room for one car) and the three below. So a column ahead of X
    whose vehicles cover more than three cells blocks X for good unless the top one is a car
    and they cover at most five. (Jammed lots this misses are found by the search.)
    """
    along, length, lane = KIND_ALONG[kinds], KIND_LENGTH[kinds], KIND_LANE[kinds]
    out = np.zeros(len(kinds), dtype=bool)
    for column in range(SIZE):
        here = along & (lane == column)
        cover = (length * here).sum(axis=1)
        top = np.where(here, positions, SIZE).argmin(axis=1)
        car_on_top = length[np.arange(len(kinds)), top] == 2
        ahead = column >= positions[:, 0] + 2
        out |= ahead & (cover > 3) & ~(car_on_top & (cover <= 5))
    return out


class Lots:
    """The positions of many lots, searched together.

    A position is one integer (three bits per vehicle, the lot's index from `LOT_SHIFT` up),
    and a whole layer of a breadth-first search, over every lot, moves at once in numpy.

    Attributes:
        kinds: The kinds (indices into `KINDS`) of each lot's vehicles, one row per lot.
        alive: Which lots are still searched (a lot past `MAX_STATES` positions is dropped).
        visited: Positions visited so far, over all searches.
    """

    def __init__(self, kinds: np.ndarray):
        self.kinds = kinds
        self.alive = np.ones(len(kinds), dtype=bool)
        self.visited = 0
        self.shift = np.arange(kinds.shape[1], dtype=np.int64) * 3
        # delta[k, j]: the change of a position's code when vehicle k slides SLIDES[j].
        self.delta = np.array(SLIDES, dtype=np.int64)[None, :] << self.shift[:, None]
        # Where each vehicle's rows start in the flattened KIND_MASKS and KIND_SWEEPS.
        self.mask_at = kinds * KIND_MASKS.shape[1] + PAD
        self.sweep_at = kinds * SIZE

    def encode(self, positions: np.ndarray) -> np.ndarray:
        """Each lot's positions (one row per lot) as codes."""
        lots = np.arange(len(positions), dtype=np.int64)
        return (positions << self.shift).sum(axis=1) | (lots << LOT_SHIFT)

    def vehicles(self, lot: int) -> list[Vehicle]:
        """A lot's vehicles, named: X, then A, B, ..."""
        names = ["X", *LETTERS]
        return [
            dataclasses.replace(KINDS[kind], name=names[k])
            for k, kind in enumerate(self.kinds[lot].tolist())
        ]

    def expand(self, codes: np.ndarray) -> np.ndarray:
        """Every position one slide away from any of ``codes`` (sorted, unique)."""
        lots = codes >> LOT_SHIFT
        positions = (codes[:, None] >> self.shift) & 7
        own = KIND_MASKS.reshape(-1)[self.mask_at[lots] + positions]
        taken = np.bitwise_or.reduce(own, axis=1)
        others = (taken[:, None] & ~own) | BLOCKED
        sweeps = KIND_SWEEPS.reshape(-1, len(SLIDES))[self.sweep_at[lots] + positions]
        free = (sweeps & others[:, :, None]) == 0
        moves = np.flatnonzero(free)
        after = codes[moves // self.delta.size] + self.delta.reshape(-1)[moves % self.delta.size]
        after.sort()
        return after[np.concatenate(([True], after[1:] != after[:-1]))] if len(after) else after

    def layers(self, sources: np.ndarray, cap: int | None = None) -> Iterator[np.ndarray]:
        """Breadth-first layers from ``sources``, each sorted, over the lots still `alive`.

        A lot past ``cap`` positions is dropped, and so is one the caller drops between layers.
        Every slide can be undone, so the positions one slide from layer d lie in layers
        d - 1, d and d + 1: the layer before and this one are all a step must rule out.
        """
        layer = np.unique(sources)
        before = layer[:0]
        seen = np.zeros(len(self.kinds), dtype=np.int64)
        while len(layer):
            if cap is not None:
                seen += np.bincount(layer >> LOT_SHIFT, minlength=len(seen))
                self.alive &= seen <= cap
            layer = layer[self.alive[layer >> LOT_SHIFT]]
            self.visited += len(layer)
            yield layer
            layer = layer[self.alive[layer >> LOT_SHIFT]]
            after = self.expand(layer)
            after = after[~(_among(after, before) | _among(after, layer))]
            before, layer = layer, after

    def walk(self, code: int, layers: list[np.ndarray]) -> list[int]:
        """A path from ``code`` stepping into each of ``layers`` in turn (last one first)."""
        path = [code]
        for layer in reversed(layers):
            after = self.expand(np.array([path[-1]], dtype=np.int64))
            path.append(int(after[_among(after, layer)][0]))
        return path


def _among(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Which of ``values`` are in ``codes`` (sorted)."""
    if not len(codes):
        return np.zeros(len(values), dtype=bool)
    return codes[np.searchsorted(codes, values).clip(max=len(codes) - 1)] == values


def far_start(lots: Lots, starts: np.ndarray, depth: int) -> tuple[list[int] | None, np.ndarray]:
    """A shortest path to a solution from the first start at least ``depth`` moves from one.

    The path from the first (fewest moves, then drawing order) lot whose start is ``depth``
    to ``depth + REACH`` moves from a solution, or None; and which lots' starts are nearer.
    A forward breadth-first search from every start at once, where a lot leaves once its
    start is found nearer (or once past `MAX_STATES` positions).
    """
    near = np.zeros(len(starts), dtype=bool)
    layers: list[np.ndarray] = []
    for moves, layer in enumerate(lots.layers(starts, MAX_STATES)):
        goals = layer[(layer & 7) == SIZE - 2]
        if len(goals) and moves >= depth:
            return lots.walk(int(goals[0]), layers)[::-1], near
        if moves >= depth + REACH:
            break
        near[goals >> LOT_SHIFT] = True
        lots.alive &= ~near
        layers.append(layer)
    return None, near


def distances(lots: Lots, starts: np.ndarray, depth: int) -> list[np.ndarray]:
    """The positions of every lot sorted by distance to a solution, up to ``depth`` moves.

    Layer d holds the positions, reachable from a lot's start, that are d moves from a
    solution; the layers stop after ``depth`` or when every position is placed. The positions
    are listed first (dropping the lots past `MAX_STATES`); a breadth-first search from every
    solved one then sorts them by distance (moves can be undone).
    """
    if not len(starts):
        return []
    every = np.concatenate(list(lots.layers(starts, MAX_STATES)))
    found = []
    for layer in lots.layers(every[(every & 7) == SIZE - 2]):
        found.append(layer)
        if len(found) > depth:
            break
    return found


def moves_of(path: list[int]) -> list[tuple[int, int]]:
    """The slides (vehicle, signed distance) along a path of codes."""
    out = []
    for code, step in itertools.pairwise(path):
        k = ((code ^ step).bit_length() - 1) // 3
        out.append((k, ((step >> (3 * k)) & 7) - ((code >> (3 * k)) & 7)))
    return out


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
        """A random dense lot and a start in it the level's number of moves from a solution.

        Lots are drawn and searched `BATCH` at a time. The first lot whose drawn start is far
        enough from a solution gives the instance (the position ``min_moves`` before the end
        of a shortest plan). Failing that, the lots found solvable are searched whole, and the
        first with a position ``min_moves`` from a solution gives it; past the search budget,
        the farthest start found so far is taken.
        """
        target = self.config.min_moves
        budget, spent, rounds, in_vain = BUDGET_PER_MOVE * target, 0, 0, 0
        best: tuple[Lots, list[int]] | None = None
        while best is None or (len(best[1]) <= target and spent <= budget):
            # Lots too crowded to place or to free X get one vehicle fewer every LOTS draws.
            count = max(1, self.config.vehicles - in_vain // LOTS)
            kinds, positions = random_lots(count, BATCH, rng)
            lots = Lots(kinds)
            path, near = far_start(lots, lots.encode(positions), target)
            spent += lots.visited
            rounds += 1
            if path is not None:
                best = (lots, path[-target - 1 :])
                break
            if rounds < ROUNDS:
                continue
            # The lots whose start is nearer: every position of them, sorted by distance.
            lots = Lots(kinds[near])
            layers = distances(lots, lots.encode(positions[near]), target)
            spent += lots.visited
            if best is None and not layers:
                in_vain += BATCH
            if layers and (best is None or len(layers) > len(best[1])):
                farthest = layers[-1]
                lot = farthest[(farthest >> LOT_SHIFT) == (farthest[0] >> LOT_SHIFT)]
                code = int(lot[int(rng.integers(len(lot)))])
                best = (lots, lots.walk(code, layers[:-1]))
        lots, path = best
        vehicles = lots.vehicles(path[0] >> LOT_SHIFT)
        start = tuple((path[0] >> (3 * k)) & 7 for k in range(len(vehicles)))
        plan = [move_text(vehicles[k], d) for k, d in moves_of(path)]
        fewest = len(plan)
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
