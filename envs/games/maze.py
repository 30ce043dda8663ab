"""Maze: walk from the start to the goal of a seeded labyrinth.

The task:
    A maze of ``size`` x ``size`` rooms is carved by a seeded depth-first search (one path
    between any two rooms), then a share of walls is knocked out to make loops. The
    player starts in a room and must reach the goal, placed in the room farthest away.

Observation:
    The rules, then the map after every move: ``#`` wall, ``_`` open, ``@`` the player,
    ``G`` the goal. With a ``view`` radius, cells farther than that many rooms from the
    player are shown as ``?`` (a fog that lifts where the player has been).

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``up``, ``down``, ``left`` or
    ``right`` (one room). Walking into a wall is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in the shortest-path distance to the
        goal, as a share of the distance at the start (telescoping: a solved episode's
        progress sums to exactly `PROGRESS_REWARD`; detours cost what they later repay).
    ``outcome``: `WIN_REWARD` on reaching the goal; 0 otherwise.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated at the goal (success) or when the turn budget is spent: twice the
    shortest path plus `EXTRA_TURNS` (every turn counts).

Arguments:
    level: 1-10; 4x4 to 15x15 rooms, fewer loops, and from level 8 a fog of radius 2.
    size: Overrides the rooms per side (2-30).
    loops: Overrides the share of inner walls knocked out after carving (0-1).
    view: Overrides the fog radius in rooms (None: the whole map).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
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

SIZES = (4, 5, 6, 7, 8, 9, 10, 11, 13, 15)
LOOPS = (0.2, 0.2, 0.15, 0.15, 0.1, 0.1, 0.05, 0.05, 0.0, 0.0)
VIEWS = (None, None, None, None, None, None, None, 2, 2, 2)

_OPEN_MARKS = bytes.maketrans(b"\x00\x01", b"#_")
"""Map marks of a wall (0) and an open cell (1)."""


@dataclasses.dataclass(frozen=True)
class _Layout:
    """The fixed geometry of a maze of ``size`` x ``size`` rooms on its grid of cells."""

    cells: tuple[int, ...]
    """The grid cell of each room (rooms numbered row by row)."""
    neighbours: tuple[tuple[int, ...], ...]
    """Each room's neighbouring rooms: up, down, left, right."""
    walls: tuple[int, ...]
    """The inner walls between two rooms, in grid order."""
    links: tuple[tuple[tuple[int, int], ...], ...]
    """Per grid cell of a room, ``(wall, room cell)`` of each neighbour."""
    rooms: bytes
    """The grid with every room open and every wall closed."""


