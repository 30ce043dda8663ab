"""FrozenLake: cross a frozen lake from the start to the goal without falling into a hole.

The task:
    A ``size`` x ``size`` lake of ice (``F``) with holes (``H``); the player starts at the
    top-left corner (``S``) and must reach the goal (``G``) at the bottom-right. Lakes are
    drawn from the seed until a safe path exists. On slippery ice (``slippery=True``)
    a move goes the intended way only a third of the time, else to one of the two
    perpendicular sides; the slips come from the seed, one per move.

Observation:
    The rules, then the lake after every move, with ``@`` for the player.

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``up``, ``down``, ``left`` or
    ``right``. Moving off the lake is an illegal move (on slippery ice, a slip towards
    the shore leaves the player in place).

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in the safe-path distance to the goal,
        as a share of the distance at the start (a won episode's progress sums to exactly
        `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` at the goal; 0 in a hole or out of turns.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated at the goal (success), in a hole, or when the turn budget (four times the
    lake's side plus `EXTRA_TURNS`; every turn counts) is spent.

Oracle:
    Walks a shortest safe path. On slippery ice it is privileged: knowing the seeded
    slip of the next move, it picks the move whose slide lands closest to the goal
    (it can still fail there, when every move would slide into a hole).

Arguments:
    level: 1-10; 4x4 to 12x12 lakes with 15% to 30% holes.
    size: Overrides the side (3-20).
    holes: Overrides the share of holes (0-0.5).
    slippery: Slippery ice (default False).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import (
    DIRECTIONS,
    GameEnv,
    Potential,
    check_int,
    check_level,
    framed,
    level_value,
    no_options,
    parse_direction,
    parse_move,
)

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 10

SIZES = (4, 4, 5, 6, 7, 8, 8, 10, 11, 12)
HOLES = (0.15, 0.2, 0.2, 0.2, 0.25, 0.2, 0.3, 0.25, 0.3, 0.3)

_CLOCKWISE = ("up", "right", "down", "left")


@functools.lru_cache(maxsize=32)
def _neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """Per cell of a ``size`` x ``size`` lake, the cells one move away on the lake."""
    return tuple(
        tuple(
            rr * size + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < size and 0 <= cc < size
        )
        for r, c in (divmod(cell, size) for cell in range(size * size))
    )


class FrozenLakeEnv(GameEnv):
    """FrozenLake with seeded lakes and slips; see the module docstring."""

    game_name = "frozen_lake"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("holes", "distance", "slips", "player", "moves", "potential")

    def __init__(
        self,
        level: int = 3,
        size: int | None = None,
        holes: float | None = None,
        slippery: bool = False,
    ):
        self.level = check_level(level)
        self.size = (
            check_int("size", size, 3, 20) if size is not None else level_value(level, SIZES)
        )
        if holes is not None and not (isinstance(holes, (int, float)) and 0 <= holes <= 0.5):
            raise ValueError(f"holes must be a share from 0 to 0.5, got {holes!r}")
        self.hole_share = float(holes) if holes is not None else level_value(level, HOLES)
        if not isinstance(slippery, bool):
            raise ValueError(f"slippery must be True or False, got {slippery!r}")
        self.slippery = slippery
        self.cells = self.size * self.size
        self.max_moves = 4 * self.size + EXTRA_TURNS
        self.goal = self.cells - 1
        self.holes: frozenset[int] = frozenset()
        self.distance: list[int] = []
        self.slips: list[int] = []
        self.player = self.moves = 0
        self.potential = Potential(PROGRESS_REWARD, 1)

    def _distances(self, holes: frozenset[int]) -> list[int]:
        distance = [-1] * self.cells
        distance[self.goal] = 0
        queue = deque([self.goal])
        neighbours = _neighbours(self.size)
        while queue:
            cell = queue.popleft()
            for nxt in neighbours[cell]:
                if nxt not in holes and distance[nxt] < 0:
                    distance[nxt] = distance[cell] + 1
                    queue.append(nxt)
        return distance

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        rng = self.np_random
        for _ in range(1000):
            draws = rng.random(self.cells).tolist()
            holes = frozenset(i for i in range(1, self.cells - 1) if draws[i] < self.hole_share)
            distance = self._distances(holes)
            if distance[0] > 0 and 2 * distance[0] + EXTRA_TURNS <= self.max_moves:
                break
        else:
            raise RuntimeError("no lake with a safe path in 1000 draws; lower the share of holes")
        self.holes, self.distance = holes, distance
        # One slip per move, drawn now: -1 left of the intended way, 0 straight, +1 right.
        self.slips = rng.integers(-1, 2, size=self.max_moves + 1).tolist() if self.slippery else []
        self.player, self.moves = 0, 0
        self.potential = Potential(PROGRESS_REWARD, distance[0])
        ice = (
            " The ice is slippery: a move goes the way you chose only a third of the time, "
            "otherwise to one side."
            if self.slippery
            else ""
        )
        rules = (
            "FrozenLake. Walk from the top-left corner to the goal G "
            f"without stepping into a hole H.{ice} "
            f"You have {self.max_moves} turns.\n"
            "Lake: @ you, F ice, H hole, G goal.\n"
            "Reply with one move per turn as <move>down</move> (or up, left, right).\n\n"
            + self.board()
        )
        return [user(rules)], {"level": self.level, "shortest": distance[0]}

    def _target(self, cell: int, move: str) -> int | None:
        dr, dc = DIRECTIONS[move]
        r, c = divmod(cell, self.size)
        r, c = r + dr, c + dc
        return r * self.size + c if 0 <= r < self.size and 0 <= c < self.size else None

    def _step(self, action: Message) -> Step:
        try:
            move = parse_direction(parse_move(action.get("content"), example="down"))
            if self._target(self.player, move) is None:
                raise InvalidAction(f"moving {move} leaves the lake")
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        actual = move
        if self.slippery:
            actual = _CLOCKWISE[(_CLOCKWISE.index(move) + self.slips[self.moves]) % 4]
        self.moves += 1
        target = self._target(self.player, actual)
        note = f"You moved {move}." if actual == move else f"You slipped {actual}."
        if target is None:
            note += " You bumped against the shore."
        else:
            self.player = target
        if self.player in self.holes:
            return self.lost(
                f"{note} You fell into a hole!\n{self.board()}",
                reason="fell into a hole",
                progress=0.0,
            )
        progress = self.potential.update(self.distance[self.player])
        if self.player == self.goal:
            return self.won(
                f"{note} You reached the goal!\n{self.board()}",
                reason=f"reached the goal in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        text = f"{note} Turns left: {self.max_moves - self.turn}.\n{self.board()}"
        return self.budgeted(Step([user(text)], {"progress": progress}))

    def random_action(self, rng: np.random.Generator) -> str:
        """A random direction."""
        return f"<move>{('up', 'down', 'left', 'right')[int(rng.integers(4))]}</move>"

    def oracle_action(self) -> str:
        """A step along a shortest safe path (privileged about slips on slippery ice).

        On slippery ice it weighs every legal move by where the known slip takes it and
        picks the safe outcome closest to the goal (staying put when nothing is closer).
        """
        slip = self.slips[self.moves] if self.slippery else 0
        best, best_distance = "down", None
        for name in _CLOCKWISE:
            if self._target(self.player, name) is None:
                continue
            actual = _CLOCKWISE[(_CLOCKWISE.index(name) + slip) % 4]
            outcome = self._target(self.player, actual)
            outcome = self.player if outcome is None else outcome
            if outcome in self.holes:
                continue
            if best_distance is None or self.distance[outcome] < best_distance:
                best, best_distance = name, self.distance[outcome]
        return f"<move>{best}</move>"

    def _rows(self) -> list[str]:
        marks = ["F"] * self.cells
        marks[0], marks[self.goal] = "S", "G"
        for cell in self.holes:
            marks[cell] = "H"
        marks[self.player] = "@"
        return ["".join(marks[r * self.size : (r + 1) * self.size]) for r in range(self.size)]

    def board(self) -> str:
        """The compact lake, one row per line."""
        return "\n".join(self._rows())

    def state_key(self) -> int:
        """The player's cell."""
        return self.player

    def render_text(self) -> str:
        """The lake with coordinates."""
        return (
            f"{framed(self._rows())}\nsteps to the goal {self.distance[self.player]}, "
            f"turn {self.turn}/{self.max_moves}"
        )
