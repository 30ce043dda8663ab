"""Losses against hand-computed values and gradient properties."""

from __future__ import annotations

import math

import pytest
import torch

from palaestra.trainers.losses import (
    aggregate,
    clipped_surrogate,
    entropy,
    kl_estimate,
    token_logprobs,
    value_loss,
)


def _grad_of_surrogate(ratio: float, advantage: float, **kwargs) -> float:
    logp = torch.tensor([[float(torch.log(torch.tensor(ratio)))]], requires_grad=True)
    loss, _ = clipped_surrogate(
        logp, torch.zeros(1, 1), torch.tensor([[advantage]]), torch.ones(1, 1), **kwargs
    )
    loss.backward()
    return float(logp.grad)


@pytest.mark.parametrize("level", ["token", "sequence"])
def test_zero_gradient_beyond_the_clip_in_the_advantage_direction(level):
    # Positive advantage, ratio above 1 + high: clipped, no gradient.
    assert _grad_of_surrogate(1.5, 1.0, clip_low=0.2, clip_high=0.28, level=level) == 0.0
    # Negative advantage, ratio below 1 - low: clipped, no gradient.
    assert _grad_of_surrogate(0.5, -1.0, clip_low=0.2, clip_high=0.28, level=level) == 0.0
    # Inside the range the gradient is -ratio * A.
    assert _grad_of_surrogate(1.1, 1.0, level=level) == pytest.approx(-1.1)
    # Against the advantage direction the unclipped branch keeps the gradient.
    assert _grad_of_surrogate(0.5, 1.0, level=level) == pytest.approx(-0.5)


def test_clip_higher_is_asymmetric():
    assert _grad_of_surrogate(1.25, 1.0, clip_low=0.2, clip_high=0.28) == pytest.approx(-1.25)
    assert _grad_of_surrogate(1.25, 1.0, clip_low=0.2, clip_high=0.2) == 0.0


def test_dual_clip_bounds_negative_advantages():
    # ratio 5, A = -1: PPO's objective is -5; dual clip c = 3 bounds it at -3 with no gradient.
    logp = torch.tensor([[float(torch.log(torch.tensor(5.0)))]], requires_grad=True)
    loss, stats = clipped_surrogate(
        logp, torch.zeros(1, 1), torch.tensor([[-1.0]]), torch.ones(1, 1), dual_clip=3.0
    )
    loss.backward()
    assert (
        loss.item() == pytest.approx(3.0)
        and float(logp.grad) == 0.0
        and stats.dual_clip_fraction == 1.0
    )
    with pytest.raises(ValueError):
        clipped_surrogate(
            logp, torch.zeros(1, 1), torch.tensor([[-1.0]]), torch.ones(1, 1), dual_clip=0.5
        )


def test_gspo_ratio_is_the_sequence_geometric_mean():
    logp = torch.log(torch.tensor([[2.0, 0.5, 1.0]]))
    _, stats = clipped_surrogate(
        logp,
        torch.zeros(1, 3),
        torch.ones(1, 3),
        torch.tensor([[1, 1, 0]]),
        level="sequence",
        clip_high=10.0,
    )
    assert stats.ratio_mean == pytest.approx(1.0)  # exp(mean(log 2, log 0.5)) = 1


def test_k3_is_non_negative_and_zero_only_at_equality():
    logp = torch.linspace(-3, 0, 50)
    for ref in (torch.linspace(-3, 0, 50), torch.linspace(-2, -0.5, 50), torch.zeros(50)):
        assert torch.all(kl_estimate(logp, ref, "k3") >= 0)
    assert torch.all(kl_estimate(logp, logp, "k3") == 0)
    assert torch.all(kl_estimate(logp, logp, "k1") == 0) and torch.all(
        kl_estimate(logp, logp, "k2") == 0
    )
    assert float(kl_estimate(torch.tensor(0.0), torch.tensor(-1.0), "k2")) == pytest.approx(0.5)


def test_aggregations_by_hand():
    loss = torch.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    assert float(aggregate(loss, mask, "token_mean")) == pytest.approx(10 / 4)
    assert float(aggregate(loss, mask, "seq_mean_token_mean")) == pytest.approx((2 + 4) / 2)
    assert float(aggregate(loss, mask, "seq_sum_const", constant=4)) == pytest.approx(
        (6 / 4 + 4 / 4) / 2
    )
    with pytest.raises(ValueError):
        aggregate(loss, mask, "seq_sum_const")


