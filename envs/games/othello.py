"""Othello (Reversi) against a built-in opponent, on a 6x6 board (or 4x4, 8x8).

The task:
    Players place discs of their colour; a disc must outflank at least one line of the
    opponent's discs (horizontal, vertical or diagonal), which then turn to the mover's
    colour. A player with no legal placement passes; when neither can move the game ends
    and the one with more discs wins. The learner plays White, the second to move (on
    6x6 perfect play wins for White), unless ``seat`` says otherwise.

Observation:
    The rules and the board (``B`` black, ``W`` white, ``.`` empty, ``*`` a legal move for
    the player to move; columns lettered, rows numbered), then after each turn both
    moves, the board and the disc count.

Action:
    The last ``<move>...</move>`` after any ``</think>``: a cell, ``<move>d3</move>``. A cell
    that outflanks nothing is an illegal move.

Reward (``info["reward_parts"]``):
    ``outcome``: `WIN_REWARD` (1) for a win, `DRAW_REWARD` (0) for a draw, `LOSS_REWARD`
        (-1) for a loss (also for forfeiting by invalid actions).
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0 and ``success`` means a win.

Episode end:
    Terminated when neither player can move (at most 16 moves of the learner on 6x6, 30
    on 8x8).

Opponents (``opponent``, by level):
    ``random``: any legal cell. ``greedy``: the cell that turns the most discs.
    ``positional``: the cell with the best square weight (corners high, cells next to
    corners low). ``search2``: alpha-beta 2 plies deep over square weights and mobility.
    ``search3``, ``search4``: 3 and 4 plies deep, exact over the last `ENDGAME_EMPTIES`
    empty cells. Levels 1-2 random, 3-4 greedy, 5-6 positional, 7 search2, 8 search3,
    9-10 search4; ties are broken at random.

Oracle:
    Alpha-beta `ORACLE_DEPTH` plies deep over the same evaluation, then an exact search of
    the last `ENDGAME_EMPTIES` empty cells (results memoized per position). At its first
    move of an episode it also plays the game out on a copy against the episode's own
    opponent (its random draws included): where the search's line would not win, it plays
    the line that leaves the search as late as possible and wins. As White on the 6x6 board
    of the levels it beats every built-in opponent (seeds 0-999 at every level, a slow test);
    on 8x8 it is slower and not guaranteed to win.

Arguments:
    level: 1-10, the opponent's strength (on a 6x6 board).
    opponent: Overrides the opponent.
    size: Overrides the board side (4, 6 or 8).
    seat: ``"second"`` (White, default), ``"first"`` or ``"random"``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import copy
import dataclasses
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

__all__ = ["DRAW_REWARD", "LOSS_REWARD", "WIN_REWARD", "Othello", "OthelloEnv"]

ORACLE_DEPTH = 5
ENDGAME_EMPTIES = 8

Position = tuple[int, int, int]
"""Both disc masks and the mover (`Othello.state_key`)."""

OPPONENTS_BY_LEVEL = (
    ("random",) * 2
    + ("greedy",) * 2
    + ("positional",) * 2
    + ("search2", "search3")
    + ("search4",) * 2
)
_INF = 1 << 30
MAX_LANES = 2 * 64
"""The most boards `_outflanking` works on at once: both sides after each placement."""


@dataclasses.dataclass(frozen=True)
class Geometry:
    """What the rules need to know about a board of one size, computed once per size.

    Attributes:
        full: The mask of every square (square ``r * size + c`` is bit ``r * size + c``).
        lane: How far apart `mobility` and `_leaf_scores` put several boards in one integer
            (far enough that no step of one board reaches another's squares).
        lines: The 4 line directions as ``(shift, inner)``: shifting a board left by ``shift``
            steps one square right, down-left, down or down-right (shifting right steps
            back); ``inner`` holds the squares that can lie between two others on such a
            line (off the edges the line crosses), on both boards. Discs outside ``inner``
            cannot be outflanked in that direction, so masking the opponent's discs with it
            also drops every step that would wrap round a row's end or fall off the board.
            ``inner`` repeats for `MAX_LANES` boards side by side.
        rays: Per square, the squares in each direction outwards from it (in order;
            rays shorter than two squares, which can outflank nothing, are left out).
        weights: Each square's weight (corners high, the squares beside corners low).
        weight_masks: Each weight with the mask of its squares, the highest weight first.
        squares: Each square's bit, row by row.
    """

    full: int
    lane: int
    lines: tuple[tuple[int, int], ...]
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    weights: tuple[int, ...]
    weight_masks: tuple[tuple[int, int], ...]
    squares: tuple[int, ...]


@functools.cache
def geometry(size: int) -> Geometry:
    """The `Geometry` of a ``size`` x ``size`` board."""

    def mask(rows: range, columns: range) -> int:
        return sum(1 << (r * size + c) for r in rows for c in columns)

    every, inner = range(size), range(1, size - 1)
    lane = 2 * size * size
    lines = tuple(
        (shift, sum(squares << (lane * k) for k in range(MAX_LANES)))
        for shift, squares in (
            (1, mask(every, inner)),
            (size - 1, mask(inner, inner)),
            (size, mask(inner, every)),
            (size + 1, mask(inner, inner)),
        )
    )
    steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    rays = []
    for r in range(size):
        for c in range(size):
            square_rays = []
            for dr, dc in steps:
                ray = []
                row, column = r + dr, c + dc
                while 0 <= row < size and 0 <= column < size:
                    ray.append(1 << (row * size + column))
                    row, column = row + dr, column + dc
                if len(ray) >= 2:
                    square_rays.append(tuple(ray))
            rays.append(tuple(square_rays))
    weights = []
    for r in range(size):
        for c in range(size):
            edge_r, edge_c = min(r, size - 1 - r), min(c, size - 1 - c)
            if edge_r == 0 and edge_c == 0:
                weights.append(100)
            elif edge_r <= 1 and edge_c <= 1:
                weights.append(-25 if edge_r == edge_c else -10)
            elif edge_r == 0 or edge_c == 0:
                weights.append(10)
            else:
                weights.append(1)
    weight_masks: dict[int, int] = {}
    for square, weight in enumerate(weights):
        weight_masks[weight] = weight_masks.get(weight, 0) | 1 << square
    return Geometry(
        mask(every, every),
        lane,
        lines,
        tuple(rays),
        tuple(weights),
        tuple(sorted(weight_masks.items(), reverse=True)),
        tuple(1 << square for square in range(size * size)),
    )


def moves_of(own: int, opp: int, board: Geometry) -> int:
    """The legal placements of ``own`` as a bit mask (`legal` without its cache)."""
    return _outflanking(own, opp, board.full & ~(own | opp), board)


def mobility(own: int, opp: int, board: Geometry) -> tuple[int, int]:
    """The legal placements of both sides, ``own``'s and ``opp``'s.

    Both are found in one pass over the lines, with ``opp``'s side on a second board in
    the same integers (`Geometry.lane`): the search scores each leaf by both sides' moves,
    and the leaves were most of the oracle's time.
    """
    lane = board.lane
    empty = board.full & ~(own | opp)
    moves = _outflanking(own | opp << lane, opp | own << lane, empty | empty << lane, board)
    return moves & board.full, moves >> lane


def _outflanking(own: int, opp: int, empty: int, board: Geometry) -> int:
    """The ``empty`` squares that outflank a run of ``opp`` discs, for ``own``."""
    moves = 0
    for shift, inner in board.lines:
        # Walk from each own disc over a run of the opponent's; an empty square after it is
        # legal. Both ways along the line: shifting left, then right.
        flanked = opp & inner
        line = (own << shift) & flanked
        while line:
            line <<= shift
            moves |= line & empty
            line &= flanked
        line = (own >> shift) & flanked
        while line:
            line >>= shift
            moves |= line & empty
            line &= flanked
    return moves


# A turn asks for the same position's moves several times (the end check, the pass check,
# the marks on the board, the mover's move).
@functools.lru_cache(maxsize=1 << 14)
def legal(own: int, opp: int, size: int) -> int:
    """The legal placements of ``own`` as a bit mask."""
    return moves_of(own, opp, geometry(size))


def flips(own: int, opp: int, move: int, size: int) -> int:
    """The opponent's discs turned by placing ``own``'s disc on bit ``move``."""
    return turned_by(own, opp, move, geometry(size))


def turned_by(own: int, opp: int, move: int, board: Geometry) -> int:
    """`flips` on a board's `Geometry` (what the searches call)."""
    turned = 0
    for ray in board.rays[move.bit_length() - 1]:
        line = 0
        for square in ray:
            if not square & opp:
                if square & own:
                    turned |= line
                break
            line |= square
    return turned


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def evaluate(own: int, opp: int, board: Geometry) -> int:
    """Square weights of ``own`` minus ``opp``, plus 5 per move of mobility difference.

    A position where neither side can move scores 1000 per disc of difference. (Where only
    ``opp`` can move, the search would pass and score ``opp``'s side: the same value negated.)
    """
    return _score(own, opp, *mobility(own, opp, board), board)


def _score(own: int, opp: int, mine: int, theirs: int, board: Geometry) -> int:
    """`evaluate` given both sides' legal placements."""
    if not mine and not theirs:
        return 1000 * (own.bit_count() - opp.bit_count())
    score = 5 * (mine.bit_count() - theirs.bit_count())
    for weight, mask in board.weight_masks:
        score += weight * ((own & mask).bit_count() - (opp & mask).bit_count())
    return score


def _leaf_scores(own: int, opp: int, bits: list[int], board: Geometry) -> list[int]:
    """For each placement of ``own``, minus `evaluate` of the position after it.

    Most of the search's time goes to leaves, and most leaves are all the placements of a
    node one ply above them, so they are scored together: the positions after the
    placements lie side by side in one integer, both sides of each (`Geometry.lane`
    apart), and one pass of `_outflanking` finds every side's legal placements.
    """
    lane, full = board.lane, board.full
    movers = others = empties = 0
    after = []
    for index, bit in enumerate(bits):
        turned = turned_by(own, opp, bit, board)
        mover, other = opp & ~turned, own | bit | turned
        after.append((mover, other))
        at = 2 * lane * index
        movers |= (mover | other << lane) << at
        others |= (other | mover << lane) << at
        empty = full & ~(own | opp | bit)
        empties |= (empty | empty << lane) << at
    moves = _outflanking(movers, others, empties, board)
    scores = []
    for index, (mover, other) in enumerate(after):
        at = 2 * lane * index
        mine, theirs = moves >> at & full, moves >> (at + lane) & full
        scores.append(-_score(mover, other, mine, theirs, board))
    return scores


def negamax(
    own: int, opp: int, board: Geometry, depth: int, alpha: int, beta: int, exact: bool
) -> int:
    """Alpha-beta value for the side to move; ``exact`` searches to the end (disc difference)."""
    if depth == 0 and not exact:
        return evaluate(own, opp, board)
    moves = moves_of(own, opp, board)
    if not moves:
        if not moves_of(opp, own, board):
            diff = own.bit_count() - opp.bit_count()
            return diff * 1000 if not exact else diff
        return -negamax(opp, own, board, depth, -beta, -alpha, exact)
    order = _ordered(moves, board)
    if depth == 1 and not exact:
        return _best_leaf(own, opp, order, board, beta)
    best = -_INF
    for bit in order:
        turned = turned_by(own, opp, bit, board)
        score = -negamax(opp & ~turned, own | bit | turned, board, depth - 1, -beta, -alpha, exact)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


def _best_leaf(own: int, opp: int, order: list[int], board: Geometry, beta: int) -> int:
    """`negamax` one ply above the leaves (``order``: the placements, `_ordered`).

    The best leaf score up to the first that reaches ``beta``, where alpha-beta stops. The
    first placement usually decides a node that stops early, so it is scored alone; the
    others together (`_leaf_scores`).
    """
    first = order[0]
    turned = turned_by(own, opp, first, board)
    best = -evaluate(opp & ~turned, own | first | turned, board)
    if best >= beta:
        return best
    for score in _leaf_scores(own, opp, order[1:], board):
        best = max(best, score)
        if best >= beta:
            break
    return best


def _ordered(moves: int, board: Geometry) -> list[int]:
    """The placements, the highest square weight first (then row by row)."""
    order = []
    for _, mask in board.weight_masks:
        among = moves & mask
        while among:
            low = among & -among
            order.append(low)
            among ^= low
    return order


# Every episode opens on the same few positions (and a reset draws them twice).
@functools.lru_cache(maxsize=1024)
def picture(black: int, white: int, marked: int, size: int) -> str:
    """The board with the ``marked`` squares drawn ``*``, and the disc counts."""
    cells = [
        "B" if black & square else "W" if white & square else "*" if marked & square else "."
        for square in geometry(size).squares
    ]
    board = board_picture(size, size).format(*cells)
    return f"{board}\nDiscs: black {black.bit_count()}, white {white.bit_count()}"


@functools.lru_cache(maxsize=1024)
def most_flips(own: int, opp: int, size: int) -> tuple[int, ...]:
    """The placements (bits) that turn the most discs, for the side to move."""
    board = geometry(size)
    counts = {
        bit: turned_by(own, opp, bit, board).bit_count() for bit in _bits(legal(own, opp, size))
    }
    top = max(counts.values())
    return tuple(bit for bit, n in counts.items() if n == top)


@functools.lru_cache(maxsize=100_000)
def best_moves(own: int, opp: int, size: int, depth: int, endgame: int) -> tuple[int, ...]:
    """The best placements (bits) for the side to move; exact when few cells are empty.

    Each placement after the first is searched only as far as it takes to tell whether it
    reaches the best score so far (the window starts one below it): a placement that does
    gets its exact score, one that does not an upper bound below the best, so the ties
    found are those of a full-window search of every placement.
    """
    board = geometry(size)
    exact = (board.full & ~(own | opp)).bit_count() <= endgame
    scores = {}
    alpha = -_INF
    for bit in _ordered(legal(own, opp, size), board):
        turned = turned_by(own, opp, bit, board)
        score = -negamax(
            opp & ~turned, own | bit | turned, board, depth - 1, -_INF, 1 - alpha, exact
        )
        scores[bit] = score
        alpha = max(alpha, score)
    return tuple(bit for bit in scores if scores[bit] == alpha)


class Othello(TurnBasedGame):
    """Othello in the multi-agent form (player_0 is Black and moves first)."""

    game_name = "othello"
    public_board = True
    example_move = "d3"
    state_attrs = ("discs", "mover")
    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(self, size: int = 8, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        if size not in (4, 6, 8):
            raise ValueError(f"size must be 4, 6 or 8, got {size!r}")
        self.size = size
        self.discs = [0, 0]
        self.rules = (
            f"Othello on a {size}x{size} board. Place a disc so that it outflanks a line of your "
            "opponent's discs (horizontally, vertically or diagonally); those discs become yours. "
            "Without a legal placement you pass. When neither player can move, more discs win. "
            "Black moves first.\n"
            "Board: B black, W white, . empty, * a legal move for you; columns are letters, rows "
            "numbers.\n"
            "Reply with one move per turn as <move>d3</move>."
        )

    def start(self) -> None:
        """Sets the four centre discs; Black (player_0) moves first."""
        s, h = self.size, self.size // 2
        white = (1 << ((h - 1) * s + h - 1)) | (1 << (h * s + h))
        black = (1 << ((h - 1) * s + h)) | (1 << (h * s + h - 1))
        self.discs, self.mover = [black, white], 0

    def seat_name(self, agent: str) -> str:
        """The agent's colour, ``Black (B)`` or ``White (W)``."""
        return "Black (B)" if agent == self.possible_agents[0] else "White (W)"

    def _sides(self, agent: str) -> tuple[int, int]:
        index = self.possible_agents.index(agent)
        return self.discs[index], self.discs[1 - index]

    def parse_move(self, agent: str, move: str) -> int:
        """The bit of a cell that outflanks a line, or raise `InvalidAction`."""
        row, column = parse_cell(move, self.size, self.size)
        bit = 1 << (row * self.size + column)
        if not legal(*self._sides(agent), self.size) & bit:
            raise InvalidAction(f"{move} outflanks no disc (or is taken); legal moves are marked *")
        return bit

    def apply(self, agent: str, move: int) -> str:
        """Places the disc and turns the outflanked ones; returns the cell and how many turned."""
        index = self.possible_agents.index(agent)
        own, opp = self._sides(agent)
        turned = turned_by(own, opp, move, geometry(self.size))
        self.discs[index] = own | move | turned
        self.discs[1 - index] = opp & ~turned
        cell = move.bit_length() - 1
        return (
            f"{column_label(cell % self.size)}{cell // self.size + 1} (turning "
            f"{turned.bit_count()})"
        )

    def next_mover(self) -> int:
        """The other seat, unless it has no legal move and must pass."""
        nxt = 1 - self.mover
        own, opp = self.discs[nxt], self.discs[1 - nxt]
        return nxt if legal(own, opp, self.size) else self.mover

    def result(self) -> tuple[str | None, str] | None:
        """When neither side can move, the side with more discs wins (equal counts draw)."""
        black, white = self.discs
        if legal(black, white, self.size) or legal(white, black, self.size):
            return None
        counts = f"{black.bit_count()} black to {white.bit_count()} white"
        if black.bit_count() == white.bit_count():
            return None, counts
        return self.possible_agents[0 if black.bit_count() > white.bit_count() else 1], counts

    def view(self, agent: str) -> str:
        """The board with the mover's legal moves marked ``*``, and the disc counts."""
        mover = self.possible_agents[self.mover]
        return picture(*self.discs, legal(*self._sides(mover), self.size), self.size)

    def legal_moves(self, agent: str) -> list[int]:
        """The bits of the cells where the agent's disc would outflank a line."""
        return list(_bits(legal(*self._sides(agent), self.size)))

    def move_text(self, agent: str, move: int) -> str:
        """The cell as ``<move>d3</move>``."""
        cell = move.bit_length() - 1
        return f"<move>{column_label(cell % self.size)}{cell // self.size + 1}</move>"

    def oracle_move(self, agent: str) -> int:
        """Alpha-beta with an exact endgame (see the module docstring)."""
        return best_moves(*self._sides(agent), self.size, ORACLE_DEPTH, ENDGAME_EMPTIES)[0]

    def state_key(self) -> tuple[int, int, int]:
        """Both disc masks and the mover."""
        return (self.discs[0], self.discs[1], self.mover)


def random_opponent(game: Othello, agent: str) -> int:
    """Any legal cell."""
    return pick(game, game.legal_moves(agent))


def greedy_opponent(game: Othello, agent: str) -> int:
    """The cell that turns the most discs (random among equals)."""
    return pick(game, list(most_flips(*game._sides(agent), game.size)))


def positional_opponent(game: Othello, agent: str) -> int:
    """The cell with the best square weight (random among equals)."""
    weights = geometry(game.size).weights
    moves = game.legal_moves(agent)
    top = max(weights[bit.bit_length() - 1] for bit in moves)
    return pick(game, [bit for bit in moves if weights[bit.bit_length() - 1] == top])


def search2_opponent(game: Othello, agent: str) -> int:
    """Alpha-beta 2 plies deep over square weights and mobility (random among equals)."""
    return pick(game, list(best_moves(*game._sides(agent), game.size, 2, 0)))


def search3_opponent(game: Othello, agent: str) -> int:
    """Alpha-beta 3 plies deep, exact in the last `ENDGAME_EMPTIES` cells (random among equals)."""
    return pick(game, list(best_moves(*game._sides(agent), game.size, 3, ENDGAME_EMPTIES)))


def search4_opponent(game: Othello, agent: str) -> int:
    """Alpha-beta 4 plies deep, exact in the last `ENDGAME_EMPTIES` cells (random among equals)."""
    return pick(game, list(best_moves(*game._sides(agent), game.size, 4, ENDGAME_EMPTIES)))


Othello.opponents = {
    "random": random_opponent,
    "greedy": greedy_opponent,
    "positional": positional_opponent,
    "search2": search2_opponent,
    "search3": search3_opponent,
    "search4": search4_opponent,
}


class OthelloEnv(VsOpponent):
    """Othello against a built-in opponent; see the module docstring."""

    def __init__(
        self,
        level: int = 3,
        opponent: str | None = None,
        size: int | None = None,
        seat: str = "second",
    ):
        self.level = check_level(level)
        super().__init__(
            Othello(size or 6), opponent or level_value(level, OPPONENTS_BY_LEVEL), seat
        )
        self._plan: dict[Position, int] | None = None

    def _reset(self, options):
        self._plan = None
        return super()._reset(options)

    def set_state(self, state) -> None:
        """Restores a snapshot (and forgets the oracle's plan, which was for another line)."""
        super().set_state(state)
        self._plan = None

    def oracle_action(self) -> str:
        """The oracle's move (see the module docstring): the planned one, else the search's."""
        if self._plan is None:
            self._plan = self._winning_plan()
        key = self.game.state_key()
        move = self._plan.get(key)
        if move is None:  # play left the plan: the search alone, as from any position
            return self.game.oracle_action(self.seat)
        return self.game.move_text(self.seat, move)

    def _winning_plan(self) -> dict[Position, int]:
        """The learner's moves by position, for the oracle.

        The search's line if it wins against this opponent, else the winning line that leaves
        it latest (the search's line when none wins).
        """
        line, won = self._play_out(())
        if won:
            return dict(line)
        for turn in reversed(range(len(line))):
            prefix = tuple(move for _, move in line[:turn])
            black, white, mover = line[turn][0]
            own, opp = (black, white) if mover == 0 else (white, black)
            for other in _bits(legal(own, opp, self.game.size)):
                if other != line[turn][1]:
                    deviation, won = self._play_out((*prefix, other))
                    if won:
                        return dict(deviation)
        return dict(line)

    def _play_out(self, moves: tuple[int, ...]) -> tuple[list[tuple[Position, int]], bool]:
        """Plays a copy of the game to its end; the learner's moves and whether it won.

        The learner makes ``moves``, then the search's moves; the opponent plays as in this
        episode (its draws come from a copy of the episode's generator).
        """
        game = copy.deepcopy(self.game)
        line: list[tuple[Position, int]] = []
        while game.result() is None:
            agent = game.possible_agents[game.mover]
            if agent == self.seat:
                move = moves[len(line)] if len(line) < len(moves) else game.oracle_move(agent)
                line.append((game.state_key(), move))
            else:
                move = self.opponent(game, agent)
            game.apply(agent, move)
            game.mover = game.next_mover()
        return line, game.result()[0] == self.seat
