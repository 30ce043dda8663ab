"""Losses: small pure functions of log-probs, advantages and a loss mask.

Shapes: ``[batch, tokens]`` tensors; ``mask`` is 1 on tokens the policy sampled and 0 on
everything else (prompt, env and tool text, padding). Every loss selects the sampled
positions before aggregating, so masked positions get exactly zero gradient (a select, not
a product with the mask: an infinite log-prob at a masked position would make a product NaN).

The clipped surrogate and the k3 KL cannot overflow: the log-ratio is clamped to
``±LOG_RATIO_CLAMP`` before ``exp`` and the k3 estimate to ``±K3_CLAMP``, as verl does, so a
token whose log-prob moved by thousands (a bad sample, a reference model far from the
policy) gives a large but finite loss and finite gradients. Within those bounds the clamps
change nothing.

* `clipped_surrogate`: PPO's clipped objective with asymmetric clip (clip-higher) and
  dual clip; GSPO's sequence-level ratio with ``level="sequence"``.
* `kl_estimate`: k1, k2, k3 estimators of KL(policy || reference), per token.
* `aggregate`: token mean, sequence mean of token means, or sequence sum over a constant
  (Dr.GRPO).
* `value_loss`: clipped value loss; `entropy`: mean entropy of the sampled positions.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import torch

Aggregation = Literal["token_mean", "seq_mean_token_mean", "seq_sum_const"]

LOG_RATIO_CLAMP = 20.0
"""Bound of a log-ratio before ``exp`` (``e^20`` is about 5e8: finite, and far past any clip)."""

K3_CLAMP = 10.0
"""Bound of the per-token k3 KL estimate."""


def aggregate(
    per_token: torch.Tensor,
    mask: torch.Tensor,
    mode: Aggregation = "token_mean",
    constant: float | None = None,
) -> torch.Tensor:
    """Reduces a per-token loss over sampled tokens.

    Args:
        per_token: ``[B, T]`` losses.
        mask: ``[B, T]`` 1 on sampled tokens.
        mode: ``token_mean`` (every sampled token weighs the same), ``seq_mean_token_mean``
            (mean per sequence, then over sequences), ``seq_sum_const`` (sum per sequence
            divided by ``constant``, e.g. the max generation length, then mean: Dr.GRPO).
        constant: The divisor for ``seq_sum_const``.
    """
    sampled = mask > 0
    masked = torch.where(sampled, per_token, torch.zeros_like(per_token))
    mask = sampled.to(per_token.dtype)
    if mode == "token_mean":
        return masked.sum() / mask.sum().clamp(min=1.0)
    if mode == "seq_mean_token_mean":
        per_sequence = masked.sum(-1) / mask.sum(-1).clamp(min=1.0)
        return per_sequence.mean()
    if mode == "seq_sum_const":
        if not constant or constant <= 0:
            raise ValueError(
                "seq_sum_const needs a positive constant (e.g. the max generation length)"
            )
        return (masked.sum(-1) / constant).mean()
    raise ValueError(
        f"unknown aggregation {mode!r}; use token_mean, seq_mean_token_mean or seq_sum_const"
    )


@dataclasses.dataclass
class SurrogateStats:
    """Diagnostics of one surrogate evaluation (detached floats)."""

    clip_fraction: float
    ratio_mean: float
    ratio_max: float
    dual_clip_fraction: float


def clipped_surrogate(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    dual_clip: float | None = None,
    level: Literal["token", "sequence"] = "token",
    aggregation: Aggregation = "token_mean",
    constant: float | None = None,
) -> tuple[torch.Tensor, SurrogateStats]:
    """The clipped policy-gradient loss (to minimise).

    ``ratio = exp(logp - old_logp)``, the log-ratio clamped to ``±LOG_RATIO_CLAMP``; the loss
    is ``-min(ratio * A, clip(ratio, 1 - low, 1 + high) * A)``, so beyond the clip in the
    direction of the advantage the gradient is 0.
    With ``dual_clip = c`` (> 1), negative-advantage tokens are also bounded by ``-c * A``.
    ``level="sequence"`` uses GSPO's ratio: ``exp(mean of token log-ratios)`` per sequence,
    shared by the sequence's tokens.

    Args:
        logp: ``[B, T]`` log-probs of the sampled tokens under the current policy.
        old_logp: ``[B, T]`` log-probs under the sampling policy.
        advantages: ``[B, T]`` advantages (per token, or broadcast per sequence).
        mask: ``[B, T]`` 1 on sampled tokens.
        clip_low: The lower clip: ratios below ``1 - clip_low`` are clipped.
        clip_high: The upper clip, ``1 + clip_high`` (clip-higher: ``clip_high > clip_low``).
        dual_clip: The dual-clip constant ``c`` or None.
        level: ``"token"`` (PPO/GRPO) or ``"sequence"`` (GSPO).
        aggregation: How token terms become one loss; see `aggregate`.
        constant: The divisor of ``seq_sum_const`` aggregation; see `aggregate`.
    """
    if level not in ("token", "sequence"):
        raise ValueError(f"level must be 'token' or 'sequence', got {level!r}")
    if dual_clip is not None and dual_clip <= 1.0:
        raise ValueError(f"dual_clip must be > 1, got {dual_clip}")
    sampled = mask > 0
    log_ratio = _log_ratio(logp, old_logp, sampled, level)
    ratio = torch.exp(log_ratio.clamp(-LOG_RATIO_CLAMP, LOG_RATIO_CLAMP))
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * advantages
    objective = torch.minimum(unclipped, clipped)
    dual_hits = torch.zeros_like(objective, dtype=torch.bool)
    if dual_clip is not None:
        bound = dual_clip * advantages
        dual_hits = (advantages < 0) & (objective < bound)
        objective = torch.where(advantages < 0, torch.maximum(objective, bound), objective)
    loss = aggregate(-objective, mask, aggregation, constant)
    with torch.no_grad():
        clipped_any = (unclipped != clipped) & sampled
        count = sampled.sum().clamp(min=1)
        stats = SurrogateStats(
            clip_fraction=float(clipped_any.sum() / count),
            ratio_mean=float((ratio * sampled).sum() / count),
            ratio_max=float(ratio[sampled].max()) if sampled.any() else 1.0,
            dual_clip_fraction=float((dual_hits & sampled).sum() / count),
        )
    return loss, stats


def _log_ratio(
    logp: torch.Tensor, old_logp: torch.Tensor, sampled: torch.Tensor, level: str
) -> torch.Tensor:
    """``logp - old_logp`` per token, or (GSPO) its sequence mean on each token; 0 off the mask."""
    zeros = torch.zeros_like(logp)
    log_ratio = torch.where(sampled, logp - old_logp, zeros)
    if level == "token":
        return log_ratio
    per_sequence = log_ratio.sum(-1) / sampled.sum(-1).clamp(min=1).to(logp.dtype)
    # The sequence ratio's value, with each token's gradient flowing through its own log-prob.
    return torch.where(sampled, per_sequence.detach()[:, None] + logp - logp.detach(), zeros)


def kl_estimate(
    logp: torch.Tensor, ref_logp: torch.Tensor, kind: Literal["k1", "k2", "k3"] = "k3"
) -> torch.Tensor:
    """Per-token estimates of KL(policy || reference) from sampled tokens.

    With ``log_r = ref_logp - logp``: k1 = ``-log_r``; k2 = ``log_r ** 2 / 2``;
    k3 = ``exp(log_r) - 1 - log_r`` (non-negative, zero only when the log-probs agree), with
    ``log_r`` clamped to ``±LOG_RATIO_CLAMP`` before ``exp`` and the estimate to
    ``±K3_CLAMP`` (verl's ``low_var_kl``), so it stays finite however far apart the two are.
    """
    log_r = ref_logp - logp
    if kind == "k1":
        return -log_r
    if kind == "k2":
        return 0.5 * log_r**2
    if kind == "k3":
        log_r = log_r.clamp(-LOG_RATIO_CLAMP, LOG_RATIO_CLAMP)
        return (torch.exp(log_r) - 1.0 - log_r).clamp(-K3_CLAMP, K3_CLAMP)
    raise ValueError(f"kind must be k1, k2 or k3, got {kind!r}")


def value_loss(
    values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    clip: float | None = 0.2,
    aggregation: Aggregation = "token_mean",
) -> torch.Tensor:
    """PPO's clipped value loss ``0.5 * max((v - R)^2, (clip(v, v_old +- c) - R)^2)``."""
    unclipped = (values - returns) ** 2
    if clip is None:
        per_token = 0.5 * unclipped
    else:
        clipped_values = old_values + torch.clamp(values - old_values, -clip, clip)
        per_token = 0.5 * torch.maximum(unclipped, (clipped_values - returns) ** 2)
    return aggregate(per_token, mask, aggregation)


def token_logprobs(logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Log-probs of ``tokens`` ``[B, T]`` under ``logits`` ``[B, T, V]`` (already aligned)."""
    return torch.log_softmax(logits.float(), dim=-1).gather(-1, tokens.unsqueeze(-1)).squeeze(-1)


def entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean entropy of the policy at sampled positions."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    per_token = -(log_probs.exp() * log_probs).sum(-1)
    return aggregate(per_token, mask, "token_mean")