def test_value_loss_clipping():
    values, old, returns = torch.tensor([[2.0]]), torch.tensor([[1.0]]), torch.tensor([[3.0]])
    # unclipped (2-3)^2 = 1; clipped value 1.2 -> (1.2-3)^2 = 3.24; max -> 3.24 / 2
    assert float(value_loss(values, old, returns, torch.ones(1, 1), clip=0.2)) == pytest.approx(
        1.62
    )
    assert float(value_loss(values, old, returns, torch.ones(1, 1), clip=None)) == pytest.approx(
        0.5
    )


def test_masked_positions_get_exactly_zero_gradient():
    torch.manual_seed(0)
    logits = torch.randn(2, 6, 11, requires_grad=True)
    tokens = torch.randint(0, 11, (2, 6))
    mask = torch.tensor([[0, 0, 1, 1, 0, 1], [0, 1, 1, 0, 0, 0]])
    logp = token_logprobs(logits, tokens)
    loss, _ = clipped_surrogate(logp, logp.detach() + 0.05, torch.randn(2, 6), mask)
    (loss + 0.01 * entropy(logits, mask)).backward()
    masked = logits.grad[mask == 0]
    assert torch.count_nonzero(masked) == 0
    assert torch.count_nonzero(logits.grad[mask == 1]) > 0


def _extreme_logprobs():
    """Log-probs 1e4 apart on sampled tokens and -inf on masked ones (padding may carry it)."""
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    logp = torch.tensor([[-1e4, -0.1, -3.0, -math.inf], [-2.0, -1e4, -math.inf, -math.inf]])
    old = torch.tensor([[-0.5, -1e4, -2.0, -math.inf], [1e4, -1.0, -math.inf, 0.0]])
    return logp.requires_grad_(True), old, mask


@pytest.mark.parametrize("level", ["token", "sequence"])
@pytest.mark.parametrize("aggregation", ["token_mean", "seq_mean_token_mean", "seq_sum_const"])
def test_extreme_log_probs_give_finite_losses_and_gradients(level, aggregation):
    logp, old, mask = _extreme_logprobs()
    advantages = torch.tensor([[1.0, -1.0, 0.5, 2.0], [-2.0, 1.0, 1.0, 1.0]])
    surrogate, stats = clipped_surrogate(
        logp, old, advantages, mask, 0.2, 0.28, dual_clip=3.0, level=level,
        aggregation=aggregation, constant=4.0,
    )  # fmt: skip
    kl = aggregate(kl_estimate(logp, old, "k3"), mask, aggregation, 4.0)
    loss = surrogate + 0.1 * kl
    loss.backward()
    assert torch.isfinite(surrogate) and torch.isfinite(kl)
    assert math.isfinite(stats.ratio_max) and math.isfinite(stats.ratio_mean)
    assert torch.isfinite(logp.grad).all()
    assert torch.all(logp.grad[mask == 0] == 0)


def test_the_log_ratio_and_k3_are_clamped_as_verl_does():
    logp = torch.tensor([[-1e4, 0.0, -5.0]], requires_grad=True)
    old = torch.tensor([[0.0, -1e4, -5.0]])
    mask = torch.ones(1, 3)
    advantages = torch.tensor([[-1.0, -1.0, -1.0]])
    loss, stats = clipped_surrogate(logp, old, advantages, mask, 0.2, 0.2)
    # Negative advantages keep the unclipped branch for large ratios: exp(20) bounds it.
    assert stats.ratio_max == pytest.approx(math.exp(20.0), rel=1e-6)
    assert loss.item() == pytest.approx((math.exp(20.0) + 0.8 + 1.0) / 3, rel=1e-6)
    k3 = kl_estimate(logp, old, "k3")
    # log_r = +1e4 -> clamped to 20, k3 = e^20 - 21 -> clamped to 10; log_r = -1e4 -> -20:
    # k3 = e^-20 + 19 -> 10; equal log-probs -> 0.
    assert k3.tolist()[0] == pytest.approx([10.0, 10.0, 0.0])
    small = kl_estimate(torch.tensor([0.0]), torch.tensor([-0.5]), "k3")
    assert float(small) == pytest.approx(math.exp(-0.5) - 1 + 0.5)  # untouched inside the bounds
