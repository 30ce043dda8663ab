"""The rollout engine: many episodes at once, each recorded as exact tokens with a loss mask.

    engine = RolloutEngine(policy, ChatFormatter(tokenizer), RolloutConfig(samples_per_task=8))
    episodes = engine.run([Task("GuessNumber-v0", seed=s) for s in range(32)])
    write_jsonl(episodes, "episodes.jsonl")

Each `Task` (an env id, its kwargs and a seed) is played ``samples_per_task`` times; the
samples share a ``group_id`` (a GRPO group: same env, kwargs and seed). Every episode is
its own coroutine on one asyncio loop, at most ``max_concurrency`` at a time:

* the env is made with `palaestra.make`; sync envs run in a `WorkerPool` thread (a hung
  call is abandoned, never waited for), native async envs on the loop;
* the policy is called with the episode's exact token ids (`ChatSequence`), so batching
  across episodes is the backend's business (the HF backend gathers concurrent requests);
* per-episode budgets (turns, tokens) truncate the episode; timeouts (env call, policy
  call, whole episode) and errors mask it;
* policy calls go first: episodes start as slots allow and are set up ahead of demand
  (``prefetch``), but that setup, drift checks and closing envs wait while any episode
  is on its way to its next policy call, and in the worker threads they yield to the
  env calls of playing episodes. A finished episode hands its slot straight to one that
  is set up (`palaestra.agents.scheduling` holds these pieces and states their rules).

A failure that is not the policy's doing (the env raised, hung, reported
``info["status"] == "error"``, the policy backend failed) never stops the run and never
reads as a zero reward: the episode comes back with ``status`` "error" or "timeout" and
``mask=True``, with what was recorded up to the failure.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import os
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.agents.chat import ChatFormatter, ChatSequence
from palaestra.agents.policy import Policy, PolicyError, Request, SamplingParams, TurnContext
from palaestra.agents.progress import RolloutProgress
from palaestra.agents.scheduling import IDLE_WAIT_MAX_S, IdleWork, SetupGate, Slots, Ticket
from palaestra.agents.tool_calls import action_message, text_to_action
from palaestra.agents.workers import WorkerPool
from palaestra.verdict import Verdict

if TYPE_CHECKING:
    from palaestra.core import Message

STATUSES = ("ok", "error", "timeout")


@dataclasses.dataclass(frozen=True)
class Task:
    """One prompt to play: an env id, its kwargs, a seed and reset options.

    Attributes:
        env_id: A registered id.
        seed: The reset seed (every sample of the task uses it).
        kwargs: Arguments for `palaestra.make`.
        options: Options for `reset`.
        group_id: The group's id (default: built from the task's index, id and seed).
    """

    env_id: str
    seed: int | None = None
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    options: Mapping[str, Any] | None = None
    group_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.env_id, str) or not self.env_id:
            raise TypeError(f"env_id must be a registered id string, got {self.env_id!r}")
        if self.seed is not None and (not isinstance(self.seed, int) or self.seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {self.seed!r}")


@dataclasses.dataclass(frozen=True)
class RolloutConfig:
    """How the engine plays.

    Attributes:
        samples_per_task: Episodes per task (G of GRPO), sharing a group id.
        max_concurrency: Episodes playing at once (between their first policy call and
            their end).
        prefetch: Episodes set up ahead of a free slot (env made and reset, prompt
            templated), so that a slot freed by a finished episode goes straight to the
            next policy call; None sets it to ``max_concurrency``. Each holds an env, so
            lower it for envs that hold heavy resources (containers, GPUs).
        sampling: Sampling parameters of every turn (``max_tokens`` per turn).
        max_turns: Turns per episode at most (None: the env's own limit only).
        max_episode_tokens: Prompt and completion tokens per episode at most; a turn gets
            ``min(sampling.max_tokens, what is left)``, and none once it is spent.
        env_timeout_s: Seconds for one env call (make, reset, step); past it the episode
            is masked with status "timeout".
        policy_timeout_s: Seconds for one policy call.
        episode_timeout_s: Seconds for an episode's turns (from its first policy call).
        tool_parser: Named parser turning sampled text into native tool calls for the env
            (None: envs get the text and parse it themselves).
        check_drift: Compare each episode with a full re-template of its transcript
            (`DriftReport`): ``True`` or ``"tokens"`` compares token ids (catches templates
            that rewrite history and sampled tokens that do not re-tokenize to themselves),
            ``"text"`` compares text only (cheaper; catches the templates), ``False`` skips it.
        reuse_envs: Reset a finished episode's env for the next task with the same id and
            kwargs instead of making a new one (envs that failed or timed out are closed).
        env_workers: Threads for sync env code.
        env_threads: Run sync env code (make, reset, step, close) in worker threads, where
            a hung call is abandoned at ``env_timeout_s``. ``False`` runs it on the event
            loop instead: faster for pure-Python envs (no thread hop, no GIL hand-off), but
            a call that hangs then stalls the whole run and timeouts cannot fire.
        seed: Derives per-turn sampling seeds (``SeedSequence([seed, task, sample,
            turn])``), so a rollout is reproducible whatever the scheduling.
        progress: Draw a progress bar.
        fail_fast: Raise the first error instead of masking the episode (for debugging).
    """

    samples_per_task: int = 1
    max_concurrency: int = 256
    prefetch: int | None = None
    sampling: SamplingParams = SamplingParams()
    max_turns: int | None = None
    max_episode_tokens: int | None = None
    env_timeout_s: float | None = 60.0
    policy_timeout_s: float | None = 600.0
    episode_timeout_s: float | None = None
    tool_parser: str | None = None
    check_drift: bool | str = True
    reuse_envs: bool = True
    env_workers: int = 32
    env_threads: bool = True
    seed: int | None = None
    progress: bool = False
    fail_fast: bool = False

    def __post_init__(self) -> None:
        for name in ("samples_per_task", "max_concurrency", "env_workers"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.prefetch is not None and (not isinstance(self.prefetch, int) or self.prefetch < 0):
            raise ValueError(f"prefetch must be an integer >= 0 or None, got {self.prefetch!r}")
        for name in ("max_turns", "max_episode_tokens"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
        for name in ("env_timeout_s", "policy_timeout_s", "episode_timeout_s"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(
                    f"{name} must be a positive number of seconds or None, got {value!r}"
                )
        if not isinstance(self.sampling, SamplingParams):
            raise TypeError(
                f"sampling must be a SamplingParams, got {type(self.sampling).__name__}"
            )
        if self.sampling.n != 1:
            raise ValueError(
                "sampling.n must be 1 in a rollout: each sample is its own episode; set "
                "samples_per_task for groups"
            )
        if self.check_drift not in (True, False, "tokens", "text"):
            raise ValueError(
                f"check_drift must be True, False, 'tokens' or 'text', got {self.check_drift!r}"
            )
        if self.tool_parser is not None:
            from palaestra.parsers import get_parser

            get_parser(self.tool_parser)


@dataclasses.dataclass
class Episode:
    """One episode, as exact tokens.

    Token layout: ``prompt_ids + completion_ids`` is what the policy saw last; every list
    below that is indexed by position covers ``completion_ids``.

    Attributes:
        env_id: The env id.
        env_kwargs: The kwargs it was made with.
        seed: The reset seed.
        group_id: The GRPO group (same env, kwargs and seed).
        sample_index: Which sample of the group.
        prompt_ids: The opening messages, templated, with the generation prompt.
        completion_ids: Sampled turns, re-added end tokens and env suffixes.
        loss_mask: 1 on sampled tokens only.
        logprobs: Sampled log-probs (0.0 where the mask is 0).
        turn_spans: ``(start, end)`` of each turn's sampled tokens in ``completion_ids``.
        turn_rewards: The reward of each turn.
        reward_parts: ``info["reward_parts"]`` of each turn.
        state_keys: ``env.state_key()`` before each turn.
        finish_reasons: The policy's finish reason of each turn.
        messages: The transcript: opening messages, actions as sent, env messages
            (including the closing ones, which are not tokenized).
        terminated: The task ended.
        truncated: A limit cut the episode.
        status: ``"ok"``, ``"error"`` or ``"timeout"``.
        mask: True when trainers must drop the episode.
        error: What failed, when something did.
        success: ``info["success"]`` at the end (None if the episode did not end).
        truncation: What cut the episode (``"max_turns"``, ``"token_budget"``, ...).
        drift: The `DriftReport` (as a dict), when checked.
        seconds: Wall-clock seconds.
        verdict: The env's final ``info["verdict"]`` as plain data (`Verdict.to_dict`: score,
            status, answer, reason, verifier, ...); None when the episode ended without one
            (a turn limit, the invalid-action allowance) or did not end.
        step: The training step the episode was played for, as ``metrics.jsonl`` counts
            them (set by the trainer; None outside training).
    """

    env_id: str
    env_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed: int | None = None
    group_id: str = ""
    sample_index: int = 0
    prompt_ids: list[int] = dataclasses.field(default_factory=list)
    completion_ids: list[int] = dataclasses.field(default_factory=list)
    loss_mask: list[int] = dataclasses.field(default_factory=list)
    logprobs: list[float] = dataclasses.field(default_factory=list)
    turn_spans: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    turn_rewards: list[float] = dataclasses.field(default_factory=list)
    reward_parts: list[dict[str, float]] = dataclasses.field(default_factory=list)
    state_keys: list[Hashable | None] = dataclasses.field(default_factory=list)
    finish_reasons: list[str] = dataclasses.field(default_factory=list)
    messages: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    status: str = "ok"
    mask: bool = False
    error: str | None = None
    success: bool | None = None
    truncation: str | None = None
    drift: dict[str, Any] | None = None
    seconds: float = 0.0
    verdict: dict[str, Any] | None = None
    step: int | None = None

    @property
    def key(self) -> tuple[str, int]:
        """``(group_id, sample_index)``."""
        return (self.group_id, self.sample_index)

    @property
    def num_turns(self) -> int:
        """Turns played."""
        return len(self.turn_spans)

    @property
    def total_reward(self) -> float:
        """The episode's return (sum of turn rewards)."""
        return float(sum(self.turn_rewards))

    @property
    def ids(self) -> list[int]:
        """Prompt and completion ids."""
        return self.prompt_ids + self.completion_ids

    @property
    def sampled_tokens(self) -> int:
        """How many tokens the policy sampled."""
        return int(sum(self.loss_mask))

    def fail(self, status: str, error: str) -> None:
        """Marks the episode as an infrastructure failure (masked)."""
        self.status, self.mask, self.error = status, True, error
        if not self.terminated:
            self.truncated = True

    def to_dict(self) -> dict[str, Any]:
        """The episode as JSON-friendly data (state keys' tuples become lists)."""
        out = dataclasses.asdict(self)
        out["turn_spans"] = [list(span) for span in self.turn_spans]
        out["state_keys"] = [_jsonable(key) for key in self.state_keys]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Episode:
        """The inverse of `to_dict` (lists in state keys become tuples again)."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown episode field(s) {unknown}; is the file from another version?"
            )
        values = dict(data)
        values["turn_spans"] = [tuple(span) for span in values.get("turn_spans", [])]
        values["state_keys"] = [_hashable(key) for key in values.get("state_keys", [])]
        return cls(**values)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def write_jsonl(episodes: Iterable[Episode], path: str | os.PathLike[str]) -> int:
    """Writes episodes as JSON lines; returns how many."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as handle:
        for episode in episodes:
            handle.write(json.dumps(episode.to_dict(), ensure_ascii=False, default=_jsonable))
            handle.write("\n")
            count += 1
    return count


