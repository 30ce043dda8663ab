"""The multi-agent form: several seats in one game, and any game as a single-agent env.

    game = palaestra.multiagent.make("ConnectFour-v0")   # the game behind a registered id
    observations, infos = game.reset(seed=0)
    while game.acting:
        actions = {agent: policies[agent](observations[agent]) for agent in game.acting}
        observations, rewards, terminated, truncated, infos = game.step(actions)

* `MultiAgentEnv.possible_agents` are the seats in order (``"player_0"``, ``"player_1"``).
* `acting` names the agents that owe a move now: one in turn-based games, every seat in
  simultaneous ones (a seat whose move is in waits for the others); empty once the game
  is over. `step` takes one action per acting agent.
* `reset` and `step` return dicts keyed by every seat: the messages that seat may see
  (what it has not seen yet; hidden information stays hidden), its reward (its parts in
  ``infos[agent]["reward_parts"]``), and terminated/truncated (the game ends for all at
  once). At the end ``infos[agent]`` carries ``success`` and a `Verdict`.
* An invalid action is answered to its author only, with `invalid_action_penalty`; its
  turn does not pass. An agent with more than ``max_invalid`` invalid actions forfeits.
* Each game owns its randomness (`np_random`, seeded by ``reset(seed=)``); the built-in
  opponents draw from it too, so a seed fixes the whole episode.

`VsOpponent` seats built-in opponents in every seat but one and is a `palaestra.Env`:
registered ids of two-player games are `VsOpponent` subclasses, and `make` returns the
game behind such an id for self-play. `play` runs policies through one episode.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from palaestra.core import (
    INVALID_ACTION_PENALTY,
    Action,
    Env,
    Info,
    InvalidAction,
    Message,
    Observation,
    Step,
    as_message,
    user,
)
from palaestra.errors import ResetNeeded
from palaestra.verdict import Status, Verdict

Opponent = Callable[["MultiAgentEnv", str], Any]
"""A built-in policy: ``(game, agent) -> move``, a legal move in the game's own terms."""

Policy = Callable[[Observation], Action]
"""A policy for `play`: the seat's new messages in, its action out."""


@dataclasses.dataclass
class Round:
    """What a game's `_play` returns for one resolved round of moves.

    Attributes:
        messages: New text for each agent (agents left out see nothing new).
        reward_parts: Named reward parts per agent.
        verdicts: Each agent's verdict when the game ended this round, else None.
    """

    messages: dict[str, str] = dataclasses.field(default_factory=dict)
    reward_parts: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    verdicts: dict[str, Verdict] | None = None


