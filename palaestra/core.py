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
import functools
from collections.abc import Hashable
from typing import Any, ClassVar, Literal, TypedDict, Union

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding

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


# --- fast seeding ---------------------------------------------------------------------------
# Building Gymnasium's generator (``Generator(PCG64(SeedSequence(s)))``) costs about 10 us,
# more than a whole reset of a small game, mostly in numpy's per-object overheads. Games
# that draw at reset use `Env.uniforms` instead: it computes the seeded PCG64 state in
# Python integers and draws a few numbers there (more through a generator the env keeps),
# the same numbers, bit for bit, as ``np_random.random(n)`` (tests/core/test_uniforms.py).

_PCG_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
_MASK_64 = (1 << 64) - 1
_MASK_128 = (1 << 128) - 1
_PYTHON_DRAWS = 4
"""`Env.uniforms` draws up to this many numbers in Python, more in one numpy call."""
_JUMPS = 64
"""`Env.uniforms` passes over up to this many numbers in Python, in one jump."""
_HASH_CONSTANTS = tuple(0x8B51F9DD * pow(0x58F38DED, k, 1 << 32) & 0xFFFFFFFF for k in range(9))
"""SeedSequence's hash constants when it hashes words: INIT_B, times MULT_B per word."""


@functools.lru_cache(maxsize=4096)  # GRPO resets each seed once per member of a group
def _pcg64_start(seed: int) -> tuple[int, int]:
    """``(state, increment)`` of ``PCG64(SeedSequence(seed))`` before its first draw.

    numpy mixes the seed into the sequence's pool; the rest is done here as numpy does
    it: ``generate_state(4, uint64)`` (eight hashed 32-bit words) and PCG64's seeding
    (``inc = 2 * word_pair_2 + 1``; ``state = (inc + word_pair_1) * multiplier + inc``).
    """
    pool = np.random.SeedSequence(seed).pool.tolist()
    words = []
    for i in range(8):  # numpy's hashmix of pool word i % 4
        v = (pool[i & 3] ^ _HASH_CONSTANTS[i]) * _HASH_CONSTANTS[i + 1] & 0xFFFFFFFF
        words.append(v ^ v >> 16)
    o0, o1, o2, o3, o4, o5, o6, o7 = words
    increment = (o4 << 65 | o5 << 97 | o6 << 1 | o7 << 33 | 1) & _MASK_128
    start = o0 << 64 | o1 << 96 | o2 | o3 << 32
    return ((increment + start) * _PCG_MULTIPLIER + increment) & _MASK_128, increment


def _pcg64_uniforms(
    state: int, increment: int, count: int, skip: int = 0
) -> tuple[list[float], int]:
    """``count`` doubles of a PCG64 stream as numpy draws them, and the state after them.

    The returned state is ``skip`` (at most `_JUMPS`) draws further on.
    """
    draws = []
    for _ in range(count):
        # XSL-RR 128/64: step the LCG, fold the state's halves and rotate by its top 6 bits;
        # numpy's double is the output's top 53 bits.
        state = (state * _PCG_MULTIPLIER + increment) & _MASK_128
        folded = (state >> 64 ^ state) & _MASK_64
        turn = state >> 122
        output = (folded >> turn | folded << (64 - turn)) & _MASK_64
        draws.append((output >> 11) * (1.0 / (1 << 53)))
    if skip:
        multiplier, steps = _PCG64_JUMPS[skip]
        state = (state * multiplier + increment * steps) & _MASK_128
    return draws, state


def _pcg64_jumps(most: int) -> list[tuple[int, int]]:
    """``(a, c)`` for each ``k`` up to ``most``: ``state * a + increment * c`` is ``k`` draws on.

    (The LCG step ``state * m + increment``, composed ``k`` times.)
    """
    jumps, multiplier, total = [], 1, 0
    for _ in range(most + 1):
        jumps.append((multiplier, total))
        multiplier = multiplier * _PCG_MULTIPLIER & _MASK_128
        total = (total * _PCG_MULTIPLIER + 1) & _MASK_128
    return jumps


_PCG64_JUMPS = _pcg64_jumps(_JUMPS)


def _pcg64_state(state: int, increment: int) -> dict[str, Any]:
    """The ``PCG64.state`` dict (numpy's form) of a state with no buffered 32-bit half."""
    return {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": increment},
        "has_uint32": 0,
        "uinteger": 0,
    }


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
    if type(action) is str and len(action) <= max_chars:  # the common case, checked first
        return {"role": "assistant", "content": action}
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