def read_jsonl(path: str | os.PathLike[str]) -> list[Episode]:
    """Reads episodes written by `write_jsonl`."""
    episodes = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                episodes.append(Episode.from_dict(json.loads(line)))
            except (json.JSONDecodeError, TypeError, ValueError) as e:
                raise ValueError(f"{path}:{number}: not an episode record ({e})") from e
    return episodes


def pad_episodes(episodes: Sequence[Episode], pad_id: int) -> dict[str, np.ndarray]:
    """Right-pads episodes into arrays for a trainer.

    Returns:
        ``input_ids`` (prompt and completion), ``attention_mask``, ``loss_mask`` (0 on the
        prompt and on padding), ``logprobs`` (0.0 off the mask), each ``[batch, length]``,
        and ``prompt_lengths`` ``[batch]``.
    """
    if not episodes:
        raise ValueError("pad_episodes() needs at least one episode")
    length = max(len(e.ids) for e in episodes)
    batch = len(episodes)
    input_ids = np.full((batch, length), pad_id, dtype=np.int64)
    attention = np.zeros((batch, length), dtype=np.int64)
    loss_mask = np.zeros((batch, length), dtype=np.int64)
    logprobs = np.zeros((batch, length), dtype=np.float32)
    for row, episode in enumerate(episodes):
        ids, start = episode.ids, len(episode.prompt_ids)
        input_ids[row, : len(ids)] = ids
        attention[row, : len(ids)] = 1
        loss_mask[row, start : len(ids)] = episode.loss_mask
        logprobs[row, start : len(ids)] = episode.logprobs
    return {
        "input_ids": input_ids,
        "attention_mask": attention,
        "loss_mask": loss_mask,
        "logprobs": logprobs,
        "prompt_lengths": np.array([len(e.prompt_ids) for e in episodes], dtype=np.int64),
    }