class MultiAgentEnv:
    """Base class of multi-agent games (see the module docstring).

    Subclasses implement:
        * `_reset(options) -> dict[agent, str]`: start a game from `np_random`; the
          opening text per agent.
        * `_to_move() -> tuple[agent, ...]`: the agents that move this round.
        * `_parse(agent, text) -> move`: a legal move, or raise `InvalidAction`.
        * `_play(moves) -> Round`: resolve a round (one move per agent of `_to_move`).
        * `legal_moves(agent)`, `move_text(agent, move)` and `oracle_move(agent)`.
    and list the attributes of their state in ``state_attrs`` (for snapshots), and their
    built-in opponents, by name and from weakest to strongest, in ``opponents``.
    """

    possible_agents: ClassVar[tuple[str, ...]] = ("player_0", "player_1")
    observers: tuple[str, ...] | None = None
    """The seats whose messages the game writes (None: every seat). `VsOpponent` keeps only
    the learner's: its built-in opponents read the game, not text, so the others' boards
    would be drawn for no one."""
    opponents: ClassVar[dict[str, Opponent]] = {}
    state_attrs: ClassVar[tuple[str, ...]] = ()
    invalid_action_penalty: ClassVar[float] = INVALID_ACTION_PENALTY

    _np_random: np.random.Generator | None = None
    _started: bool = False
    _over: bool = True
    _turn: int = 0

    def __init__(self, max_invalid: int | None = 3):
        if max_invalid is not None and (
            isinstance(max_invalid, bool) or not isinstance(max_invalid, int) or max_invalid < 0
        ):
            raise ValueError(
                f"max_invalid must be a non-negative integer or None, got {max_invalid!r}"
            )
        self.max_invalid = max_invalid
        self._invalid: dict[str, int] = {}
        self._pending: dict[str, Any] = {}

    # --- randomness ----------------------------------------------------------------------------

    @property
    def np_random(self) -> np.random.Generator:
        """The game's random generator (seeded by `reset`; fresh entropy if never seeded)."""
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    @np_random.setter
    def np_random(self, generator: np.random.Generator) -> None:
        self._np_random = generator

    # --- the contract ---------------------------------------------------------------------------

    @property
    def acting(self) -> tuple[str, ...]:
        """The agents that owe a move now (empty when the game is over)."""
        if self._over:
            return ()
        to_move = self._to_move()
        if not self._pending:  # always so in turn-based games
            return to_move
        return tuple(a for a in to_move if a not in self._pending)

    @property
    def turn(self) -> int:
        """How many steps the current game has taken."""
        return self._turn

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, Info]]:
        """Starts a game; ``seed`` seeds `np_random` (None keeps the current generator)."""
        if seed is not None:
            self._np_random = np.random.default_rng(np.random.SeedSequence(seed))
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        self._turn, self._over, self._started = 0, False, True
        self._invalid = dict.fromkeys(self.possible_agents, 0)
        self._pending = {}
        texts = self._reset(dict(options or {}))
        observations = {a: [user(texts[a])] if texts.get(a) else [] for a in self.possible_agents}
        acting = self.acting
        infos = {
            a: {"status": "ok", "mask": False, "to_move": a in acting} for a in self.possible_agents
        }
        return observations, infos

    def step(
        self, actions: Mapping[str, Action]
    ) -> tuple[
        dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Info]
    ]:
        """Plays the acting agents' actions (one each).

        Returns:
            Per-agent observations, rewards, terminated, truncated and infos.

        Raises:
            ResetNeeded: The game has not started or is over.
            ValueError: An action is missing for an acting agent, or given for another.
        """
        return self._advance(actions, {})

    def _advance(self, actions: Mapping[str, Action], moves: Mapping[str, Any]):
        if not self._started or self._over:
            raise ResetNeeded(
                f"{type(self).__name__}.step() needs reset() first (the game is not running)"
            )
        acting = self.acting
        given = set(actions) | set(moves)
        if given != set(acting):
            raise ValueError(
                f"step needs one action for each acting agent {list(acting)}, got {sorted(given)}; "
                "read game.acting before stepping"
            )
        self._turn += 1
        texts: dict[str, list[str]] = {a: [] for a in self.possible_agents}
        parts: dict[str, dict[str, float]] = {a: {} for a in self.possible_agents}
        infos: dict[str, Info] = {a: {} for a in self.possible_agents}
        forfeit = None
        self._pending.update(moves)
        for agent in acting:
            if agent in moves:
                continue
            try:
                message = as_message(actions[agent])
                self._pending[agent] = self._parse(agent, message.get("content") or "")
            except InvalidAction as error:
                texts[agent].append(f"Invalid action: {error}")
                parts[agent]["invalid"] = (
                    parts[agent].get("invalid", 0.0) + self.invalid_action_penalty
                )
                infos[agent].update(invalid_action=True, invalid_reason=str(error))
                self._invalid[agent] += 1
                if (
                    self.max_invalid is not None
                    and self._invalid[agent] > self.max_invalid
                    and forfeit is None
                ):
                    forfeit = agent
        played = None
        if forfeit is not None:
            played = self._forfeit(forfeit)
        elif all(a in self._pending for a in self._to_move()):
            moves_now, self._pending = self._pending, {}
            played = self._play(moves_now)
        verdicts = None
        if played is not None:
            for agent, text in played.messages.items():
                if text:
                    texts[agent].append(text)
            for agent, agent_parts in played.reward_parts.items():
                for name, value in agent_parts.items():
                    parts[agent][name] = parts[agent].get(name, 0.0) + value
            verdicts = played.verdicts
        if verdicts is not None:
            self._over = True
        return self._outputs(texts, parts, infos, verdicts)

    def _outputs(self, texts, parts, infos, verdicts):
        observations, rewards = {}, {}
        over = verdicts is not None
        acting = self.acting
        for agent in self.possible_agents:
            observations[agent] = [user("\n".join(texts[agent]))] if texts[agent] else []
            agent_parts = {k: float(v) for k, v in parts[agent].items()}
            rewards[agent] = float(sum(agent_parts.values()))
            info = infos[agent]
            info.update(
                status="ok",
                mask=False,
                reward_parts=agent_parts,
                turn=self._turn,
                to_move=agent in acting,
            )
            if over:
                info.update(
                    verdict=verdicts[agent], success=verdicts[agent].status is Status.CORRECT
                )
        terminated = dict.fromkeys(self.possible_agents, over)
        truncated = dict.fromkeys(self.possible_agents, False)
        return observations, rewards, terminated, truncated, infos

    def _forfeit(self, agent: str) -> Round:
        """The game ends: ``agent`` loses for its invalid actions, the others win."""
        reason = f"{agent} forfeited after {self._invalid[agent]} invalid actions"
        messages, parts, verdicts = {}, {}, {}
        for other in self.possible_agents:
            lost = other == agent
            messages[other] = (
                f"{'You' if lost else agent} forfeited the game after too many invalid actions."
            )
            parts[other] = {"outcome": self.forfeit_rewards[lost]}
            verdicts[other] = Verdict(
                1.0 if not lost else 0.0,
                Status.INCORRECT if lost else Status.CORRECT,
                reason=reason,
                verifier=type(self).__name__,
            )
        return Round(messages, parts, verdicts)

    forfeit_rewards: ClassVar[tuple[float, float]] = (1.0, -1.0)
    """Outcome reward of (the other agents, the forfeiting agent)."""

    def watched(self) -> tuple[str, ...]:
        """The seats whose messages the game writes (`observers`, or every seat)."""
        return self.possible_agents if self.observers is None else self.observers

    # --- to implement -----------------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> dict[str, str]:
        raise NotImplementedError(f"{type(self).__name__} must implement _reset(options)")

    def _to_move(self) -> tuple[str, ...]:
        raise NotImplementedError(f"{type(self).__name__} must implement _to_move()")

    def _parse(self, agent: str, text: str) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _parse(agent, text)")

    def _play(self, moves: dict[str, Any]) -> Round:
        raise NotImplementedError(f"{type(self).__name__} must implement _play(moves)")

    def legal_moves(self, agent: str) -> list[Any]:
        """The legal moves of ``agent`` now (in the game's own terms)."""
        raise NotImplementedError(f"{type(self).__name__} must implement legal_moves(agent)")

    def move_text(self, agent: str, move: Any) -> str:
        """The action text that plays ``move`` (e.g. ``"<move>b2</move>"``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement move_text(agent, move)")

    def oracle_move(self, agent: str) -> Any:
        """The strongest built-in move of ``agent`` from the current state."""
        raise NotImplementedError(f"{type(self).__name__} has no oracle")

    def oracle_action(self, agent: str) -> str:
        """`oracle_move` as action text."""
        return self.move_text(agent, self.oracle_move(agent))

    def state_key(self) -> Hashable | None:
        """A hashable key of the current state (for step-level grouping), or None."""
        return None

    def render_text(self, agent: str | None = None) -> str:
        """A text picture of the state, as ``agent`` may see it (everything when None)."""
        return f"{type(self).__name__} (turn {self._turn})"

    # --- snapshots ------------------------------------------------------------------------------

    def get_state(self) -> dict[str, Any]:
        """A deep copy of the game's state, its generator's state and the turn counters."""
        return {
            "game": copy.deepcopy({name: getattr(self, name) for name in self.state_attrs}),
            "rng": copy.deepcopy(self.np_random.bit_generator.state),
            "counters": copy.deepcopy(
                (self._turn, self._over, self._started, self._invalid, self._pending)
            ),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot taken by `get_state`."""
        if not isinstance(state, dict) or set(state) != {"game", "rng", "counters"}:
            raise ValueError("set_state expects a snapshot returned by get_state()")
        for name, value in copy.deepcopy(state["game"]).items():
            setattr(self, name, value)
        self.np_random.bit_generator.state = copy.deepcopy(state["rng"])
        self._turn, self._over, self._started, self._invalid, self._pending = copy.deepcopy(
            state["counters"]
        )


