"""Wrappers: limits, tool execution and statistics around any env.

`InvalidActionLimit` and `TurnLimit` hold the rules that `palaestra.make` applies inside
every env's `step` (`Env.set_limits`), for envs built by hand; the others are added by users:

    env = TokenBudget(palaestra.make("GuessNumber-v0"), budget=4096, count=len)
    env = ToolExecution(palaestra.make("Arithmetic-v0"), tools=[calculator])
    env = EpisodeStatistics(env)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from palaestra.core import (
    INVALID_ACTION_PENALTY,
    Action,
    Env,
    Info,
    Observation,
    Wrapper,
    as_message,
    user,
)
from palaestra.core import InvalidAction as _InvalidAction
from palaestra.errors import InfrastructureError
from palaestra.parsers import get_parser
from palaestra.tools import Tool, ToolBudget, arun_tool_turn, run_tool_turn

StepTuple = tuple[Observation, float, bool, bool, Info]


class TurnLimit(Wrapper):
    """Truncates the episode after ``max_turns`` steps.

    The step that reaches the cap returns ``truncated=True`` (unless the task ended on
    that very step) and ``info["truncation"] = "max_turns"``.
    """

    wrapper_state_attrs = ("_turns",)

    def __init__(self, env: Env | Wrapper, max_turns: int):
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
        super().__init__(env)
        self.max_turns = max_turns
        self._turns = 0

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Starts counting."""
        self._turns = 0
        return observation, info

    def after_step(self, observation, reward, terminated, truncated, info) -> StepTuple:
        """Truncates at the cap."""
        self._turns += 1
        if self._turns >= self.max_turns and not (terminated or truncated):
            truncated = True
            info["truncation"] = "max_turns"
            info.setdefault("success", False)
        return observation, reward, terminated, truncated, info


class InvalidActionLimit(Wrapper):
    """Ends the episode once more than ``allowance`` invalid actions were made.

    Each invalid action already carries the env's documented penalty
    (``info["reward_parts"]["invalid"]``); the one that exceeds the allowance also
    terminates the episode (the task failed) with ``info["termination"] =
    "invalid_action_limit"``.
    """

    wrapper_state_attrs = ("_invalid",)

    def __init__(self, env: Env | Wrapper, allowance: int):
        if not isinstance(allowance, int) or allowance < 0:
            raise ValueError(f"allowance must be a non-negative integer, got {allowance!r}")
        super().__init__(env)
        self.allowance = allowance
        self._invalid = 0

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Starts counting."""
        self._invalid = 0
        return observation, info

    def after_step(self, observation, reward, terminated, truncated, info) -> StepTuple:
        """Terminates once the allowance is exceeded."""
        if info.get("invalid_action"):
            self._invalid += 1
            if self._invalid > self.allowance and not (terminated or truncated):
                terminated = True
                info["termination"] = "invalid_action_limit"
                info.setdefault("success", False)
                observation = [
                    *observation,
                    user(f"Too many invalid actions ({self._invalid}); the episode is over."),
                ]
        return observation, reward, terminated, truncated, info


class TokenBudget(Wrapper):
    """Truncates the episode once actions (and observations) exceed a length budget.

    Args:
        env: The env.
        budget: The budget, in units of ``count``.
        count: Measures a text: a tokenizer's ``lambda s: len(tok.encode(s))`` for a
            token budget, or `len` (the default) for a character budget.
        include_observations: Whether env messages count against the budget too.
    """

    wrapper_state_attrs = ("used",)

    def __init__(
        self,
        env: Env | Wrapper,
        budget: int,
        count: Callable[[str], int] = len,
        include_observations: bool = True,
    ):
        if not isinstance(budget, int) or budget < 1:
            raise ValueError(f"budget must be a positive integer, got {budget!r}")
        super().__init__(env)
        self.budget = budget
        self.count = count
        self.include_observations = include_observations
        self.used = 0

    def _measure(self, messages: Observation) -> int:
        return sum(self.count(m.get("content") or "") for m in messages)

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Starts counting (with the opening messages)."""
        self.used = self._measure(observation) if self.include_observations else 0
        return observation, info

    def _charge(self, action: Action) -> None:
        try:
            self.used += self._measure([as_message(action)])
        except _InvalidAction:
            pass  # the env reports the invalid action; it costs nothing here

    def step(self, action: Action) -> StepTuple:
        """Charges the action, steps, and truncates past the budget."""
        self._charge(action)
        return self.after_step(*self.env.step(action))

    async def astep(self, action: Action) -> StepTuple:
        """The async twin of `step`."""
        self._charge(action)
        return self.after_step(*await self.env.astep(action))

    def after_step(self, observation, reward, terminated, truncated, info) -> StepTuple:
        """Truncates past the budget."""
        if self.include_observations:
            self.used += self._measure(observation)
        info["budget_used"] = self.used
        if self.used > self.budget and not (terminated or truncated):
            truncated = True
            info["truncation"] = "budget"
            info.setdefault("success", False)
        return observation, reward, terminated, truncated, info