@dataclasses.dataclass(frozen=True)
class RolloutStats:
    """What a run did.

    Attributes:
        episodes: Episodes played.
        masked: Episodes masked (errors and timeouts).
        turns: Policy turns.
        sampled_tokens: Tokens the policy sampled.
        seconds: Wall-clock seconds.
        mean_reward: Mean return of unmasked episodes (None if none).
        abandoned_env_calls: Env calls abandoned after their timeout.
    """

    episodes: int
    masked: int
    turns: int
    sampled_tokens: int
    seconds: float
    mean_reward: float | None
    abandoned_env_calls: int

    @property
    def episodes_per_second(self) -> float:
        """Episodes per second."""
        return self.episodes / max(self.seconds, 1e-9)

    @property
    def tokens_per_second(self) -> float:
        """Sampled tokens per second."""
        return self.sampled_tokens / max(self.seconds, 1e-9)


class EnvTimeout(TimeoutError):
    """An env call ran past ``env_timeout_s``."""


class PolicyTimeout(PolicyError):
    """A policy call ran past ``policy_timeout_s``."""


def _is_native_async(env: Any) -> bool:
    """Whether the env implements its own async path (else its sync code runs in a thread)."""
    from palaestra.core import Env

    base = getattr(env, "unwrapped", env)
    if not isinstance(base, Env):
        return hasattr(env, "astep")
    cls = type(base)
    return cls._astep is not Env._astep or cls._areset is not Env._areset


