"""Curricula over the task families: a level that follows success, and a mixture of families.

Two pieces, built on one rule (`LevelSchedule`): over a sliding window of the last
``window`` finished episodes at the current level, a success rate of at least ``raise_at``
raises the level by ``step`` and one of at most ``lower_at`` lowers it (within
``min_level``..``max_level``); the window restarts after each move. Levels change between
episodes only, never inside one. Episodes that end in an infrastructure failure
(``info["mask"]``) are not counted.

* `AdaptiveLevel` wraps one task env (a `TaskEnv`)::

      env = AdaptiveLevel(palaestra.make("KnightsKnaves-v0", level=1), window=20, raise_at=0.7)

  Knobs given explicitly when the env was made stay fixed; the level sets the rest.
  ``info["level"]`` and ``info["curriculum"]`` report the state on every reset and step.

* `TaskMixEnv` (registered as ``TaskMix-v1``) is a single-turn env that draws one family per
  episode by weight (from its own seeded generator: the same seed gives the same family and
  problem), optionally with a per-family adaptive level.

TaskMix-v1, in the env template:

The task:
    Each episode is one problem of one task family, drawn by weight from the mixture.

Observation:
    One user message: the family's problem (its own answer format).

Action:
    The family's answer, in ``<answer></answer>`` tags.

Reward (``info["reward_parts"]``):
    ``outcome``: the family's reward (`CORRECT_REWARD` or 0).

Episode end:
    After one step. ``info["family"]`` and ``info["level"]`` name what was drawn; the
    running per-family statistics (episodes, mean reward, success rate, level) are in
    `TaskMixEnv.statistics()`, and also in ``info["mixture"]`` at the end of each episode
    when ``stats_in_info`` is set (off by default: with it, an episode's info depends on
    the episodes before it).

Arguments:
    level: The starting level of every family (clipped to each family's range).
    families: Registry ids of task families, a list (equal weights) or a mapping id -> weight.
    adaptive: Whether each family's level follows its success (`LevelSchedule`).
    window, raise_at, lower_at: The schedule (see `LevelSchedule`).
    stats_in_info: Whether to add the statistics to the final info.

Version history:
    v0: first version.
    v1: ListFunctions-v1 in place of ListFunctions-v0, whose examples could fit a second rule
        as simple as the one scored.
"""

from __future__ import annotations

import collections
import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from palaestra.core import Env, Info, Message, Observation, Step, Wrapper, user
from palaestra.envs.tasks.base import Problem, Task, TaskEnv

DEFAULT_FAMILIES = (
    "KnightsKnaves-v0",
    "Zebra-v0",
    "PropositionalEntailment-v0",
    "Syllogism-v0",
    "ShortestPath-v0",
    "TopologicalSort-v0",
    "NumberSequence-v0",
    "ListFunctions-v1",
    "BaseConversion-v0",
)
"""The families of ``TaskMix-v1`` (equal weights): logic, graphs, induction and arithmetic.
``TaskMix-v0`` lists ListFunctions-v0 in its registry entry instead."""