class ToolExecution(Wrapper):
    """Gives any env tools: tool calls are run here and answered with tool messages.

    A turn with tool calls never reaches the wrapped env; a turn without them (the final
    answer) does. The wrapper's tools are listed in ``env.tools`` next to the env's own.
    A tool that raises `InfrastructureError` (a server that crashed) truncates the episode
    with ``info["status"] = "error"`` and ``info["mask"] = True``; reset before going on.

    Args:
        env: The env.
        tools: The tools offered.
        parser: The named tool-call parser (see `palaestra.parsers`).
        max_calls: Tool calls allowed per episode; calling past it truncates the episode.
        max_calls_per_turn: Tool calls run per turn.
    """

    wrapper_state_attrs = ("budget",)

    def __init__(
        self,
        env: Env | Wrapper,
        tools: Sequence[Tool],
        parser: str = "auto",
        max_calls: int = 16,
        max_calls_per_turn: int = 4,
    ):
        super().__init__(env)
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        self.tool_table = {t.name: t for t in tools}
        self.parser = get_parser(parser)
        self._limits = (max_calls, max_calls_per_turn)
        self.budget = ToolBudget(*self._limits)
        self._penalty = float(
            getattr(self.env.unwrapped, "invalid_action_penalty", INVALID_ACTION_PENALTY)
        )

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The wrapped env's tools and this wrapper's."""
        return [*self.env.tools, *(t.schema() for t in self.tool_table.values())]

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Refills the budget."""
        self.budget = ToolBudget(*self._limits)
        return observation, info

    def _calls(self, action: Action):
        try:
            parsed = self.parser.parse(as_message(action))
        except _InvalidAction:
            return None
        return parsed if parsed.tool_calls else None

    def _as_tuple(self, step) -> StepTuple:
        info = {"status": "ok", "mask": False, **step.info, "reward_parts": dict(step.reward_parts)}
        reward = float(sum(step.reward_parts.values()))
        return step.observation, reward, bool(step.terminated), bool(step.truncated), info

    def step(self, action: Action) -> StepTuple:
        """Runs tool calls here; passes anything else to the env."""
        parsed = self._calls(action)
        if parsed is None:
            return self.env.step(action)
        try:
            step = run_tool_turn(self.tool_table, parsed, self.budget, self._penalty)
        except InfrastructureError as error:
            step = self.env.unwrapped.infrastructure_error(str(error))
        return self._as_tuple(step)

    async def astep(self, action: Action) -> StepTuple:
        """The async twin of `step`."""
        parsed = self._calls(action)
        if parsed is None:
            return await self.env.astep(action)
        try:
            step = await arun_tool_turn(self.tool_table, parsed, self.budget, self._penalty)
        except InfrastructureError as error:
            step = self.env.unwrapped.infrastructure_error(str(error))
        return self._as_tuple(step)


class EpisodeStatistics(Wrapper):
    """Adds ``info["episode"]`` at the end of each episode.

    It holds the return, the number of turns, the sum of each reward part, the number of
    invalid actions and tool calls, whether the task succeeded, and wall-clock seconds.
    """

    wrapper_state_attrs = ("_return", "_turns", "_invalid", "_tool_calls", "_parts", "_start")

    def __init__(self, env: Env | Wrapper):
        super().__init__(env)
        self._reset_counters()

    def _reset_counters(self) -> None:
        self._return, self._turns, self._invalid, self._tool_calls = 0.0, 0, 0, 0
        self._parts: dict[str, float] = {}
        self._start = time.perf_counter()

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Starts counting."""
        self._reset_counters()
        return observation, info

    def after_step(self, observation, reward, terminated, truncated, info) -> StepTuple:
        """Accumulates, and reports at the end."""
        self._return += reward
        self._turns += 1
        self._invalid += bool(info.get("invalid_action"))
        self._tool_calls += int(info.get("tool_calls", 0))
        for name, value in info.get("reward_parts", {}).items():
            self._parts[name] = self._parts.get(name, 0.0) + value
        if terminated or truncated:
            info["episode"] = {
                "return": self._return,
                "turns": self._turns,
                "reward_parts": dict(self._parts),
                "invalid_actions": self._invalid,
                "tool_calls": self._tool_calls,
                "success": bool(info.get("success", False)),
                "seconds": time.perf_counter() - self._start,
            }
        return observation, reward, terminated, truncated, info