def _check_drift(episode: Episode, sequence: ChatSequence, level: str) -> None:
    try:
        episode.drift = sequence.drift(level).to_dict()
    except Exception as e:  # noqa: BLE001 - a report, never a failure
        reason = f"the drift check failed: {type(e).__name__}: {e}"
        episode.drift = {"ok": False, "index": None, "ours": "", "theirs": "", "reason": reason}


def _verdict_record(verdict: Any) -> dict[str, Any] | None:
    """A final ``info["verdict"]`` as the JSON data the episode keeps (as read back from disk)."""
    if verdict is None:
        return None
    if isinstance(verdict, Verdict):
        return _jsonable(verdict.to_dict())
    if isinstance(verdict, Mapping):
        return _jsonable(verdict)
    # Not a Verdict: keep what the env said, as text, rather than lose it.
    return {"reason": str(verdict)}


def _env_key(task: Task) -> tuple[str, str]:
    return task.env_id, json.dumps(dict(task.kwargs), sort_keys=True, default=repr)


def _make_and_reset(
    env_id: str, kwargs: dict[str, Any], seed: int | None, options: dict[str, Any] | None
) -> tuple[Any, bool, tuple[Any, Any] | None]:
    """Makes an env and, unless it is natively async, resets it (in a worker thread)."""
    import palaestra

    env = palaestra.make(env_id, **kwargs)
    native = _is_native_async(env)
    if native:
        return env, True, None
    try:
        return env, False, env.reset(seed=seed, options=options)
    except BaseException:
        env.close()
        raise


def _sampling_seed(seed: int, task_index: int, sample_index: int, turn: int) -> int:
    return int(np.random.SeedSequence([seed, task_index, sample_index, turn]).generate_state(1)[0])


