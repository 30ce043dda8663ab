"""Advantage estimators: small pure functions over turn-level arrays.

Every estimator takes episode- or turn-level rewards and returns advantages of the same
shape; `broadcast_to_tokens` then gives each sampled token the advantage of its turn.
Token-level GAE (`gae_tokens`) works on token arrays directly and walks only the tokens the
policy sampled, so env and tool tokens between turns change nothing.

Estimators:
    * `group_advantages`: episode-level GRPO (group mean and std), Dr.GRPO (no std) and
      RLOO (leave-one-out baseline).
    * `discounted_returns` and `turn_advantages`: per-turn discounted returns normalised over
      the batch (GEM's ReBN), the group, or the group and turn index.
    * `gigpo_advantages`: GiGPO-style episode advantage plus a step advantage among turns that
      share a state key within a group.
    * `gae_tokens` and `gae_turns`: GAE with a value head, token-level over sampled tokens, or
      turn-level; `whiten` normalises its advantages over the batch (PPO's whitening).

Conventions: a group is a hashable id (episodes of one prompt share it); a group of one,
or a group whose values are all equal, gives zero advantage; ``eps`` guards divisions.

Every z-score here (GRPO's group std, the turn and step normalisations, GAE whitening) takes
``std="population"`` (divide the squared deviations by n) or ``std="unbiased"`` (by n - 1,
Bessel's correction: what TRL's GRPOTrainer and verl use, as ``torch.std`` does). The default
is ``population``, NumPy's ``std`` and what every run so far used, so published numbers
reproduce. For a group of n samples the two differ by the constant factor
``sqrt(n / (n - 1))`` (1.07 at n = 8, 1.41 at n = 2), which scales a batch of equal-sized
groups uniformly; Adam's per-parameter normalisation absorbs most of such a scale, so the
choice matters mainly when groups differ in size (masked episodes dropped) or are tiny.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

EPS = 1e-6

GroupMethod = Literal["grpo", "drgrpo", "rloo"]
TurnNorm = Literal["batch", "group", "group_turn", "none"]
Std = Literal["population", "unbiased"]
STDS = ("population", "unbiased")


def std_of(values: np.ndarray, std: Std = "population") -> float:
    """The standard deviation of ``values`` over n (``population``) or n - 1 (``unbiased``).

    Args:
        values: At least two numbers for ``unbiased``, at least one for ``population``.
        std: The convention; see the module docstring.
    """
    _check_std(std)
    return float(np.std(values, ddof=1 if std == "unbiased" else 0))


def _check_std(std: str) -> None:
    if std not in STDS:
        raise ValueError(f"std must be 'population' or 'unbiased', got {std!r}")


def _groups(ids: Sequence[Hashable]) -> dict[Hashable, list[int]]:
    members: dict[Hashable, list[int]] = defaultdict(list)
    for index, group in enumerate(ids):
        members[group].append(index)
    return members


def group_advantages(
    rewards: Sequence[float],
    groups: Sequence[Hashable],
    method: GroupMethod = "grpo",
    eps: float = EPS,
    std: Std = "population",
) -> np.ndarray:
    """Episode advantages relative to the other samples of the same prompt.

    Args:
        rewards: One return per episode.
        groups: One group id per episode (samples of one prompt share it).
        method: ``"grpo"``: (r - mean) / (std + eps); ``"drgrpo"``: r - mean (Dr.GRPO, no
            std); ``"rloo"``: r - mean of the *other* samples.
        eps: Added to the std.
        std: ``"population"`` or ``"unbiased"`` (``grpo`` only); see the module docstring.

    Returns:
        One advantage per episode; zero for groups of one and for constant groups.
    """
    if len(rewards) != len(groups):
        raise ValueError(f"{len(rewards)} rewards but {len(groups)} group ids")
    if method not in ("grpo", "drgrpo", "rloo"):
        raise ValueError(f"method must be 'grpo', 'drgrpo' or 'rloo', got {method!r}")
    _check_std(std)
    values = np.asarray(rewards, dtype=np.float64)
    out = np.zeros_like(values)
    for members in _groups(groups).values():
        if len(members) < 2:
            continue
        group = values[members]
        if method == "rloo":
            out[members] = group - (group.sum() - group) / (len(group) - 1)
        elif method == "drgrpo":
            out[members] = group - group.mean()
        else:
            out[members] = (group - group.mean()) / (std_of(group, std) + eps)
    return out


def discounted_returns(rewards: Sequence[float], gamma: float) -> np.ndarray:
    """``G_t = r_t + gamma * G_{t+1}`` for one episode's turn rewards."""
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    out = np.zeros(len(rewards), dtype=np.float64)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def _standardise(values: np.ndarray, eps: float, std: Std) -> np.ndarray:
    if values.size < 2:
        return np.zeros_like(values)
    return (values - values.mean()) / (std_of(values, std) + eps)


