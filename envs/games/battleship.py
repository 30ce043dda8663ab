"""Battleship against a built-in opponent: sink the hidden fleet before yours is sunk.

The task:
    Each player has a fleet placed at random (from the seed) on their own square grid,
    ships straight and not overlapping. Players take
    turns firing at a cell of the other grid and hear "miss", "hit" or "hit, sunk".
    Whoever first hits every cell of the other fleet wins. The learner fires first
    unless ``seat`` says otherwise.

Observation:
    The rules, then after each turn both shots and two grids: the target grid (``X`` hit,
    ``o`` miss, ``.`` untried) and your own fleet (``S`` ship, ``X`` hit, ``o`` miss).

Action:
    The last ``<move>...</move>`` after any ``</think>``: a cell, ``<move>c4</move>`` (also
    ``fire c4``). A cell already fired at is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the share of the enemy fleet's cells this shot
        hit (a won game's progress sums to exactly `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` for a win, `LOSS_REWARD` for a loss (also for forfeiting
        by invalid actions).
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or repeated shot.
    The best return is 1.0 and ``success`` means a win.

Episode end:
    Terminated when a fleet is sunk.

Opponents (``opponent``, by level):
    ``random`` (levels 1-3): any untried cell. ``hunt`` (4-6): fires around unsunk hits,
    otherwise at random cells of a checkerboard. ``density`` (7-10): fires at the cell
    the most ship placements consistent with what it saw would cover.

Oracle:
    Privileged: it knows where the enemy ships are and never misses, firing next to its
    earlier hits first. Firing first, it always wins.

Arguments:
    level: 1-10; from a 5x5 grid with ships of 3 and 2 to a 10x10 grid with 5, 4, 3,
        3, 2, and the opponent's strength.
    opponent: Overrides the opponent.
    size: Overrides the grid side (4-12); ships: overrides the fleet (ship lengths).
    seat: ``"first"`` (default), ``"second"`` or ``"random"``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import VsOpponent

from ._common import check_int, check_level, column_label, level_value, parse_cell
from ._twoplayer import TurnBasedGame, board_picture, pick

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
LOSS_REWARD = -0.5

LEVELS = (
    (5, (3, 2)),
    (5, (3, 2, 2)),
    (6, (3, 2, 2)),
    (6, (4, 3, 2)),
    (7, (4, 3, 2)),
    (8, (4, 3, 3, 2)),
    (8, (5, 4, 3, 2)),
    (9, (5, 4, 3, 3, 2)),
    (10, (5, 4, 3, 3, 2)),
    (10, (5, 4, 3, 3, 2)),
)
OPPONENTS_BY_LEVEL = ("random",) * 3 + ("hunt",) * 3 + ("density",) * 4


class Battleship(TurnBasedGame):
    """Battleship in the multi-agent form (player_0 fires first)."""

    game_name = "battleship"
    example_move = "c4"
    state_attrs = ("fleets", "shots", "mover")
    invalid_action_penalty = INVALID_ACTION_PENALTY
    outcome_rewards = (WIN_REWARD, 0.0, LOSS_REWARD)
    forfeit_rewards = (WIN_REWARD, LOSS_REWARD)

    def __init__(
        self, size: int = 6, ships: tuple[int, ...] = (3, 2, 2), max_invalid: int | None = 3
    ):
        super().__init__(max_invalid)
        self.size = check_int("size", size, 4, 12)
        if not ships or not all(isinstance(s, int) and 1 <= s <= self.size for s in ships):
            raise ValueError(f"ships must be lengths from 1 to {self.size}, got {ships!r}")
        if sum(ships) * 2 > self.size * self.size:
            raise ValueError(
                f"a fleet of {sum(ships)} cells does not fit a {self.size}x{self.size} grid; "
                "use fewer ships"
            )
        self.ship_lengths = tuple(sorted(ships, reverse=True))
        self.total = sum(self.ship_lengths)
        self.fleets: list[list[frozenset[int]]] = [[], []]
        self.shots: list[set[int]] = [set(), set()]  # shots[i]: cells player i fired at
        self._last_hit = False
        fleet = ", ".join(map(str, self.ship_lengths))
        self.rules = (
            f"Battleship on a {self.size}x{self.size} grid. Each side has ships of lengths "
            f"{fleet}, hidden from the other. Players take turns firing at a cell of the other's "
            "grid; the first to hit every cell of the other fleet wins.\n"
            "Target grid: X hit, o miss, . untried. Your fleet: S ship, X hit, o miss.\n"
            "Reply with one shot per turn as <move>c4</move>."
        )

    def _place(self) -> list[frozenset[int]]:
        rng, size = self.np_random, self.size
        for _ in range(1000):
            taken: set[int] = set()
            ships = []
            for length in self.ship_lengths:
                for _ in range(200):
                    horizontal = bool(rng.integers(2))
                    r = int(rng.integers(size if horizontal else size - length + 1))
                    c = int(rng.integers(size - length + 1 if horizontal else size))
                    step = 1 if horizontal else size
                    cells = frozenset(range(r * size + c, (r * size + c) + step * length, step))
                    if not cells & taken:
                        ships.append(cells)
                        taken |= cells
                        break
                else:
                    break
            if len(ships) == len(self.ship_lengths):
                return ships
        raise RuntimeError("could not place the fleet; use a larger grid or fewer ships")

    def start(self) -> None:
        """Places both fleets at random; player 1 fires first."""
        self.fleets = [self._place(), self._place()]
        self.shots, self.mover = [set(), set()], 0

    def seat_name(self, agent: str) -> str:
        """The seat as the rules name it (``player 1`` or ``player 2``)."""
        return f"player {self.possible_agents.index(agent) + 1}"

    def _index(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def parse_move(self, agent: str, move: str) -> int:
        """A cell not yet fired at, from ``c4`` or ``fire c4``, or raise `InvalidAction`."""
        row, column = parse_cell(move.removeprefix("fire").strip(), self.size, self.size)
        cell = row * self.size + column
        if cell in self.shots[self._index(agent)]:
            raise InvalidAction(
                f"you already fired at {move.removeprefix('fire').strip()}; choose an untried cell"
            )
        return cell

    def _name(self, cell: int) -> str:
        return f"{column_label(cell % self.size)}{cell // self.size + 1}"

    def apply(self, agent: str, move: int) -> str:
        """Fires at the cell; returns it with ``hit``, ``miss`` or the ship sunk."""
        me = self._index(agent)
        self.shots[me].add(move)
        self._last_hit = False
        for ship in self.fleets[1 - me]:
            if move in ship:
                self._last_hit = True
                sunk = ship <= self.shots[me]
                return f"{self._name(move)}: hit" + (
                    f", sunk a ship of {len(ship)}" if sunk else ""
                )
        return f"{self._name(move)}: miss"

    def round_parts(self, agent: str) -> dict[str, dict[str, float]]:
        """A share of `PROGRESS_REWARD` to the shooter for a hit."""
        return {agent: {"progress": PROGRESS_REWARD / self.total if self._last_hit else 0.0}}

    def _hits(self, shooter: int) -> set[int]:
        return {cell for ship in self.fleets[1 - shooter] for cell in ship} & self.shots[shooter]

    def result(self) -> tuple[str | None, str] | None:
        """The first side to hit every cell of the other fleet wins."""
        for index in (0, 1):
            if all(ship <= self.shots[index] for ship in self.fleets[1 - index]):
                return self.possible_agents[index], "sank the whole fleet"
        return None

    def view(self, agent: str) -> str:
        """The agent's shots at the other fleet, then its own fleet and the shots at it."""
        me = self._index(agent)
        enemy_cells = {c for ship in self.fleets[1 - me] for c in ship}
        own_cells = {c for ship in self.fleets[me] for c in ship}
        target = ["."] * (self.size * self.size)
        for cell in self.shots[me]:
            target[cell] = "X" if cell in enemy_cells else "o"
        own = ["."] * (self.size * self.size)
        for cell in own_cells:
            own[cell] = "S"
        for cell in self.shots[1 - me]:
            own[cell] = "X" if cell in own_cells else "o"
        grid = board_picture(self.size, self.size)
        return f"Target grid:\n{grid.format(*target)}\nYour fleet:\n{grid.format(*own)}"

    def legal_moves(self, agent: str) -> list[int]:
        """The cells the agent has not fired at."""
        fired = self.shots[self._index(agent)]
        return [c for c in range(self.size * self.size) if c not in fired]

    def move_text(self, agent: str, move: int) -> str:
        """The cell as ``<move>c4</move>``."""
        return f"<move>{self._name(move)}</move>"

    def _around(self, cell: int) -> list[int]:
        r, c = divmod(cell, self.size)
        return [
            rr * self.size + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < self.size and 0 <= cc < self.size
        ]

    def oracle_move(self, agent: str) -> int:
        """Privileged: an unhit enemy ship cell, next to an earlier hit when there is one."""
        me = self._index(agent)
        targets = sorted({c for ship in self.fleets[1 - me] for c in ship} - self.shots[me])
        hits = self._hits(me)
        near = [c for c in targets if any(n in hits for n in self._around(c))]
        return (near or targets)[0]

    def state_key(self) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """Both sides' shots and the mover."""
        return (tuple(sorted(self.shots[0])), tuple(sorted(self.shots[1])), self.mover)

    # --- what an opponent may know ----------------------------------------------------------------

    def open_hits(self, agent: str) -> set[int]:
        """Hits of ``agent`` on enemy ships not yet sunk."""
        me = self._index(agent)
        return {
            c
            for ship in self.fleets[1 - me]
            if not ship <= self.shots[me]
            for c in ship & self.shots[me]
        }

    def unsunk_lengths(self, agent: str) -> list[int]:
        """Lengths of the enemy ships ``agent`` has not sunk (the game announces sinkings)."""
        me = self._index(agent)
        return [len(ship) for ship in self.fleets[1 - me] if not ship <= self.shots[me]]


