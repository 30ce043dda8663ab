"""Iterated prisoner's dilemma against a hidden built-in strategy.

The task:
    Each round both players choose at the same time to cooperate or defect. Mutual
    cooperation pays each `REWARD_PAYOFF` (3), mutual defection `PUNISHMENT_PAYOFF` (1); a
    defector facing a cooperator gets `TEMPTATION_PAYOFF` (5) and the cooperator
    `SUCKER_PAYOFF` (0). The game lasts ``rounds`` rounds, announced at the start. The
    opponent plays one strategy from its level's pool, drawn from the seed and not
    revealed: the learner has to find out how it reacts and answer it best.

Observation:
    The rules, then after each round both choices, the payoffs and the totals.

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``cooperate`` or ``defect`` (also
    ``c`` or ``d``). Anything else is an invalid move (the round waits for a valid one).

Reward (``info["reward_parts"]``):
    ``payoff``: this round's payoff divided by ``TEMPTATION_PAYOFF * rounds`` (so a match
        returns at most 1): dense, one reward per round.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable move.
    ``success`` means the learner earned `best_return`: the most any sequence of choices
    earns against this opponent, found by dynamic programming over its states.

Episode end:
    Terminated after the last round.

Opponents (``opponent``; levels draw from growing pools):
    ``cooperate``, ``defect``, ``tit_for_tat`` (copies your last move), ``grim`` (cooperates
    until you defect once), ``pavlov`` (repeats its move after a good payoff, switches
    after a bad one), ``tit_for_two_tats`` (defects after two defections in a row),
    ``suspicious_tit_for_tat`` (tit for tat, opening with a defection), ``random``
    (a fair coin each round) and ``generous_tit_for_tat`` (tit for tat that forgives a
    defection a third of the time). Coins are drawn from the seed in advance.

Oracle:
    Privileged: it knows the strategy (and its coins) and plays the dynamic programme's
    best reply.

Arguments:
    level: 1-10; 5 to 20 rounds and pools from {cooperate, defect} to every strategy.
    opponent: Overrides the pool with one strategy.
    rounds: Overrides the number of rounds (1-100).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction
from palaestra.multiagent import MultiAgentEnv, Round, VsOpponent
from palaestra.verdict import Status, Verdict

from ._common import check_int, check_level, level_value, parse_move

TEMPTATION_PAYOFF = 5
REWARD_PAYOFF = 3
PUNISHMENT_PAYOFF = 1
SUCKER_PAYOFF = 0
PAYOFFS = {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)}

# A strategy is (initial state, move(state, coin) -> "C"/"D", update(state, mine, theirs) -> state);
# states are small hashable values so the best reply can be found by dynamic programming.
StrategyMachine = tuple[Any, Callable[[Any, float], str], Callable[[Any, str, str], Any]]

STRATEGIES: dict[str, StrategyMachine] = {
    "cooperate": (None, lambda s, coin: "C", lambda s, mine, theirs: None),
    "defect": (None, lambda s, coin: "D", lambda s, mine, theirs: None),
    "tit_for_tat": ("C", lambda s, coin: s, lambda s, mine, theirs: theirs),
    "grim": (False, lambda s, coin: "D" if s else "C", lambda s, mine, theirs: s or theirs == "D"),
    "pavlov": (
        "C",
        lambda s, coin: s,
        lambda s, mine, theirs: mine if theirs == "C" else ("D" if mine == "C" else "C"),
    ),
    "tit_for_two_tats": (
        0,
        lambda s, coin: "D" if s >= 2 else "C",
        lambda s, mine, theirs: s + 1 if theirs == "D" else 0,
    ),
    "suspicious_tit_for_tat": ("D", lambda s, coin: s, lambda s, mine, theirs: theirs),
    "random": (None, lambda s, coin: "C" if coin < 0.5 else "D", lambda s, mine, theirs: None),
    "generous_tit_for_tat": (
        "C",
        lambda s, coin: "C" if s == "C" or coin < 1 / 3 else "D",
        lambda s, mine, theirs: theirs,
    ),
}
"""Each strategy's (initial state, move, update); ``theirs`` in update is the opponent's move."""

POOLS = (
    ("cooperate", "defect"),
    ("cooperate", "defect", "tit_for_tat"),
    ("cooperate", "defect", "tit_for_tat", "grim"),
    ("tit_for_tat", "grim", "pavlov"),
    ("tit_for_tat", "grim", "pavlov", "tit_for_two_tats"),
    ("tit_for_tat", "grim", "pavlov", "tit_for_two_tats", "suspicious_tit_for_tat"),
    ("pavlov", "tit_for_two_tats", "suspicious_tit_for_tat", "random"),
    (
        "grim",
        "pavlov",
        "tit_for_two_tats",
        "suspicious_tit_for_tat",
        "random",
        "generous_tit_for_tat",
    ),
    tuple(STRATEGIES),
    tuple(STRATEGIES),
)
ROUNDS = (5, 6, 8, 8, 10, 10, 12, 15, 18, 20)


class PrisonersDilemma(MultiAgentEnv):
    """The iterated prisoner's dilemma in the multi-agent form (simultaneous moves)."""

    state_attrs = ("round", "moves", "totals", "coins", "oracle_opponent")
    invalid_action_penalty = INVALID_ACTION_PENALTY
    forfeit_rewards = (0.0, 0.0)

    def __init__(self, rounds: int = 10, max_invalid: int | None = 3):
        super().__init__(max_invalid)
        self.rounds = check_int("rounds", rounds, 1, 100)
        self.round = 0
        self.moves: list[tuple[str, str]] = []
        self.totals = [0, 0]
        self.coins: list[list[float]] = []

    def _reset(self, options: dict[str, Any]) -> dict[str, str]:
        if options:
            raise ValueError(f"PrisonersDilemma.reset takes no options, got {sorted(options)}")
        self.round, self.moves, self.totals = 0, [], [0, 0]
        self.coins = self.np_random.random((self.rounds, 2)).tolist()  # coins[round][seat]
        rules = (
            f"Iterated prisoner's dilemma over {self.rounds} rounds. Each round you and your "
            "opponent choose at the same time to cooperate or defect. Both cooperate: 3 points "
            "each. Both defect: 1 each. If one defects and the other cooperates, the defector gets "
            "5 and the cooperator 0. Score as many points as you can.\n"
            "Reply with one choice per round: <move>cooperate</move> or <move>defect</move>."
        )
        return {
            agent: f"{rules}\n\nRound 1 of {self.rounds}. Your move."
            for agent in self.possible_agents
        }

    def _to_move(self) -> tuple[str, ...]:
        return self.possible_agents

    def _parse(self, agent: str, text: str) -> str:
        move = parse_move(text, example="cooperate")
        choice = {"cooperate": "C", "c": "C", "defect": "D", "d": "D"}.get(move)
        if choice is None:
            raise InvalidAction(f"{move[:40]!r} is not a choice; reply cooperate or defect")
        return choice

    def _play(self, moves: dict[str, str]) -> Round:
        first, second = (moves[a] for a in self.possible_agents)
        pay = PAYOFFS[(first, second)]
        self.moves.append((first, second))
        self.round += 1
        scale = TEMPTATION_PAYOFF * self.rounds
        messages, parts = {}, {}
        names = {"C": "cooperated", "D": "defected"}
        self.totals = [self.totals[0] + pay[0], self.totals[1] + pay[1]]
        for seat, agent in enumerate(self.possible_agents):
            mine, theirs = (first, second) if seat == 0 else (second, first)
            messages[agent] = (
                f"Round {self.round}: you {names[mine]}, your opponent {names[theirs]}. You get "
                f"{pay[seat]}, your opponent {pay[1 - seat]}. Totals: you {self.totals[seat]}, "
                f"opponent {self.totals[1 - seat]}."
            )
            parts[agent] = {"payoff": pay[seat] / scale}
        if self.round < self.rounds:
            for agent in self.possible_agents:
                messages[agent] += f"\nRound {self.round + 1} of {self.rounds}. Your move."
            return Round(messages, parts)
        verdicts = {}
        for seat, agent in enumerate(self.possible_agents):
            ahead = self.totals[seat] >= self.totals[1 - seat]
            verdicts[agent] = Verdict(
                self.totals[seat] / scale,
                Status.CORRECT if ahead else Status.INCORRECT,
                answer=self.totals[seat],
                reason=f"{self.totals[seat]} points to {self.totals[1 - seat]}",
                verifier="prisoners_dilemma",
            )
            messages[agent] += " The game is over."
        return Round(messages, parts, verdicts)

    def legal_moves(self, agent: str) -> list[str]:
        """Cooperate (``C``) or defect (``D``), every round."""
        return ["C", "D"]

    def move_text(self, agent: str, move: str) -> str:
        """The choice as ``<move>cooperate</move>`` or ``<move>defect</move>``."""
        return f"<move>{'cooperate' if move == 'C' else 'defect'}</move>"

    def strategy_state(self, name: str, seat: int) -> Any:
        """The state of strategy ``name`` in ``seat`` after the rounds played so far."""
        initial, _, update = STRATEGIES[name]
        state = initial
        for moves in self.moves:
            state = update(state, moves[seat], moves[1 - seat])
        return state

    def best_reply(self, agent: str, opponent: str) -> tuple[float, str]:
        """The most points ``agent`` can still earn against ``opponent``, and the move now."""
        seat = self.possible_agents.index(agent)
        _, move, update = STRATEGIES[opponent]
        coins = tuple(c[1 - seat] for c in self.coins)

        @functools.cache
        def value(round_: int, state: Any) -> tuple[int, str]:
            if round_ == self.rounds:
                return 0, "C"
            theirs = move(state, coins[round_])
            best, choice = -1, "C"
            for mine in ("C", "D"):
                points = (
                    PAYOFFS[(mine, theirs)][0] + value(round_ + 1, update(state, theirs, mine))[0]
                )
                if points > best:
                    best, choice = points, mine
            return best, choice

        points, choice = value(self.round, self.strategy_state(opponent, 1 - seat))
        return points, choice

    oracle_opponent = "tit_for_tat"

    def oracle_move(self, agent: str) -> str:
        """Privileged: the best reply to `oracle_opponent` (see the module docstring)."""
        return self.best_reply(agent, self.oracle_opponent)[1]

    def state_key(self) -> tuple[tuple[str, str], ...]:
        """The moves so far."""
        return tuple(self.moves)

    def render_text(self, agent: str | None = None) -> str:
        """The moves so far and the totals."""
        history = " ".join(a + b for a, b in self.moves) or "-"
        return f"round {self.round}/{self.rounds}, moves {history}, totals {self.totals}"


