"""2048: slide and merge tiles on a 4x4 board until a target tile appears.

The task:
    Every move slides all tiles up, down, left or right; two equal tiles that meet merge
    into their sum. After every move a 2 (90%) or a 4 (10%) appears on a random empty
    cell. The game is won when a tile reaches the level's target, and lost when no move
    changes the board.

Observation:
    The rules, then the board after every move (``.`` for an empty cell) with the
    largest tile so far.

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``up``, ``down``, ``left`` or
    ``right``. A move that changes nothing is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the rise of ``log2`` of the largest tile, as a
        share of the way from 4 to the target (a won game's progress sums to exactly
        `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when the target tile appears; 0 on a loss.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated when the target appears (success), no move is left, or the turn budget
    of the level is spent (every turn counts).

Randomness:
    Tile ``k`` of an episode is placed by the draws ``2k`` and ``2k + 1`` of the seed's
    stream (cell ``floor(u * empty cells)``, a 4 when ``v < 0.1``), so where a tile lands
    depends only on the seed and the board, never on how many moves were tried. Reset
    draws those of every tile the turn budget allows.

Oracle:
    Privileged: it knows the coming tiles (the draws above) and searches every sequence
    of its next `ORACLE_DEPTH` moves exactly, scoring the boards with a monotone-corner
    heuristic.

Arguments:
    level: 1-10; targets 32, 64, 64, 128, 128, 256, 256, 512, 512, 1024.
    target: Overrides the target tile (a power of two from 8 to 2048).
    max_moves: Overrides the turn budget.

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import (
    GameEnv,
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
SIZE = 4
FOUR_CHANCE = 0.1
ORACLE_DEPTH = 3

TARGETS = (32, 64, 64, 128, 128, 256, 256, 512, 512, 1024)
BUDGETS = (60, 100, 100, 160, 160, 300, 300, 600, 600, 1200)

Board = tuple[int, ...]
"""16 exponents, row by row (0 empty, 1 for a 2, 2 for a 4, ...)."""

_LINES = {
    "left": [[r * SIZE + c for c in range(SIZE)] for r in range(SIZE)],
    "right": [[r * SIZE + c for c in reversed(range(SIZE))] for r in range(SIZE)],
    "up": [[r * SIZE + c for r in range(SIZE)] for c in range(SIZE)],
    "down": [[r * SIZE + c for r in reversed(range(SIZE))] for c in range(SIZE)],
}
_READERS = {
    move: tuple(operator.itemgetter(*line) for line in lines) for move, lines in _LINES.items()
}
"""Per move, per line: reads the line's tiles from a board, in the order they slide."""
_MOVES = ("up", "left", "right", "down")
_TILES = tuple(["."] + [str(1 << t) for t in range(1, 18)])


@functools.lru_cache(maxsize=1 << 16)
def _slide(line: tuple[int, ...]) -> tuple[int, ...]:
    """One line slid towards its start, equal neighbours merged once."""
    tiles = [t for t in line if t]
    out: list[int] = []
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(tiles[i] + 1)
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return tuple(out + [0] * (len(line) - len(out)))


def slide(board: Board, move: str) -> Board:
    """The board after sliding it (no new tile)."""
    cells = list(board)
    for line, read in zip(_LINES[move], _READERS[move], strict=True):
        for index, value in zip(line, _slide(read(board)), strict=True):
            cells[index] = value
    return tuple(cells)


def place(board: Board, where: float, four: float) -> Board:
    """The board with a new tile placed by two draws (see Randomness in the module docstring)."""
    empty = [i for i, t in enumerate(board) if not t]
    if not empty:
        return board
    cells = list(board)
    cells[empty[int(where * len(empty))]] = 2 if four < FOUR_CHANCE else 1
    return tuple(cells)


_SNAKE = (0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12)


def heuristic(board: Board) -> float:
    """Tiles along a snake from the top-left corner, weighted by position, plus free cells."""
    score = sum(
        (1 << board[cell]) * (4.0 ** (15 - k)) for k, cell in enumerate(_SNAKE) if board[cell]
    )
    return score + board.count(0) * 4.0**12


