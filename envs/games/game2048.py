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
"""Per move, the cells of each line, in the order its tiles slide."""
_MOVES = ("up", "left", "right", "down")
_TILES = tuple(["."] + [str(1 << t) for t in range(1, 18)])


@functools.lru_cache(maxsize=1 << 12)
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


# The oracle's search slides 84 boards per move. It works on boards packed into an int, 4 bits
# a cell (cell i at bits 4i to 4i + 3, so row r is bits 16r to 16r + 15), and slides or scores
# a whole row by one lookup in tables built once per process at its first search (about 0.3 s
# and 20 MB), which makes the slow test's oracle episodes about 2.5x cheaper. The env's own
# moves slide the tuple board line by line, as the rules read. Tiles fit in 4 bits: the
# largest target is 2**11, so no two tiles of 2**15 ever merge (the tables' rows where they
# would are junk).

_ROW = 0xFFFF
_LOW_BITS = 0x1111_1111_1111_1111
"""The lowest bit of every cell."""


def _pack(board: Board) -> int:
    return sum(t << 4 * i for i, t in enumerate(board))


def _unpack(packed: int) -> Board:
    return tuple(packed >> 4 * i & 15 for i in range(SIZE * SIZE))


@functools.cache
def _slide_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    """Per packed row, one table per direction of `_MOVES`: the row slid.

    Slid towards its first cell, as column 0 of a board (up) and as row 0 (left); towards its
    last cell, as row 0 (right) and as column 0 (down).
    """
    slide_line = _slide.__wrapped__  # 65,536 rows would only churn its cache
    up, left, right, down = [], [], [], []
    for row in range(1 << 16):
        a, b, c, d = slide_line((row & 15, row >> 4 & 15, row >> 8 & 15, row >> 12))
        up.append(a | b << 16 | c << 32 | d << 48)
        left.append(a | b << 4 | c << 8 | d << 12)
        d, c, b, a = slide_line((row >> 12, row >> 8 & 15, row >> 4 & 15, row & 15))
        right.append(a | b << 4 | c << 8 | d << 12)
        down.append(a | b << 16 | c << 32 | d << 48)
    return up, left, right, down


def _transpose(board: int) -> int:
    """Rows become columns: swaps the cells across each 2x2 block's diagonal, then the blocks."""
    board = (
        board & 0xF0F0_0F0F_F0F0_0F0F
        | (board & 0x0000_F0F0_0000_F0F0) << 12
        | (board & 0x0F0F_0000_0F0F_0000) >> 12
    )
    return (
        board & 0xFF00_FF00_00FF_00FF
        | (board & 0x00FF_00FF_0000_0000) >> 24
        | (board & 0x0000_0000_FF00_FF00) << 24
    )


def _successors(board: int) -> tuple[int, int, int, int]:
    """The packed board slid in each direction of `_MOVES`.

    Its columns are looked up as the rows of the transposed board.
    """
    up, left, right, down = _slide_tables()
    r0, r1, r2, r3 = board & _ROW, board >> 16 & _ROW, board >> 32 & _ROW, board >> 48
    columns = _transpose(board)
    c0, c1, c2, c3 = columns & _ROW, columns >> 16 & _ROW, columns >> 32 & _ROW, columns >> 48
    return (
        up[c0] | up[c1] << 4 | up[c2] << 8 | up[c3] << 12,
        left[r0] | left[r1] << 16 | left[r2] << 32 | left[r3] << 48,
        right[r0] | right[r1] << 16 | right[r2] << 32 | right[r3] << 48,
        down[c0] | down[c1] << 4 | down[c2] << 8 | down[c3] << 12,
    )


def slide(board: Board, move: str) -> Board:
    """The board after sliding it (no new tile)."""
    cells = list(board)
    for line in _LINES[move]:
        for index, value in zip(line, _slide(tuple(board[i] for i in line)), strict=True):
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


def _cells_of(board: int, tile: int) -> int:
    """The cells of a packed board that hold ``tile``, as the lowest bit of each."""
    differ = board ^ tile * _LOW_BITS
    differ |= differ >> 1
    differ |= differ >> 2
    return ~differ & _LOW_BITS


def _placed(board: int, where: float, four: float) -> int:
    """`place` on a packed board."""
    empty = _cells_of(board, 0)
    if not empty:
        return board
    for _ in range(int(where * empty.bit_count())):
        empty &= empty - 1  # drop the first empty cell
    return board | (2 if four < FOUR_CHANCE else 1) * (empty & -empty)


_SNAKE = (0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12)


def heuristic(board: Board) -> float:
    """Tiles along a snake from the top-left corner, weighted by position, plus free cells."""
    score = sum(
        (1 << board[cell]) * (4.0 ** (15 - k)) for k, cell in enumerate(_SNAKE) if board[cell]
    )
    return score + board.count(0) * 4.0**12


@functools.cache
def _score_tables() -> tuple[list[int], ...]:
    """Per row of the board, per packed row: the row's share of `heuristic`.

    As ints: the terms are powers of two from 2 to below 2**53, so every sum is exact, as it
    is in floats, and compares as `heuristic` does.
    """
    tables = []
    for r in range(SIZE):
        terms = [
            [1 << (t + 30 - 2 * _SNAKE.index(r * SIZE + c)) if t else 4**12 for t in range(16)]
            for c in range(SIZE)
        ]
        tables.append(
            [a + b + c + d for d in terms[3] for c in terms[2] for b in terms[1] for a in terms[0]]
        )
    return tuple(tables)


def _score(board: int) -> int:
    """`heuristic` of a packed board."""
    s0, s1, s2, s3 = _score_tables()
    return s0[board & _ROW] + s1[board >> 16 & _ROW] + s2[board >> 32 & _ROW] + s3[board >> 48]


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
        move = self._search(_pack(self.board), self.spawned, ORACLE_DEPTH)[1] or "up"
        return f"<move>{move}</move>"

    def _search(self, board: int, spawned: int, depth: int) -> tuple[float, str | None]:
        best_value, best_move = -1.0, None
        k = 2 * min(spawned, self.max_moves + 1)  # the episode's last tile at most
        where, four = self.draws[k], self.draws[k + 1]
        # The search's boards hold no tile above the goal; one appears by merging two below it.
        can_win = _cells_of(board, self.goal - 1).bit_count() > 1
        for move, after in zip(_MOVES, _successors(board), strict=True):
            if after == board:
                continue
            if can_win and _cells_of(after, self.goal):
                return float("inf"), move
            nxt = _placed(after, where, four)
            value = _score(nxt) if depth == 1 else self._search(nxt, spawned + 1, depth - 1)[0]
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
