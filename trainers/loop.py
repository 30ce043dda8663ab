"""The training loop: a supervised warm start on oracle demonstrations, then GRPO or PPO.

`train`, right below, is the whole algorithm; the `Trainer` methods after it are its steps,
in the order it calls them:

    1. warm start (`Trainer.warm_up`): the env's oracle plays ``warmup_tasks`` episodes;
       ``warmup_steps`` optimiser steps of cross-entropy on the tokens the oracle "sampled"
       (loss mask 1); then the held-out evaluation RL starts from;
    2. each RL step (`Trainer.rl_step`): `collect` samples ``tasks_per_step`` tasks x
       ``group_size`` samples with the rollout engine, drops masked episodes (infrastructure
       failures) and, with dynamic sampling, groups whose returns are all equal, sampling
       more; `prepare` shapes overlong turns, recomputes the old and reference log-probs,
       charges the KL in the reward if asked and turns rewards into token advantages
       (`advantages`); `update` runs ``epochs`` passes of clipped-surrogate minibatch steps
       (`losses`) with gradient accumulation and clipping;
    3. records go to ``metrics.jsonl`` (and the trackers of ``report_to``, with a table of
       sample held-out episodes at each evaluation), episodes to ``episodes.jsonl``,
       checkpoints to ``checkpoints/step-N`` (`run`); ``resume=True`` continues from the
       newest.

What it simplifies, on purpose:
    * one process, one device; the policy samples with the training model in place (HF
      backend) or with vLLM whose weights are replaced after each step;
    * no sequence packing: each minibatch is right-padded to its longest episode;
    * the value head (PPO) is a linear layer on the policy's last hidden state, so the
      critic shares the policy's trunk;
    * the reference model is a frozen copy of the policy as the warm start left it, held in
      memory beside it;
    * the old log-probs are the trainer's own forward, not the sampler's (those are logged
      for comparison as ``sampler_logprob_gap``), so the first minibatch's ratio is exactly
      1: a separate no-grad pass when the policy moves before every token is seen (several
      epochs or minibatches, PPO, a reference model), else the update's own pass, detached;
    * rewards and advantages are NumPy arrays on the CPU, one episode at a time;
    * a checkpoint is the whole trainer state in one file (no sharding).

Tensors and the forward pass are in `batch` (its docstring gives the token alignment).
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.errors import require
from palaestra.trainers import advantages as adv
from palaestra.trainers.batch import forward, pad_to, select, to_batch, token_array, token_spans
from palaestra.trainers.config import EVAL_SEED_BASE, TrainConfig
from palaestra.trainers.run import CHECKPOINTS, RunLog, check_run, checkpoints, start_run


def train(
    config: TrainConfig,
    *,
    model: Any = None,
    tokenizer: Any = None,
    on_step: Callable[[dict[str, Any]], None] | None = None,
) -> TrainResult:
    """Runs the warm start (if any) and the RL steps; see the module docstring.

    Args:
        config: The run.
        model: Train this model instead of loading ``config.model``.
        tokenizer: Its tokenizer (with ``model``).
        on_step: Called with each record (warm-start step, RL step, evaluation), e.g. a
            progress bar.

    Returns:
        The `TrainResult` (evaluations, the metrics of each RL step, file paths).

    Raises:
        ValueError, TypeError, LookupError: A bad env argument or option, or an output
            folder holding a run that neither ``resume`` nor ``overwrite`` is set for
            (checked before anything is loaded or written).
    """
    started = time.perf_counter()
    check_run(config)
    output = start_run(config)
    trainer = Trainer(config, model=model, tokenizer=tokenizer)
    found = checkpoints(output) if config.resume else []
    if found:
        trainer.load(found[-1])
    history: list[dict[str, Any]] = []
    with RunLog(output, config, on_step) as log:
        if not trainer.warm_done:
            trainer.warm_up(log.write)
            log.samples(0, trainer.eval_episodes)
        while trainer.step < config.steps:
            step = trainer.rl_step()
            log.episodes(step.episodes)
            if config.eval_every and trainer.step % config.eval_every == 0:
                if trainer.step < config.steps:  # the last step gets the final evaluation
                    step.metrics.update(trainer.evaluate())
                    log.samples(trainer.step, trainer.eval_episodes)
            history.append(step.metrics)
            log.write(step.metrics)
            if config.checkpoint_every and trainer.step % config.checkpoint_every == 0:
                trainer.save()
        final = {**trainer.evaluate(), **trainer.evaluate(greedy=True)}
        log.write({"phase": "eval", "step": trainer.step, **final})
        log.samples(trainer.step, trainer.eval_episodes)
    trainer.save()
    curve = None
    if config.plot:
        from palaestra.trainers.plot import plot_run, run_title

        metrics, target = output / "metrics.jsonl", output / "reward_curve.png"
        curve = str(plot_run(metrics, target, title=run_title(config)))
    trainer.close()
    seconds = time.perf_counter() - started
    return TrainResult(str(output), trainer.warm_eval, final, history, seconds, curve)


@dataclasses.dataclass
class TrainResult:
    """What a run did: evaluations and where its files are.

    Attributes:
        output_dir: The run's folder.
        warm_start_eval: Held-out evaluation after the warm start (before RL).
        final_eval: Held-out evaluation after RL.
        history: One metrics dict per RL step.
        seconds: Wall-clock seconds of this call.
        curve: The reward-curve PNG, if written.
    """

    output_dir: str
    warm_start_eval: dict[str, float] | None
    final_eval: dict[str, float] | None
    history: list[dict[str, Any]]
    seconds: float
    curve: str | None = None


@dataclasses.dataclass
class StepResult:
    """One RL step: its metrics and the episodes it trained on (masked ones dropped).

    Attributes:
        metrics: The step's record for ``metrics.jsonl``.
        episodes: The episodes of the update.
    """

    metrics: dict[str, Any]
    episodes: list[Any]


class Trainer:
    """Holds the run's objects (model, optimiser, policy) and performs its steps.

    `train` is the loop; the methods are its steps, kept small so tests can drive them one
    at a time.

    Args:
        config: The run's configuration.
        model, tokenizer: Use these instead of loading ``config.model``.
    """

    def __init__(self, config: TrainConfig, model: Any = None, tokenizer: Any = None):
        torch = require("torch", "torch", "the trainer")
        from palaestra.agents import ChatFormatter, HFPolicy

        self.config = config
        if config.threads:
            torch.set_num_threads(config.threads)
        if model is None or tokenizer is None:
            tokenizer, model = load_model(config)
        device = config.device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.tokenizer = tokenizer
        self.formatter = ChatFormatter(tokenizer)
        pad = getattr(tokenizer, "pad_token_id", None)
        self.pad_id = int(pad if pad is not None else self.formatter.eot_id)
        self.value_head = make_value_head(model) if config.algorithm == "ppo" else None
        self.reference = None
        self.rng = np.random.default_rng(np.random.SeedSequence([config.seed, 1]))
        self.step = 0
        self.warm_done = False
        self.warm_eval: dict[str, float] | None = None
        self.eval_episodes: list[Any] = []  # the latest sampled evaluation's, for the trackers
        self.output = Path(config.output_dir)
        if config.rollout_backend == "vllm":
            self.policy = _vllm_policy(config, model, self.output)
        else:
            self.policy = HFPolicy(
                self.model,
                tokenizer,
                max_batch_size=max(config.episodes_per_step, config.eval_tasks, 1),
                seed=config.seed,
            )
        self.optimizer = self._optimizer(config.lr)

    def _parameters(self) -> list[Any]:
        params = [p for p in self.model.parameters() if p.requires_grad]
        if self.value_head is not None:
            params += list(self.value_head.parameters())
        return params

    def _optimizer(self, lr: float) -> Any:
        import torch

        return torch.optim.AdamW(
            self._parameters(), lr=lr, weight_decay=self.config.weight_decay, foreach=True
        )

    def close(self) -> None:
        """Stops the policy's workers (the model stays in memory)."""
        close = getattr(self.policy, "close", None)
        if close is not None:
            close()

    # --- the warm start ---------------------------------------------------------------

    def warm_up(self, log: Callable[[dict[str, Any]], None]) -> None:
        """Everything before RL: the warm start, the evaluation RL starts from, the reference.

        Args:
            log: Called with each warm-start step's record and the evaluation's.
        """
        if self.config.warmup_steps:
            self.warm_start(log)
        self.warm_done = True
        self.warm_eval = {**self.evaluate(), **self.evaluate(greedy=True)}
        log({"phase": "eval", "step": 0, **self.warm_eval})
        if self.config.kl_coef:
            self._make_reference()

    def warm_start(
        self, on_step: Callable[[dict[str, Any]], None] | None = None
    ) -> list[dict[str, Any]]:
        """Cross-entropy on oracle demonstrations, on sampled-token positions only."""
        import torch

        from palaestra.agents import OraclePolicy

        config = self.config
        demos = self.rollout(
            self._seeds(config.warmup_tasks, 3),
            1,
            config.seed,
            policy=OraclePolicy(self.formatter),
            group_prefix="demo.",
        )
        demos = [e for e in demos if not e.mask and e.sampled_tokens]
        if not demos:
            raise RuntimeError(f"the oracle of {config.env_id} produced no usable demonstration")
        optimizer = self._optimizer(config.warmup_lr)
        batch = to_batch(demos, self.pad_id, self.device)
        size = min(len(demos), config.micro_batch_size)
        rows: list[int] = []
        log = []
        self.model.train()
        for step in range(config.warmup_steps):
            if len(rows) < size:
                rows += list(self.rng.permutation(len(demos)))
            chosen, rows = torch.as_tensor(rows[:size]), rows[size:]
            part = select(batch, chosen)
            logp, _, _ = forward(self.model, part, 1.0)
            loss = -(logp * part["mask"]).sum() / part["mask"].sum().clamp(min=1.0)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if config.max_grad_norm:
                torch.nn.utils.clip_grad_norm_(self._parameters(), config.max_grad_norm)
            optimizer.step()
            log.append({"phase": "warmup", "step": step + 1, "sft_loss": float(loss.detach())})
            if on_step is not None:
                on_step(log[-1])
        self.model.eval()
        return log

    def evaluate(self, greedy: bool = False) -> dict[str, float]:
        """Held-out success and return on ``eval_tasks`` seeds never used in training.

        Every evaluation plays the same seeds with the same sampling seed, so evaluations
        differ only by the model. A sampled (not greedy) evaluation keeps its episodes in
        ``eval_episodes``.
        """
        config = self.config
        if not config.eval_tasks:
            return {}
        seeds = [EVAL_SEED_BASE + i for i in range(config.eval_tasks)]
        overrides = {}
        if greedy:
            from palaestra.agents import SamplingParams

            overrides["sampling"] = SamplingParams(
                temperature=0.0,
                max_tokens=config.max_tokens,
                stop=(config.stop,) if config.stop else (),
            )
        played = self.rollout(seeds, 1, config.seed + 7, group_prefix="eval", **overrides)
        if not greedy:
            self.eval_episodes = played
        episodes = [e for e in played if not e.mask]
        prefix = "eval_greedy" if greedy else "eval"
        if not episodes:
            return {f"{prefix}_success": math.nan, f"{prefix}_return": math.nan}
        return {
            f"{prefix}_success": float(np.mean([bool(e.success) for e in episodes])),
            f"{prefix}_return": float(np.mean([e.total_reward for e in episodes])),
            f"{prefix}_turns": float(np.mean([e.num_turns for e in episodes])),
        }

    # --- one RL step ------------------------------------------------------------------

    def rl_step(self) -> StepResult:
        """Collect, prepare, update; returns the step's metrics and episodes."""
        start = time.perf_counter()
        episodes, stats = self.collect()
        metrics: dict[str, Any] = {"phase": "rl", "step": self.step + 1, **stats}
        for episode in episodes:
            episode.step = metrics["step"]
        if episodes:
            metrics.update(episode_metrics(episodes))
            batch = self.prepare(episodes)
            metrics["shaped_return"] = float(batch["shaped_return"].mean())
            if "old_logp" in batch:
                gap = (batch["sampler_logp"] - batch["old_logp"]).abs() * batch["mask"]
                metrics["sampler_logprob_gap"] = float(gap.max())
            update_start = time.perf_counter()
            metrics.update(self.update(batch))
            metrics["update_seconds"] = time.perf_counter() - update_start
            self._sync_rollout_weights()
        self.step += 1
        metrics["seconds"] = time.perf_counter() - start
        metrics["tokens_per_second"] = stats.get("sampled_tokens", 0.0) / max(
            metrics["seconds"], 1e-9
        )
        return StepResult(metrics, episodes)

    def collect(self) -> tuple[list[Any], dict[str, float]]:
        """One RL batch, masked episodes dropped.

        With dynamic sampling, only groups whose returns differ are kept, refilled by up
        to ``max_refills`` more rounds.
        """
        config = self.config
        kept: list[Any] = []
        stats = defaultdict(float)
        for round_ in range(1 + (config.max_refills if config.dynamic_sampling else 0)):
            missing = config.tasks_per_step - len({e.group_id for e in kept})
            if missing <= 0:
                break
            seeds = self._seeds(missing, 2, self.step, round_)
            start = time.perf_counter()
            episodes = self.rollout(
                seeds,
                config.group_size,
                _mix(config.seed, self.step, round_),
                group_prefix=f"{self.step}.{round_}.",
            )
            stats["rollout_seconds"] += time.perf_counter() - start
            stats["sampled_tokens"] += sum(e.sampled_tokens for e in episodes)
            stats["episodes"] += len(episodes)
            stats["masked"] += sum(e.mask for e in episodes)
            good = [e for e in episodes if not e.mask]
            if config.dynamic_sampling:
                good, dropped = drop_constant_groups(good)
                stats["dropped_groups"] += dropped
            kept += good
            stats["rounds"] = round_ + 1
        if config.dynamic_sampling:
            order = list(dict.fromkeys(e.group_id for e in kept))[: config.tasks_per_step]
            keep = set(order)
            kept = [e for e in kept if e.group_id in keep]
        return kept, dict(stats)

    def rollout(
        self,
        seeds: Sequence[int],
        samples: int,
        sampling_seed: int,
        policy: Any = None,
        group_prefix: str = "",
        **overrides: Any,
    ) -> list[Any]:
        """Plays one task per seed, ``samples`` times each."""
        from palaestra.agents import RolloutEngine, SamplingParams, Task

        config = self.config
        stops = (config.stop,) if config.stop else ()
        tasks = [
            Task(
                config.env_id,
                seed=int(s),
                kwargs=config.env_kwargs,
                group_id=f"{group_prefix}{i}:{s}",
            )
            for i, s in enumerate(seeds)
        ]
        self.model.eval()
        engine = RolloutEngine(
            policy or self.policy,
            self.formatter,
            samples_per_task=samples,
            sampling=overrides.pop(
                "sampling",
                SamplingParams(
                    temperature=config.temperature, max_tokens=config.max_tokens, stop=stops
                ),
            ),
            max_turns=config.max_turns or None,
            seed=sampling_seed,
            check_drift=False,
            env_threads=False,
            **overrides,
        )
        return engine.run(tasks)

    def _seeds(self, count: int, *key: int) -> list[int]:
        rng = np.random.default_rng(np.random.SeedSequence([self.config.seed, *key]))
        return [int(s) for s in rng.integers(0, EVAL_SEED_BASE, size=count)]

    def prepare(self, episodes: Sequence[Any]) -> dict[str, Any]:
        """A batch ready for `update` (see `batch` for its tensors).

        Four jobs, in order: shape the turn rewards (`shaped_rewards`), recompute the old
        and reference log-probs and the critic's values (`old_pass`), charge the KL to the
        reference in the rewards when ``kl_in_reward`` (`kl_tokens`), and turn the rewards
        into token ``advantages`` (plus ``returns`` for the critic). ``shaped_return`` ``[B]``
        is each episode's return after shaping.
        """
        config = self.config
        batch = to_batch(episodes, self.pad_id, self.device)
        width = batch["mask"].shape[1]
        rewards = shaped_rewards(episodes, config)
        batch.update(self.old_pass(batch))
        kl = kl_tokens(batch, config)
        if config.estimator == "gae":
            mask = batch["mask"].cpu().numpy()
            values = batch["old_values"].cpu().numpy()
            advantages, returns = gae_advantages(episodes, rewards, values, mask, kl, config)
            batch["returns"] = self._tensor(returns)
        else:
            if kl is not None:
                rewards = charge_kl_to_turns(episodes, rewards, kl, config.kl_coef)
            advantages = token_array(episodes, turn_advantages(episodes, rewards, config), width)
        batch["advantages"] = self._tensor(advantages)
        batch["shaped_return"] = self._tensor([sum(r) for r in rewards])
        return batch

    def _tensor(self, values: Any) -> Any:
        import torch

        return torch.as_tensor(np.asarray(values), dtype=torch.float32, device=self.device)

    def needs_old_pass(self, size: int) -> bool:
        """Whether old log-probs need their own forward pass before the update.

        They do when the policy changes before some tokens are seen (several epochs or
        minibatches), for a critic's old values, and for a reference model.
        """
        config = self.config
        several = config.epochs > 1 or 0 < config.minibatch_size < size
        return several or self.value_head is not None or self.reference is not None

    def old_pass(self, batch: dict[str, Any]) -> dict[str, Any]:
        """``old_logp``, ``old_values`` and ``ref_logp`` of a batch, when `needs_old_pass`.

        Without a separate pass (one epoch, one minibatch) the update takes the old
        log-probs from its own forward, detached: the same numbers, one pass fewer; the
        result is then empty.
        """
        import torch

        config = self.config
        size, width = batch["mask"].shape
        if not self.needs_old_pass(size):
            return {}
        parts: dict[str, list[Any]] = defaultdict(list)
        self.model.eval()
        with torch.no_grad():
            for rows in torch.arange(size).split(config.micro_batch_size):
                part = select(batch, rows)
                logp, _, values = forward(self.model, part, config.temperature, self.value_head)
                parts["old_logp"].append(pad_to(logp, width))
                if values is not None:
                    parts["old_values"].append(pad_to(values, width))
                if self.reference is not None:
                    ref, _, _ = forward(self.reference, part, config.temperature)
                    parts["ref_logp"].append(pad_to(ref, width))
        return {key: torch.cat(chunks) for key, chunks in parts.items()}

    def update(self, batch: dict[str, Any]) -> dict[str, float]:
        """``epochs`` passes of minibatch steps over a prepared batch; returns mean stats.

        A minibatch is one optimiser step; its micro-batches accumulate gradients, each
        weighted by its share of the minibatch's tokens (``token_mean``) or episodes.
        """
        import torch

        config = self.config
        size = len(batch["input_ids"])
        totals: dict[str, list[float]] = defaultdict(list)
        first_minibatch = True
        self.model.train()
        for _ in range(config.epochs):
            order = torch.as_tensor(self.rng.permutation(size))
            for mb_rows in order.split(config.minibatch_size or size):
                mb_tokens = float(batch["mask"][mb_rows].sum().clamp(min=1.0))
                self.optimizer.zero_grad(set_to_none=True)
                for rows in mb_rows.split(config.micro_batch_size):
                    part = select(batch, rows)
                    loss, stats = self.loss(part, first_minibatch)
                    for name, value in stats.items():
                        totals[name].append(value)
                    if config.aggregation == "token_mean":
                        weight = float(part["mask"].sum()) / mb_tokens
                    else:
                        weight = len(rows) / len(mb_rows)
                    (loss * weight).backward()
                if config.max_grad_norm:
                    norm = torch.nn.utils.clip_grad_norm_(self._parameters(), config.max_grad_norm)
                    totals["grad_norm"].append(float(norm))
                self.optimizer.step()
                first_minibatch = False
        self.model.eval()
        out = {k: float(np.mean(v)) for k, v in totals.items()}
        for name in ("first_minibatch_ratio_error", "sampler_logprob_gap", "ratio_max"):
            if name in totals:
                out[name] = float(np.max(totals[name]))
        return out

    def loss(self, part: dict[str, Any], first_minibatch: bool) -> tuple[Any, dict[str, float]]:
        """One micro-batch's loss (surrogate, KL, entropy and value terms) and statistics."""
        import torch

        from palaestra.trainers import losses

        config = self.config
        logp, logits, values = forward(self.model, part, config.temperature, self.value_head)
        mask = part["mask"]
        old = part["old_logp"] if "old_logp" in part else logp.detach()
        stats: dict[str, float] = {}
        if first_minibatch:  # before any step the ratio must be 1
            error = ((logp.detach() - old).exp() - 1.0).abs() * mask
            stats["first_minibatch_ratio_error"] = float(error.max())
        if "old_logp" not in part:
            stats["sampler_logprob_gap"] = float(((part["sampler_logp"] - old).abs() * mask).max())
        loss, surrogate = losses.clipped_surrogate(
            logp, old, part["advantages"], mask,
            clip_low=config.clip_low, clip_high=config.clip_high,
            dual_clip=config.dual_clip or None, level=config.ratio_level,
            aggregation=config.aggregation,
            # Dr.GRPO's constant divisor: the most tokens an episode may sample.
            constant=float(config.max_tokens * (config.max_turns or 1)),
        )  # fmt: skip
        stats.update(
            policy_loss=float(loss.detach()),
            clip_fraction=surrogate.clip_fraction,
            ratio_mean=surrogate.ratio_mean,
            ratio_max=surrogate.ratio_max,
        )
        with torch.no_grad():
            stats["kl_old"] = float(losses.aggregate(losses.kl_estimate(logp, old, "k3"), mask))
        if "ref_logp" in part:
            kl = losses.aggregate(
                losses.kl_estimate(logp, part["ref_logp"], config.kl_estimator),
                mask, config.aggregation, float(config.max_tokens),
            )  # fmt: skip
            stats["kl_ref"] = float(kl.detach())
            if not config.kl_in_reward:
                loss = loss + config.kl_coef * kl
        with torch.set_grad_enabled(bool(config.entropy_coef)):
            entropy = losses.entropy(logits[None], torch.ones_like(logits[None, :, 0]))
        stats["entropy"] = float(entropy.detach())
        if config.entropy_coef:
            loss = loss - config.entropy_coef * entropy
        if values is not None:
            clip = config.value_clip or None
            v_loss = losses.value_loss(values, part["old_values"], part["returns"], mask, clip)
            stats["value_loss"] = float(v_loss.detach())
            loss = loss + config.value_coef * v_loss
        return loss, stats

    def _sync_rollout_weights(self) -> None:
        if self.config.rollout_backend == "vllm":
            self.policy.update_weights(self.model.named_parameters())

    # --- checkpoints ------------------------------------------------------------------

    def save(self) -> Path:
        """Writes ``checkpoints/step-N`` (model and tokenizer in HF format, trainer state)."""
        import torch

        folder = self.output / CHECKPOINTS / f"step-{self.step:06d}"
        scratch = folder.with_name(folder.name + ".partial")
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        self.model.save_pretrained(scratch / "model")
        self.tokenizer.save_pretrained(scratch / "tokenizer")
        state = {
            "step": self.step,
            "warm_done": self.warm_done,
            "warm_eval": self.warm_eval,
            "config": self.config.to_dict(),
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "value_head": self.value_head.state_dict() if self.value_head is not None else None,
            "reference": self.reference.state_dict() if self.reference is not None else None,
            "rng": self.rng.bit_generator.state,
        }
        torch.save(state, scratch / "trainer_state.pt")
        shutil.rmtree(folder, ignore_errors=True)
        scratch.rename(folder)
        for old in checkpoints(self.output)[: -self.config.keep_checkpoints]:
            shutil.rmtree(old, ignore_errors=True)
        return folder

    def load(self, folder: Path) -> None:
        """Restores the state `save` wrote."""
        import torch

        state = torch.load(
            folder / "trainer_state.pt", map_location=self.device, weights_only=False
        )
        self.model.load_state_dict(state["model"])
        if state["reference"] is not None:
            self._make_reference()
            self.reference.load_state_dict(state["reference"])
        if self.value_head is not None and state["value_head"] is not None:
            self.value_head.load_state_dict(state["value_head"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]
        self.step, self.warm_done, self.warm_eval = (
            state["step"],
            state["warm_done"],
            state["warm_eval"],
        )
        self._sync_rollout_weights()

    def _make_reference(self) -> None:
        import copy

        self.reference = copy.deepcopy(self.model).eval()
        for p in self.reference.parameters():
            p.requires_grad_(False)


# --- the pieces of a step -----------------------------------------------------------------


def drop_constant_groups(episodes: Sequence[Any]) -> tuple[list[Any], int]:
    """Dynamic sampling: removes groups whose returns are all equal (zero advantage)."""
    returns: dict[str, list[float]] = defaultdict(list)
    for e in episodes:
        returns[e.group_id].append(e.total_reward)
    flat = {g for g, r in returns.items() if len(r) < 2 or np.ptp(r) == 0}
    return [e for e in episodes if e.group_id not in flat], len(flat)


def episode_metrics(episodes: Sequence[Any]) -> dict[str, float]:
    """Reward, its parts, success, turns and token counts of a batch."""
    parts: dict[str, float] = defaultdict(float)
    for e in episodes:
        for turn in e.reward_parts:
            for name, value in turn.items():
                parts[f"reward/{name}"] += value
    out = {f: v / len(episodes) for f, v in parts.items()}
    out.update(
        reward=float(np.mean([e.total_reward for e in episodes])),
        reward_std=float(np.std([e.total_reward for e in episodes])),
        success=float(np.mean([bool(e.success) for e in episodes])),
        turns=float(np.mean([e.num_turns for e in episodes])),
        sampled_tokens_per_episode=float(np.mean([e.sampled_tokens for e in episodes])),
        truncated=float(np.mean([e.truncated for e in episodes])),
        kept_episodes=float(len(episodes)),
    )
    return out


def overlong_penalties(episode: Any, max_tokens: int, buffer: int, penalty: float) -> list[float]:
    """DAPO's soft overlong penalty of each turn.

    0 up to ``max_tokens - buffer`` sampled tokens, then growing linearly to ``-penalty``
    at ``max_tokens``.
    """
    if buffer <= 0:
        return [0.0] * episode.num_turns
    out = []
    for start, end in episode.turn_spans:
        length = sum(episode.loss_mask[start:end])
        excess = (length - (max_tokens - buffer)) / buffer
        out.append(-penalty * min(max(excess, 0.0), 1.0))
    return out


def shaped_rewards(episodes: Sequence[Any], config: TrainConfig) -> list[list[float]]:
    """Each episode's turn rewards plus its overlong penalties."""
    shape = config.max_tokens, config.overlong_buffer, config.overlong_penalty
    return [
        [r + p for r, p in zip(e.turn_rewards, overlong_penalties(e, *shape), strict=True)]
        for e in episodes
    ]


def kl_tokens(batch: dict[str, Any], config: TrainConfig) -> np.ndarray | None:
    """The per-token KL to the reference ``[B, L-1]`` (0 off the mask), or None.

    None unless the KL is charged in the rewards (``kl_in_reward``, with a reference model).
    """
    if "ref_logp" not in batch or not config.kl_in_reward:
        return None
    from palaestra.trainers.losses import kl_estimate

    kl = kl_estimate(batch["old_logp"], batch["ref_logp"], config.kl_estimator) * batch["mask"]
    return kl.cpu().numpy()


def charge_kl_to_turns(
    episodes: Sequence[Any], rewards: Sequence[Sequence[float]], kl: np.ndarray, coef: float
) -> list[list[float]]:
    """Turn rewards less ``coef`` times the KL summed over each turn's sampled tokens."""
    return [
        [
            r - coef * float(kl[row, start:end].sum())
            for r, (start, end) in zip(turn_rewards, token_spans(episode), strict=True)
        ]
        for row, (episode, turn_rewards) in enumerate(zip(episodes, rewards, strict=True))
    ]


def turn_advantages(
    episodes: Sequence[Any], rewards: Sequence[Sequence[float]], config: TrainConfig
) -> list[np.ndarray]:
    """Each episode's turn advantages under ``config.estimator`` (all but ``gae``)."""
    groups = [e.group_id for e in episodes]
    name, std = config.estimator, config.advantage_std
    if name in ("grpo", "drgrpo", "rloo"):
        totals = [float(np.sum(r)) for r in rewards]
        per_episode = adv.group_advantages(totals, groups, name, std=std)
        return [np.full(len(r), a) for r, a in zip(rewards, per_episode, strict=True)]
    if name == "rebn":
        return adv.turn_advantages(rewards, config.gamma, "batch", std=std)
    if name == "turn_group":
        return adv.turn_advantages(rewards, config.gamma, "group", groups, std=std)
    if name == "gigpo":
        keys = [[_state_key(k) for k in e.state_keys] for e in episodes]
        return adv.gigpo_advantages(rewards, keys, groups, config.gamma, std=std)
    raise ValueError(f"turn_advantages does not compute {name!r}")


def _state_key(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_state_key(k) for k in key)
    return key


def gae_advantages(
    episodes: Sequence[Any],
    rewards: Sequence[Sequence[float]],
    values: np.ndarray,
    mask: np.ndarray,
    kl: np.ndarray | None,
    config: TrainConfig,
) -> tuple[np.ndarray, np.ndarray]:
    """Token-level GAE over the critic's old values, whitened over the batch's sampled tokens.

    Each turn's reward sits on its last sampled token, less ``kl_coef`` times each token's
    KL when it is charged in the reward.

    Returns:
        ``(advantages, returns)``, each ``[B, L-1]``.
    """
    token_rewards = np.zeros(mask.shape, dtype=np.float32)
    for row, (episode, turn_rewards) in enumerate(zip(episodes, rewards, strict=True)):
        spans = token_spans(episode)
        token_rewards[row] = adv.rewards_on_last_tokens(turn_rewards, spans, mask.shape[1])
    if kl is not None:
        token_rewards = token_rewards - config.kl_coef * kl
    advantages, returns = np.zeros_like(values), np.zeros_like(values)
    for row in range(len(episodes)):
        advantages[row], returns[row] = adv.gae_tokens(
            token_rewards[row], values[row], mask[row], config.gamma, config.gae_lambda
        )
    return adv.whiten(advantages, mask, config.advantage_std), returns


def _mix(*key: int) -> int:
    return int(np.random.SeedSequence(list(key)).generate_state(1)[0])


# --- the model ----------------------------------------------------------------------------

TOKENIZER_ENVS = ("Arithmetic-v0", "Calculator-v0", "GuessNumber-v0")
"""Envs whose oracle episodes (with the env being trained) make the tiny tokenizer's corpus."""


def load_model(config: TrainConfig) -> tuple[Any, Any]:
    """The tokenizer and causal LM named by ``config.model`` (the tiny pair when empty)."""
    require("torch", "torch", "the trainer")
    if not config.model:
        from palaestra.agents.tiny import TinyTokenizerConfig, tiny_model, tiny_tokenizer

        # The tokenizer learns from the exemplars and the env being trained, not from the
        # whole registry, so a new env elsewhere does not change what the demo learns.
        corpus_envs = tuple(sorted({*TOKENIZER_ENVS, config.env_id}))
        tokenizer = tiny_tokenizer(TinyTokenizerConfig(env_ids=corpus_envs))
        return tokenizer, tiny_model(tokenizer)
    transformers = require("transformers", "torch", "the trainer")
    path = os.path.expanduser(config.model)
    if os.path.isdir(path) and os.path.isdir(os.path.join(path, "model")):
        path = os.path.join(path, "model")  # a checkpoint folder of ours
    tokenizer_path = path
    sibling = os.path.join(os.path.dirname(path), "tokenizer")
    if os.path.isdir(sibling):
        tokenizer_path = sibling
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(tokenizer_path)
        model = transformers.AutoModelForCausalLM.from_pretrained(path)
    except OSError as e:
        raise ValueError(f"cannot load a model from {config.model!r}: {e}") from e
    return tokenizer, model


def make_value_head(model: Any) -> Any:
    """A linear value head on the model's last hidden state (zero-initialised)."""
    torch = require("torch", "torch", "the trainer")
    head = torch.nn.Linear(model.config.hidden_size, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)
    return head.to(next(model.parameters()).device)


def _vllm_policy(config: TrainConfig, model: Any, output: Path) -> Any:
    """A vLLM engine on the trainer's current weights (GPU only; unverified without one)."""
    from palaestra.agents import VLLMPolicy

    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    os.environ.setdefault("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")
    folder = output / "vllm-init"
    model.save_pretrained(folder)
    return VLLMPolicy(
        str(folder),
        gpu_memory_utilization=0.3,
        logprobs_mode="processed_logprobs",
        enable_prefix_caching=True,
    )