def turn_advantages(
    turn_rewards: Sequence[Sequence[float]],
    gamma: float = 1.0,
    normalize: TurnNorm = "batch",
    groups: Sequence[Hashable] | None = None,
    eps: float = EPS,
    std: Std = "population",
) -> list[np.ndarray]:
    """Per-turn discounted returns, normalised.

    Args:
        turn_rewards: Each episode's turn rewards.
        gamma: Discount between turns.
        normalize: ``"batch"``: over every turn of every episode (ReBN); ``"group"``: over the
            turns of episodes in the same group; ``"group_turn"``: over turns with the same
            index in the same group; ``"none"``: raw returns.
        groups: Group ids (needed for the group modes).
        eps: Added to the std.
        std: ``"population"`` or ``"unbiased"``; see the module docstring.

    Returns:
        One array of turn advantages per episode.
    """
    _check_std(std)
    returns = [discounted_returns(r, gamma) for r in turn_rewards]
    if normalize == "none":
        return returns
    if normalize == "batch":
        flat = _standardise(np.concatenate(returns) if returns else np.zeros(0), eps, std)
        return list(np.split(flat, np.cumsum([len(r) for r in returns])[:-1]))
    if groups is None or len(groups) != len(returns):
        raise ValueError(f"normalize={normalize!r} needs one group id per episode")
    if normalize not in ("group", "group_turn"):
        raise ValueError(f"normalize must be batch, group, group_turn or none, got {normalize!r}")
    out = [np.zeros_like(r) for r in returns]
    buckets: dict[Hashable, list[tuple[int, int]]] = defaultdict(list)
    for episode, (group, episode_returns) in enumerate(zip(groups, returns, strict=True)):
        for t in range(len(episode_returns)):
            key = (group, t) if normalize == "group_turn" else group
            buckets[key].append((episode, t))
    for members in buckets.values():
        normalised = _standardise(np.array([returns[e][t] for e, t in members]), eps, std)
        for (episode, t), value in zip(members, normalised, strict=True):
            out[episode][t] = value
    return out


def gigpo_advantages(
    turn_rewards: Sequence[Sequence[float]],
    state_keys: Sequence[Sequence[Hashable]],
    groups: Sequence[Hashable],
    gamma: float = 0.95,
    step_weight: float = 1.0,
    eps: float = EPS,
    std: Std = "population",
) -> list[np.ndarray]:
    """GiGPO: episode advantage plus a step advantage among turns sharing a state.

    The episode part is the GRPO z-score of each episode's total reward within its group,
    given to every turn. The step part groups the turns of one group by the state key they
    acted from (anchor states) and z-scores their discounted returns within each step
    group; a state visited once in the group gives 0. ``std`` is the convention of both
    z-scores (see the module docstring).

    Returns:
        One array of turn advantages per episode.
    """
    if not len(turn_rewards) == len(state_keys) == len(groups):
        raise ValueError("turn_rewards, state_keys and groups need one entry per episode")
    totals = [float(np.sum(r)) for r in turn_rewards]
    episode_part = group_advantages(totals, groups, "grpo", eps, std)
    returns = [discounted_returns(r, gamma) for r in turn_rewards]
    out = [np.full(len(r), a, dtype=np.float64) for r, a in zip(returns, episode_part, strict=True)]
    steps: dict[tuple[Hashable, Hashable], list[tuple[int, int]]] = defaultdict(list)
    for episode, (group, keys) in enumerate(zip(groups, state_keys, strict=True)):
        if len(keys) != len(returns[episode]):
            raise ValueError(
                f"episode {episode} has {len(keys)} state keys for {len(returns[episode])} turns"
            )
        for t, key in enumerate(keys):
            steps[group, key].append((episode, t))
    for members in steps.values():
        values = np.array([returns[e][t] for e, t in members])
        if len(members) < 2 or np.allclose(values, values[0]):
            continue
        for (episode, t), value in zip(members, _standardise(values, eps, std), strict=True):
            out[episode][t] += step_weight * value
    return out