@functools.cache
def _layout(size: int) -> _Layout:
    """The `_Layout` of ``size`` x ``size`` rooms, built once per size."""
    side = 2 * size + 1
    cells = tuple((2 * r + 1) * side + 2 * c + 1 for r in range(size) for c in range(size))
    neighbours = tuple(
        tuple(
            rr * size + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < size and 0 <= cc < size
        )
        for r in range(size)
        for c in range(size)
    )
    walls = tuple(
        i
        for i in range(side * side)
        if 0 < i // side < side - 1 and 0 < i % side < side - 1 and (i // side + i % side) % 2
    )
    links: list[tuple[tuple[int, int], ...]] = [()] * (side * side)
    rooms = bytearray(side * side)
    for room, cell in enumerate(cells):
        links[cell] = tuple(((cell + cells[n]) // 2, cells[n]) for n in neighbours[room])
        rooms[cell] = 1
    return _Layout(cells, neighbours, walls, tuple(links), bytes(rooms))


class MazeEnv(GameEnv):
    """A seeded labyrinth; see the module docstring."""

    game_name = "maze"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("open", "goal", "distance", "max_moves", "player", "seen", "potential")

    def __init__(
        self,
        level: int = 3,
        size: int | None = None,
        loops: float | None = None,
        view: int | None | str = "level",
    ):
        self.level = check_level(level)
        self.size = (
            check_int("size", size, 2, 30) if size is not None else level_value(level, SIZES)
        )
        if loops is not None and not (isinstance(loops, (int, float)) and 0 <= loops <= 1):
            raise ValueError(f"loops must be a share from 0 to 1, got {loops!r}")
        self.loops = float(loops) if loops is not None else level_value(level, LOOPS)
        if view == "level":
            view = level_value(level, VIEWS)
        self.view = None if view is None else check_int("view", view, 1, 30)
        self.side = 2 * self.size + 1
        self.open = bytearray()
        self.player = self.goal = 0
        self.distance: list[int] = []
        self.seen = bytearray()  # 1 for each cell seen (with a ``view``)
        self.potential = Potential(PROGRESS_REWARD, 1)

    def _carve(self) -> bytearray:
        rng = self.np_random
        size = self.size
        layout = _layout(size)
        cells, neighbours = layout.cells, layout.neighbours
        grid = bytearray(layout.rooms)  # the search visits every room
        start = int(rng.integers(size * size))
        visited = bytearray(size * size)
        visited[start] = 1
        stack = [start]
        draws = rng.random(4 * size * size).tolist()
        k = 0
        while stack:
            room = stack[-1]
            options = [n for n in neighbours[room] if not visited[n]]
            if not options:
                stack.pop()
                continue
            nxt = options[int(draws[k] * len(options))]
            k += 1
            visited[nxt] = 1
            grid[(cells[room] + cells[nxt]) // 2] = 1  # the wall between them
            stack.append(nxt)
        closed = [wall for wall in layout.walls if not grid[wall]]
        if self.loops and closed:
            knock = rng.random(len(closed)).tolist()
            for wall, draw in zip(closed, knock, strict=True):
                if draw < self.loops:
                    grid[wall] = 1
        return grid

    def _bfs(self, source: int) -> list[int]:
        """Rooms-apart distance from ``source`` to every open cell (-1: unreachable)."""
        links = _layout(self.size).links
        distance = [-1] * (self.side * self.side)
        distance[source] = 0
        queue = deque([source])
        while queue:
            cell = queue.popleft()
            for wall, room in links[cell]:
                if self.open[wall] and distance[room] < 0:
                    distance[room] = distance[cell] + 1
                    queue.append(room)
        return distance

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self.open = self._carve()
        rooms = _layout(self.size).cells
        self.player = rooms[int(self.np_random.integers(len(rooms)))]
        from_player = self._bfs(self.player)
        self.goal = max(rooms, key=from_player.__getitem__)  # the first of the farthest
        self.distance = self._bfs(self.goal)
        start = self.distance[self.player]
        self.max_moves = 2 * start + EXTRA_TURNS
        self.potential = Potential(PROGRESS_REWARD, start)
        self.seen = bytearray(self.side * self.side)
        self._look()
        fog = f" You see only {self.view} rooms around you (? is unexplored)." if self.view else ""
        rules = (
            "Maze. Walk from @ to G. "
            f"Each move goes one room up, down, left or right; # is a wall.{fog} "
            f"You have {self.max_moves} turns.\n"
            "Reply with one move per turn as <move>up</move> (or down, left, right).\n\n"
            + self.board()
        )
        return [user(rules)], {"level": self.level, "shortest": start}

    def _look(self) -> None:
        if self.view is None:
            return
        reach = 2 * self.view + 1
        pr, pc = divmod(self.player, self.side)
        first, last = max(0, pc - reach), min(self.side, pc + reach + 1)
        for r in range(max(0, pr - reach), min(self.side, pr + reach + 1)):
            self.seen[r * self.side + first : r * self.side + last] = b"\x01" * (last - first)

    def _step(self, action: Message) -> Step:
        try:
            move = parse_direction(parse_move(action.get("content"), example="up"))
            dr, dc = DIRECTIONS[move]
            step = dr * self.side + dc
            if not self.open[self.player + step]:
                raise InvalidAction(f"there is a wall {move} of you")
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        self.player += 2 * step
        self._look()
        progress = self.potential.update(self.distance[self.player])
        if self.player == self.goal:
            return self.won(
                f"You reached the goal!\n{self.board()}",
                reason=f"reached the goal in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        text = f"You moved {move}. Turns left: {self.max_moves - self.turn}.\n{self.board()}"
        return self.budgeted(Step([user(text)], {"progress": progress}))

    def random_action(self, rng: np.random.Generator) -> str:
        """A random direction."""
        return f"<move>{('up', 'down', 'left', 'right')[int(rng.integers(4))]}</move>"

    def oracle_action(self) -> str:
        """A step along a shortest path (BFS distances from the goal)."""
        for name, (dr, dc) in DIRECTIONS.items():
            step = dr * self.side + dc
            if (
                self.open[self.player + step]
                and self.distance[self.player + 2 * step] == self.distance[self.player] - 1
            ):
                return f"<move>{name}</move>"
        return "<move>up</move>"

    def _rows(self) -> list[str]:
        marks = bytearray(self.open.translate(_OPEN_MARKS))
        marks[self.goal] = ord("G")
        marks[self.player] = ord("@")
        if self.view is not None:  # every step draws the map: numpy, not a loop over cells
            seen = np.frombuffer(self.seen, np.uint8)
            marks = np.where(seen, np.frombuffer(marks, np.uint8), ord("?")).astype(np.uint8)
            marks = marks.tobytes()
        text = marks.decode("ascii")
        return [text[start : start + self.side] for start in range(0, len(text), self.side)]

    def board(self) -> str:
        """The compact map, one row per line."""
        return "\n".join(self._rows())

    def state_key(self) -> int:
        """The player's cell."""
        return self.player

    def render_text(self) -> str:
        """The map with coordinates."""
        return (
            f"{framed(self._rows(), labels=False)}\n"
            f"rooms to the goal {self.distance[self.player]}, turn {self.turn}/{self.max_moves}"
        )
