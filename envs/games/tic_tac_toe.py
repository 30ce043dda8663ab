"""Tic-tac-toe against a built-in opponent (or, in the multi-agent form, another policy).

The task:
    Two players take turns marking a free cell of a 3x3 grid, X first; three marks in a
    row, column or diagonal win; a full grid without a line is a draw. The learner's
    seat is drawn from the seed (X or O) unless ``seat`` says otherwise.

Observation:
    The rules and the grid (``X``, ``O``, ``.`` free; columns a-c, rows 1-3), then after
    each turn both moves and the grid.

Action:
    The last ``<move>...</move>`` after any ``</think>``: a free cell, ``b2`` (or its number
    1-9, row by row). A taken cell is an illegal move.

Reward (``info["reward_parts"]``):
    ``outcome``: `WIN_REWARD` (1) for a win, `DRAW_REWARD` (0) for a draw, `LOSS_REWARD`
        (-1) for a loss (also for forfeiting by invalid actions).
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    Perfect play by both sides draws, so the best return guaranteed against every
    opponent is 0 (`best_return`), and ``success`` means the learner did not lose.

Episode end:
    Terminated at a win, a loss or a draw (at most 5 moves of the learner).

Opponents (``opponent``, by level):
    ``random`` (levels 1-3): any free cell. ``greedy`` (4-6): wins when it can, blocks
    when it must, else a random cell. ``minimax`` (7-10): perfect play, a random choice
    among the best moves.

Oracle:
    Perfect play by memoized minimax, preferring the fastest win (and the slowest
    loss), ties broken centre, corners, edges: it never loses and wins whenever the
    opponent errs in a way perfect play can punish.

Arguments:
    level: 1-10, the opponent's strength.
    opponent: Overrides the opponent (``random``, ``greedy``, ``minimax``).
    seat: ``"random"``, ``"first"`` (X) or ``"second"`` (O).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import VsOpponent

from ._common import check_level, column_label, level_value, parse_cell
from ._twoplayer import (
    DRAW_REWARD,
    LOSS_REWARD,
    WIN_REWARD,
    TurnBasedGame,
    board_picture,
    pick,
)

__all__ = ["DRAW_REWARD", "LOSS_REWARD", "WIN_REWARD", "TicTacToe", "TicTacToeEnv"]

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)
OPPONENTS_BY_LEVEL = ("random",) * 3 + ("greedy",) * 3 + ("minimax",) * 4


def winner_of(board: str) -> str | None:
    """``"X"`` or ``"O"`` when that mark holds a line, else None."""
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@functools.cache
def value(board: str, mark: str) -> int:
    """The minimax value for ``mark`` to move: +(10 - moves) for a win, 0 a draw, < 0 a loss."""
    if winner_of(board) is not None:
        return -(10 - board.count("."))  # the previous mover won
    if "." not in board:
        return 0
    other = "O" if mark == "X" else "X"
    return max(
        -value(board[:i] + mark + board[i + 1 :], other) for i in range(9) if board[i] == "."
    )


def best_moves(board: str, mark: str) -> list[int]:
    """The cells of every optimal move, in preference order."""
    other = "O" if mark == "X" else "X"
    scores = {
        i: -value(board[:i] + mark + board[i + 1 :], other) for i in PREFERENCE if board[i] == "."
    }
    top = max(scores.values())
    return [i for i in PREFERENCE if scores.get(i) == top]


class TicTacToe(TurnBasedGame):
    """Tic-tac-toe in the multi-agent form (player_0 is X and moves first)."""

    game_name = "tic_tac_toe"
    public_board = True
    rules = (
        "Tic-tac-toe. Players take turns marking a free cell of the 3x3 grid; X moves first. Three "
        "marks in a row, column or diagonal win; a full grid is a draw. Grid: X, O, . free; "
        "columns a-c, rows 1-3.\n"
        "Reply with one move per turn as <move>b2</move>."
    )
    example_move = "b2"
    state_attrs = ("board", "mover")
    invalid_action_penalty = INVALID_ACTION_PENALTY
    draw_succeeds = True

    def __init__(self, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        self.board = "." * 9

    def start(self) -> None:
        """Empties the grid; X (player_0) moves first."""
        self.board, self.mover = "." * 9, 0

    def mark(self, agent: str) -> str:
        """The agent's mark."""
        return "X" if agent == self.possible_agents[0] else "O"

    seat_name = mark

    def parse_move(self, agent: str, move: str) -> int:
        """A free cell from ``b2`` or a number 1-9, or raise `InvalidAction`."""
        if move.isdigit():
            if not 1 <= int(move) <= 9:
                raise InvalidAction(f"cell numbers run from 1 to 9, got {move}")
            cell = int(move) - 1
        else:
            row, column = parse_cell(move, 3, 3)
            cell = row * 3 + column
        if self.board[cell] != ".":
            raise InvalidAction(f"{self.name(cell)} is taken; choose a free cell")
        return cell

    @staticmethod
    def name(cell: int) -> str:
        """A cell's name, e.g. ``b2``."""
        return f"{column_label(cell % 3)}{cell // 3 + 1}"

    def apply(self, agent: str, move: int) -> str:
        """Marks the cell with the agent's mark; returns the cell's name."""
        self.board = self.board[:move] + self.mark(agent) + self.board[move + 1 :]
        return self.name(move)

    def result(self) -> tuple[str | None, str] | None:
        """Three in a line wins; a full grid without one is a draw."""
        mark = winner_of(self.board)
        if mark is not None:
            return self.possible_agents[0 if mark == "X" else 1], f"three {mark} in a line"
        if "." not in self.board:
            return None, "the grid is full"
        return None

    def view(self, agent: str) -> str:
        """The grid, the same for both seats."""
        return board_picture(3, 3).format(*self.board)

    def legal_moves(self, agent: str) -> list[int]:
        """The free cells."""
        return [i for i in range(9) if self.board[i] == "."]

    def move_text(self, agent: str, move: int) -> str:
        """The cell as ``<move>b2</move>``."""
        return f"<move>{self.name(move)}</move>"

    def oracle_move(self, agent: str) -> int:
        """Perfect play (see the module docstring)."""
        return best_moves(self.board, self.mark(agent))[0]

    def state_key(self) -> tuple[str, int]:
        """The grid and the mover."""
        return (self.board, self.mover)