def gae_tokens(
    rewards: np.ndarray,
    values: np.ndarray,
    sampled: np.ndarray,
    gamma: float = 1.0,
    lam: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Token-level GAE over the tokens the policy sampled.

    Walks backwards over positions where ``sampled`` is 1; env and tool tokens are skipped
    entirely, so inserting them between turns leaves every advantage unchanged. The value
    after the last sampled token is 0 (the episode ends).

    Args:
        rewards: Per-token rewards (turn rewards sit on each turn's last sampled token).
        values: The critic's value at each token.
        sampled: 1 where the policy sampled the token, else 0.
        gamma: The discount.
        lam: The GAE lambda.

    Returns:
        ``(advantages, returns)``, zero at unsampled positions.
    """
    rewards, values, sampled = (np.asarray(x, dtype=np.float64) for x in (rewards, values, sampled))
    if not rewards.shape == values.shape == sampled.shape:
        raise ValueError("rewards, values and sampled must have the same shape")
    advantages = np.zeros_like(rewards)
    next_value, running = 0.0, 0.0
    for t in np.flatnonzero(sampled)[::-1]:
        delta = rewards[t] + gamma * next_value - values[t]
        running = delta + gamma * lam * running
        advantages[t] = running
        next_value = values[t]
    returns = np.where(sampled > 0, advantages + values, 0.0)
    return advantages, returns


def whiten(
    advantages: np.ndarray, sampled: np.ndarray, std: Std = "population", eps: float = EPS
) -> np.ndarray:
    """PPO's whitening: advantages standardised over every sampled token of the batch.

    Args:
        advantages: Per-token advantages, any shape.
        sampled: 1 where the policy sampled the token (the only positions that count).
        std: ``"population"`` or ``"unbiased"``; see the module docstring.
        eps: Added to the std.

    Returns:
        The whitened advantages, 0 at unsampled positions; unchanged (but zeroed off the
        sampled positions) when fewer than two tokens were sampled.
    """
    _check_std(std)
    chosen = np.asarray(sampled) > 0
    advantages = np.asarray(advantages, dtype=np.float64)
    if chosen.sum() < 2:
        return np.where(chosen, advantages, 0.0)
    values = advantages[chosen]
    return np.where(chosen, (advantages - values.mean()) / (std_of(values, std) + eps), 0.0)


def gae_turns(
    turn_rewards: Sequence[float],
    turn_values: Sequence[float],
    gamma: float = 1.0,
    lam: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Turn-level GAE: one value per turn (e.g. the critic at the turn's first token)."""
    ones = np.ones(len(turn_rewards))
    return gae_tokens(
        np.asarray(turn_rewards, float), np.asarray(turn_values, float), ones, gamma, lam
    )


def broadcast_to_tokens(
    turn_values: Sequence[float], turn_spans: Sequence[tuple[int, int]], length: int
) -> np.ndarray:
    """Gives every token of turn ``i`` (``spans[i] = (start, end)``, end exclusive) its value."""
    if len(turn_values) != len(turn_spans):
        raise ValueError(f"{len(turn_values)} turn values but {len(turn_spans)} turn spans")
    out = np.zeros(length, dtype=np.float64)
    for value, (start, end) in zip(turn_values, turn_spans, strict=True):
        if not 0 <= start <= end <= length:
            raise ValueError(f"turn span {(start, end)} is outside a sequence of {length} tokens")
        out[start:end] = value
    return out


def rewards_on_last_tokens(
    turn_rewards: Sequence[float], turn_spans: Sequence[tuple[int, int]], length: int
) -> np.ndarray:
    """Per-token rewards with each turn's reward on its last sampled token (for `gae_tokens`)."""
    out = np.zeros(length, dtype=np.float64)
    for reward, (start, end) in zip(turn_rewards, turn_spans, strict=True):
        if end > start:
            out[end - 1] += reward
    return out