@dataclasses.dataclass
class _EpisodeState:
    """What one episode holds while the engine sets it up and plays it.

    Attributes:
        task: The task played.
        task_index: The task's index in the run (it derives sampling seeds).
        episode: The record being filled in.
        ticket: The episode's standing with the slots.
        env: The env, once made (or reused).
        native: The env runs its own async code (else its sync code runs in worker threads).
        sequence: The token sequence, once the prompt is templated.
        closing: The env's last messages (kept in the transcript, not tokenized).
        reusable: The env ended cleanly: it may be reset for another task.
        deadline: The episode's timeout, once it plays.
    """

    task: Task
    task_index: int
    episode: Episode
    ticket: Ticket = dataclasses.field(default_factory=Ticket)
    env: Any = None
    native: bool = False
    sequence: ChatSequence | None = None
    closing: list[Message] = dataclasses.field(default_factory=list)
    reusable: bool = False
    deadline: asyncio.Timeout | None = None

    @classmethod
    def start(cls, task: Task, task_index: int, group_id: str, sample_index: int) -> _EpisodeState:
        """The state of a sample of ``task``, before anything ran."""
        episode = Episode(
            env_id=task.env_id,
            env_kwargs=dict(task.kwargs),
            seed=task.seed,
            group_id=group_id,
            sample_index=sample_index,
        )
        return cls(task, task_index, episode)

    def fail(self, error: Exception, episode_timeout_s: float | None) -> None:
        """Masks the episode for ``error``, with the status and reason it calls for."""
        if isinstance(error, EnvTimeout):
            status, reason = "timeout", str(error)
        elif isinstance(error, TimeoutError):
            status = "timeout"
            if self.deadline is not None and self.deadline.expired():
                reason = f"the episode ran past episode_timeout_s={episode_timeout_s}"
            else:
                reason = f"TimeoutError: {error}"
        elif isinstance(error, PolicyTimeout):
            status, reason = "timeout", f"policy: {error}"
        elif isinstance(error, PolicyError):
            status, reason = "error", f"policy: {error}"
        else:
            status, reason = "error", f"{type(error).__name__}: {error}"
        self.episode.fail(status, reason)