def _policy(name: str) -> Callable[[PrisonersDilemma, str], str]:
    def opponent(game: PrisonersDilemma, agent: str) -> str:
        seat = game.possible_agents.index(agent)
        return STRATEGIES[name][1](game.strategy_state(name, seat), game.coins[game.round][seat])

    opponent.__name__ = name
    return opponent


PrisonersDilemma.opponents = {name: _policy(name) for name in STRATEGIES}


class PrisonersDilemmaEnv(VsOpponent):
    """The iterated prisoner's dilemma against a hidden strategy; see the module docstring."""

    state_attrs = ("opponent", "opponent_name", "_best")

    def __init__(self, level: int = 3, opponent: str | None = None, rounds: int | None = None):
        self.level = check_level(level)
        if opponent is not None and opponent not in STRATEGIES:
            raise ValueError(f"unknown opponent {opponent!r}; choose from {sorted(STRATEGIES)}")
        self.pool = (opponent,) if opponent else level_value(level, POOLS)
        game = PrisonersDilemma(rounds if rounds is not None else level_value(level, ROUNDS))
        super().__init__(game, self.pool[0], seat="first")
        self._best = 0.0

    def _reset(self, options: dict[str, Any]):
        name = self.pool[int(self.np_random.integers(len(self.pool)))]
        self.opponent_name, self.opponent = name, PrisonersDilemma.opponents[name]
        game: PrisonersDilemma = self.game  # type: ignore[assignment]
        game.oracle_opponent = name
        observation, info = super()._reset(options)
        info["opponent"] = "hidden"
        self._best = game.best_reply(self.seat, name)[0] / (TEMPTATION_PAYOFF * game.rounds)
        return observation, info

    def best_return(self) -> float:
        """The most points any play earns against the drawn strategy, scaled like the reward."""
        return self._best

    def judge(self, verdict: Verdict) -> Verdict:
        """Success means earning the best reply's points (see the module docstring)."""
        game: PrisonersDilemma = self.game  # type: ignore[assignment]
        scale = TEMPTATION_PAYOFF * game.rounds
        best = round(self._best * scale)
        earned = game.totals[0]
        status = Status.CORRECT if earned >= best else Status.INCORRECT
        return Verdict(
            earned / scale,
            status,
            answer=earned,
            reference=best,
            reason=f"earned {earned} of the best {best} points",
            verifier="prisoners_dilemma",
        )
