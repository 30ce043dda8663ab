"""Advantage estimators against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra.trainers.advantages import (
    broadcast_to_tokens,
    discounted_returns,
    gae_tokens,
    gae_turns,
    gigpo_advantages,
    group_advantages,
    rewards_on_last_tokens,
    turn_advantages,
    whiten,
)


@pytest.mark.parametrize("method", ["grpo", "drgrpo", "rloo"])
def test_constant_and_singleton_groups_give_zero(method):
    out = group_advantages([1.0, 1.0, 1.0, 0.3], ["a", "a", "a", "b"], method)
    assert np.all(out == 0.0)


def test_grpo_drgrpo_rloo_by_hand():
    rewards, groups = [1.0, 0.0, 0.0, 1.0], ["g"] * 4
    # mean 0.5, population std 0.5
    assert group_advantages(rewards, groups, "grpo", eps=0.0) == pytest.approx([1, -1, -1, 1])
    assert group_advantages(rewards, groups, "drgrpo") == pytest.approx([0.5, -0.5, -0.5, 0.5])
    # leave-one-out: 1 - mean(0, 0, 1) = 2/3; 0 - mean(1, 0, 1) = -2/3
    assert group_advantages(rewards, groups, "rloo") == pytest.approx(
        [2 / 3, -2 / 3, -2 / 3, 2 / 3]
    )


def test_group_advantages_rejects_bad_input():
    with pytest.raises(ValueError, match="group ids"):
        group_advantages([1.0], ["a", "b"])
    with pytest.raises(ValueError, match="method"):
        group_advantages([1.0], ["a"], "ppo")


def test_discounted_returns_by_hand():
    assert discounted_returns([0, 0, 1], 0.5) == pytest.approx([0.25, 0.5, 1.0])
    assert discounted_returns([1, 1], 1.0) == pytest.approx([2.0, 1.0])
    with pytest.raises(ValueError):
        discounted_returns([1], 1.5)


def test_batch_normalised_returns_have_mean_zero_and_std_one():
    out = turn_advantages([[0, 0, 1], [1, 0], [0.5]], gamma=0.5, normalize="batch")
    flat = np.concatenate(out)
    assert [len(x) for x in out] == [3, 2, 1]
    assert flat.mean() == pytest.approx(0.0, abs=1e-12)
    assert flat.std() == pytest.approx(1.0, abs=1e-5)


def test_group_and_group_turn_normalisation():
    rewards = [[1.0, 1.0], [0.0, 0.0], [5.0]]
    groups = ["a", "a", "b"]
    by_group = turn_advantages(rewards, 1.0, "group", groups)
    # group a returns: [2, 1, 0, 0] -> mean 0.75
    assert by_group[0][0] > 0 > by_group[1][0] and by_group[2][0] == 0.0
    by_turn = turn_advantages(rewards, 1.0, "group_turn", groups)
    # turn 0 of group a: returns 2 and 0 -> +1, -1; turn 1: 1 and 0 -> +1, -1
    assert by_turn[0] == pytest.approx([1.0, 1.0], abs=1e-5) and by_turn[1] == pytest.approx(
        [-1.0, -1.0], abs=1e-5
    )
    with pytest.raises(ValueError, match="group id"):
        turn_advantages(rewards, 1.0, "group")


def test_gigpo_step_advantages_for_shared_states_and_zero_for_singletons():
    # One group of two episodes. Both start in state "s0"; episode 0 then reaches "s1"
    # (unique), episode 1 reaches "s2" (unique). Returns with gamma = 1: ep0 [1, 1], ep1 [0, 0].
    turn_rewards = [[0.0, 1.0], [0.0, 0.0]]
    keys = [["s0", "s1"], ["s0", "s2"]]
    out = gigpo_advantages(turn_rewards, keys, ["g", "g"], gamma=1.0, step_weight=1.0, eps=0.0)
    episode = group_advantages([1.0, 0.0], ["g", "g"], "grpo", eps=0.0)  # [+1, -1]
    # Step group (g, s0): returns 1 and 0 -> z-scores +1 and -1, added to the episode part.
    assert out[0][0] == pytest.approx(episode[0] + 1.0)
    assert out[1][0] == pytest.approx(episode[1] - 1.0)
    # Singleton step groups (s1, s2) add nothing.
    assert out[0][1] == pytest.approx(episode[0]) and out[1][1] == pytest.approx(episode[1])


def test_gae_with_unit_gamma_lambda_and_zero_values_is_monte_carlo():
    rewards = np.array([0.0, 0.0, 0.5, 0.0, 1.0])
    sampled = np.ones(5)
    advantages, returns = gae_tokens(rewards, np.zeros(5), sampled, 1.0, 1.0)
    assert advantages == pytest.approx(discounted_returns(rewards, 1.0))
    assert returns == pytest.approx(advantages)


def test_inserting_env_tokens_leaves_sampled_advantages_unchanged():
    rng = np.random.default_rng(0)
    rewards, values = rng.normal(size=6), rng.normal(size=6)
    base, _ = gae_tokens(rewards, values, np.ones(6), 0.9, 0.8)
    # Insert 3 env tokens after position 2 and 2 after position 4, with arbitrary values.
    positions = [0, 1, 2, 6, 7, 10]
    length = 11
    wide_rewards, wide_values, sampled = np.zeros(length), rng.normal(size=length), np.zeros(length)
    wide_rewards[positions], wide_values[positions], sampled[positions] = rewards, values, 1
    wide, _ = gae_tokens(wide_rewards, wide_values, sampled, 0.9, 0.8)
    assert wide[positions] == pytest.approx(base)
    assert np.all(wide[sampled == 0] == 0.0)


def test_turn_level_gae_and_token_helpers():
    advantages, _ = gae_turns([0.0, 1.0], [0.0, 0.0], 1.0, 1.0)
    assert advantages == pytest.approx([1.0, 1.0])
    spans = [(2, 4), (6, 9)]
    assert broadcast_to_tokens([0.5, -1.0], spans, 10).tolist() == [
        0,
        0,
        0.5,
        0.5,
        0,
        0,
        -1,
        -1,
        -1,
        0,
    ]
    assert rewards_on_last_tokens([0.5, 1.0], spans, 10).tolist() == [
        0,
        0,
        0,
        0.5,
        0,
        0,
        0,
        0,
        1.0,
        0,
    ]
    with pytest.raises(ValueError, match="outside"):
        broadcast_to_tokens([1.0], [(5, 12)], 10)


def test_grpo_std_conventions_by_hand():
    # Group [0, 1, 1, 2]: mean 1, squared deviations sum to 2; population std sqrt(2/4),
    # unbiased (Bessel, as TRL and verl) sqrt(2/3).
    rewards, groups = [0.0, 1.0, 1.0, 2.0], ["g"] * 4
    population = group_advantages(rewards, groups, "grpo", eps=0.0)
    unbiased = group_advantages(rewards, groups, "grpo", eps=0.0, std="unbiased")
    assert population == pytest.approx([-(2**0.5), 0.0, 0.0, 2**0.5])
    assert unbiased == pytest.approx([-(1.5**0.5), 0.0, 0.0, 1.5**0.5])
    assert group_advantages(rewards, groups, "grpo", eps=0.0, std="population") == pytest.approx(
        population
    )  # population is the default
    # GiGPO's episode part and the turn normalisations follow the same convention.
    gigpo = gigpo_advantages(
        [[r] for r in rewards], [[i] for i in range(4)], groups, std="unbiased"
    )
    assert np.concatenate(gigpo) == pytest.approx(unbiased, abs=1e-5)
    turns = turn_advantages([[r] for r in rewards], normalize="batch", std="unbiased")
    assert np.concatenate(turns) == pytest.approx(unbiased, abs=1e-5)
    with pytest.raises(ValueError, match="std must be"):
        group_advantages(rewards, groups, "grpo", std="sample")


def test_gae_whitening_std_conventions_by_hand():
    advantages = np.array([[3.0, 9.0, 1.0], [5.0, 7.0, 0.0]])
    sampled = np.array([[1, 0, 1], [1, 1, 0]])
    # Sampled values 3, 1, 5, 7: mean 4, squared deviations 1 + 9 + 1 + 9 = 20.
    for std, divisor in (("population", 20 / 4), ("unbiased", 20 / 3)):
        out = whiten(advantages, sampled, std=std, eps=0.0)
        scale = divisor**0.5
        expected = [[-1 / scale, 0.0, -3 / scale], [1 / scale, 3 / scale, 0.0]]
        assert out == pytest.approx(np.array(expected))
    one = whiten(np.array([2.0, 4.0]), np.array([0, 1]), std="unbiased")
    assert one.tolist() == [0.0, 4.0]  # fewer than two sampled tokens: left as they are