class RolloutEngine:
    """Plays tasks with a policy, concurrently, and records every episode.

    Args:
        policy: Any `Policy`.
        formatter: The `ChatFormatter` of the policy's tokenizer.
        config: How to play (default `RolloutConfig()`).
        env_pool: Where envs come from instead of this process: an object whose
            ``id(env_id)`` names the env there, such as a `palaestra.ray_pool.EnvPool`
            (episodes keep the task's own id).
        **overrides: `RolloutConfig` fields to change, e.g. ``samples_per_task=8``.
    """

    def __init__(
        self,
        policy: Policy,
        formatter: ChatFormatter,
        config: RolloutConfig | None = None,
        *,
        env_pool: Any = None,
        **overrides: Any,
    ):
        if not hasattr(policy, "generate"):
            raise TypeError(
                f"policy must have an async generate(requests) method, got {type(policy).__name__}"
            )
        if not isinstance(formatter, ChatFormatter):
            raise TypeError(f"formatter must be a ChatFormatter, got {type(formatter).__name__}")
        known = {f.name for f in dataclasses.fields(RolloutConfig)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"unknown RolloutConfig field(s) {unknown}; known: {sorted(known)}")
        if env_pool is not None and not callable(getattr(env_pool, "id", None)):
            raise TypeError(
                f"env_pool must have an id(env_id) method, got {type(env_pool).__name__}"
            )
        self.policy = policy
        self.formatter = formatter
        self.env_pool = env_pool
        self.config = dataclasses.replace(config or RolloutConfig(), **overrides)
        self.stats: RolloutStats | None = None
        self._pool: WorkerPool | None = None
        self._running = False
        stop = tuple(dict.fromkeys([*self.config.sampling.stop_token_ids, *formatter.stop_ids]))
        self._sampling = self.config.sampling.replace(stop_token_ids=stop)

    # --- running ----------------------------------------------------------------------

    def run(self, tasks: Sequence[Task | str]) -> list[Episode]:
        """Plays every task (``samples_per_task`` episodes each) and returns the episodes.

        Runs its own event loop whose default executor has daemon threads, so that env
        code stuck in a thread cannot hold up the end of the run.

        Raises:
            RuntimeError: Called inside a running event loop (use `arun` there).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "RolloutEngine.run() was called inside a running event loop; await arun() instead"
            )
        loop = asyncio.new_event_loop()
        default_pool = WorkerPool(max(self.config.env_workers, 8), name="palaestra-default")
        loop.set_default_executor(default_pool)
        try:
            return loop.run_until_complete(self.arun(tasks))
        finally:
            try:
                # Loop-bound resources of the policy (HTTP clients, batch workers) die with
                # this loop; let the policy release them while the loop still runs.
                release = getattr(self.policy, "aclose", None)
                if release is not None:
                    loop.run_until_complete(release())
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                default_pool.shutdown(wait=False)
                loop.close()

    async def arun(self, tasks: Sequence[Task | str]) -> list[Episode]:
        """The async twin of `run` (sync envs use the engine's own worker pool)."""
        tasks = [Task(t) if isinstance(t, str) else t for t in tasks]
        for task in tasks:
            if not isinstance(task, Task):
                raise TypeError(
                    f"tasks must be Task objects or env id strings, got {type(task).__name__}"
                )
        if self._running:
            raise RuntimeError("this engine is already running; one run at a time per engine")
        self._running = True
        try:
            return await self._arun(tasks)
        finally:
            self._running = False

    async def _arun(self, tasks: list[Task]) -> list[Episode]:
        total = len(tasks) * self.config.samples_per_task
        progress = RolloutProgress(total, show=self.config.progress)
        self._start_run()
        started: list[asyncio.Task[Episode]] = []
        try:
            await self._feed(tasks, started, progress)
            episodes = await asyncio.gather(*started)
            await self._idle.drain()
        finally:
            for job in started:
                if not job.done():
                    job.cancel()
            await asyncio.gather(*started, return_exceptions=True)
            progress.close()
            await self._end_run()
        self.stats = RolloutStats(
            episodes=len(episodes),
            masked=sum(e.mask for e in episodes),
            turns=sum(e.num_turns for e in episodes),
            sampled_tokens=sum(e.sampled_tokens for e in episodes),
            seconds=progress.seconds,
            mean_reward=progress.mean_reward,
            abandoned_env_calls=self._pool.abandoned_total,
        )
        return list(episodes)

    def _start_run(self) -> None:
        """Makes the run's slots, their gate and idle work, the worker threads, the env pool."""
        config = self.config
        prefetch = config.max_concurrency if config.prefetch is None else config.prefetch
        self._slots = Slots.create(config.max_concurrency, prefetch)
        self._gate = SetupGate(self._slots, IDLE_WAIT_MAX_S)
        self._idle = IdleWork(self._slots.calm)
        self._pool = WorkerPool(config.env_workers, name="palaestra-env")
        self._free_envs: dict[tuple[str, str], list[tuple[Any, bool]]] = {}
        self._closing: list[asyncio.Future[None]] = []

    async def _end_run(self) -> None:
        """Stops the background work and closes every env, the free ones included."""
        self._idle.cancel()
        self._gate.cancel()
        for free in self._free_envs.values():
            self._closing += [asyncio.ensure_future(self._close(env)) for env, _ in free]
        self._free_envs.clear()
        await asyncio.gather(*self._closing, return_exceptions=True)
        self._pool.shutdown(wait=False)

    async def _feed(
        self, tasks: list[Task], started: list[asyncio.Task[Episode]], progress: RolloutProgress
    ) -> None:
        """Starts each episode (appended to ``started``) once a ``prepared`` permit is free.

        Not all at once: no env or record exists for an episode that cannot play yet, and
        the first policy calls go out without waiting for thousands of coroutines to start.
        """
        failed: list[BaseException] = []

        def note_failure(task: asyncio.Task[Episode]) -> None:
            if not task.cancelled() and task.exception() is not None:
                failed.append(task.exception())

        loop = asyncio.get_running_loop()
        for task_index, task in enumerate(tasks):
            group_id = task.group_id or f"{task_index}:{task.env_id}:{task.seed}"
            for sample_index in range(self.config.samples_per_task):
                await self._slots.prepared.acquire()
                if failed:  # fail_fast: an episode raised; start no more
                    self._slots.prepared.release()
                    return
                state = _EpisodeState.start(task, task_index, group_id, sample_index)
                job = loop.create_task(self._episode(state, progress))
                job.add_done_callback(note_failure)
                started.append(job)

    # --- one episode ------------------------------------------------------------------

    async def _episode(self, state: _EpisodeState, progress: RolloutProgress) -> Episode:
        """Plays one episode; a failure masks it (or, with ``fail_fast``, is raised)."""
        episode = state.episode
        start = time.perf_counter()
        try:
            try:
                await self._play(state, progress)
            except Exception as e:  # noqa: BLE001 - any env failure masks its episode only
                if self.config.fail_fast:
                    raise
                state.fail(e, self.config.episode_timeout_s)
            finally:
                self._slots.settle(state.ticket)
                self._finish(state)
                episode.seconds = time.perf_counter() - start
        finally:
            self._slots.prepared.release()
        if state.sequence is not None and self.config.check_drift and episode.num_turns:
            level = "text" if self.config.check_drift == "text" else "tokens"
            self._idle.add(functools.partial(_check_drift, episode, state.sequence, level))
        progress.episode(episode.total_reward, episode.mask)
        return episode

    async def _play(self, state: _EpisodeState, progress: RolloutProgress) -> None:
        """Sets the episode up when the gate lets it, then plays its turns in a slot."""
        background = await self._gate.enter()
        try:
            ready = await self._setup(state, background)
        finally:
            self._gate.leave()
        if not ready:
            return
        await self._slots.take(state.ticket)
        try:
            async with asyncio.timeout(self.config.episode_timeout_s) as state.deadline:
                await self._turns(state, progress)
        finally:
            self._slots.leave(state.ticket)

    def _finish(self, state: _EpisodeState) -> None:
        """Records the episode's tokens and keeps its env for reuse, or closes it."""
        if state.sequence is not None:
            self._record_tokens(state.episode, state.sequence, state.closing)
        if state.env is None:
            return
        if self.config.reuse_envs and state.reusable and not state.episode.mask:
            self._free_envs.setdefault(_env_key(state.task), []).append((state.env, state.native))
        else:
            self._closing.append(asyncio.ensure_future(self._close(state.env)))

    async def _setup(self, state: _EpisodeState, background: bool = False) -> bool:
        """Makes (or reuses) and resets the env, and templates the prompt; False on failure.

        A ``background`` setup (ahead of demand) yields the worker threads to env calls
        that playing episodes wait for.
        """
        task = state.task
        options = dict(task.options) if task.options is not None else None
        free = self._free_envs.get(_env_key(task))
        if free:
            state.env, state.native = free.pop()
            first = None
        else:
            # One trip to a worker thread makes the env and, for a sync env, resets it too.
            env_id = task.env_id if self.env_pool is None else self.env_pool.id(task.env_id)
            make = functools.partial(_make_and_reset, env_id, dict(task.kwargs), task.seed, options)
            state.env, state.native, first = await self._in_pool(make, "make", background)
        if first is None:
            first = await self._env_call(
                state.env,
                state.native,
                "reset",
                seed=task.seed,
                options=options,
                background=background,
            )
        observation, info = first
        if info.get("status") == "error" or info.get("mask"):
            reason = str(info.get("error") or "the env reported a failure on reset")
            state.episode.fail("error", reason)
            return False
        state.sequence = self.formatter.sequence(observation, list(state.env.tools))
        return True

    async def _turns(self, state: _EpisodeState, progress: RolloutProgress) -> None:
        """Plays turns until the episode ends or a budget cuts it."""
        episode, env, sequence = state.episode, state.env, state.sequence
        tool_schemas = tuple(sequence.tools)
        turn = 0
        while True:
            params = self._turn_params(state, turn)
            if params is None:
                state.reusable = True
                return
            episode.state_keys.append(env.state_key())
            context = TurnContext(env, tuple(sequence.messages), tool_schemas, turn, episode.key)
            request = Request(sequence.ids, params, context)
            self._slots.settle(state.ticket)
            completion = await self._generate(request)
            # Until this episode's next call goes out (or it ends and hands its slot over),
            # work that no call waits for holds back.
            self._slots.hurry(state.ticket)
            text = sequence.add_completion(completion)
            episode.finish_reasons.append(completion.finish_reason)
            progress.turn(len(completion.token_ids))
            action = (
                completion.message
                if completion.message is not None
                else text_to_action(text, self.config.tool_parser)
            )
            sequence.add_action(action_message(action))
            step = await self._env_call(env, state.native, "step", action)
            turn += 1
            if self._record_step(state, *step):
                return

    def _turn_params(self, state: _EpisodeState, turn: int) -> SamplingParams | None:
        """The sampling parameters of a turn, or None when a budget ends the episode first."""
        config, episode = self.config, state.episode
        if config.max_turns is not None and turn >= config.max_turns:
            episode.truncated, episode.truncation = True, "max_turns"
            return None
        params = self._sampling
        if config.max_episode_tokens is not None:
            left = config.max_episode_tokens - len(state.sequence)
            if left <= 0:
                episode.truncated, episode.truncation = True, "token_budget"
                return None
            params = params.replace(max_tokens=min(params.max_tokens, left))
        if config.seed is not None:
            params = params.replace(
                seed=_sampling_seed(config.seed, state.task_index, episode.sample_index, turn)
            )
        return params

    def _record_step(
        self,
        state: _EpisodeState,
        observation: list[Message],
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> bool:
        """Records an env step; True when it ended the episode (its messages then close it)."""
        episode = state.episode
        if terminated or truncated or info.get("status") == "error" or info.get("mask"):
            episode.verdict = _verdict_record(info.get("verdict"))
        episode.turn_rewards.append(float(reward))
        episode.reward_parts.append(
            {k: float(v) for k, v in (info.get("reward_parts") or {}).items()}
        )
        if info.get("status") == "error" or info.get("mask"):
            episode.terminated, episode.truncated = bool(terminated), bool(truncated)
            episode.fail(
                "error", str(info.get("error") or "the env reported an infrastructure failure")
            )
            state.closing = observation
            return True
        if terminated or truncated:
            episode.terminated, episode.truncated = bool(terminated), bool(truncated)
            episode.success = bool(info.get("success", False))
            episode.truncation = info.get("truncation") if truncated else None
            state.closing = observation
            state.reusable = True
            return True
        state.sequence.add_messages(observation)
        return False

    def _record_tokens(
        self, episode: Episode, sequence: ChatSequence, closing: Sequence[Any]
    ) -> None:
        episode.prompt_ids = list(sequence.prompt_ids)
        episode.completion_ids = list(sequence.completion_ids)
        episode.loss_mask = list(sequence.loss_mask)
        episode.logprobs = list(sequence.logprobs)
        episode.turn_spans = list(sequence.turn_spans)
        episode.messages = [dict(m) for m in [*sequence.messages, *closing]]

    async def _generate(self, request: Request):
        timeout = self.config.policy_timeout_s
        try:
            async with asyncio.timeout(timeout):
                result = await self.policy.generate([request])
        except PolicyError:
            raise
        except TimeoutError as e:
            raise PolicyTimeout(
                f"the policy did not answer within policy_timeout_s={timeout}"
            ) from e
        except Exception as e:
            if self.config.fail_fast:
                raise
            raise PolicyError(f"{type(e).__name__}: {e}") from e
        if len(result) != 1 or not result[0]:
            raise PolicyError(f"the policy returned {len(result)} results for 1 request")
        return result[0][0]

    async def _in_pool(self, call, what: str, background: bool = False):
        if not self.config.env_threads:
            return call()
        try:
            return await self._pool.run(
                call, timeout=self.config.env_timeout_s, background=background
            )
        except TimeoutError as e:
            raise EnvTimeout(
                f"env {what} ran past env_timeout_s={self.config.env_timeout_s}"
            ) from e

    async def _env_call(
        self,
        env: Any,
        native: bool,
        method: str,
        *args: Any,
        background: bool = False,
        **kwargs: Any,
    ):
        if not native:
            return await self._in_pool(
                functools.partial(getattr(env, method), *args, **kwargs), method, background
            )
        try:
            async with asyncio.timeout(self.config.env_timeout_s):
                return await getattr(env, f"a{method}")(*args, **kwargs)
        except TimeoutError as e:
            raise EnvTimeout(
                f"env {method} ran past env_timeout_s={self.config.env_timeout_s}"
            ) from e

    async def _close(self, env: Any) -> None:
        try:
            await self._pool.run(
                env.close, timeout=self.config.env_timeout_s or 60.0, background=True
            )
        except Exception:  # noqa: BLE001, S110 - a failing close must not lose the episode
            pass


def rollout(
    policy: Policy,
    formatter: ChatFormatter,
    tasks: Sequence[Task | str],
    **config: Any,
) -> list[Episode]:
    """Plays ``tasks`` with ``policy`` (`RolloutEngine(policy, formatter, **config).run`)."""
    return RolloutEngine(policy, formatter, **config).run(tasks)
