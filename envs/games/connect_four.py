"""Connect Four against a built-in opponent (or, in the multi-agent form, another policy).

The task:
    Two players drop discs into the columns of an upright 6x7 grid; a disc falls to the
    lowest free cell. Four discs of one colour in a row, column or diagonal win; a full
    grid is a draw. The learner plays X and moves first (the side that perfect play
    wins), unless ``seat`` says otherwise.

Observation:
    The rules and the grid (``X``, ``O``, ``.``; columns numbered 1-7, the top row first),
    then after each turn both moves and the grid.

Action:
    The last ``<move>...</move>`` after any ``</think>``: a column number, ``<move>4</move>``.
    A full column is an illegal move.

Reward (``info["reward_parts"]``):
    ``outcome``: `WIN_REWARD` (1) for a win, `DRAW_REWARD` (0) for a draw, `LOSS_REWARD`
        (-1) for a loss (also for forfeiting by invalid actions).
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0 and ``success`` means a win.

Episode end:
    Terminated at a win, a loss or a draw (at most 21 moves of the learner).

Opponents (``opponent``, by level):
    ``random`` (levels 1-2): any open column. ``greedy`` (3-4): wins when it can, blocks
    when it must, else prefers central columns. ``search2``, ``search3``, ``search4``
    (5-6, 7-8, 9-10): alpha-beta search 2, 3 and 4 plies deep with a threat-counting
    evaluation, random among equally good moves.

Oracle:
    Alpha-beta search `ORACLE_DEPTH` plies deep with the same evaluation, centre-first
    move order, ties broken towards the centre. Moving first, it beats every built-in
    opponent (checked over many seeds in the tests).

Arguments:
    level: 1-10, the opponent's strength.
    opponent: Overrides the opponent.
    seat: ``"first"`` (default), ``"second"`` or ``"random"``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import operator

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import VsOpponent

from ._common import check_level, level_value
from ._twoplayer import DRAW_REWARD, LOSS_REWARD, WIN_REWARD, TurnBasedGame, pick

__all__ = ["DRAW_REWARD", "LOSS_REWARD", "WIN_REWARD", "ConnectFour", "ConnectFourEnv"]

ROWS, COLUMNS = 6, 7
STRIDE = ROWS + 1  # one spare bit per column keeps the shifts below from wrapping
ORACLE_DEPTH = 7
ORDER = (3, 2, 4, 1, 5, 0, 6)
OPPONENTS_BY_LEVEL = (
    "random",
    "random",
    "greedy",
    "greedy",
    "search2",
    "search2",
    "search3",
    "search3",
    "search4",
    "search4",
)
_WIN_SCORE = 1_000_000
_FULL = sum(1 << (c * STRIDE + r) for c in range(COLUMNS) for r in range(ROWS))
_TOPS = tuple(1 << (c * STRIDE + ROWS - 1) for c in range(COLUMNS))
"""The top cell of each column: a column is full when its top cell is."""
_CELLS_TOP_DOWN = tuple(
    1 << (c * STRIDE + r) for r in reversed(range(ROWS)) for c in range(COLUMNS)
)
"""Each cell's bit in the order the grid is drawn: the top row first, left to right."""
_PICTURE = "\n".join(
    [" ".join(["{}"] * COLUMNS)] * ROWS + [" ".join(str(c + 1) for c in range(COLUMNS))]
)
"""The grid with a ``{}`` slot per cell (in `_CELLS_TOP_DOWN` order) above the column numbers."""


def _windows() -> tuple[int, ...]:
    masks = []
    for c in range(COLUMNS):
        for r in range(ROWS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + k * dc, r + k * dr) for k in range(4)]
                if all(0 <= cc < COLUMNS and 0 <= rr < ROWS for cc, rr in cells):
                    masks.append(sum(1 << (cc * STRIDE + rr) for cc, rr in cells))
    return tuple(masks)


WINDOWS = _windows()
_WINDOW_SCORES = (0, 1, 5, 25, 0)


