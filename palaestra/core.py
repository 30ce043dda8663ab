"""The environment contract: Gymnasium's API, for conversations.

Read this module first. It defines what every Palaestra environment is:

    obs, info = env.reset(seed=None, options=None)
    obs, reward, terminated, truncated, info = env.step(action)
    obs, info = await env.areset(...); ... = await env.astep(action)

* An observation is the list of chat messages the agent has not seen yet
  (``{"role": "system" | "user" | "tool", "content": str, ...}``, OpenAI format;
  tool messages carry ``tool_call_id``). `reset` returns the opening messages.
* An action is the model's turn: a string, or an assistant message that may carry
  native ``tool_calls``.
* ``reward`` is this turn's reward; ``info["reward_parts"]`` breaks it down by name
  (outcome, format, progress, invalid, ...) and the parts sum to ``reward``.
* ``terminated``: the task ended (solved, failed, game over). ``truncated``: a limit
  cut it (turns, budget, time) or infrastructure failed. Never both for one cause.
* At the end of an episode ``info["success"]`` says whether the task was solved and
  ``info["verdict"]`` (a `palaestra.Verdict`) says why.
* An invalid action never raises: the env answers with a message saying what was wrong
  and `INVALID_ACTION_PENALTY`, and sets ``info["invalid_action"] = True``. The episode
  ends when the allowance is spent (`Env.set_limits`, which `palaestra.make` applies, or
  the `palaestra.wrappers.InvalidActionLimit` wrapper).
* An infrastructure failure never reads as a zero reward: the step sets
  ``info["status"] = "error"`` and ``info["mask"] = True`` and truncates the episode.
* Each env owns its randomness: `reset(seed=s)` derives everything from ``s``
  (``self.np_random``); no code touches the global `random` or `numpy.random` state.
* Every env has an oracle, `oracle_action()`: the best action from the current state.

Subclasses implement `_reset` and `_step` (and optionally `_areset`/`_astep` when they
are I/O bound); the public methods here apply the contract around them, so every env
validates actions, counts turns, sums reward parts and reports status the same way.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import Hashable
from typing import Any, ClassVar, Literal, TypedDict, Union

import gymnasium as gym

from palaestra.errors import InfrastructureError, ResetNeeded
from palaestra.spaces import ChatAction, Conversation
from palaestra.verdict import Status, Verdict


class ToolCallFunction(TypedDict):
    """The function part of an OpenAI tool call; ``arguments`` is a JSON string."""

    name: str
    arguments: str


class ToolCallDict(TypedDict, total=False):
    """A tool call as it appears in an OpenAI assistant message."""

    id: str
    type: Literal["function"]
    function: ToolCallFunction


class Message(TypedDict, total=False):
    """One chat message in OpenAI format."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None
    name: str
    tool_calls: list[ToolCallDict]
    tool_call_id: str


Action = Union[str, Message]  # noqa: UP007 (a runtime alias, for Python 3.10)
"""What the model did this turn: its text, or an assistant message with native tool calls."""

Observation = list[Message]
"""The messages the agent has not seen yet."""

Info = dict[str, Any]

INVALID_ACTION_PENALTY = -0.1
"""Default reward of an invalid action (wrong type, unparsable, illegal move, too long)."""

MAX_ACTION_CHARS = 200_000
"""Default cap on an action's text; longer actions are invalid (protects every parser)."""


def system(content: str) -> Message:
    """A system message."""
    return {"role": "system", "content": content}


def user(content: str) -> Message:
    """A user message (what the environment says)."""
    return {"role": "user", "content": content}


def tool_message(tool_call_id: str, content: str, name: str | None = None) -> Message:
    """A tool result message answering the tool call ``tool_call_id``."""
    message: Message = {"role": "tool", "content": content, "tool_call_id": tool_call_id}
    if name is not None:
        message["name"] = name
    return message


class InvalidAction(ValueError):
    """Raised inside an env to turn the current action into an invalid-action step."""