def random_opponent(game: Battleship, agent: str) -> int:
    """Any untried cell."""
    return pick(game, game.legal_moves(agent))


def hunt_opponent(game: Battleship, agent: str) -> int:
    """Fires around unsunk hits, otherwise at random untried cells of a checkerboard."""
    untried = set(game.legal_moves(agent))
    around = sorted({n for hit in game.open_hits(agent) for n in game._around(hit)} & untried)
    if around:
        return pick(game, around)
    checker = sorted(c for c in untried if (c // game.size + c % game.size) % 2 == 0)
    return pick(game, checker or sorted(untried))


def density_opponent(game: Battleship, agent: str) -> int:
    """The untried cell most placements of the unsunk ships would cover (random among equals).

    A placement over a miss or a sunk ship is out; one over open hits weighs 1 + 20 per
    hit, the others 1, and while there are open hits only placements over them count.
    """
    cells = game.size * game.size
    me = game._index(agent)
    misses = game.shots[me] - {c for ship in game.fleets[1 - me] for c in ship}
    sunk = {c for ship in game.fleets[1 - me] if ship <= game.shots[me] for c in ship}
    blocked = np.zeros(cells, dtype=bool)
    blocked[list(misses | sunk)] = True
    hits = game.open_hits(agent)
    is_hit = np.zeros(cells, dtype=bool)
    is_hit[list(hits)] = True
    counts = np.zeros(cells, dtype=np.int64)
    for length in game.unsunk_lengths(agent):
        placed = _placements(game.size, length)
        on_hits = is_hit[placed].sum(axis=1)
        fits = ~blocked[placed].any(axis=1) & ((on_hits > 0) if hits else True)
        weights = np.repeat(1 + 20 * on_hits[fits], length)
        counts += np.bincount(placed[fits].ravel(), weights, minlength=cells).astype(np.int64)
    counts[list(game.shots[me])] = 0
    top = int(counts.max())
    if top == 0:
        return random_opponent(game, agent)
    return pick(game, np.flatnonzero(counts == top).tolist())


# The density opponent weighs every placement of every unsunk ship at each of its turns:
# laying them out anew, cell by cell in Python, was most of an episode's time.
@functools.cache
def _placements(size: int, length: int) -> np.ndarray:
    """The cells of every straight placement of a ship of ``length``: ``(placements, length)``."""
    across = [
        [r * size + c + k for k in range(length)]
        for r in range(size)
        for c in range(size - length + 1)
    ]
    down = [
        [(r + k) * size + c for k in range(length)]
        for r in range(size - length + 1)
        for c in range(size)
    ]
    return np.array(across + down, dtype=np.int64).reshape(-1, length)


Battleship.opponents = {
    "random": random_opponent,
    "hunt": hunt_opponent,
    "density": density_opponent,
}


class BattleshipEnv(VsOpponent):
    """Battleship against a built-in opponent; see the module docstring."""

    def __init__(
        self,
        level: int = 3,
        opponent: str | None = None,
        size: int | None = None,
        ships: list[int] | tuple[int, ...] | None = None,
        seat: str = "first",
    ):
        self.level = check_level(level)
        default_size, default_ships = level_value(level, LEVELS)
        game = Battleship(
            size or default_size, tuple(ships) if ships is not None else default_ships
        )
        super().__init__(game, opponent or level_value(level, OPPONENTS_BY_LEVEL), seat)

    def best_return(self) -> float:
        """Every enemy cell hit, and the win."""
        return PROGRESS_REWARD + WIN_REWARD