def win_loss_verdicts(
    agents: tuple[str, ...],
    winner: str | None,
    reason: str,
    verifier: str,
    *,
    draw_succeeds: bool = False,
) -> dict[str, Verdict]:
    """Verdicts of a decided game: the winner correct, the others incorrect.

    A draw scores 0.5 and counts as a success only with ``draw_succeeds`` (for games where
    a draw is the best that perfect play guarantees).
    """
    verdicts = {}
    for agent in agents:
        if winner is None:
            status = Status.CORRECT if draw_succeeds else Status.INCORRECT
            verdicts[agent] = Verdict(0.5, status, reason=f"draw: {reason}", verifier=verifier)
        elif agent == winner:
            verdicts[agent] = Verdict(
                1.0, Status.CORRECT, reason=f"won: {reason}", verifier=verifier
            )
        else:
            verdicts[agent] = Verdict(
                0.0, Status.INCORRECT, reason=f"lost: {reason}", verifier=verifier
            )
    return verdicts


class VsOpponent(Env):
    """A multi-agent game as a single-agent env: built-in opponents take the other seats.

    The learner's observation after each turn holds what it saw of its own move and of
    every opponent move until it must act again; its reward sums its parts over them.

    Args:
        game: The game.
        opponent: A built-in opponent's name (see ``game.opponents``) or a policy.
        seat: The learner's seat: an agent name, ``"first"``, ``"second"``, or
            ``"random"`` (drawn from the seed at each reset).
    """

    reply_tag: ClassVar[str | None] = "move"

    def __init__(self, game: MultiAgentEnv, opponent: str | Opponent, seat: str = "first"):
        if not isinstance(game, MultiAgentEnv):
            raise TypeError(f"game must be a MultiAgentEnv, got {type(game).__name__}")
        if isinstance(opponent, str):
            if opponent not in game.opponents:
                raise ValueError(
                    f"unknown opponent {opponent!r}; "
                    f"{type(game).__name__} has {sorted(game.opponents)}"
                )
            self.opponent_name, opponent = opponent, game.opponents[opponent]
        elif callable(opponent):
            self.opponent_name = getattr(opponent, "__name__", "custom")
        else:
            raise TypeError(
                f"opponent must be a name or a callable (game, agent) -> move, got {opponent!r}"
            )
        seats = {"first": game.possible_agents[0], "second": game.possible_agents[-1]}
        if seat not in seats and seat not in game.possible_agents and seat != "random":
            raise ValueError(
                "seat must be 'first', 'second', 'random' or one of "
                f"{list(game.possible_agents)}, got {seat!r}"
            )
        self.game = game
        self.opponent = opponent
        self.seat_choice = seat
        self.seat = seats.get(seat, seat if seat != "random" else game.possible_agents[0])

    def _reset(self, options: dict[str, Any]):
        self.game.np_random = self.np_random
        if self.seat_choice == "random":
            self.seat = self.game.possible_agents[
                int(self.np_random.integers(len(self.game.possible_agents)))
            ]
        self.game.observers = (self.seat,)
        observations, _ = self.game.reset(options=options)
        texts = [m["content"] for m in observations[self.seat]]
        # The opponents' opening moves pay the learner nothing: its return starts with its
        # first move.
        self._run_opponents(texts, {})
        return [user("\n".join(texts))], {"seat": self.seat, "opponent": self.opponent_name}

    def _run_opponents(self, texts: list[str], parts: dict[str, float]) -> Info:
        """Plays the opponents until the learner must act or the game ends."""
        info: Info = {}
        acting = self.game.acting
        while acting and self.seat not in acting:
            moves = {agent: self.opponent(self.game, agent) for agent in acting}
            info = self._absorb(self.game._advance({}, moves), texts, parts)
            acting = self.game.acting
        return info

    def _absorb(self, out, texts: list[str], parts: dict[str, float]) -> Info:
        observations, _, _, _, infos = out
        texts.extend(m["content"] for m in observations[self.seat])
        for name, value in infos[self.seat]["reward_parts"].items():
            parts[name] = parts.get(name, 0.0) + value
        return infos[self.seat]

    def _step(self, action: Message) -> Step:
        texts: list[str] = []
        parts: dict[str, float] = {}
        moves = {
            agent: self.opponent(self.game, agent)
            for agent in self.game.acting
            if agent != self.seat
        }
        info = self._absorb(self.game._advance({self.seat: action}, moves), texts, parts)
        step_info: Info = {k: info[k] for k in ("invalid_action", "invalid_reason") if k in info}
        if "verdict" not in info:
            info = self._run_opponents(texts, parts) or info
        observation = [user("\n".join(texts))] if texts else []
        if "verdict" in info:
            verdict = self.judge(info["verdict"])
            return Step(
                observation,
                parts,
                terminated=True,
                info={**step_info, "verdict": verdict, "success": verdict.correct},
            )
        return Step(observation, parts, info=step_info)

    def judge(self, verdict: Verdict) -> Verdict:
        """The learner's final verdict (the game's by default; see subclasses)."""
        return verdict

    def oracle_action(self) -> str:
        """The strongest built-in move for the learner's seat."""
        return self.game.oracle_action(self.seat)

    def random_action(self, rng: np.random.Generator) -> str:
        """A uniformly random legal move for the learner, drawn from ``rng`` (not `np_random`)."""
        moves = self.game.legal_moves(self.seat)
        return self.game.move_text(self.seat, moves[int(rng.integers(len(moves)))])

    def state_key(self) -> Hashable | None:
        """The game's state key."""
        return self.game.state_key()

    def render_text(self) -> str:
        """The game as the learner sees it."""
        return self.game.render_text(self.seat)

    state_attrs: ClassVar[tuple[str, ...]] = ()
    """Attributes of the env itself that an episode sets (e.g. an opponent drawn at reset)."""

    def get_state(self) -> dict[str, Any]:
        """A snapshot of the game (its generator is this env's), the seat and the counters."""
        return {
            "game": self.game.get_state(),
            "seat": self.seat,
            "env": copy.deepcopy({name: getattr(self, name) for name in self.state_attrs}),
            "counters": (self._turn, self._over, self._started, self._invalid_count),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot taken by `get_state`."""
        if not isinstance(state, dict) or set(state) != {"game", "seat", "env", "counters"}:
            raise ValueError("set_state expects a snapshot returned by get_state()")
        self.game.np_random = self.np_random
        self.game.set_state(state["game"])
        self.seat = state["seat"]
        self.game.observers = (self.seat,)
        for name, value in copy.deepcopy(state["env"]).items():
            setattr(self, name, value)
        self._turn, self._over, self._started, self._invalid_count = state["counters"]


def make(env_id: str, **kwargs: Any) -> MultiAgentEnv:
    """The multi-agent game behind a registered two-player id (for self-play).

    Args:
        env_id: A registered id whose entry point is a `VsOpponent` subclass.
        **kwargs: Arguments of that id (``level`` and the game's knobs; the opponent
            settings are ignored, every seat is yours).

    Raises:
        ValueError: The id is not a multi-agent game.
    """
    from palaestra.registration import load_entry_point, spec

    env_spec = spec(env_id)
    factory = load_entry_point(env_spec.entry_point)
    if not (isinstance(factory, type) and issubclass(factory, VsOpponent)):
        raise ValueError(
            f"{env_id} is not a multi-agent game (its entry point is not a VsOpponent)"
        )
    return factory(**{**env_spec.kwargs, **kwargs}).game


def play(
    game: MultiAgentEnv,
    policies: Mapping[str, Policy],
    *,
    seed: int | None = None,
    max_steps: int = 10_000,
) -> dict[str, Any]:
    """Runs one episode with a policy per seat (the same policy may sit in every seat).

    Args:
        game: The game.
        policies: A policy for every seat.
        seed: Seeds the game.
        max_steps: Safety cap on steps.

    Returns:
        ``{"returns": {agent: float}, "verdicts": {agent: Verdict}, "steps": int}``.
    """
    missing = set(game.possible_agents) - set(policies)
    if missing:
        raise ValueError(f"play needs a policy for every seat; missing {sorted(missing)}")
    observations, _ = game.reset(seed=seed)
    returns = dict.fromkeys(game.possible_agents, 0.0)
    infos: dict[str, Info] = {}
    steps = 0
    while game.acting and steps < max_steps:
        actions = {agent: policies[agent](observations[agent]) for agent in game.acting}
        observations, rewards, _, _, infos = game.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
        steps += 1
    verdicts = {agent: infos.get(agent, {}).get("verdict") for agent in game.possible_agents}
    return {"returns": returns, "verdicts": verdicts, "steps": steps}