def random_opponent(game: TicTacToe, agent: str) -> int:
    """Any free cell."""
    return pick(game, game.legal_moves(agent))


def greedy_opponent(game: TicTacToe, agent: str) -> int:
    """Wins when it can, blocks when it must, else any free cell."""
    mine, theirs = game.mark(agent), game.mark(game.other(agent))
    for mark in (mine, theirs):
        for cell in game.legal_moves(agent):
            if winner_of(game.board[:cell] + mark + game.board[cell + 1 :]) == mark:
                return cell
    return random_opponent(game, agent)


def minimax_opponent(game: TicTacToe, agent: str) -> int:
    """Perfect play, a random choice among the best moves."""
    return pick(game, best_moves(game.board, game.mark(agent)))


TicTacToe.opponents = {
    "random": random_opponent,
    "greedy": greedy_opponent,
    "minimax": minimax_opponent,
}


class TicTacToeEnv(VsOpponent):
    """Tic-tac-toe against a built-in opponent; see the module docstring."""

    def __init__(self, level: int = 3, opponent: str | None = None, seat: str = "random"):
        self.level = check_level(level)
        super().__init__(TicTacToe(), opponent or level_value(level, OPPONENTS_BY_LEVEL), seat)

    def best_return(self) -> float:
        """A draw: what perfect play guarantees against any opponent."""
        return DRAW_REWARD
