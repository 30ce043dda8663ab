"""The training loop: a supervised warm start on oracle demonstrations, then GRPO or PPO.

Read it top to bottom; `train` is the whole algorithm:

    1. warm start: the env's oracle plays ``warmup_tasks`` episodes; ``warmup_steps``
       optimiser steps of cross-entropy on the tokens the oracle "sampled" (loss mask 1);
    2. each RL step: sample ``tasks_per_step`` tasks x ``group_size`` samples with the
       rollout engine, drop masked episodes (infrastructure failures), optionally drop
       groups whose returns are all equal and sample more (dynamic sampling), shape
       overlong turns, turn rewards into token advantages (`advantages`), recompute the
       old and reference log-probs, then ``epochs`` passes of clipped-surrogate minibatch
       steps (`losses`) with gradient accumulation and clipping;
    3. metrics go to ``metrics.jsonl`` (and TensorBoard), episodes to ``episodes.jsonl``,
       checkpoints to ``checkpoints/step-N``; ``resume=True`` continues from the newest.

What it simplifies, on purpose:
    * one process, one device; the policy samples with the training model in place (HF
      backend) or with vLLM whose weights are replaced after each step;
    * no sequence packing: each minibatch is right-padded to its longest episode;
    * the value head (PPO) is a linear layer on the policy's last hidden state, so the
      critic shares the policy's trunk;
    * the old log-probs are the trainer's own forward, not the sampler's (those are logged
      for comparison as ``sampler_logprob_gap``), so the first minibatch's ratio is exactly
      1: a separate no-grad pass when the policy moves before every token is seen (several
      epochs or minibatches, PPO, a reference model), else the update's own pass, detached.

Token alignment: a batch of ids ``[B, L]`` gives logits for positions ``0..L-2`` that
predict tokens ``1..L-1``; every per-token tensor here (mask, advantages, log-probs) lives
in that target space of length ``L - 1``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from palaestra.trainers import advantages as adv
from palaestra.trainers.config import EVAL_SEED_BASE, TrainConfig

from palaestra.errors import require

CHECKPOINTS = "checkpoints"

TOKENIZER_ENVS = ("Arithmetic-v0", "Calculator-v0", "GuessNumber-v0")
"""Envs whose oracle episodes (with the env being trained) make the tiny tokenizer's corpus."""


# --- the model --------------------------------------------------------------------------------


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
    path = config.model
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


def forward(
    model: Any, batch: dict[str, Any], temperature: float, value_head: Any = None
) -> tuple[Any, Any, Any]:
    """One teacher-forced pass, with the LM head applied at sampled positions only.

    The trunk runs over every token (env and tool tokens are context), except that a prefix
    several rows share (the samples of a group share their prompt) runs once: its keys and
    values are computed for each distinct prefix and copied to the rows that share it, and
    gradients flow back through the copies (`shared_prefix`). The output embedding
    (``model.get_output_embeddings()``) then runs only where ``batch["mask"]`` is 1, which
    saves the head's work and memory on prompt, env and tool tokens. (Models whose logits
    are more than the head's output, e.g. with final soft-capping, are refused.)

    Returns:
        ``(logp, logits, values)``: the log-probs of tokens ``1..L-1`` ``[B, L-1]`` (0 off
        the mask), the temperature-scaled logits at the sampled positions ``[N, V]``, and
        the value head's output ``[B, L-1]`` (0 before the first sampled position of the
        batch; None without a head).
    """
    import torch

    if getattr(model.config, "final_logit_softcapping", None):
        raise ValueError("models with final logit soft-capping are not supported by the trainer")
    ids, attention = batch["input_ids"], batch["attention_mask"]
    mask = batch["mask"] > 0
    shared = shared_prefix(ids, attention, mask)
    if shared is None:
        start = 0
        hidden = model.base_model(input_ids=ids, attention_mask=attention).last_hidden_state
        hidden = hidden[:, :-1]
    else:
        from transformers import DynamicCache

        length, first, inverse = shared
        cache = DynamicCache()
        head = model.base_model(
            input_ids=ids[first, :length],
            attention_mask=attention[first, :length],
            past_key_values=cache,
            use_cache=True,
        ).last_hidden_state
        cache.batch_select_indices(inverse)
        tail = model.base_model(
            input_ids=ids[:, length:],
            attention_mask=attention,
            past_key_values=cache,
            use_cache=True,
        ).last_hidden_state
        # Target positions length-1 .. L-2: the prefix's last state, then the tail's.
        start = length - 1
        hidden = torch.cat([head[inverse, -1:], tail[:, :-1]], dim=1)
    sampled = mask[:, start:]
    logits = model.get_output_embeddings()(hidden[sampled]).float() / temperature
    targets = ids[:, 1:][mask]
    picked = torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None]).squeeze(-1)
    logp = torch.zeros(mask.shape, dtype=picked.dtype, device=picked.device).masked_scatter(
        mask, picked
    )
    values = None
    if value_head is not None:
        values = torch.nn.functional.pad(value_head(hidden.float()).squeeze(-1), (start, 0))
    return logp, logits, values