class Game2048Env(GameEnv):
    """2048; see the module docstring."""

    game_name = "2048"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("draws", "board", "spawned", "best")

    def __init__(self, level: int = 3, target: int | None = None, max_moves: int | None = None):
        self.level = check_level(level)
        self.target = (
            level_value(level, TARGETS) if target is None else check_int("target", target, 8, 2048)
        )
        if self.target & (self.target - 1):
            raise ValueError(f"target must be a power of two, got {self.target}")
        self.max_moves = (
            check_int("max_moves", max_moves, 1)
            if max_moves is not None
            else level_value(level, BUDGETS)
        )
        self.goal = self.target.bit_length() - 1
        self.rules = (
            "2048. Slide the tiles up, down, left or right; equal tiles that meet merge into their "
            "sum. After each move a 2 or a 4 appears on an empty cell. "
            f"Make a {self.target} tile within {self.max_moves} "
            "turns. A move that changes nothing is illegal.\n"
            "Reply with one move per turn as <move>left</move> (or up, down, right).\n\n"
        )
        self.draws: list[float] = []  # two per tile: where it lands, whether it is a 4
        self.board: Board = (0,) * (SIZE * SIZE)
        self.spawned = 0
        self.best = 1

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        # Every tile the episode can place, drawn now (see Randomness in the module docstring).
        self.draws = self.np_random.random(2 * (self.max_moves + 2)).tolist()
        self.board, self.spawned = (0,) * (SIZE * SIZE), 0
        self._spawn()
        self._spawn()
        self.best = max(self.board)
        return [user(self.rules + self.text())], {"level": self.level, "target": self.target}

    def _spawn(self) -> None:
        k = 2 * self.spawned
        self.board = place(self.board, self.draws[k], self.draws[k + 1])
        self.spawned += 1

    def _phi(self) -> float:
        return min(1.0, max(0.0, (max(self.board) - 2) / (self.goal - 2)))

    def _step(self, action: Message) -> Step:
        try:
            move = parse_direction(parse_move(action.get("content"), example="left"))
            after = slide(self.board, move)
            if after == self.board:
                raise InvalidAction(f"sliding {move} changes nothing; choose another direction")
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        before = self._phi()
        self.board = after
        progress = PROGRESS_REWARD * (self._phi() - before)
        if max(self.board) >= self.goal:
            return self.won(
                f"You made a {self.target} tile!\n{self.text()}",
                reason=f"made {self.target} in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        self._spawn()
        if all(slide(self.board, m) == self.board for m in _MOVES):
            return self.lost(
                f"No move is left; you lose.\n{self.text()}",
                reason="no move left",
                progress=progress,
            )
        text = f"You slid {move}. Turns left: {self.max_moves - self.turn}.\n{self.text()}"
        return self.budgeted(Step([user(text)], {"progress": progress}))

    def random_action(self, rng: np.random.Generator) -> str:
        """A random direction."""
        return f"<move>{('up', 'down', 'left', 'right')[int(rng.integers(4))]}</move>"

    def oracle_action(self) -> str:
        """Exact lookahead over the known coming tiles (see the module docstring)."""
        move = self._search(self.board, self.spawned, ORACLE_DEPTH)[1] or "up"
        return f"<move>{move}</move>"

    def _search(self, board: Board, spawned: int, depth: int) -> tuple[float, str | None]:
        best_value, best_move = -1.0, None
        for move in _MOVES:
            after = slide(board, move)
            if after == board:
                continue
            if max(after) >= self.goal:
                return float("inf"), move
            k = 2 * min(spawned, self.max_moves + 1)  # the episode's last tile at most
            nxt = place(after, self.draws[k], self.draws[k + 1])
            value = heuristic(nxt) if depth == 1 else self._search(nxt, spawned + 1, depth - 1)[0]
            if value > best_value:
                best_value, best_move = value, move
        return best_value, best_move

    def _rows(self) -> list[list[str]]:
        board = self.board
        return [[_TILES[t] for t in board[r * SIZE : (r + 1) * SIZE]] for r in range(SIZE)]

    def text(self) -> str:
        """The compact board: one row per line, cells separated by spaces."""
        rows = "\n".join(" ".join(row) for row in self._rows())
        return f"{rows}\nLargest tile: {1 << max(self.board)}"

    def state_key(self) -> Board:
        """The board's exponents."""
        return self.board

    def render_text(self) -> str:
        """The board with aligned columns."""
        rows = self._rows()
        width = max(len(c) for row in rows for c in row)
        return (
            framed([[c.rjust(width) for c in row] for row in rows])
            + f"\ntarget {self.target}, turn {self.turn}/{self.max_moves}"
        )