def as_message(action: Any, *, max_chars: int = MAX_ACTION_CHARS) -> Message:
    """Normalises an action into an assistant message, or raises `InvalidAction`.

    Args:
        action: A string, or a dict with ``role`` ``"assistant"`` (optional), ``content``
            (a string or None) and optional ``tool_calls`` (a list of dicts).
        max_chars: Longest accepted content.

    Returns:
        A fresh assistant message.

    Raises:
        InvalidAction: The action has the wrong type or shape, or is too long.
    """
    if isinstance(action, str):
        message: Message = {"role": "assistant", "content": action}
    elif isinstance(action, dict):
        role = action.get("role", "assistant")
        if role != "assistant":
            raise InvalidAction(f"an action message must have role 'assistant', got {role!r}")
        content = action.get("content")
        if content is not None and not isinstance(content, str):
            raise InvalidAction(
                "an action message's content must be a string or null, "
                f"got {type(content).__name__}"
            )
        message = {"role": "assistant", "content": content}
        if "tool_calls" in action and action["tool_calls"] is not None:
            calls = action["tool_calls"]
            if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
                raise InvalidAction("an action's tool_calls must be a list of objects")
            message["tool_calls"] = copy.deepcopy(calls)
    else:
        raise InvalidAction(
            f"an action must be a string or an assistant message dict, got {type(action).__name__}"
        )
    if len(message.get("content") or "") > max_chars:
        raise InvalidAction(
            f"the action is {len(message['content']):,} characters long; the limit is {max_chars:,}"
        )
    return message


@dataclasses.dataclass
class Step:
    """What a subclass's `_step` returns; `Env.step` turns it into Gymnasium's 5-tuple.

    Attributes:
        observation: New messages for the agent.
        reward_parts: Named parts of this turn's reward; the reward is their sum.
        terminated: The task ended.
        truncated: A limit cut the episode (or infrastructure failed).
        info: Extra information (``success``, ``verdict``, ...).
    """

    observation: Observation
    reward_parts: dict[str, float] = dataclasses.field(default_factory=dict)
    terminated: bool = False
    truncated: bool = False
    info: Info = dataclasses.field(default_factory=dict)