def shared_prefix(ids: Any, attention: Any, mask: Any) -> tuple[int, Any, Any] | None:
    """The prefix a `forward` pass can compute once per distinct value, if it pays.

    The prefix is as long as the shortest context before any row's first sampled token (so
    no position whose output the loss reads lies inside it) and inside every row's real
    tokens. It pays when fewer distinct prefixes than rows exist (the samples of a group).

    Returns:
        ``(length, first, inverse)``: the prefix length, one row index per distinct prefix,
        and for each row the index of its prefix among them; None when sharing would not
        save work.
    """
    import torch

    rows = ids.shape[0]
    if rows < 2 or not bool(mask.any(dim=1).all()):
        return None
    first_sampled = int(mask.float().argmax(dim=1).min()) + 1  # token index, not target
    length = min(first_sampled, int(attention.sum(dim=1).min()))
    if length < 2 or length >= ids.shape[1]:
        return None
    prefixes, inverse = torch.unique(ids[:, :length], dim=0, return_inverse=True)
    if len(prefixes) >= rows:
        return None
    first = torch.full((len(prefixes),), rows, dtype=torch.long, device=ids.device)
    first = first.scatter_reduce(0, inverse, torch.arange(rows, device=ids.device), "amin")
    return length, first, inverse


# --- episodes to tensors ----------------------------------------------------------------------


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


def turn_advantages(
    episodes: Sequence[Any], rewards: Sequence[Sequence[float]], config: TrainConfig
) -> list[np.ndarray]:
    """Each episode's turn advantages under ``config.estimator`` (all but ``gae``)."""
    groups = [e.group_id for e in episodes]
    name = config.estimator
    if name in ("grpo", "drgrpo", "rloo"):
        totals = [float(np.sum(r)) for r in rewards]
        per_episode = adv.group_advantages(totals, groups, name)
        return [np.full(len(r), a) for r, a in zip(rewards, per_episode, strict=False)]
    if name == "rebn":
        return adv.turn_advantages(rewards, config.gamma, "batch")
    if name == "turn_group":
        return adv.turn_advantages(rewards, config.gamma, "group", groups)
    if name == "gigpo":
        keys = [[_state_key(k) for k in e.state_keys] for e in episodes]
        return adv.gigpo_advantages(rewards, keys, groups, config.gamma)
    raise ValueError(f"turn_advantages does not compute {name!r}")


def _state_key(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_state_key(k) for k in key)
    return key


def to_batch(episodes: Sequence[Any], pad_id: int, device: Any) -> dict[str, Any]:
    """Right-padded tensors of the episodes; ``mask`` is the loss mask in target space."""
    import torch
    from palaestra.agents.rollout import pad_episodes

    arrays = pad_episodes(episodes, pad_id)
    return {
        "input_ids": torch.as_tensor(arrays["input_ids"], device=device),
        "attention_mask": torch.as_tensor(arrays["attention_mask"], device=device),
        "mask": torch.as_tensor(arrays["loss_mask"][:, 1:], dtype=torch.float32, device=device),
        "sampler_logp": torch.as_tensor(arrays["logprobs"][:, 1:], device=device),
    }


def token_array(
    episodes: Sequence[Any], per_turn: Sequence[Sequence[float]], width: int
) -> np.ndarray:
    """Each turn's value on the target positions of its sampled tokens, ``[B, width]``."""
    out = np.zeros((len(episodes), width), dtype=np.float32)
    for row, (episode, values) in enumerate(zip(episodes, per_turn, strict=False)):
        offset = len(episode.prompt_ids) - 1  # completion index i is target index offset + i
        spans = [(offset + s, offset + e) for s, e in episode.turn_spans]
        sampled = np.zeros(width)
        sampled[offset : offset + len(episode.loss_mask)] = episode.loss_mask
        out[row] = adv.broadcast_to_tokens(values, spans, width) * sampled
    return out