@dataclasses.dataclass(slots=True)
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
    """

    # render_fps only paces Gymnasium's human rendering; text envs have no frame rate.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4}
    invalid_action_penalty: ClassVar[float] = INVALID_ACTION_PENALTY
    max_action_chars: ClassVar[int] = MAX_ACTION_CHARS

    render_mode: str | None = None
    _started: bool = False
    _over: bool = False
    _turn: int = 0
    _transcript_tail: Observation
    _generator: np.random.Generator | None = None
    """The built generator (see `np_random`)."""
    _pending_seed: int | None = None
    """A seed given to `reset` whose generator is not built yet (see `np_random`)."""
    _stream: list[int] | None = None
    """``[state, increment]`` of the pending seed's stream while `uniforms` draws it in Python."""
    _drawing: bool = False
    """Whether `uniforms` draws the pending seed's stream from ``_scratch``."""
    _scratch: tuple[np.random.PCG64, np.random.Generator] | None = None
    """This env's own generator for `uniforms`' larger draws (its state is set when used)."""
    _max_turns: int | None = None
    _max_invalid: int | None = None
    _invalid_count: int = 0

    # Seeding is lazy: `reset(seed=s)` records ``s`` and the generator is built on first
    # use of `np_random`, as the very generator Gymnasium's seeding builds (a PCG64 over
    # ``SeedSequence(s)``), so every draw is the same; an episode that draws nothing pays
    # nothing for it (building a generator costs about as much as a small game's step).
    # Until then `uniforms` draws the same stream without building it; the generator built
    # later goes on from where those draws left the stream.
    @property
    def np_random(self) -> np.random.Generator:
        """This env's generator, seeded by `reset` (all of the env's randomness comes from it)."""
        seed = self._pending_seed
        if seed is not None:
            self._pending_seed = None
            generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
            if self._drawing:  # go on from where `uniforms` left the stream
                generator.bit_generator.state = self._scratch[0].state
            elif self._stream is not None:
                generator.bit_generator.state = _pcg64_state(*self._stream)
            self._stream, self._drawing = None, False
            self._generator = generator
        elif self._generator is None:
            self._generator, self._np_random_seed = seeding.np_random()
        return self._generator

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._pending_seed = None
        self._stream, self._drawing = None, False
        self._generator = value
        self._np_random_seed = -1  # as Gymnasium: the seed of a generator set by hand is unknown

    # Gymnasium keeps the generator in ``_np_random``, and its checker reads that attribute
    # directly: reading it builds a pending generator too.
    @property
    def _np_random(self) -> np.random.Generator | None:
        return self.np_random if self._pending_seed is not None else self._generator

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        self._generator = value

    def _seed(self, seed: int | None) -> None:
        """What ``gymnasium.Env.reset(seed=seed)`` does, with the generator built lazily."""
        if seed is not None:
            if not (isinstance(seed, int) and seed >= 0):
                seeding.np_random(seed)  # raises Gymnasium's error for this seed
            self._pending_seed = seed
            self._stream, self._drawing = None, False
            self._np_random_seed = seed

    def uniforms(self, count: int, skip: int = 0) -> list[float]:
        """``count`` uniform numbers in [0, 1): exactly ``self.np_random.random(count).tolist()``.

        Right after a seeded reset the numbers come from the seed's PCG64 stream without
        building `np_random` (which would cost more than a small game's whole reset);
        mixing both ways of drawing gives the same numbers as `np_random` alone.

        Args:
            count: How many numbers to return.
            skip: How many more numbers of the stream to pass over, as if drawn and
                dropped (``np_random.random(count + skip)[:count]``).
        """
        seed = self._pending_seed
        total = count + skip
        if seed is None:
            return self.np_random.random(total).tolist()[:count]
        if self._drawing:  # the env's scratch generator holds the stream
            return self._scratch[1].random(total).tolist()[:count]
        stream = self._stream
        if stream is None:
            stream = self._stream = list(_pcg64_start(seed))
        if count <= _PYTHON_DRAWS and skip <= _JUMPS:
            draws, stream[0] = _pcg64_uniforms(stream[0], stream[1], count, skip)
            return draws
        if self._scratch is None:
            bits = np.random.PCG64(0)  # its seed does not matter: its state is set here
            self._scratch = bits, np.random.Generator(bits)
        self._scratch[0].state = _pcg64_state(*stream)
        self._stream, self._drawing = None, True
        return self._scratch[1].random(total).tolist()[:count]

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
            seed: Seeds ``self.np_random``; the same seed gives the same episode.
            options: Env-specific options (e.g. ``{"level": 3}``); unknown keys are errors.

        Returns:
            The opening messages and an info dict.
        """
        if seed is not None:
            if seed.__class__ is int and seed >= 0:  # `_seed`, inlined for the common case
                self._pending_seed = self._np_random_seed = seed
                self._stream, self._drawing = None, False
            else:
                self._seed(seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        self._turn = 0
        self._over = False
        observation, info = self._reset(dict(options) if options else {})
        self._started = True
        self._invalid_count = 0
        return self._finish_reset(observation, info)

    def step(self, action: Action) -> tuple[Observation, float, bool, bool, Info]:
        """Plays one turn.

        Args:
            action: The model's turn: a string or an assistant message.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.

        Raises:
            ResetNeeded: The episode has not started or has already ended.
        """
        # `_begin_step`, inlined: this is the hot path of every rollout.
        if not self._started or self._over:
            self._refuse_step()
        self._turn += 1
        if type(action) is str and len(action) <= self.max_action_chars:
            message: Message = {"role": "assistant", "content": action}
        else:
            try:
                message = as_message(action, max_chars=self.max_action_chars)
            except InvalidAction as e:
                return self._finish_step(self.invalid(str(e)))
        try:
            result = self._step(message)
        except InvalidAction as e:
            result = self.invalid(str(e))
        except InfrastructureError as e:
            result = self.infrastructure_error(str(e))
        return self._finish_step(result)

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """The async twin of `reset`."""
        if seed is not None:
            self._seed(seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        self._turn = 0
        self._over = False
        observation, info = await self._areset(dict(options) if options else {})
        self._started = True
        self._invalid_count = 0
        return self._finish_reset(observation, info)

    async def astep(self, action: Action) -> tuple[Observation, float, bool, bool, Info]:
        """The async twin of `step`."""
        message, early = self._begin_step(action)
        if early is not None:
            return self._finish_step(early)
        try:
            result = await self._astep(message)
        except InvalidAction as e:
            result = self.invalid(str(e))
        except InfrastructureError as e:
            result = self.infrastructure_error(str(e))
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
        """The highest episode return reachable in the current episode.

        Defaults to the upper end of the registered reward range (or 1.0). Envs whose
        optimum depends on the instance (e.g. step penalties) override it.
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
        details = {"invalid_action": True, "invalid_reason": reason}
        if info:
            details.update(info)
        return Step(
            [{"role": "user", "content": f"Invalid action: {reason}"}],
            {"invalid": self.invalid_action_penalty},
            False,
            False,
            details,
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
        return Step(observation or [], reward_parts, True, False, info)

    # --- internals ----------------------------------------------------------------------

    def _begin_step(self, action: Any) -> tuple[Message, Step | None]:
        if not self._started or self._over:
            self._refuse_step()
        self._turn += 1
        if type(action) is str and len(action) <= self.max_action_chars:  # the common case
            return {"role": "assistant", "content": action}, None
        try:
            return as_message(action, max_chars=self.max_action_chars), None
        except InvalidAction as e:
            return {"role": "assistant", "content": ""}, self.invalid(str(e))

    def _refuse_step(self) -> None:
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}.step() was called before reset()")
        raise ResetNeeded(
            f"{type(self).__name__}.step() was called after the episode ended; call reset()"
        )

    # What envs return must never be shared between calls (users keep it). Messages are
    # flat dicts of strings, so a copy of each message suffices; info values are built
    # fresh by each step, so a copy of the dict suffices. (A deep copy would cost more
    # than a whole game step.)

    def _finish_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        info = {"status": "ok", "mask": False, **info}
        self._transcript_tail = observation
        return list(map(dict, observation)), info

    def _finish_step(self, result: Step) -> tuple[Observation, float, bool, bool, Info]:
        if result.__class__ is not Step and not isinstance(result, Step):
            raise TypeError(f"{type(self).__name__}._step must return a Step, got {result!r}")
        raw = result.reward_parts
        if len(raw) == 1:  # the common case, without building a comprehension
            [(name, value)] = raw.items()
            if value.__class__ is not float:
                value = float(value)
            parts = {name: value}
            reward = 0.0 + value  # what float(sum(...)) gives (0.0 + -0.0 is 0.0)
        else:
            parts, reward = {}, 0.0
            for name, value in raw.items():  # the same sum as float(sum(...)), in order
                parts[name] = value = float(value)
                reward += value
        if result.info:
            info = {
                "status": "ok",
                "mask": False,
                **result.info,
                "reward_parts": parts,
                "turn": self._turn,
            }
        else:  # the same dict, built without merging an empty one
            info = {"status": "ok", "mask": False, "reward_parts": parts, "turn": self._turn}
        self._transcript_tail = observation = result.observation
        if len(observation) == 1:
            message = observation[0]
            observation = [message.copy() if message.__class__ is dict else dict(message)]
        else:
            observation = list(map(dict, observation))
        terminated, truncated = result.terminated, result.truncated
        if terminated or truncated:
            terminated, truncated = bool(terminated), bool(truncated)
            if terminated and truncated:
                raise ValueError(
                    f"{type(self).__name__} returned terminated=True and truncated=True for one "
                    "cause; terminated means the task ended, truncated means a limit cut it"
                )
            self._over = True
            info.setdefault("success", False)
        else:  # (`_over` is still False: `step` refuses to run once it is True)
            terminated = truncated = False
            # The common cases of `_apply_limits`, inline: no limit is reached this turn.
            if self._max_turns is None or self._turn < self._max_turns:
                if self._max_invalid is None or not info.get("invalid_action"):
                    return observation, reward, False, False, info
                if self._invalid_count < self._max_invalid:
                    self._invalid_count += 1
                    return observation, reward, False, False, info
        if self._max_invalid is not None or self._max_turns is not None:
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
        # InvalidActionLimit's rule, then TurnLimit's (the order `make` used to wrap them in).
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