def has_four(board: int) -> bool:
    """Whether a bitboard holds four in a line."""
    for shift in (1, STRIDE, STRIDE - 1, STRIDE + 1):
        pairs = board & (board >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def evaluate(mine: int, theirs: int) -> int:
    """Open windows of four weighted by how full they are, mine minus theirs."""
    score = 0
    for window in WINDOWS:
        a, b = mine & window, theirs & window
        if a and not b:
            score += _WINDOW_SCORES[a.bit_count()]
        elif b and not a:
            score -= _WINDOW_SCORES[b.bit_count()]
    return score


def _drop(mine: int, theirs: int, column: int) -> int | None:
    """The bit where a disc dropped into ``column`` lands, or None for a full column."""
    filled = (mine | theirs) >> (column * STRIDE) & ((1 << ROWS) - 1)
    height = filled.bit_length()
    return None if height >= ROWS else 1 << (column * STRIDE + height)


_WINDOWS_AT = tuple(
    tuple(w for w in WINDOWS if w >> (c * STRIDE + r) & 1) if r < ROWS else ()
    for c in range(COLUMNS)
    for r in range(STRIDE)
)
"""The windows through each bit (``c * STRIDE + r``; none through the spare bits)."""
_BOTTOMS = sum(1 << (c * STRIDE) for c in range(COLUMNS))
_COLUMN_CELLS = tuple(((1 << ROWS) - 1) << (c * STRIDE) for c in ORDER)
"""Each column's cells, centre first."""


_NEAR = tuple(functools.reduce(int.__or__, windows, 0) for windows in _WINDOWS_AT)
"""The cells of the windows through each bit: all that a disc there can change."""


def _gain(mine: int, theirs: int, bit: int) -> int:
    """``evaluate(mine | bit, theirs) - evaluate(mine, theirs)``, from the windows via ``bit``."""
    near = _NEAR[bit.bit_length() - 1]
    return _near_gain(mine & near, theirs & near, bit)


@functools.lru_cache(maxsize=1 << 15)
def _near_gain(mine: int, theirs: int, bit: int) -> int:
    """`_gain`, given only the discs near ``bit``.

    Cached (about 8 MB when full): searches meet the same neighbourhood of a cell again and
    again (15 times in 16 over the oracle's episodes).
    """
    gain = 0
    for window in _WINDOWS_AT[bit.bit_length() - 1]:
        if theirs & window:
            if not mine & window:  # their open window is blocked
                gain += _WINDOW_SCORES[(theirs & window).bit_count()]
        else:
            count = (mine & window).bit_count()
            gain += _WINDOW_SCORES[count + 1] - _WINDOW_SCORES[count]
    return gain


def _landing(mine: int, theirs: int) -> int:
    """The cell each open column's disc lands on."""
    return ((mine | theirs) + _BOTTOMS) & _FULL


def _moves(mine: int, theirs: int, landing: int) -> list[tuple[int, int]]:
    """Each open column's `_gain` and the bit where its disc lands, centre first."""
    moves = []
    for cells in _COLUMN_CELLS:
        if bit := landing & cells:
            moves.append((_gain(mine, theirs, bit), bit))
    return moves


_by_gain = operator.itemgetter(0)


@functools.lru_cache(maxsize=1 << 14)
def _threats(mine: int) -> int:
    """The cells that finish a line of four with three of ``mine`` (some off the grid).

    Cached (about 3 MB when full): a search meets the same discs of one side under many of
    the other's (9 times in 10 over the oracle's episodes).
    """
    completes = 0
    for shift in (1, STRIDE, STRIDE - 1, STRIDE + 1):
        pairs = (mine << shift) & (mine << 2 * shift)
        completes |= pairs & ((mine << 3 * shift) | (mine >> shift))
        pairs = (mine >> shift) & (mine >> 2 * shift)
        completes |= pairs & ((mine >> 3 * shift) | (mine << shift))
    return completes


def negamax(mine: int, theirs: int, depth: int, alpha: int, beta: int) -> int:
    """Alpha-beta value for the side to move (owning ``mine``), ``depth`` plies deep."""
    return _search(mine, theirs, evaluate(mine, theirs), depth, alpha, beta, {})


def _search(
    mine: int,
    theirs: int,
    score: int,
    depth: int,
    alpha: int,
    beta: int,
    bounds: dict[tuple[int, int], tuple[int, int]],
) -> int:
    """`negamax`, given ``score = evaluate(mine, theirs)`` and this search's ``bounds``.

    Each move adds its `_gain` to the score, so no position's windows are counted from
    scratch. ``bounds`` holds the lower and upper bounds on each position's value found so
    far in this search; a position reached again by another move order is cut short by them
    (its depth is the same: within one search the disc count fixes it). Moves are tried in
    the order of their gains, which cuts off more than centre-first; with the cached gains
    and threats this makes the slow test's oracle episodes over 2x cheaper. As any
    alpha-beta search, it returns the exact value where that lies strictly between ``alpha``
    and ``beta`` and a bound on the same side elsewhere, so the callers' columns do not
    depend on the order.
    """
    landing = _landing(mine, theirs)
    if _threats(mine) & landing:  # an immediate win ends the search
        return _WIN_SCORE + depth  # sooner wins score higher
    if depth <= 1:  # every move's value is static, so this one is exact
        return max(
            (
                0 if (mine | bit | theirs) == _FULL else score + gain
                for gain, bit in _moves(mine, theirs, landing)
            ),
            default=0,
        )
    lower, upper = known = bounds.get((mine, theirs), (-_WIN_SCORE * 10, _WIN_SCORE * 10))
    if lower >= beta or lower == upper:
        return lower
    if upper <= alpha:
        return upper
    alpha, beta = max(alpha, lower), min(beta, upper)
    start = alpha
    moves = _moves(mine, theirs, landing)
    if not moves:
        return 0
    moves.sort(key=_by_gain, reverse=True)  # the likeliest best first cuts more; ties stay put
    best = -_WIN_SCORE * 10
    for gain, bit in moves:
        after = mine | bit
        if (after | theirs) == _FULL:
            value = 0
        else:  # the child's score is evaluate(theirs, after)
            value = -_search(theirs, after, -(score + gain), depth - 1, -beta, -alpha, bounds)
        if value > best:
            best = value
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    if best <= start:
        known = (lower, best)
    elif best >= beta:
        known = (best, upper)
    else:
        known = (best, best)
    bounds[mine, theirs] = known
    return best


@functools.lru_cache(maxsize=100_000)
def best_columns(mine: int, theirs: int, depth: int) -> tuple[int, ...]:
    """Every column of the best value, in centre-first order.

    Each column after the first is searched only as far as it takes to tell whether it
    reaches the best value so far (the window starts one below it): one that does gets its
    exact value, one that does not a bound below the best, so the ties found are those of a
    full-window search of every column.
    """
    bounds: dict[tuple[int, int], tuple[int, int]] = {}
    score = evaluate(mine, theirs)
    scores = {}
    top = -_WIN_SCORE * 10
    for column in ORDER:
        bit = _drop(mine, theirs, column)
        if bit is None:
            continue
        after = mine | bit
        if has_four(after):
            value = _WIN_SCORE + depth + 1
        elif (after | theirs) == _FULL:
            value = 0
        elif depth <= 1:
            value = score + _gain(mine, theirs, bit)
        else:
            child = -(score + _gain(mine, theirs, bit))
            value = -_search(theirs, after, child, depth - 1, -_WIN_SCORE * 10, 1 - top, bounds)
        scores[column] = value
        top = max(top, value)
    return tuple(c for c in ORDER if scores.get(c) == top)


@functools.lru_cache(maxsize=100_000)
def best_column(mine: int, theirs: int, depth: int) -> int:
    """The first best column (alpha-beta at the root too; centre-first among equals)."""
    bounds: dict[tuple[int, int], tuple[int, int]] = {}
    score = evaluate(mine, theirs)
    alpha, choice = -_WIN_SCORE * 10, None
    for column in ORDER:
        bit = _drop(mine, theirs, column)
        if bit is None:
            continue
        after = mine | bit
        if has_four(after):
            return column
        if (after | theirs) == _FULL:
            value = 0
        else:
            child = -(score + _gain(mine, theirs, bit))
            value = -_search(theirs, after, child, depth - 1, -_WIN_SCORE * 10, -alpha, bounds)
        if choice is None or value > alpha:
            alpha, choice = value, column
    return choice if choice is not None else 0


class ConnectFour(TurnBasedGame):
    """Connect Four in the multi-agent form (player_0 is X and moves first)."""

    game_name = "connect_four"
    public_board = True
    rules = (
        "Connect Four. Players take turns dropping a disc into one of the 7 columns of a 6x7 grid; "
        "it falls to the lowest free cell. Four of your discs in a row, column or diagonal win; a "
        "full grid is a draw. X moves first. Grid: X, O, . free; columns 1-7, top row first.\n"
        "Reply with one move per turn as <move>4</move> (a column number)."
    )
    example_move = "4"
    state_attrs = ("boards", "mover", "moves_played")
    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(self, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        self.boards = [0, 0]
        self.moves_played = 0

    def start(self) -> None:
        """Empties the grid; X (player_0) moves first."""
        self.boards, self.mover, self.moves_played = [0, 0], 0, 0

    def seat_name(self, agent: str) -> str:
        """The agent's disc, ``X`` or ``O``."""
        return "X" if agent == self.possible_agents[0] else "O"

    def _mine(self, agent: str) -> tuple[int, int]:
        index = self.possible_agents.index(agent)
        return self.boards[index], self.boards[1 - index]

    def parse_move(self, agent: str, move: str) -> int:
        """A column (1-7 in the text, 0-based here) that is not full, or raise `InvalidAction`."""
        if not move.isdigit() or not 1 <= int(move) <= COLUMNS:
            raise InvalidAction(
                f"{move[:40]!r} is not a column; write a number from 1 to {COLUMNS}"
            )
        column = int(move) - 1
        if _drop(*self._mine(agent), column) is None:
            raise InvalidAction(f"column {column + 1} is full")
        return column

    def apply(self, agent: str, move: int) -> str:
        """Drops the agent's disc into the column; returns ``column N``."""
        index = self.possible_agents.index(agent)
        self.boards[index] |= _drop(*self._mine(agent), move)
        self.moves_played += 1
        return f"column {move + 1}"

    def result(self) -> tuple[str | None, str] | None:
        """Four in a line wins; a full grid without one is a draw."""
        for index, board in enumerate(self.boards):
            if has_four(board):
                return self.possible_agents[index], "four in a line"
        if self.moves_played == ROWS * COLUMNS:
            return None, "the grid is full"
        return None

    def view(self, agent: str) -> str:
        """The grid, top row first, the same for both seats."""
        x, o = self.boards
        return _PICTURE.format(
            *["X" if x & bit else "O" if o & bit else "." for bit in _CELLS_TOP_DOWN]
        )

    def legal_moves(self, agent: str) -> list[int]:
        """The columns that are not full."""
        filled = self.boards[0] | self.boards[1]
        return [c for c in range(COLUMNS) if not filled & _TOPS[c]]

    def move_text(self, agent: str, move: int) -> str:
        """The column as ``<move>4</move>`` (numbered from 1)."""
        return f"<move>{move + 1}</move>"

    def oracle_move(self, agent: str) -> int:
        """Alpha-beta search `ORACLE_DEPTH` plies deep (results memoized per position)."""
        return best_column(*self._mine(agent), ORACLE_DEPTH)

    def state_key(self) -> tuple[int, int, int]:
        """Both bitboards and the mover."""
        return (self.boards[0], self.boards[1], self.mover)


def random_opponent(game: ConnectFour, agent: str) -> int:
    """Any open column."""
    return pick(game, game.legal_moves(agent))


def greedy_opponent(game: ConnectFour, agent: str) -> int:
    """Wins when it can, blocks when it must, else a central column (random among equals)."""
    mine, theirs = game._mine(agent)
    legal = game.legal_moves(agent)
    for own, other in ((mine, theirs), (theirs, mine)):
        for column in legal:
            if has_four(own | _drop(own, other, column)):
                return column
    closest = min(abs(c - 3) for c in legal)
    return pick(game, [c for c in legal if abs(c - 3) == closest])


def _searcher(depth: int):
    def opponent(game: ConnectFour, agent: str) -> int:
        return pick(game, list(best_columns(*game._mine(agent), depth)))

    opponent.__name__ = f"search{depth}"
    opponent.__doc__ = f"Negamax {depth} plies deep, random among the best columns."
    return opponent


ConnectFour.opponents = {
    "random": random_opponent,
    "greedy": greedy_opponent,
    "search2": _searcher(2),
    "search3": _searcher(3),
    "search4": _searcher(4),
}


class ConnectFourEnv(VsOpponent):
    """Connect Four against a built-in opponent; see the module docstring."""

    def __init__(self, level: int = 3, opponent: str | None = None, seat: str = "first"):
        self.level = check_level(level)
        super().__init__(ConnectFour(), opponent or level_value(level, OPPONENTS_BY_LEVEL), seat)