def select(batch: dict[str, Any], rows: Any) -> dict[str, Any]:
    """The given rows of every tensor, trimmed to their longest sequence."""
    length = int(batch["attention_mask"][rows].sum(-1).max())
    out = {}
    for key, value in batch.items():
        if getattr(value, "ndim", 0) != 2:
            continue
        part = value[rows]
        out[key] = (
            part[:, :length] if key in ("input_ids", "attention_mask") else part[:, : length - 1]
        )
    return out


# --- the two phases ---------------------------------------------------------------------------


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


class Trainer:
    """Holds the run's objects (model, optimiser, engines) and performs its steps.

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
        self.output = Path(config.output_dir)
        self.output.mkdir(parents=True, exist_ok=True)
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
        self._writer = _tensorboard(self.output) if config.tensorboard else None

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

    # --- rollouts ---------------------------------------------------------------------

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

    def evaluate(self, greedy: bool = False) -> dict[str, float]:
        """Held-out success and return on ``eval_tasks`` seeds never used in training.

        Every evaluation plays the same seeds with the same sampling seed, so evaluations
        differ only by the model.
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
        episodes = [
            e
            for e in self.rollout(seeds, 1, config.seed + 7, group_prefix="eval", **overrides)
            if not e.mask
        ]
        prefix = "eval_greedy" if greedy else "eval"
        if not episodes:
            return {f"{prefix}_success": math.nan, f"{prefix}_return": math.nan}
        return {
            f"{prefix}_success": float(np.mean([bool(e.success) for e in episodes])),
            f"{prefix}_return": float(np.mean([e.total_reward for e in episodes])),
            f"{prefix}_turns": float(np.mean([e.num_turns for e in episodes])),
        }

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

    # --- the supervised warm start ----------------------------------------------------

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

    # --- one RL step ------------------------------------------------------------------

    def prepare(self, episodes: Sequence[Any]) -> dict[str, Any]:
        """Tensors, old and reference log-probs, and token advantages of a batch."""
        import torch
        from palaestra.trainers.losses import kl_estimate

        config = self.config
        batch = to_batch(episodes, self.pad_id, self.device)
        width = batch["mask"].shape[1]
        rewards = [list(e.turn_rewards) for e in episodes]
        for r, episode in zip(rewards, episodes, strict=False):
            for t, p in enumerate(
                overlong_penalties(
                    episode, config.max_tokens, config.overlong_buffer, config.overlong_penalty
                )
            ):
                r[t] += p
        self.model.eval()
        old_logp, old_values, ref_logp = [], [], []
        if self.needs_old_pass(len(episodes)):
            with torch.no_grad():
                for rows in torch.arange(len(episodes)).split(config.micro_batch_size):
                    part = select(batch, rows)
                    logp, _, values = forward(self.model, part, config.temperature, self.value_head)
                    old_logp.append(_pad_to(logp, width))
                    if values is not None:
                        old_values.append(_pad_to(values, width))
                    if self.reference is not None:
                        ref, _, _ = forward(self.reference, part, config.temperature)
                        ref_logp.append(_pad_to(ref, width))
        # Without a separate pass (one epoch, one minibatch) the update takes the old
        # log-probs from its own forward, detached: the same numbers, one pass fewer.
        batch["old_logp"] = torch.cat(old_logp) if old_logp else None
        batch["ref_logp"] = torch.cat(ref_logp) if ref_logp else None
        kl_tokens = None
        if batch["ref_logp"] is not None and config.kl_in_reward:
            kl_tokens = (
                (
                    kl_estimate(batch["old_logp"], batch["ref_logp"], config.kl_estimator)
                    * batch["mask"]
                )
                .cpu()
                .numpy()
            )
        if config.estimator == "gae":
            batch["old_values"] = torch.cat(old_values)
            token_rewards = token_array(episodes, [[0.0] * len(r) for r in rewards], width)
            for row, (episode, r) in enumerate(zip(episodes, rewards, strict=False)):
                offset = len(episode.prompt_ids) - 1
                spans = [(offset + s, offset + e) for s, e in episode.turn_spans]
                token_rewards[row] = adv.rewards_on_last_tokens(r, spans, width)
            if kl_tokens is not None:
                token_rewards = token_rewards - config.kl_coef * kl_tokens
            values = batch["old_values"].cpu().numpy()
            mask = batch["mask"].cpu().numpy()
            advantages, returns = np.zeros_like(values), np.zeros_like(values)
            for row in range(len(episodes)):
                advantages[row], returns[row] = adv.gae_tokens(
                    token_rewards[row], values[row], mask[row], config.gamma, config.gae_lambda
                )
            sampled = mask > 0
            if sampled.sum() > 1:  # PPO's usual whitening of advantages over the batch
                mean, std = advantages[sampled].mean(), advantages[sampled].std()
                advantages = np.where(sampled, (advantages - mean) / (std + adv.EPS), 0.0)
            batch["returns"] = torch.as_tensor(returns, dtype=torch.float32, device=self.device)
        else:
            if kl_tokens is not None:
                for row, (episode, r) in enumerate(zip(episodes, rewards, strict=False)):
                    offset = len(episode.prompt_ids) - 1
                    for t, (s, e) in enumerate(episode.turn_spans):
                        r[t] -= config.kl_coef * float(
                            kl_tokens[row, offset + s : offset + e].sum()
                        )
            advantages = token_array(episodes, turn_advantages(episodes, rewards, config), width)
        batch["advantages"] = torch.as_tensor(advantages, dtype=torch.float32, device=self.device)
        batch["shaped_return"] = float(np.mean([sum(r) for r in rewards]))
        return batch

    def needs_old_pass(self, size: int) -> bool:
        """Whether old log-probs need their own forward pass before the update.

        They do when the policy changes before some tokens are seen (several epochs or
        minibatches), for a critic's old values, and for a reference model.
        """
        config = self.config
        several = config.epochs > 1 or 0 < config.minibatch_size < size
        return several or self.value_head is not None or self.reference is not None

    def update(self, batch: dict[str, Any]) -> dict[str, float]:
        """``epochs`` passes of minibatch steps over a prepared batch; returns mean stats."""
        import torch
        from palaestra.trainers import losses

        config = self.config
        size = len(batch["input_ids"])
        minibatch = config.minibatch_size or size
        totals: dict[str, list[float]] = defaultdict(list)
        first_minibatch = True
        # Dr.GRPO's constant divisor: the most tokens an episode may sample.
        constant = float(config.max_tokens * (config.max_turns or 1))
        self.model.train()
        for _ in range(config.epochs):
            order = torch.as_tensor(self.rng.permutation(size))
            for mb_rows in order.split(minibatch):
                mb_tokens = float(batch["mask"][mb_rows].sum().clamp(min=1.0))
                self.optimizer.zero_grad(set_to_none=True)
                for rows in mb_rows.split(config.micro_batch_size):
                    part = select(batch, rows)
                    logp, logits, values = forward(
                        self.model, part, config.temperature, self.value_head
                    )
                    mask = part["mask"]
                    old = part["old_logp"] if "old_logp" in part else logp.detach()
                    if first_minibatch:  # before any step the ratio must be 1
                        error = ((logp.detach() - old).exp() - 1.0).abs() * mask
                        totals["first_minibatch_ratio_error"].append(float(error.max()))
                    if "old_logp" not in part:
                        gap = (part["sampler_logp"] - old).abs() * mask
                        totals["sampler_logprob_gap"].append(float(gap.max()))
                    weight = (
                        float(mask.sum()) / mb_tokens
                        if config.aggregation == "token_mean"
                        else len(rows) / len(mb_rows)
                    )
                    loss, stats = losses.clipped_surrogate(
                        logp, old, part["advantages"], mask,
                        clip_low=config.clip_low, clip_high=config.clip_high,
                        dual_clip=config.dual_clip or None, level=config.ratio_level,
                        aggregation=config.aggregation, constant=constant,
                    )  # fmt: skip
                    totals["policy_loss"].append(float(loss.detach()))
                    totals["clip_fraction"].append(stats.clip_fraction)
                    totals["ratio_mean"].append(stats.ratio_mean)
                    totals["ratio_max"].append(stats.ratio_max)
                    with torch.no_grad():
                        totals["kl_old"].append(
                            float(losses.aggregate(losses.kl_estimate(logp, old, "k3"), mask))
                        )
                    if part.get("ref_logp") is not None:
                        kl = losses.aggregate(
                            losses.kl_estimate(logp, part["ref_logp"], config.kl_estimator),
                            mask,
                            config.aggregation,
                            float(config.max_tokens),
                        )
                        totals["kl_ref"].append(float(kl.detach()))
                        if not config.kl_in_reward:
                            loss = loss + config.kl_coef * kl
                    with torch.set_grad_enabled(bool(config.entropy_coef)):
                        entropy = losses.entropy(logits[None], torch.ones_like(logits[None, :, 0]))
                    totals["entropy"].append(float(entropy.detach()))
                    if config.entropy_coef:
                        loss = loss - config.entropy_coef * entropy
                    if values is not None:
                        v_loss = losses.value_loss(
                            values,
                            part["old_values"],
                            part["returns"],
                            mask,
                            config.value_clip or None,
                        )
                        totals["value_loss"].append(float(v_loss.detach()))
                        loss = loss + config.value_coef * v_loss
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

    def rl_step(self) -> dict[str, Any]:
        """Collect, prepare, update; returns the step's metrics."""
        start = time.perf_counter()
        episodes, stats = self.collect()
        metrics: dict[str, Any] = {"phase": "rl", "step": self.step + 1, **stats}
        if episodes:
            metrics.update(episode_metrics(episodes))
            batch = self.prepare(episodes)
            metrics["shaped_return"] = batch["shaped_return"]
            if batch["old_logp"] is not None:
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
        metrics["_episodes"] = episodes
        return metrics

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


