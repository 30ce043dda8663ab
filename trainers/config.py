"""The trainer's configuration: one dataclass, checked in `__post_init__`, that also makes the CLI.

Every field below is a ``palaestra train`` option of the same name (``env_kwargs`` is
``--arg name=value``). The defaults are the CPU demo: the tiny model, a short supervised
warm start on oracle demonstrations of ``GuessNumber-v0`` (numbers 1 to 8), then GRPO with
GiGPO's step groups (states shared within a group compare their turns' returns). The warm
start is kept short on purpose (30 steps teach the answer format only in part), so the RL
phase has something to learn; turns stop at ``</guess>``, and held-out success is measured
on 128 episodes, enough to tell an improvement of 0.15 from noise.

Importing this module imports neither torch nor transformers.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from palaestra.trainers.trackers import parse_report_to

ALGORITHMS = ("grpo", "ppo")
ESTIMATORS = ("grpo", "drgrpo", "rloo", "rebn", "turn_group", "gigpo", "gae")
AGGREGATIONS = ("token_mean", "seq_mean_token_mean", "seq_sum_const")
KL_ESTIMATORS = ("k1", "k2", "k3")
ROLLOUT_BACKENDS = ("hf", "vllm")
STDS = ("population", "unbiased")

DEMO_ENV_KWARGS = {"GuessNumber-v0": {"max_number": 8}}
"""The env arguments a run gets when none are given: the demo's, for the demo's env only."""

EVAL_SEED_BASE = 1_000_000_000
"""Held-out episodes use seeds from here up; training seeds are drawn below it."""


@dataclasses.dataclass
class TrainConfig:
    """A training run: what to play, which model, how to estimate and optimise.

    Attributes:
        env_id: The registered env to train on.
        env_kwargs: Keyword arguments for `palaestra.make` (``--arg name=value``, added to
            the defaults). None: the demo's ``max_number=8`` for GuessNumber-v0, none for
            other envs (the registry's defaults apply).
        model: A Hugging Face model folder or hub name; empty for the tiny model.
        output_dir: Where metrics, checkpoints, episodes and the curve are written.
        algorithm: ``grpo`` (group baselines, no critic) or ``ppo`` (a value head, GAE).
        estimator: Advantage estimator: grpo, drgrpo, rloo (episode level), rebn (per-turn
            returns, batch-normalised), turn_group (per-turn returns, group-normalised),
            gigpo (episode plus step groups), gae (critic; implied by ppo).
        advantage_std: The standard deviation that normalises advantages (GRPO's group std,
            GiGPO, rebn, turn_group, GAE whitening): population (over n, the default: what
            every run so far used) or unbiased (over n - 1, as TRL and verl).
        gamma: Discount between turns (and tokens, for gae).
        gae_lambda: GAE's lambda.
        warmup_steps: Supervised optimiser steps on oracle demonstrations before RL.
        warmup_tasks: Oracle episodes collected for the warm start.
        warmup_lr: Learning rate of the warm start.
        steps: RL steps (one rollout batch each).
        tasks_per_step: Tasks (groups) per RL step.
        group_size: Samples per task (G).
        epochs: Passes over each rollout batch.
        minibatch_size: Episodes per optimiser step (0: the whole batch).
        micro_batch_size: Episodes per forward/backward pass; gradients accumulate over
            a minibatch.
        lr: Learning rate of the RL phase.
        weight_decay: AdamW weight decay.
        max_grad_norm: Gradient clipping (0: none).
        clip_low: Lower clip range of the ratio (1 - clip_low).
        clip_high: Upper clip range (1 + clip_high; above clip_low is clip-higher).
        dual_clip: The dual-clip constant (0: none).
        ratio_level: ``token`` (PPO/GRPO) or ``sequence`` (GSPO).
        aggregation: token_mean, seq_mean_token_mean or seq_sum_const (Dr.GRPO).
        kl_coef: Weight of the KL to the reference model (0: no reference model).
        kl_estimator: k1, k2 or k3.
        kl_in_reward: Subtract the KL from the token rewards instead of adding it to the loss.
        entropy_coef: Weight of the entropy bonus.
        value_coef: Weight of the value loss (ppo).
        value_clip: Clip range of the value loss (0: none).
        dynamic_sampling: Drop groups whose returns are all equal and sample more tasks.
        max_refills: Extra rollout rounds dynamic sampling may run per step.
        overlong_buffer: Tokens before a turn's limit where the overlong penalty starts
            (0: no shaping).
        overlong_penalty: Penalty of a turn that reaches its limit (grows linearly over
            the buffer).
        temperature: Sampling temperature (the loss uses the same).
        max_tokens: Sampled tokens per turn at most.
        stop: Text that ends a sampled turn (kept in it), e.g. the closing tag of the env's
            answer, so a turn ends as soon as its answer is complete; empty: only the
            end-of-turn token ends a turn.
        max_turns: Turns per episode at most (0: the env's limit).
        eval_tasks: Held-out episodes per evaluation (seeds never used in training).
        eval_every: Evaluate every this many RL steps (0: only before and after).
        checkpoint_every: Save a checkpoint every this many RL steps (0: only at the end).
        keep_checkpoints: Checkpoints kept on disk (the newest).
        resume: Continue from the newest checkpoint in output_dir.
        overwrite: Replace the run already in output_dir (its metrics, episodes,
            checkpoints, curve). Without resume or overwrite, output_dir must be empty or
            new.
        seed: Seeds task draws, sampling and minibatch order.
        rollout_backend: ``hf`` (the training model samples in place) or ``vllm`` (GPU;
            weights synced after each step).
        device: ``cpu``, ``cuda``, ... (empty: cuda if available, else cpu).
        threads: torch CPU threads (0: torch's default). The default is 1: on a shared
            CPU, more threads than free cores can make each step several times slower.
        report_to: Trackers that also get every record, and a table of sample episodes at
            each evaluation, comma-separated: tensorboard, wandb, trackio. Each needs its
            extra (pip install "palaestra[wandb]"); wandb follows WANDB_MODE (offline: no
            network), trackio writes to TRACKIO_DIR. In Python a list works too.
        tensorboard: The same as tensorboard in report_to (the older spelling, kept).
        plot: Write the reward curve PNG at the end.
        progress: Show a progress bar.
        save_episodes: Write every RL episode to episodes.jsonl.
    """

    env_id: str = "GuessNumber-v0"
    env_kwargs: dict[str, Any] | None = None
    model: str = ""
    output_dir: str = "runs/train"
    algorithm: str = "grpo"
    estimator: str = "gigpo"
    advantage_std: str = "population"
    gamma: float = 1.0
    gae_lambda: float = 1.0
    warmup_steps: int = 30
    warmup_tasks: int = 64
    warmup_lr: float = 5e-3
    steps: int = 40
    tasks_per_step: int = 8
    group_size: int = 8
    epochs: int = 1
    minibatch_size: int = 0
    micro_batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    clip_low: float = 0.2
    clip_high: float = 0.28
    dual_clip: float = 0.0
    ratio_level: str = "token"
    aggregation: str = "token_mean"
    kl_coef: float = 0.0
    kl_estimator: str = "k3"
    kl_in_reward: bool = False
    entropy_coef: float = 0.0
    value_coef: float = 0.5
    value_clip: float = 0.2
    dynamic_sampling: bool = False
    max_refills: int = 2
    overlong_buffer: int = 0
    overlong_penalty: float = 0.5
    temperature: float = 1.0
    max_tokens: int = 8
    stop: str = "</guess>"
    max_turns: int = 0
    eval_tasks: int = 128
    eval_every: int = 10
    checkpoint_every: int = 0
    keep_checkpoints: int = 2
    resume: bool = False
    overwrite: bool = False
    seed: int = 0
    rollout_backend: str = "hf"
    device: str = ""
    threads: int = 1
    report_to: str = ""
    tensorboard: bool = False
    plot: bool = True
    progress: bool = True
    save_episodes: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.env_id, str) or not self.env_id:
            raise ValueError("env_id must be a registered id, e.g. 'GuessNumber-v0'")
        if self.env_kwargs is None:
            self.env_kwargs = dict(DEMO_ENV_KWARGS.get(self.env_id, {}))
        if not isinstance(self.env_kwargs, dict):
            raise TypeError(f"env_kwargs must be a dict, got {type(self.env_kwargs).__name__}")
        self.report_to = ",".join(parse_report_to(self.report_to))
        if not isinstance(self.stop, str):
            raise TypeError(f"stop must be a string (empty: none), got {type(self.stop).__name__}")
        self._check_choices()
        self._check_counts()
        self._check_rates()
        self._check_combinations()

    def _check_choices(self) -> None:
        choices = {
            "algorithm": ALGORITHMS,
            "estimator": ESTIMATORS,
            "advantage_std": STDS,
            "aggregation": AGGREGATIONS,
            "kl_estimator": KL_ESTIMATORS,
            "ratio_level": ("token", "sequence"),
            "rollout_backend": ROLLOUT_BACKENDS,
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}"
                )
        if self.algorithm == "ppo" and self.estimator != "gae":
            self.estimator = "gae"
        if self.estimator == "gae" and self.algorithm != "ppo":
            raise ValueError("estimator 'gae' needs a critic: use algorithm='ppo'")

    def _check_counts(self) -> None:
        positive = ("tasks_per_step", "group_size", "epochs", "micro_batch_size", "max_tokens")
        for name in positive:
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)!r}")
        non_negative = (
            "warmup_steps", "warmup_tasks", "steps", "minibatch_size", "max_refills",
            "overlong_buffer", "max_turns", "eval_tasks", "eval_every", "checkpoint_every",
            "threads", "seed",
        )  # fmt: skip
        for name in non_negative:
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {getattr(self, name)!r}")
        if self.keep_checkpoints < 1:
            raise ValueError(f"keep_checkpoints must be >= 1, got {self.keep_checkpoints}")

    def _check_rates(self) -> None:
        for name in ("lr", "warmup_lr"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        for name in ("clip_low", "clip_high", "kl_coef", "entropy_coef", "value_coef", "value_clip",
                     "max_grad_norm", "weight_decay", "overlong_penalty"):  # fmt: skip
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.clip_low >= 1:
            raise ValueError(f"clip_low must be below 1, got {self.clip_low}")
        if self.dual_clip and self.dual_clip <= 1:
            raise ValueError(f"dual_clip must be 0 (off) or > 1, got {self.dual_clip}")
        if not (self.temperature > 0 and math.isfinite(self.temperature)):
            raise ValueError(
                "temperature must be > 0 (the loss divides the logits by it), "
                f"got {self.temperature}"
            )

    def _check_combinations(self) -> None:
        if self.resume and self.overwrite:
            raise ValueError(
                "resume continues the run in output_dir and overwrite replaces it: choose one"
            )
        if self.warmup_steps and not self.warmup_tasks:
            raise ValueError("warmup_steps > 0 needs warmup_tasks > 0 oracle episodes")
        if self.overlong_buffer >= self.max_tokens:
            raise ValueError(
                f"overlong_buffer ({self.overlong_buffer}) must be below max_tokens "
                f"({self.max_tokens})"
            )
        if self.minibatch_size and self.minibatch_size > self.tasks_per_step * self.group_size:
            raise ValueError(
                f"minibatch_size ({self.minibatch_size}) is larger than a rollout batch "
                f"({self.tasks_per_step} tasks x {self.group_size} samples)"
            )

    @property
    def trackers(self) -> list[str]:
        """The trackers the run reports to: ``report_to``, and tensorboard if ``tensorboard``."""
        names = parse_report_to(self.report_to)
        if self.tensorboard and "tensorboard" not in names:
            names.insert(0, "tensorboard")
        return names

    @property
    def episodes_per_step(self) -> int:
        """Episodes in one rollout batch (before dropping masked ones)."""
        return self.tasks_per_step * self.group_size

    def to_dict(self) -> dict[str, Any]:
        """The config as JSON-friendly data."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """The inverse of `to_dict`; unknown keys are errors."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown TrainConfig field(s) {unknown}; known: {sorted(known)}")
        return cls(**data)


def field_help(cls: type = TrainConfig) -> dict[str, str]:
    """The one-line help of each field, read from the class docstring's Attributes section."""
    lines = (cls.__doc__ or "").splitlines()
    out: dict[str, str] = {}
    current = None
    inside = False
    for line in lines:
        stripped = line.strip()
        if stripped == "Attributes:":
            inside = True
            continue
        if not inside or not stripped:
            continue
        name, sep, text = stripped.partition(":")
        if (
            sep
            and name.isidentifier()
            and line.startswith(" " * 8)
            and not line.startswith(" " * 12)
        ):
            current = name
            out[current] = text.strip()
        elif current is not None:
            out[current] += " " + stripped
    return out
