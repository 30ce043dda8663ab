"""Negotiation: split a pool of items with an opponent whose values are private.

The task:
    A pool holds some books, hats and balls. Each player values each kind of item
    privately (whole numbers; the whole pool is worth 10 to each). Players take turns,
    the learner first: a turn either proposes a split (what the proposer keeps; the
    other gets the rest) or accepts the other's standing proposal. An accepted proposal
    is the deal; if ``turns`` turns pass without one, both get nothing.

Observation:
    The rules with the pool and your own values, then after each turn the proposal or
    acceptance and what a standing proposal would give you.

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``propose B H L`` (the books, hats
    and balls you keep, e.g. ``<move>propose 2 0 1</move>``) or ``accept``. Keeping more
    than the pool holds, or accepting with nothing to accept, is an illegal move.

Reward (``info["reward_parts"]``):
    ``outcome``: the value of your share divided by 10 when a deal is made; 0 without one.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    ``success`` means the deal is worth `best_return`: the most any play could get from
    this opponent (its values, rule and coins known; found by search).

Episode end:
    Terminated at a deal or when the turns run out.

Opponents (``opponent``, by level):
    ``random`` (levels 1-2): accepts half the time, else proposes a random split.
    ``fair`` (3-5): accepts a share worth at least 5 to it; proposes keeping its most
    valued items until they are worth 6. ``greedy`` (6-7): accepts at least 7; proposes
    keeping everything it values. ``tough`` (8-10): demands 8 at first and concedes
    evenly to 4 by its last turn, proposing to keep items worth its current demand.
    Coins are drawn from the seed in advance.

Oracle:
    Privileged: it knows the opponent's values, rule and coins, and plays the search's
    best line (a proposal the opponent will accept, or an acceptance).

Arguments:
    level: 1-10, the opponent's strength (pools of 4 to 8 items).
    opponent: Overrides the opponent.
    turns: Overrides the number of turns (2-20, even).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections.abc import Callable
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import MultiAgentEnv, Round, VsOpponent
from palaestra.verdict import Status, Verdict

from ._common import check_int, check_level, level_value, parse_move

KINDS = ("book", "hat", "ball")
TOTAL_VALUE = 10
OPPONENTS_BY_LEVEL = ("random",) * 2 + ("fair",) * 3 + ("greedy",) * 2 + ("tough",) * 3
POOL_SIZES = (4, 4, 5, 5, 6, 6, 7, 7, 8, 8)

_PROPOSE = re.compile(r"^(?:propose\s+)?(\d{1,2})[\s,]+(\d{1,2})[\s,]+(\d{1,2})$")

Split = tuple[int, int, int]
"""How many of each kind the proposer keeps."""


def worth(split: Split, values: tuple[int, ...]) -> int:
    """The value of a share to a player."""
    return sum(map(operator.mul, split, values))


def rest(pool: Split, split: Split) -> Split:
    """What the other player gets."""
    return tuple(map(operator.sub, pool, split))  # type: ignore[return-value]


# The oracle's search asks about every split at every turn, at each reset: the tables below
# are pure functions of the pool (and values), so they are built once per pool.


@functools.cache
def splits_of(pool: Split) -> tuple[Split, ...]:
    """Every split a proposer may keep from ``pool``, in a fixed order."""
    return tuple(itertools.product(*(range(n + 1) for n in pool)))  # type: ignore[arg-type]


@functools.lru_cache(maxsize=4096)
def splits_by_worth(
    pool: Split, values: tuple[int, ...]
) -> tuple[tuple[int, Split, Split], ...]:
    """``(worth, split, rest)`` of every split of ``pool``, the most valuable first.

    ``worth`` is what the proposer keeps worth at ``values``; ``rest`` is what the other
    player gets. Splits of equal worth keep their `splits_of` order.
    """
    table = [(worth(s, values), s, rest(pool, s)) for s in splits_of(pool)]
    return tuple(sorted(table, key=lambda item: -item[0]))


@functools.cache
def describe(split: Split) -> str:
    """A share in words: ``2 books, 0 hats, 1 ball`` (cached: every turn says a few)."""
    return ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for n, k in zip(split, KINDS, strict=True))


# An opponent strategy: (pool, own values, turn index of its turn (0, 1, ...), of how many,
# offered share or None, coin) -> ("accept", None) or ("propose", split). A pure function:
# its randomness is the coin, drawn at reset.
Strategy = Callable[
    [Split, tuple[int, ...], int, int, "Split | None", float], tuple[str, "Split | None"]
]


@functools.lru_cache(maxsize=4096)
def _keep_until(pool: Split, values: tuple[int, ...], demand: float) -> Split:
    """Keeps the most valued kinds (whole items) until their worth reaches ``demand``."""
    keep = [0, 0, 0]
    for kind in sorted(range(3), key=lambda k: (-values[k], k)):
        while keep[kind] < pool[kind] and worth(tuple(keep), values) < demand and values[kind] > 0:
            keep[kind] += 1
    return tuple(keep)  # type: ignore[return-value]


def random_strategy(pool, values, turn, turns, offered, coin):
    """Accepts half the time, else proposes a random split (read from the coin)."""
    if offered is not None and coin < 0.5:
        return "accept", None
    splits = splits_of(pool)
    return "propose", splits[int((coin * 2 % 1) * len(splits))]


def fair_strategy(pool, values, turn, turns, offered, coin):
    """Accepts a share worth at least 5; proposes keeping its favourites up to 6."""
    if offered is not None and worth(offered, values) >= 5:
        return "accept", None
    return "propose", _keep_until(pool, values, 6)


def greedy_strategy(pool, values, turn, turns, offered, coin):
    """Accepts a share worth at least 7; proposes keeping everything it values."""
    if offered is not None and worth(offered, values) >= 7:
        return "accept", None
    return "propose", _keep_until(pool, values, TOTAL_VALUE)


def tough_strategy(pool, values, turn, turns, offered, coin):
    """Demands 8, conceding evenly to 4 by its last turn."""
    demand = 8 - 4 * turn / max(turns - 1, 1)
    if offered is not None and worth(offered, values) >= demand:
        return "accept", None
    return "propose", _keep_until(pool, values, demand)


COIN_FREE = frozenset({fair_strategy, greedy_strategy, tough_strategy})
"""The strategies that never read their coin (a test checks it)."""

STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "fair": fair_strategy,
    "greedy": greedy_strategy,
    "tough": tough_strategy,
}


class Negotiation(MultiAgentEnv):
    """The negotiation game in the multi-agent form (player_0 moves first)."""

    state_attrs = ("pool", "values", "coins", "turn_index", "standing", "deal")
    invalid_action_penalty = INVALID_ACTION_PENALTY
    forfeit_rewards = (0.0, 0.0)

    def __init__(self, items: int = 6, turns: int = 6, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        self.items = check_int("items", items, 3, 15)
        self.turns = check_int("turns", turns, 2, 20)
        if self.turns % 2:
            raise ValueError(f"turns must be even (each player gets the same number), got {turns}")
        self.pool: Split = (1, 1, 1)
        self.values: list[tuple[int, ...]] = [(0, 0, 0), (0, 0, 0)]
        self.coins: list[float] = []
        self.turn_index = 0
        self.standing: tuple[int, Split] | None = None  # (proposer seat, split it keeps)
        self.deal: tuple[int, Split] | None = None

    def _values(self) -> tuple[int, ...]:
        rng = self.np_random
        while True:
            values, total = [0, 0, 0], 0  # total: the pool's worth at these values
            for _ in range(60):
                kind = int(rng.integers(3))
                if total + self.pool[kind] <= TOTAL_VALUE:
                    values[kind] += 1
                    total += self.pool[kind]
                if total == TOTAL_VALUE:
                    return tuple(values)

    def _reset(self, options: dict[str, Any]) -> dict[str, str]:
        if options:
            raise ValueError(f"Negotiation.reset takes no options, got {sorted(options)}")
        rng = self.np_random
        counts = [1, 1, 1]
        for _ in range(self.items - 3):
            counts[int(rng.integers(3))] += 1
        self.pool = tuple(counts)  # type: ignore[assignment]
        self.values = [self._values(), self._values()]
        self.coins = rng.random(self.turns).tolist()
        self.turn_index, self.standing, self.deal = 0, None, None
        texts = {}
        for agent in self.watched():
            seat = self.possible_agents.index(agent)
            own = ", ".join(f"{k} {v}" for k, v in zip(KINDS, self.values[seat], strict=True))
            texts[agent] = (
                f"Negotiation. The pool: {describe(self.pool)}. Your values per item: {own} "
                f"(the whole pool is worth {TOTAL_VALUE} to you; your opponent's values are "
                f"private). Players take turns, {'you' if seat == 0 else 'your opponent'} first, "
                f"for {self.turns} turns in all: propose what you keep (the other gets the rest) "
                "or accept the other's standing proposal. No deal gives nothing.\n"
                "Reply as <move>propose B H L</move> (the books, hats and balls you keep) or "
                "<move>accept</move>."
                + ("\nYour move." if seat == 0 else "")
            )
        return texts

    def mover_seat(self) -> int:
        """The seat whose turn it is."""
        return self.turn_index % 2

    def _to_move(self) -> tuple[str, ...]:
        return (self.possible_agents[self.mover_seat()],)

    def _parse(self, agent: str, text: str) -> tuple[str, Split | None]:
        move = parse_move(text, example="propose 1 1 1")
        if move == "accept":
            if self.standing is None:
                raise InvalidAction("there is no proposal to accept; make one with propose B H L")
            return "accept", None
        match = _PROPOSE.match(move)
        if match is None:
            raise InvalidAction(f"{move[:40]!r} is not a move; write propose B H L or accept")
        split = tuple(int(g) for g in match.groups())
        if any(s > p for s, p in zip(split, self.pool, strict=True)):
            raise InvalidAction(f"you cannot keep more than the pool: {describe(self.pool)}")
        return "propose", split  # type: ignore[return-value]

    def _play(self, moves: dict[str, tuple[str, Split | None]]) -> Round:
        seat = self.mover_seat()
        agent, other = self.possible_agents[seat], self.possible_agents[1 - seat]
        kind, split = moves[agent]
        self.turn_index += 1
        if kind == "accept":
            self.deal = self.standing
            messages = {agent: "You accept.", other: "Your opponent accepts your proposal."}
            return self._end(messages)
        self.standing = (seat, split)
        give = rest(self.pool, split)
        messages = {
            agent: f"You propose to keep {describe(split)}.",
            other: (
                f"Your opponent proposes to keep {describe(split)}, leaving you "
                f"{describe(give)} (worth {worth(give, self.values[1 - seat])} to you)."
            ),
        }
        if self.turn_index == self.turns:
            return self._end(messages)
        messages[other] += " Your move."
        return Round(messages)

    def _end(self, messages: dict[str, str]) -> Round:
        parts, verdicts = {}, {}
        for seat, agent in enumerate(self.possible_agents):
            if self.deal is None:
                value = 0
                messages[agent] += " No deal was made."
            else:
                proposer, split = self.deal
                share = split if proposer == seat else rest(self.pool, split)
                value = worth(share, self.values[seat])
                messages[agent] += f" Deal: you get {describe(share)}, worth {value}."
            parts[agent] = {"outcome": value / TOTAL_VALUE}
            verdicts[agent] = Verdict(
                value / TOTAL_VALUE,
                Status.CORRECT if self.deal is not None else Status.INCORRECT,
                answer=value,
                reason=f"deal worth {value}" if self.deal is not None else "no deal",
                verifier="negotiation",
            )
        return Round(messages, parts, verdicts)

    def offered_to(self, seat: int) -> Split | None:
        """What the standing proposal gives ``seat`` (None if it is ``seat``'s own or absent)."""
        if self.standing is None or self.standing[0] == seat:
            return None
        return rest(self.pool, self.standing[1])

    def legal_moves(self, agent: str) -> list[tuple[str, Split | None]]:
        """Every split of the pool to propose, and accepting when a proposal stands."""
        splits = [("propose", s) for s in splits_of(self.pool)]
        return ([("accept", None)] if self.standing is not None else []) + splits  # type: ignore[list-item]

    def move_text(self, agent: str, move: tuple[str, Split | None]) -> str:
        """The move as ``<move>accept</move>`` or ``<move>propose B H L</move>``."""
        kind, split = move
        return (
            "<move>accept</move>"
            if kind == "accept"
            else f"<move>propose {' '.join(map(str, split))}</move>"
        )

    # --- the privileged oracle ------------------------------------------------------------------

    def best_line(self, agent: str, strategy: Strategy) -> tuple[int, tuple[str, Split | None]]:
        """The most ``agent`` can still get against ``strategy``, and its move now.

        At each of its turns the agent may accept what the opponent proposed, or propose a
        split the opponent will accept. When the best comes later, the move now asks for
        the whole pool, which the opponent refuses (or accepts: the most there is). Of
        equally good moves the earliest wins: accepting before proposing, then splits in
        `splits_of` order. A deal worth nothing still beats no deal: when the opponent
        gives nothing the agent values (it values the same items), the deal is the success.
        """
        seat = self.possible_agents.index(agent)
        return _best_line(
            strategy,
            self.pool,
            self.values[seat],
            self.values[1 - seat],
            self.turns,
            self.turn_index,
            seat,
            self.offered_to(seat),
            None if strategy in COIN_FREE else tuple(self.coins),
        )

    oracle_opponent: Strategy = staticmethod(fair_strategy)

    def oracle_move(self, agent: str) -> tuple[str, Split | None]:
        """Privileged: the first move of the best line against `oracle_opponent`."""
        return self.best_line(agent, self.oracle_opponent)[1]

    def state_key(self) -> tuple[int, Any, Any]:
        """The turn, the standing proposal and the deal."""
        return (self.turn_index, self.standing, self.deal)

    def render_text(self, agent: str | None = None) -> str:
        """The pool, the values (all when ``agent`` is None) and the standing proposal."""
        seats = range(2) if agent is None else [self.possible_agents.index(agent)]
        values = "; ".join(f"{self.possible_agents[s]} values {self.values[s]}" for s in seats)
        return (
            f"pool {self.pool}, {values}, turn {self.turn_index}/{self.turns}, standing "
            f"{self.standing}, deal {self.deal}"
        )


# `best_line` runs at every reset (for the best return) and at every oracle move. Against an
# opponent that never reads its coins it depends only on the pool, the values and the turn
# (a few hundred cases per level), so each case is searched once.
@functools.lru_cache(maxsize=1 << 14)
def _best_line(
    strategy: Strategy,
    pool: Split,
    own: tuple[int, ...],
    theirs: tuple[int, ...],
    turns: int,
    turn_index: int,
    seat: int,
    offered: Split | None,
    coins: tuple[float, ...] | None,
) -> tuple[int, tuple[str, Split | None]]:
    """`Negotiation.best_line` for ``seat`` at ``turn_index``, offered ``offered`` now.

    ``coins`` is None for a strategy in `COIN_FREE` (it is then shown coins of 0).
    """
    nothing: Split = (0, 0, 0)
    best, move = -1, ("propose", pool)  # -1: no deal found yet
    for turn in range(turn_index, turns):
        if turn % 2 != seat:
            continue
        now = turn == turn_index
        if not now:
            previous = turn - 1
            coin = coins[previous] if coins is not None else 0.0
            kind, kept = strategy(pool, theirs, previous // 2, turns // 2, nothing, coin)
            if kind == "accept":
                break  # it took the whole-pool proposal: counted at the turn that made it
            offered = rest(pool, kept)
        if offered is not None and worth(offered, own) > best:
            best = worth(offered, own)
            move = ("accept", None) if now else ("propose", pool)
        if turn + 1 == turns:
            continue
        # The most valuable split the opponent accepts: try them from the most valuable
        # down, and stop at one that would not beat the best so far.
        coin = coins[turn + 1] if coins is not None else 0.0
        for value, split, left in splits_by_worth(pool, own):
            if value <= best:
                break
            reply = strategy(pool, theirs, (turn + 1) // 2, turns // 2, left, coin)
            if reply[0] == "accept":
                best, move = value, ("propose", split) if now else ("propose", pool)
                break
    return max(best, 0), move


def _policy(strategy: Strategy) -> Callable[[Negotiation, str], tuple[str, Split | None]]:
    def opponent(game: Negotiation, agent: str) -> tuple[str, Split | None]:
        seat = game.possible_agents.index(agent)
        t = game.turn_index
        return strategy(
            game.pool,
            game.values[seat],
            t // 2,
            game.turns // 2,
            game.offered_to(seat),
            game.coins[t],
        )

    opponent.__name__ = strategy.__name__.replace("_strategy", "")
    opponent.__doc__ = strategy.__doc__
    return opponent


Negotiation.opponents = {name: _policy(s) for name, s in STRATEGIES.items()}


class NegotiationEnv(VsOpponent):
    """Negotiation against a built-in opponent; see the module docstring."""

    state_attrs = ("_best",)

    def __init__(self, level: int = 3, opponent: str | None = None, turns: int = 6):
        self.level = check_level(level)
        name = opponent or level_value(level, OPPONENTS_BY_LEVEL)
        if name not in STRATEGIES:
            raise ValueError(f"unknown opponent {name!r}; choose from {sorted(STRATEGIES)}")
        game = Negotiation(level_value(level, POOL_SIZES), turns)
        game.oracle_opponent = STRATEGIES[name]
        super().__init__(game, name, seat="first")
        self._best = 0

    def _reset(self, options: dict[str, Any]):
        observation, info = super()._reset(options)
        self._best = self.game.best_line(self.seat, self.game.oracle_opponent)[0]  # type: ignore[attr-defined]
        return observation, info

    def best_return(self) -> float:
        """The most any play could get from this opponent, divided by 10."""
        return self._best / TOTAL_VALUE

    def judge(self, verdict: Verdict) -> Verdict:
        """Success means a deal worth the best this opponent would give."""
        value = int(verdict.answer or 0) if verdict.status is Status.CORRECT else 0
        status = (
            Status.CORRECT
            if self.game.deal is not None and value >= self._best
            else Status.INCORRECT
        )  # type: ignore[attr-defined]
        return Verdict(
            value / TOTAL_VALUE,
            status,
            answer=value,
            reference=self._best,
            reason=f"deal worth {value} of the best {self._best}",
            verifier="negotiation",
        )
