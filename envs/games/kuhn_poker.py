"""Kuhn poker against a built-in opponent, as a duplicate match that cancels card luck.

The task:
    Three cards, J < Q < K. In each hand both players ante one chip and get one card; the
    first to act may check or bet one chip; facing a bet a player calls or folds; after a
    check the other may check (showdown) or bet. At a showdown the higher card takes the
    pot. A match has ``hands`` hands played in pairs: the second hand of a pair deals the
    same two cards swapped, so each seat holds both cards from the same position. The
    first to act alternates between pairs.

Observation:
    The rules, then after each decision what happened, and at each new hand your card,
    who acts first, and the chips won so far.

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``check`` or ``bet`` to open,
    ``call`` or ``fold`` facing a bet. Anything else is an illegal move.

Reward (``info["reward_parts"]``):
    ``chips``: the chips won (+) or lost (-) in a hand when it ends, divided by ``hands``
        (so a match's return lies in [-2, 2]): dense, one reward per hand.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    ``success`` means the learner did not lose the match (chips >= 0).

Randomness:
    Cards come from the seed. Each hand also fixes from the seed one uniform draw per
    possible decision of each seat, which mixed strategies read, so the same seed gives
    the same match whatever order things are asked in.

Best return and oracle:
    `best_return` is the most chips any sequence of decisions could win against this
    opponent on these cards and draws (a search with the cards known); the oracle is
    privileged and plays that sequence. In the duplicate format it never loses a pair
    (at most -1 with the worse card, at least +1 with the better), so it always succeeds.

Opponents (``opponent``, by level):
    ``random`` (levels 1-3): either legal action. ``simple`` (4-6): bets and calls with
    K, checks and folds with J, checks with Q and calls half the time. ``nash`` (7-10):
    the equilibrium family with bluffing rate 1/3 (the game value is -1/18 per hand for
    the first to act).

Arguments:
    level: 1-10, the opponent's strength (and the match length: 4 to 12 hands).
    opponent: Overrides the opponent.
    hands: Overrides the number of hands (an even number, 2-100).

Version history:
    v0: first version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import MultiAgentEnv, Round, VsOpponent
from palaestra.verdict import Status, Verdict

from ._common import check_int, check_level, level_value, parse_move

CARDS = "JQK"
HANDS_BY_LEVEL = (4, 4, 6, 6, 8, 8, 10, 10, 12, 12)
OPPONENTS_BY_LEVEL = ("random",) * 3 + ("simple",) * 3 + ("nash",) * 4
BLUFF = 1 / 3

# Histories: "" first to act; "c" checked; "b" bet; "cb" check then bet.
_OPEN = ("check", "bet")
_FACING = ("call", "fold")
_TERMINAL = {"cc", "bc", "bf", "cbc", "cbf"}

Strategy = Callable[[int, str, float], str]
"""``(card 0-2, history, uniform draw) -> action``."""


def acting_index(history: str) -> int:
    """0 when the first to act decides at ``history``, 1 for the second."""
    return len(history) % 2


def legal_actions(history: str) -> tuple[str, ...]:
    """The actions allowed at ``history``."""
    return _FACING if history.endswith("b") else _OPEN


def payoff(history: str, first_card: int, second_card: int) -> int:
    """Chips the first to act wins (negative: loses) at a terminal ``history``."""
    if history == "bf":
        return 1
    if history == "cbf":
        return -1
    stake = 2 if "b" in history else 1
    return stake if first_card > second_card else -stake


def _code(action: str) -> str:
    return {"check": "c", "bet": "b", "call": "c", "fold": "f"}[action]


def random_strategy(card: int, history: str, draw: float) -> str:
    """Either legal action."""
    options = legal_actions(history)
    return options[int(draw * len(options))]


def simple_strategy(card: int, history: str, draw: float) -> str:
    """Bet and call with K, check and fold with J; with Q check, and call half the time."""
    if history.endswith("b"):
        return "call" if card == 2 or (card == 1 and draw < 0.5) else "fold"
    return "bet" if card == 2 else "check"


def nash_strategy(card: int, history: str, draw: float) -> str:
    """The Kuhn equilibrium with bluffing rate ``BLUFF`` (first or second to act)."""
    if history == "":
        return (
            "bet" if (card == 0 and draw < BLUFF) or (card == 2 and draw < 3 * BLUFF) else "check"
        )
    if history == "cb":
        return "call" if card == 2 or (card == 1 and draw < BLUFF + 1 / 3) else "fold"
    if history == "b":
        return "call" if card == 2 or (card == 1 and draw < 1 / 3) else "fold"
    # history == "c": the second to act after a check
    return "bet" if card == 2 or (card == 0 and draw < 1 / 3) else "check"


STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "simple": simple_strategy,
    "nash": nash_strategy,
}


class KuhnPoker(MultiAgentEnv):
    """Kuhn poker in the multi-agent form: a duplicate match of ``hands`` hands."""

    state_attrs = ("hand", "history", "chips", "deals", "draws")
    invalid_action_penalty = INVALID_ACTION_PENALTY
    forfeit_rewards = (0.0, -1.0)

    def __init__(self, hands: int = 8, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        self.hands = check_int("hands", hands, 2, 100)
        if self.hands % 2:
            raise ValueError(f"hands must be even (hands come in duplicate pairs), got {hands}")
        self.hand, self.history = 0, ""
        self.chips = [0, 0]
        self.deals: list[tuple[int, int]] = []
        self.draws: list[list[list[float]]] = []

    # --- the deal ---------------------------------------------------------------------------------

    def first_seat(self, hand: int) -> int:
        """The seat that acts first in ``hand`` (alternating between pairs)."""
        return (hand // 2) % 2

    def cards(self, hand: int) -> tuple[int, int]:
        """The cards of (player_0, player_1) in ``hand``."""
        return self.deals[hand]

    def _reset(self, options: dict[str, Any]) -> dict[str, str]:
        if options:
            raise ValueError(f"KuhnPoker.reset takes no options, got {sorted(options)}")
        rng = self.np_random
        self.deals = []
        for _ in range(self.hands // 2):
            a, b = rng.permutation(3)[:2].tolist()
            self.deals += [(a, b), (b, a)]
        # draws[hand][seat][k]: the uniform read by seat's k-th decision in hand.
        self.draws = rng.random((self.hands, 2, 2)).tolist()
        self.hand, self.history, self.chips = 0, "", [0, 0]
        rules = (
            f"Kuhn poker, a duplicate match of {self.hands} hands. Cards: J < Q < K. Each hand "
            "both players ante 1 chip and get one card. The first to act checks or bets 1 chip; "
            "facing a bet you call or fold; after a check the other player checks (showdown) or "
            "bets. At a showdown the higher card wins the pot. The second hand of each pair deals "
            "the same cards swapped.\n"
            "Reply with one action per turn: <move>check</move>, <move>bet</move>, "
            "<move>call</move> or <move>fold</move>."
        )
        return {agent: f"{rules}\n\n{self._hand_text(agent)}" for agent in self.watched()}

    def _hand_text(self, agent: str) -> str:
        seat = self.possible_agents.index(agent)
        card = CARDS[self.cards(self.hand)[seat]]
        first = self.first_seat(self.hand) == seat
        text = f"Hand {self.hand + 1} of {self.hands}. Your card: {card}. "
        text += "You act first." if first else "Your opponent acts first."
        return text + (" Your move." if first else "")

    # --- play ----------------------------------------------------------------------------------

    def to_act(self) -> str:
        """The agent deciding now."""
        return self.possible_agents[(self.first_seat(self.hand) + acting_index(self.history)) % 2]

    def _to_move(self) -> tuple[str, ...]:
        return (self.to_act(),)

    def _parse(self, agent: str, text: str) -> str:
        move = parse_move(text, example="check")
        if move not in legal_actions(self.history):
            raise InvalidAction(
                f"{move[:40]!r} is not allowed now; choose "
                f"{' or '.join(legal_actions(self.history))}"
            )
        return move

    def _play(self, moves: dict[str, str]) -> Round:
        agent = self.to_act()
        other = self.possible_agents[1 - self.possible_agents.index(agent)]
        action = moves[agent]
        self.history += _code(action)
        messages = {agent: f"You {action}.", other: f"Your opponent {action}s."}
        if self.history not in _TERMINAL:
            messages[other] += " Your move."
            return Round(messages)
        first = self.first_seat(self.hand)
        cards = self.cards(self.hand)
        won_first = payoff(self.history, cards[first], cards[1 - first])
        delta = [0, 0]
        delta[first], delta[1 - first] = won_first, -won_first
        parts = {}
        for seat, name in enumerate(self.possible_agents):
            self.chips[seat] += delta[seat]
            parts[name] = {"chips": delta[seat] / self.hands}
            shown = (
                f" Cards: you {CARDS[cards[seat]]}, opponent {CARDS[cards[1 - seat]]}."
                if "f" not in self.history
                else ""
            )
            result = "won" if delta[seat] > 0 else "lost"
            messages[name] += (
                f"{shown} You {result} {abs(delta[seat])} chip(s); match total "
                f"{self.chips[seat]:+d}."
            )
        self.hand += 1
        self.history = ""
        if self.hand == self.hands:
            verdicts = {}
            for seat, name in enumerate(self.possible_agents):
                total = self.chips[seat]
                verdicts[name] = Verdict(
                    float(total >= 0),
                    Status.CORRECT if total >= 0 else Status.INCORRECT,
                    answer=total,
                    reason=f"match total {total:+d} chips",
                    verifier="kuhn_poker",
                )
                messages[name] += " The match is over."
            return Round(messages, parts, verdicts)
        for name in self.possible_agents:
            messages[name] += "\n" + self._hand_text(name)
        return Round(messages, parts)

    def decision_draw(self, agent: str) -> float:
        """The uniform that ``agent``'s decision now reads (see Randomness)."""
        seat = self.possible_agents.index(agent)
        return self.draws[self.hand][seat][len(self.history) // 2]

    def legal_moves(self, agent: str) -> list[str]:
        """The actions open after the hand's betting history."""
        return list(legal_actions(self.history))

    def move_text(self, agent: str, move: str) -> str:
        """The action as ``<move>bet</move>``."""
        return f"<move>{move}</move>"

    # --- the privileged oracle -------------------------------------------------------------------

    def best_in_hand(
        self, agent: str, opponent: Strategy, history: str | None = None
    ) -> tuple[int, str | None]:
        """Most chips ``agent`` can win in this hand against ``opponent`` (and its first action)."""
        history = self.history if history is None else history
        seat = self.possible_agents.index(agent)
        first = self.first_seat(self.hand)
        cards = self.cards(self.hand)
        if history in _TERMINAL:
            won = payoff(history, cards[first], cards[1 - first])
            return (won if seat == first else -won), None
        actor = (first + acting_index(history)) % 2
        if actor == seat:
            best, choice = -10, None
            for action in legal_actions(history):
                value = self.best_in_hand(agent, opponent, history + _code(action))[0]
                if value > best:
                    best, choice = value, action
            return best, choice
        draw = self.draws[self.hand][actor][len(history) // 2]
        action = opponent(cards[actor], history, draw)
        return self.best_in_hand(agent, opponent, history + _code(action))[0], None

    oracle_opponent: Strategy = staticmethod(nash_strategy)

    def oracle_move(self, agent: str) -> str:
        """Privileged: the best action against `oracle_opponent` with the cards known."""
        return self.best_in_hand(agent, self.oracle_opponent)[1] or legal_actions(self.history)[0]

    def state_key(self) -> tuple[int, str, tuple[int, int]]:
        """The hand, its history and the chips."""
        return (self.hand, self.history, tuple(self.chips))

    def render_text(self, agent: str | None = None) -> str:
        """The hand, the cards (all of them when ``agent`` is None) and the chips."""
        cards = self.cards(min(self.hand, self.hands - 1))
        shown = [CARDS[c] for c in cards]
        if agent is not None:
            seat = self.possible_agents.index(agent)
            shown[1 - seat] = "?"
        return (
            f"hand {self.hand + 1}/{self.hands}, cards {shown[0]} {shown[1]}, history "
            f"{self.history or '-'}, chips {self.chips}"
        )


def _policy(strategy: Strategy) -> Callable[[KuhnPoker, str], str]:
    def opponent(game: KuhnPoker, agent: str) -> str:
        seat = game.possible_agents.index(agent)
        return strategy(game.cards(game.hand)[seat], game.history, game.decision_draw(agent))

    opponent.__name__ = strategy.__name__.replace("_strategy", "")
    opponent.__doc__ = strategy.__doc__
    return opponent


KuhnPoker.opponents = {name: _policy(strategy) for name, strategy in STRATEGIES.items()}


class KuhnPokerEnv(VsOpponent):
    """Kuhn poker against a built-in opponent; see the module docstring."""

    state_attrs = ("_best",)

    def __init__(self, level: int = 3, opponent: str | None = None, hands: int | None = None):
        self.level = check_level(level)
        name = opponent or level_value(level, OPPONENTS_BY_LEVEL)
        if name not in STRATEGIES:
            raise ValueError(f"unknown opponent {name!r}; choose from {sorted(STRATEGIES)}")
        game = KuhnPoker(hands if hands is not None else level_value(level, HANDS_BY_LEVEL))
        game.oracle_opponent = STRATEGIES[name]
        super().__init__(game, name, seat="first")
        self._best: float | None = None

    def _reset(self, options: dict[str, Any]):
        observation, info = super()._reset(options)
        self._best = None  # searched on the first `best_return` call: play never needs it
        return observation, info

    def best_return(self) -> float:
        """The most chips any play could win on these cards and draws, over ``hands``."""
        if self._best is None:
            game: KuhnPoker = self.game  # type: ignore[assignment]
            saved = game.hand, game.history
            total = 0
            for hand in range(game.hands):
                game.hand, game.history = hand, ""
                total += game.best_in_hand(self.seat, game.oracle_opponent)[0]
            game.hand, game.history = saved
            self._best = total / game.hands
        return self._best