def checkpoints(output: Path) -> list[Path]:
    """The run's complete checkpoints, oldest first."""
    folder = Path(output) / CHECKPOINTS
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_dir() and p.name.startswith("step-") and not p.name.endswith(".partial")
    )


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


def _pad_to(tensor: Any, width: int) -> Any:
    import torch

    return torch.nn.functional.pad(tensor, (0, width - tensor.shape[1]))


def _mix(*key: int) -> int:
    return int(np.random.SeedSequence(list(key)).generate_state(1)[0])


def _tensorboard(output: Path) -> Any:
    require("tensorboard", "tensorboard", "TensorBoard logging (pip install tensorboard)")
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(output / "tensorboard"))


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


# --- the loop ---------------------------------------------------------------------------------


def _log(handle: Any, writer: Any, record: dict[str, Any]) -> None:
    handle.write(json.dumps(record, default=float) + "\n")
    handle.flush()
    if writer is not None:
        step = record.get("step", 0)
        for key, value in record.items():
            if isinstance(value, (int, float)) and key != "step":
                writer.add_scalar(f"{record.get('phase', 'run')}/{key}", value, step)


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
        on_step: Called with each step's metrics (warm-start and RL), e.g. a progress bar.

    Returns:
        The `TrainResult` (evaluations, the metrics of each RL step, file paths).
    """
    started = time.perf_counter()
    trainer = Trainer(config, model=model, tokenizer=tokenizer)
    output = trainer.output
    found = checkpoints(output) if config.resume else []
    if found:
        trainer.load(found[-1])
    elif (output / "metrics.jsonl").exists():
        (output / "metrics.jsonl").unlink()
        (output / "episodes.jsonl").unlink(missing_ok=True)
    (output / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
    history: list[dict[str, Any]] = []
    with open(output / "metrics.jsonl", "a", encoding="utf-8") as log:
        if not trainer.warm_done:
            if config.warmup_steps:
                for record in trainer.warm_start(on_step):
                    _log(log, trainer._writer, record)
            trainer.warm_done = True
            trainer.warm_eval = {**trainer.evaluate(), **trainer.evaluate(greedy=True)}
            _log(log, trainer._writer, {"phase": "eval", "step": 0, **trainer.warm_eval})
            if on_step:
                on_step({"phase": "eval", "step": 0, **trainer.warm_eval})
            if config.kl_coef:
                trainer._make_reference()
        while trainer.step < config.steps:
            record = trainer.rl_step()
            episodes = record.pop("_episodes")
            if config.save_episodes:
                _append_episodes(output / "episodes.jsonl", episodes)
            if (
                config.eval_every
                and trainer.step % config.eval_every == 0
                and trainer.step < config.steps
            ):
                record.update(trainer.evaluate())
            history.append(record)
            _log(log, trainer._writer, record)
            if on_step:
                on_step(record)
            if config.checkpoint_every and trainer.step % config.checkpoint_every == 0:
                trainer.save()
        final = {**trainer.evaluate(), **trainer.evaluate(greedy=True)}
        _log(log, trainer._writer, {"phase": "eval", "step": trainer.step, **final})
        if on_step:
            on_step({"phase": "eval", "step": trainer.step, **final})
    trainer.save()
    if trainer._writer is not None:
        trainer._writer.close()
    curve = None
    if config.plot:
        from palaestra.trainers.plot import plot_run

        curve = str(plot_run(output / "metrics.jsonl", output / "reward_curve.png"))
    close = getattr(trainer.policy, "close", None)
    if close is not None:
        close()
    return TrainResult(
        str(output), trainer.warm_eval, final, history, time.perf_counter() - started, curve
    )


def _append_episodes(path: Path, episodes: Sequence[Any]) -> None:
    if not episodes:
        return
    with open(path, "a", encoding="utf-8") as handle:
        for episode in episodes:
            handle.write(json.dumps(episode.to_dict(), ensure_ascii=False, default=repr) + "\n")