class Env(gym.Env[Observation, Action]):
    """Base class of every Palaestra environment (a `gymnasium.Env` over conversations).

    Subclasses implement:
        * `_reset(options) -> (messages, info)`: start an episode from ``self.np_random``.
        * `_step(message) -> Step`: score one assistant message (already validated).
        * `oracle_action() -> Action`: the best action from the current state.
    and may override `tools`, `render_text`, `best_return`, `state_key`, `_areset`, `_astep`.

    Class attributes:
        invalid_action_penalty: Reward of an invalid action (documented per env).
        max_action_chars: Actions longer than this are invalid.
        reply_tag: The tag a reply goes in (``"answer"`` for ``<answer>...</answer>``), or
            None; `palaestra play` wraps what a person types in it. The env itself reads
            only what its prompt asks for.
    """

    # render_fps only paces Gymnasium's human rendering; text envs have no frame rate.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4}
    invalid_action_penalty: ClassVar[float] = INVALID_ACTION_PENALTY
    max_action_chars: ClassVar[int] = MAX_ACTION_CHARS
    reply_tag: ClassVar[str | None] = None

    render_mode: str | None = None
    _started: bool = False
    _over: bool = False
    _turn: int = 0
    _transcript_tail: Observation
    _max_turns: int | None = None
    _max_invalid: int | None = None
    _invalid_count: int = 0

    # Spaces are created per instance so that seeding one env's action space never
    # changes another's samples.
    @property
    def observation_space(self) -> Conversation:  # type: ignore[override]
        """The space of observations: lists of chat messages."""
        if "_observation_space" not in self.__dict__:
            self.__dict__["_observation_space"] = Conversation()
        return self.__dict__["_observation_space"]

    @observation_space.setter
    def observation_space(self, space: Conversation) -> None:
        self.__dict__["_observation_space"] = space

    @property
    def action_space(self) -> ChatAction:  # type: ignore[override]
        """The space of actions: strings or assistant messages."""
        if "_action_space" not in self.__dict__:
            self.__dict__["_action_space"] = ChatAction()
        return self.__dict__["_action_space"]

    @action_space.setter
    def action_space(self, space: ChatAction) -> None:
        self.__dict__["_action_space"] = space

    @property
    def tools(self) -> list[dict[str, Any]]:
        """JSON schemas (OpenAI ``{"type": "function", "function": {...}}``) of offered tools."""
        return []

    @property
    def turn(self) -> int:
        """How many steps the current episode has taken."""
        return self._turn

    # --- the contract -------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """Starts an episode.

        Args:
            seed: Seeds ``self.np_random`` as `gymnasium.Env.reset` does; the same seed gives
                the same episode, and None goes on with the current generator.
            options: Env-specific options (e.g. ``{"level": 3}``); unknown keys are errors.

        Returns:
            The opening messages and an info dict.
        """
        options = self._begin_reset(seed, options)
        return self._finish_reset(*self._reset(options))

    def step(self, action: Action) -> tuple[Observation, float, bool, bool, Info]:
        """Plays one turn.

        Args:
            action: The model's turn: a string or an assistant message.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.

        Raises:
            ResetNeeded: The episode has not started or has already ended.
        """
        message, invalid = self._begin_step(action)
        if invalid is not None:
            return self._finish_step(invalid)
        try:
            result = self._step(message)
        except (InvalidAction, InfrastructureError) as error:
            result = self._failed_step(error)
        return self._finish_step(result)

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """The async twin of `reset`."""
        options = self._begin_reset(seed, options)
        return self._finish_reset(*await self._areset(options))

    async def astep(self, action: Action) -> tuple[Observation, float, bool, bool, Info]:
        """The async twin of `step`."""
        message, invalid = self._begin_step(action)
        if invalid is not None:
            return self._finish_step(invalid)
        try:
            result = await self._astep(message)
        except (InvalidAction, InfrastructureError) as error:
            result = self._failed_step(error)
        return self._finish_step(result)

    # --- to implement ---------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, Info]:
        raise NotImplementedError(f"{type(self).__name__} must implement _reset(options)")

    def _step(self, action: Message) -> Step:
        raise NotImplementedError(f"{type(self).__name__} must implement _step(action)")

    async def _areset(self, options: dict[str, Any]) -> tuple[Observation, Info]:
        # Sync envs run in a worker thread so they never block an event loop.
        return await asyncio.to_thread(self._reset, options)

    async def _astep(self, action: Message) -> Step:
        return await asyncio.to_thread(self._step, action)

    def oracle_action(self) -> Action:
        """The best action from the current state (a reference answer or a planner's move).

        Used by `check_env` to prove solvability, by scripted policies, and to produce
        demonstrations for supervised warm starts.
        """
        raise NotImplementedError(f"{type(self).__name__} has no oracle")

    def best_return(self) -> float:
        """The return best play is sure to reach in the current episode: the oracle's target.

        Defaults to the upper end of the registered reward range (or 1.0). Envs whose
        optimum depends on the instance (e.g. step penalties) override it; against an
        opponent it is what best play guarantees whatever the opponent does, so a weak
        opponent's mistakes can give more (a won tic-tac-toe game returns 1, the
        guarantee is a draw's 0).
        """
        spec = getattr(self, "palaestra_spec", None)
        return float(spec.reward_range[1]) if spec is not None else 1.0

    def state_key(self) -> Hashable | None:
        """A hashable key of the current state (for step-level grouping), or None."""
        return None

    state_attrs: ClassVar[tuple[str, ...]] = ()
    """The attributes that make up an episode's state; `get_state` snapshots them."""

    def get_state(self) -> dict[str, Any]:
        """A deep-copied snapshot of the episode: ``state_attrs``, the generator, turn counters.

        ``env.set_state(snapshot)`` later (on this env or another made with the same id and
        arguments) resumes the same episode exactly: for search, tree rollouts and GRPO
        groups that branch from one state.

        Raises:
            NotImplementedError: The env declares no ``state_attrs``.
        """
        if not self.state_attrs:
            raise NotImplementedError(
                f"{type(self).__name__} declares no state_attrs, so it cannot snapshot"
            )
        return {
            "attrs": copy.deepcopy({name: getattr(self, name) for name in self.state_attrs}),
            "rng": copy.deepcopy(self.np_random.bit_generator.state),
            "turn": self._turn,
            "over": self._over,
            "started": self._started,
            "invalid": self._invalid_count,
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot taken by `get_state`.

        Raises:
            ValueError: ``state`` is not such a snapshot.
        """
        if not isinstance(state, dict) or set(state) != {
            "attrs",
            "rng",
            "turn",
            "over",
            "started",
            "invalid",
        }:
            raise ValueError("set_state expects a snapshot returned by get_state()")
        for name, value in copy.deepcopy(state["attrs"]).items():
            setattr(self, name, value)
        self.np_random.bit_generator.state = copy.deepcopy(state["rng"])
        self._turn, self._over, self._started = state["turn"], state["over"], state["started"]
        self._invalid_count = state["invalid"]

    def render_text(self) -> str:
        """A text picture of the current state, for people (`palaestra play`, `render`)."""
        return "\n\n".join(f"[{m['role']}] {m.get('content') or ''}" for m in self._transcript_tail)

    def render(self) -> str | None:  # type: ignore[override]
        """Renders per ``render_mode``: ``"ansi"`` returns text, ``"human"`` prints it."""
        if self.render_mode is None:
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # --- helpers for subclasses ------------------------------------------------------

    def invalid(self, reason: str, **info: Any) -> Step:
        """An invalid-action step: explain what was wrong, charge the penalty, go on."""
        return Step(
            observation=[user(f"Invalid action: {reason}")],
            reward_parts={"invalid": self.invalid_action_penalty},
            info={"invalid_action": True, "invalid_reason": reason, **info},
        )

    def infrastructure_error(self, reason: str) -> Step:
        """A failure outside the policy's control: masked, truncated, never a zero reward."""
        return Step(
            observation=[user("The environment failed; this episode is discarded.")],
            reward_parts={},
            truncated=True,
            info={
                "status": "error",
                "mask": True,
                "error": reason,
                "verdict": Verdict.error(reason),
            },
        )

    @staticmethod
    def finish(
        verdict: Verdict,
        observation: Observation | None = None,
        *,
        outcome: float | None = None,
        **parts: float,
    ) -> Step:
        """A terminal step judged by ``verdict``.

        Args:
            verdict: The final verdict (``info["verdict"]``); a masked verdict truncates
                the episode as an infrastructure failure instead.
            observation: Closing messages for the agent.
            outcome: The ``outcome`` reward part (default: the verdict's score).
            **parts: Other reward parts of this last turn.
        """
        reward_parts = {"outcome": verdict.score if outcome is None else outcome, **parts}
        info: Info = {"verdict": verdict, "success": verdict.status is Status.CORRECT}
        if verdict.mask:
            info.update(status="error", mask=True)
            return Step(observation or [], {}, truncated=True, info=info)
        return Step(observation or [], reward_parts, terminated=True, info=info)

    # --- internals ----------------------------------------------------------------------
    # The public methods and their async twins share these: `_begin_*` checks the call and
    # updates the counters, `_finish_*` turns what the subclass returned into Gymnasium's
    # return values.

    def _begin_reset(self, seed: int | None, options: dict[str, Any] | None) -> dict[str, Any]:
        super().reset(seed=seed)  # Gymnasium's seeding of `np_random`
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        self._turn = 0
        self._over = False
        self._invalid_count = 0
        return dict(options or {})

    # What envs return must never be shared between calls (users keep it). Messages are
    # flat dicts of strings, so a copy of each message suffices; info values are built
    # fresh by each step, so a copy of the dict suffices.

    def _finish_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        self._started = True
        self._transcript_tail = observation
        return [dict(message) for message in observation], {"status": "ok", "mask": False, **info}

    def _begin_step(self, action: Any) -> tuple[Message, Step | None]:
        """The action as a message, and the invalid-action step to return instead, if any."""
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}.step() was called before reset()")
        if self._over:
            raise ResetNeeded(
                f"{type(self).__name__}.step() was called after the episode ended; call reset()"
            )
        self._turn += 1
        try:
            return as_message(action, max_chars=self.max_action_chars), None
        except InvalidAction as e:
            return {"role": "assistant", "content": ""}, self.invalid(str(e))

    def _failed_step(self, error: InvalidAction | InfrastructureError) -> Step:
        """The step for an exception a subclass raised to reject the action or report a failure."""
        if isinstance(error, InvalidAction):
            return self.invalid(str(error))
        return self.infrastructure_error(str(error))

    def _finish_step(self, result: Step) -> tuple[Observation, float, bool, bool, Info]:
        if not isinstance(result, Step):
            raise TypeError(f"{type(self).__name__}._step must return a Step, got {result!r}")
        parts = {name: float(value) for name, value in result.reward_parts.items()}
        reward = float(sum(parts.values()))
        info = {
            "status": "ok",
            "mask": False,
            **result.info,
            "reward_parts": parts,
            "turn": self._turn,
        }
        terminated, truncated = bool(result.terminated), bool(result.truncated)
        if terminated and truncated:
            raise ValueError(
                f"{type(self).__name__} returned terminated=True and truncated=True for one "
                "cause; terminated means the task ended, truncated means a limit cut it"
            )
        if terminated or truncated:
            self._over = True
            info.setdefault("success", False)
        self._transcript_tail = result.observation
        observation = [dict(message) for message in result.observation]
        terminated, truncated = self._apply_limits(observation, terminated, truncated, info)
        return observation, reward, terminated, truncated, info

    def set_limits(self, *, max_turns: int | None = None, max_invalid: int | None = None) -> None:
        """Ends episodes at a turn cap and past an invalid-action allowance (None: no limit).

        The same rules as the `~palaestra.wrappers.TurnLimit` and
        `~palaestra.wrappers.InvalidActionLimit` wrappers (the allowance applies first),
        applied inside `step` without a wrapper layer; `palaestra.make` sets the registry's
        limits this way. Like the wrappers' ends, these ends do not close the episode for
        the env itself.
        """
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
        if max_invalid is not None and (not isinstance(max_invalid, int) or max_invalid < 0):
            raise ValueError(f"allowance must be a non-negative integer, got {max_invalid!r}")
        self._max_turns, self._max_invalid = max_turns, max_invalid

    @property
    def episode_limits(self) -> tuple[int | None, int | None]:
        """``(max_turns, max_invalid)`` set by `set_limits` (None: no limit)."""
        return self._max_turns, self._max_invalid

    def _apply_limits(
        self, observation: Observation, terminated: bool, truncated: bool, info: Info
    ) -> tuple[bool, bool]:
        # InvalidActionLimit's rule, then TurnLimit's.
        if self._max_invalid is not None and info.get("invalid_action"):
            self._invalid_count += 1
            if self._invalid_count > self._max_invalid and not (terminated or truncated):
                terminated = True
                info["termination"] = "invalid_action_limit"
                info.setdefault("success", False)
                observation.append(
                    user(f"Too many invalid actions ({self._invalid_count}); the episode is over.")
                )
        if (
            self._max_turns is not None
            and self._turn >= self._max_turns
            and not (terminated or truncated)
        ):
            truncated = True
            info["truncation"] = "max_turns"
            info.setdefault("success", False)
        return terminated, truncated


class Wrapper(gym.Wrapper[Observation, Action, Observation, Action]):
    """Base class of Palaestra wrappers.

    Unlike `gymnasium.Wrapper`, public attributes of the wrapped env (``tools``,
    ``oracle_action``, ``state_key``, ...) are reachable through the wrapper, and the
    async twins are forwarded. Most wrappers only override `after_reset`/`after_step`,
    which serve the sync and async paths alike.
    """

    wrapper_state_attrs: ClassVar[tuple[str, ...]] = ()
    """This wrapper's own counters, snapshotted by `get_state` along with the env."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"accessing private attribute {name!r} through a wrapper")
        return getattr(self.env, name)

    def get_state(self) -> dict[str, Any]:
        """The wrapped env's snapshot and this wrapper's counters."""
        own = copy.deepcopy({name: getattr(self, name) for name in self.wrapper_state_attrs})
        return {"env": self.env.get_state(), "wrapper": own}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot taken by `get_state`."""
        if not isinstance(state, dict) or set(state) != {"env", "wrapper"}:
            raise ValueError("set_state expects a snapshot returned by get_state()")
        self.env.set_state(state["env"])
        for name, value in copy.deepcopy(state["wrapper"]).items():
            setattr(self, name, value)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The wrapped env's tool schemas."""
        return self.env.tools

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """Resets the wrapped env, then `after_reset`."""
        return self.after_reset(*self.env.reset(seed=seed, options=options))

    def step(self, action: Action) -> tuple[Observation, float, bool, bool, Info]:
        """Steps the wrapped env, then `after_step`."""
        return self.after_step(*self.env.step(action))

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """The async twin of `reset`."""
        return self.after_reset(*await self.env.areset(seed=seed, options=options))

    async def astep(self, action: Action) -> tuple[Observation, float, bool, bool, Info]:
        """The async twin of `step`."""
        return self.after_step(*await self.env.astep(action))

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Adjusts what `reset` returns (identity by default)."""
        return observation, info

    def after_step(
        self, observation: Observation, reward: float, terminated: bool, truncated: bool, info: Info
    ) -> tuple[Observation, float, bool, bool, Info]:
        """Adjusts what `step` returns (identity by default)."""
        return observation, reward, terminated, truncated, info
