"""Episodes as tensors, and the teacher-forced forward pass the losses read.

Token alignment: a batch of ids ``[B, L]`` gives logits for positions ``0..L-2`` that
predict tokens ``1..L-1``; every per-token tensor here (mask, advantages, log-probs) lives
in that target space of length ``L - 1``. An episode's completion token ``i`` is target
``len(prompt_ids) - 1 + i``.

A batch is a dict of tensors: ``input_ids`` and ``attention_mask`` ``[B, L]``, and in target
space ``mask`` (1 on sampled tokens), ``sampler_logp`` (what the sampler reported), then
whatever the trainer adds (``old_logp``, ``ref_logp``, ``old_values``, ``advantages``,
``returns``). `select` takes rows of every ``[B, *]`` tensor at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.trainers import advantages as adv


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


def token_spans(episode: Any) -> list[tuple[int, int]]:
    """Each turn's sampled tokens as ``(start, end)`` in target space."""
    offset = len(episode.prompt_ids) - 1
    return [(offset + start, offset + end) for start, end in episode.turn_spans]


def token_array(
    episodes: Sequence[Any], per_turn: Sequence[Sequence[float]], width: int
) -> np.ndarray:
    """Each turn's value on the target positions of its sampled tokens, ``[B, width]``."""
    out = np.zeros((len(episodes), width), dtype=np.float32)
    for row, (episode, values) in enumerate(zip(episodes, per_turn, strict=False)):
        offset = len(episode.prompt_ids) - 1
        sampled = np.zeros(width)
        sampled[offset : offset + len(episode.loss_mask)] = episode.loss_mask
        out[row] = adv.broadcast_to_tokens(values, token_spans(episode), width) * sampled
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


def pad_to(tensor: Any, width: int) -> Any:
    """Right-pads a ``[B, T]`` tensor with zeros to ``[B, width]``."""
    import torch

    return torch.nn.functional.pad(tensor, (0, width - tensor.shape[1]))


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
    ids = batch["input_ids"]
    mask = batch["mask"] > 0
    start, hidden = _trunk(model.base_model, ids, batch["attention_mask"], mask)
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


def _trunk(trunk: Any, ids: Any, attention: Any, mask: Any) -> tuple[int, Any]:
    """The trunk's last hidden states at target positions ``start..L-2``: ``(start, [B, *, H])``.

    ``start`` is 0, or the shared prefix's length - 1 when the prefix ran once (`shared_prefix`).
    """
    import torch

    from palaestra.agents.backends.hf import cache_argument

    shared = shared_prefix(ids, attention, mask)
    if shared is None:
        return 0, trunk(input_ids=ids, attention_mask=attention).last_hidden_state[:, :-1]
    from transformers import DynamicCache

    length, first, inverse = shared
    cache = DynamicCache()
    head = trunk(
        input_ids=ids[first, :length],
        attention_mask=attention[first, :length],
        use_cache=True,
        **cache_argument(trunk, cache),
    ).last_hidden_state
    cache.batch_select_indices(inverse)
    tail = trunk(
        input_ids=ids[:, length:],
        attention_mask=attention,
        use_cache=True,
        **cache_argument(trunk, cache),
    ).last_hidden_state
    # Target positions length-1 .. L-2: the prefix's last state, then the tail's.
    return length - 1, torch.cat([head[inverse, -1:], tail[:, :-1]], dim=1)


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
