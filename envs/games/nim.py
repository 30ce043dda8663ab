"""Nim against a built-in opponent: take the last object to win.

The task:
    Several piles of objects; players alternately remove one or more objects from a
    single pile, and whoever takes the last object wins (normal play). Piles are drawn
    from the seed with a non-zero nim-sum, so the learner, who moves first, can always
    force a win (unless ``seat`` says otherwise).

Observation:
    The rules and the piles (``pile 1: 5``), then after each turn both moves and the piles.

Action:
    The last ``<move>...</move>`` after any ``</think>``: the pile and how many objects to
    take, ``<move>2 3</move>`` (take 3 from pile 2). An empty pile, or taking more than a
    pile holds, is an illegal move.

Reward (``info["reward_parts"]``):
    ``outcome``: `WIN_REWARD` (1) for a win, `LOSS_REWARD` (-1) for a loss (also for
        forfeiting by invalid actions). There are no draws.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0 and ``success`` means a win.

Episode end:
    Terminated when the last object is taken.

Opponents (``opponent``, by level):
    ``random`` (levels 1-3): a random pile, a random amount. ``greedy`` (4-6): takes a
    whole pile when that wins, otherwise empties the largest pile's excess over the
    second largest (or takes one). ``optimal`` (7-10): moves to a zero nim-sum when it
    can, otherwise takes one object from a random pile.

Oracle:
    The nim-sum strategy: a move that leaves the bitwise XOR of the piles at zero.

Arguments:
    level: 1-10; 2 to 5 piles of up to 4 to 15 objects, and the opponent's strength.
    opponent: Overrides the opponent.
    piles: Overrides the number of piles (1-8).
    max_pile: Overrides the largest pile size (1-50).
    seat: ``"first"`` (default), ``"second"`` or ``"random"``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import xor

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import VsOpponent

from ._common import check_int, check_level, level_value
from ._twoplayer import LOSS_REWARD, WIN_REWARD, TurnBasedGame, pick

__all__ = ["LOSS_REWARD", "WIN_REWARD", "Nim", "NimEnv"]

LEVELS = ((2, 4), (3, 5), (3, 7), (3, 9), (4, 9), (4, 11), (4, 12), (5, 12), (5, 14), (5, 15))
"""Per level: piles, largest pile."""
OPPONENTS_BY_LEVEL = ("random",) * 3 + ("greedy",) * 3 + ("optimal",) * 4

_MOVE = re.compile(r"^(?:take\s+)?(\d{1,3})(?:\s+from)?(?:\s+pile)?[\s,:]+(\d{1,3})$")


def winning_moves(piles: list[int]) -> list[tuple[int, int]]:
    """Every (pile index, amount) that leaves a zero nim-sum."""
    total = reduce(xor, piles, 0)
    return [(i, p - (p ^ total)) for i, p in enumerate(piles) if total and (p ^ total) < p]


class Nim(TurnBasedGame):
    """Nim in the multi-agent form (player_0 moves first)."""

    game_name = "nim"
    example_move = "1 2"
    state_attrs = ("piles", "mover")
    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(self, piles: int = 3, max_pile: int = 7, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        self.pile_count = check_int("piles", piles, 1, 8)
        self.max_pile = check_int("max_pile", max_pile, 1, 50)
        self.piles = [1] * self.pile_count
        self.rules = (
            "Nim. Players take turns removing one or more objects from a single pile; whoever "
            "takes the last object wins.\n"
            "Reply with one move per turn as <move>PILE COUNT</move>, e.g. <move>2 3</move> takes "
            "3 objects from pile 2."
        )

    def start(self) -> None:
        """Draws random piles with a non-zero nim-sum (a first-player win); player_0 moves first."""
        while True:
            self.piles = self.np_random.integers(
                1, self.max_pile + 1, size=self.pile_count
            ).tolist()
            if reduce(xor, self.piles, 0):
                break
        self.mover = 0

    def parse_move(self, agent: str, move: str) -> tuple[int, int]:
        """A (0-based pile, amount) from ``PILE COUNT``, or raise `InvalidAction`."""
        match = _MOVE.match(move)
        if match is None:
            raise InvalidAction(
                f"{move[:40]!r} is not a move; write the pile number and how many to take, e.g. 2 3"
            )
        pile, amount = int(match[1]), int(match[2])
        if not 1 <= pile <= self.pile_count:
            raise InvalidAction(f"there is no pile {pile}; piles are 1-{self.pile_count}")
        if self.piles[pile - 1] == 0:
            raise InvalidAction(f"pile {pile} is empty")
        if not 1 <= amount <= self.piles[pile - 1]:
            raise InvalidAction(
                f"pile {pile} holds {self.piles[pile - 1]}; take from 1 to {self.piles[pile - 1]}"
            )
        return pile - 1, amount

    def apply(self, agent: str, move: tuple[int, int]) -> str:
        """Takes the amount from the pile; returns ``N from pile P``."""
        pile, amount = move
        self.piles[pile] -= amount
        return f"{amount} from pile {pile + 1}"

    def result(self) -> tuple[str | None, str] | None:
        """Whoever took the last object (the mover) wins once every pile is empty."""
        if any(self.piles):
            return None
        return self.possible_agents[self.mover], "took the last object"

    def view(self, agent: str) -> str:
        """The piles, one per line, the same for both seats."""
        return "\n".join(f"pile {i + 1}: {p}" for i, p in enumerate(self.piles))

    def legal_moves(self, agent: str) -> list[tuple[int, int]]:
        """Every (pile, amount) that takes from 1 to all of a non-empty pile."""
        return [(i, n) for i, p in enumerate(self.piles) for n in range(1, p + 1)]

    def move_text(self, agent: str, move: tuple[int, int]) -> str:
        """The move as ``<move>PILE COUNT</move>`` (piles numbered from 1)."""
        return f"<move>{move[0] + 1} {move[1]}</move>"

    def oracle_move(self, agent: str) -> tuple[int, int]:
        """A move to a zero nim-sum (one object from the first non-empty pile when lost)."""
        moves = winning_moves(self.piles)
        if moves:
            return moves[0]
        return next((i, 1) for i, p in enumerate(self.piles) if p)

    def state_key(self) -> tuple[tuple[int, ...], int]:
        """The piles and the mover."""
        return (tuple(self.piles), self.mover)


def random_opponent(game: Nim, agent: str) -> tuple[int, int]:
    """A random non-empty pile, a random amount."""
    pile = pick(game, [i for i, p in enumerate(game.piles) if p])
    return pile, int(game.np_random.integers(1, game.piles[pile] + 1))


def greedy_opponent(game: Nim, agent: str) -> tuple[int, int]:
    """Takes the last pile whole; else levels the largest pile with the second largest."""
    live = [i for i, p in enumerate(game.piles) if p]
    if len(live) == 1:
        return live[0], game.piles[live[0]]
    order = sorted(live, key=lambda i: (-game.piles[i], i))
    excess = game.piles[order[0]] - game.piles[order[1]]
    return order[0], max(excess, 1)


def optimal_opponent(game: Nim, agent: str) -> tuple[int, int]:
    """A move to a zero nim-sum when there is one, else one object from a random pile."""
    moves = winning_moves(game.piles)
    if moves:
        return pick(game, moves)
    return pick(game, [i for i, p in enumerate(game.piles) if p]), 1


Nim.opponents = {"random": random_opponent, "greedy": greedy_opponent, "optimal": optimal_opponent}


class NimEnv(VsOpponent):
    """Nim against a built-in opponent; see the module docstring."""

    def __init__(
        self,
        level: int = 3,
        opponent: str | None = None,
        piles: int | None = None,
        max_pile: int | None = None,
        seat: str = "first",
    ):
        self.level = check_level(level)
        default_piles, default_max = level_value(level, LEVELS)
        game = Nim(
            piles if piles is not None else default_piles,
            max_pile if max_pile is not None else default_max,
        )
        super().__init__(game, opponent or level_value(level, OPPONENTS_BY_LEVEL), seat)