@dataclasses.dataclass(frozen=True)
class LevelSchedule:
    """When a level moves.

    Attributes:
        window: Finished episodes judged together (the last ``window`` at the current level).
        raise_at: Success rate at or above which the level goes up.
        lower_at: Success rate at or below which the level goes down.
        step: Levels moved at a time.
        min_level: Lowest level.
        max_level: Highest level.
    """

    window: int = 20
    raise_at: float = 0.7
    lower_at: float = 0.1
    step: int = 1
    min_level: int = 1
    max_level: int = 10

    def __post_init__(self) -> None:
        if not isinstance(self.window, int) or isinstance(self.window, bool) or self.window < 1:
            raise ValueError(f"window must be a positive integer, got {self.window!r}")
        for name in ("raise_at", "lower_at"):
            value = getattr(self, name)
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not 0 <= value <= 1
            ):
                raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")
        if self.lower_at >= self.raise_at:
            raise ValueError(
                f"lower_at ({self.lower_at}) must be below raise_at ({self.raise_at}), "
                "or one window could both raise and lower the level"
            )
        if not isinstance(self.step, int) or isinstance(self.step, bool) or self.step < 1:
            raise ValueError(f"step must be a positive integer, got {self.step!r}")
        for name in ("min_level", "max_level"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.min_level > self.max_level:
            raise ValueError(f"min_level ({self.min_level}) is above max_level ({self.max_level})")


class LevelController:
    """One level and the window of outcomes at it; moves the level when `advance` is called."""

    def __init__(self, schedule: LevelSchedule, level: int):
        self.schedule = schedule
        self.level = min(max(level, schedule.min_level), schedule.max_level)
        self.outcomes: collections.deque[bool] = collections.deque(maxlen=schedule.window)
        self.moves = 0

    @property
    def success_rate(self) -> float | None:
        """Success rate over the current window (None before any episode at this level)."""
        return sum(self.outcomes) / len(self.outcomes) if self.outcomes else None

    def record(self, success: bool) -> None:
        """Adds a finished episode's outcome."""
        self.outcomes.append(bool(success))

    def advance(self) -> int:
        """Moves the level if a full window says so; returns the move (-step, 0 or +step)."""
        s = self.schedule
        if len(self.outcomes) < s.window:
            return 0
        rate = sum(self.outcomes) / len(self.outcomes)
        target = self.level
        if rate >= s.raise_at:
            target = min(self.level + s.step, s.max_level)
        elif rate <= s.lower_at:
            target = max(self.level - s.step, s.min_level)
        move = target - self.level
        if move:
            self.level = target
            self.outcomes.clear()
            self.moves += 1
        return move

    def state(self) -> dict[str, Any]:
        """The level, the window's success rate and fill, and how often the level moved."""
        return {
            "level": self.level,
            "window_success": self.success_rate,
            "window_episodes": len(self.outcomes),
            "moves": self.moves,
        }


def explicit_knobs(env: TaskEnv) -> dict[str, Any]:
    """The knobs of a task env that differ from what its level sets (given explicitly).

    A knob given with the very value its level sets cannot be told apart; it follows the level.
    """
    default = env.task_class.level_config(env.level)
    given = dataclasses.asdict(env.task.config)
    return {name: value for name, value in given.items() if value != getattr(default, name)}


class AdaptiveLevel(Wrapper):
    """Raises or lowers a task env's level from a sliding window of success.

    Args:
        env: A `TaskEnv` (possibly wrapped, e.g. by `palaestra.make`).
        window, raise_at, lower_at, step: The schedule (see `LevelSchedule`).
        min_level, max_level: Bounds (default: the family's level range).

    Raises:
        TypeError: The env is not a task env.
        ValueError: A bad schedule, or bounds outside the family's level range.
    """

    def __init__(
        self,
        env: Env | Wrapper,
        window: int = 20,
        raise_at: float = 0.7,
        lower_at: float = 0.1,
        step: int = 1,
        min_level: int | None = None,
        max_level: int | None = None,
    ):
        base = env.unwrapped
        if not isinstance(base, TaskEnv):
            raise TypeError(
                f"AdaptiveLevel needs a task env (a TaskEnv), got {type(base).__name__}"
            )
        super().__init__(env)
        low, high = base.task_class.levels
        floor = low if min_level is None else min_level
        ceiling = high if max_level is None else max_level
        self.schedule = LevelSchedule(window, raise_at, lower_at, step, floor, ceiling)
        if self.schedule.min_level < low or self.schedule.max_level > high:
            raise ValueError(f"the level bounds must lie within the family's range {low}..{high}")
        self._overrides = explicit_knobs(base)
        self.controller = LevelController(self.schedule, base.level)
        self._apply(self.controller.level)

    @property
    def level(self) -> int:
        """The current level."""
        return self.controller.level

    def _apply(self, level: int) -> None:
        base = self.env.unwrapped
        if base.level != level:
            base.task = base.task_class.from_level(level, **self._overrides)
            base.level = level

    def _before_reset(self) -> None:
        if self.controller.advance():
            self._apply(self.controller.level)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """Moves the level if the window says so, then resets."""
        self._before_reset()
        return self.after_reset(*self.env.reset(seed=seed, options=options))

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """The async twin of `reset`."""
        self._before_reset()
        return self.after_reset(*await self.env.areset(seed=seed, options=options))

    def after_reset(self, observation: Observation, info: Info) -> tuple[Observation, Info]:
        """Reports the level."""
        info["level"] = self.controller.level
        info["curriculum"] = self.controller.state()
        return observation, info

    def after_step(self, observation, reward, terminated, truncated, info):
        """Counts finished episodes (not masked ones) and reports the level."""
        if (terminated or truncated) and not info.get("mask"):
            self.controller.record(bool(info.get("success")))
        info["level"] = self.controller.level
        info["curriculum"] = self.controller.state()
        return observation, reward, terminated, truncated, info


@dataclasses.dataclass
class FamilyStats:
    """Running statistics of one family in a mixture."""

    episodes: int = 0
    total_reward: float = 0.0
    successes: int = 0
    errors: int = 0

    def as_dict(self, level: int) -> dict[str, Any]:
        """Episodes, mean reward, success rate, masked episodes and the current level."""
        scored = self.episodes - self.errors
        return {
            "episodes": self.episodes,
            "mean_reward": self.total_reward / scored if scored else None,
            "success_rate": self.successes / scored if scored else None,
            "errors": self.errors,
            "level": level,
        }


def _resolve_family(env_id: str) -> type[TaskEnv]:
    from palaestra.registration import load_entry_point, spec  # noqa: PLC0415  (the registry imports envs lazily)

    if not isinstance(env_id, str):
        raise TypeError(
            f"a family is named by its registry id (a string), got {type(env_id).__name__}"
        )
    factory = load_entry_point(spec(env_id).entry_point)
    if not (isinstance(factory, type) and issubclass(factory, TaskEnv)):
        raise ValueError(
            f"{env_id} is not a single-turn task family (its entry point is not a TaskEnv)"
        )
    return factory


class TaskMixEnv(Env):
    """One task family per episode, drawn by weight; see the module docstring."""

    reply_tag = "answer"  # every family is a task family

    def __init__(
        self,
        level: int = 3,
        families: Sequence[str] | Mapping[str, float] = DEFAULT_FAMILIES,
        adaptive: bool = False,
        window: int = 20,
        raise_at: float = 0.7,
        lower_at: float = 0.1,
        stats_in_info: bool = False,
    ):
        if isinstance(families, str):
            raise TypeError(
                "families must be a list of registry ids or a mapping id -> weight, not one string"
            )
        weights = dict(families) if isinstance(families, Mapping) else {f: 1.0 for f in families}
        if not weights:
            raise ValueError("the mixture needs at least one family")
        if len(weights) != len(families):
            raise ValueError("a family is listed twice")
        for env_id, weight in weights.items():
            if (
                not isinstance(weight, (int, float))
                or isinstance(weight, bool)
                or not math.isfinite(weight)
                or weight <= 0
            ):
                raise ValueError(
                    f"the weight of {env_id} must be a positive number, got {weight!r}"
                )
        if not isinstance(level, int) or isinstance(level, bool):
            raise ValueError(f"level must be an integer, got {level!r}")
        if not isinstance(adaptive, bool) or not isinstance(stats_in_info, bool):
            raise ValueError("adaptive and stats_in_info must be True or False")
        self.families = list(weights)
        total = float(sum(weights.values()))
        self.weights = [weights[f] / total for f in self.families]
        self.adaptive = adaptive
        self.stats_in_info = stats_in_info
        self.task_classes = {f: _resolve_family(f).task_class for f in self.families}
        self.controllers: dict[str, LevelController] = {}
        self.tasks: dict[str, Task] = {}
        for family, task_class in self.task_classes.items():
            low, high = task_class.levels
            schedule = LevelSchedule(window, raise_at, lower_at, 1, low, high)
            self.controllers[family] = LevelController(schedule, level)
            self.tasks[family] = task_class.from_level(self.controllers[family].level)
        self.stats = {f: FamilyStats() for f in self.families}
        self.family: str | None = None
        self.problem_: Problem | None = None

    @classmethod
    def argument_names(cls) -> list[str]:
        """The arguments `palaestra.make` accepts."""
        return ["level", "families", "adaptive", "window", "raise_at", "lower_at", "stats_in_info"]

    def statistics(self) -> dict[str, dict[str, Any]]:
        """Per family: episodes, mean reward, success rate, masked episodes, current level."""
        return {f: self.stats[f].as_dict(self.controllers[f].level) for f in self.families}

    def _reset(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"TaskMixEnv.reset takes no options, got {sorted(options)}")
        index = int(self.np_random.choice(len(self.families), p=self.weights))
        family = self.families[index]
        controller = self.controllers[family]
        if self.adaptive and controller.advance():
            self.tasks[family] = self.task_classes[family].from_level(controller.level)
        self.family = family
        self.problem_ = self.tasks[family].generate(self.np_random)
        info = {"task": self.tasks[family].name, "family": family, "level": controller.level}
        return [user(self.problem_.prompt)], info

    def _step(self, action: Message) -> Step:
        family = self.family
        verdict = self.tasks[family].verify(action.get("content") or "", self.problem_)
        stats = self.stats[family]
        stats.episodes += 1
        if verdict.mask:
            stats.errors += 1
        else:
            stats.total_reward += verdict.score
            stats.successes += verdict.correct
            if self.adaptive:
                self.controllers[family].record(verdict.correct)
        result = self.finish(verdict)
        result.info.update(family=family, level=self.controllers[family].level)
        if self.stats_in_info:
            result.info["mixture"] = self.statistics()
        return result

    def oracle_action(self) -> str:
        """The drawn family's reference answer in its answer slot."""
        task = self.tasks[self.family]
        return task.slot(task.solve(self.problem_))

    def render_text(self) -> str:
        """The problem."""
        return self.problem_.prompt if self.problem_ else ""
