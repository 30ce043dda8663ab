"""Wrappers: turn limit, invalid-action allowance, budgets, statistics."""

from __future__ import annotations

import asyncio

import pytest

import palaestra
from palaestra.wrappers import EpisodeStatistics, InvalidActionLimit, TokenBudget, TurnLimit


def bare(env_id="GuessNumber-v0", **kwargs):
    return palaestra.make(env_id, max_turns=None, max_invalid=None, **kwargs)


def test_turn_limit_truncates_at_the_cap():
    env = TurnLimit(bare(level=10), 2)
    env.reset(seed=0)
    assert env.step("<guess>1</guess>")[3] is False
    observation, reward, terminated, truncated, info = env.step("<guess>2</guess>")
    assert truncated and not terminated and info["truncation"] == "max_turns" and info["success"] is False


def test_turn_limit_does_not_truncate_a_finished_task():
    env = TurnLimit(bare("Arithmetic-v0"), 1)
    env.reset(seed=0)
    _, _, terminated, truncated, _ = env.step(env.oracle_action())
    assert terminated and not truncated


def test_invalid_allowance_ends_the_episode_after_the_allowance():
    env = InvalidActionLimit(bare(), 2)
    env.reset(seed=0)
    for _ in range(2):
        _, reward, terminated, truncated, _ = env.step("no guess here")
        assert reward == -0.1 and not (terminated or truncated)
    observation, reward, terminated, truncated, info = env.step("still none")
    assert terminated and info["termination"] == "invalid_action_limit"
    assert "Too many invalid actions" in observation[-1]["content"] and reward == -0.1


def test_limits_reject_bad_values():
    with pytest.raises(ValueError):
        TurnLimit(bare(), 0)
    with pytest.raises(ValueError):
        InvalidActionLimit(bare(), -1)
    with pytest.raises(ValueError):
        TokenBudget(bare(), 0)


def test_token_budget_counts_actions_and_observations():
    env = TokenBudget(bare(level=10), budget=300)
    observation, _ = env.reset(seed=0)
    assert env.used == len(observation[0]["content"])
    truncated, turns = False, 0
    while not truncated:
        *_, truncated, info = env.step("<guess>1</guess>" + " " * 20)
        turns += 1
    assert info["truncation"] == "budget" and info["budget_used"] > 300 and turns < 10


def test_token_budget_with_a_tokenizer_like_counter():
    env = TokenBudget(bare(level=10), budget=10, count=lambda s: len(s.split()), include_observations=False)
    env.reset(seed=0)
    *_, truncated, info = env.step("<guess>1</guess> " + "word " * 11)
    assert truncated and info["budget_used"] == 12


def test_episode_statistics():
    env = EpisodeStatistics(palaestra.make("GuessNumber-v0"))
    env.reset(seed=2)
    env.step("junk")
    while True:
        *_, terminated, truncated, info = env.step(env.oracle_action())
        if terminated or truncated:
            break
    stats = info["episode"]
    assert stats["invalid_actions"] == 1 and stats["success"] is True
    assert stats["return"] == pytest.approx(0.9)
    assert stats["reward_parts"]["outcome"] == 0.5 and stats["turns"] >= 2


def test_wrappers_forward_attributes_and_async():
    env = palaestra.make("GuessNumber-v0")
    assert env.oracle_action().startswith("<guess>")
    with pytest.raises(AttributeError, match="private"):
        env._secret  # noqa: B018

    async def go():
        await env.areset(seed=0)
        return await env.astep("junk")

    assert asyncio.run(go())[4]["invalid_action"]


def test_snapshots_carry_wrapper_counters():
    env = palaestra.make("Sokoban-v0")
    env.reset(seed=3)
    env.step("junk")
    snapshot = env.get_state()
    first = [env.step(env.oracle_action()) for _ in range(2)]
    env.set_state(snapshot)
    assert env._turns == 1 and env.env._invalid == 1
    second = [env.step(env.oracle_action()) for _ in range(2)]
    assert [o[:4] for o in first] == [o[:4] for o in second]
    with pytest.raises(ValueError, match="snapshot"):
        env.set_state({"env": None})


def test_envs_without_state_attrs_cannot_snapshot():
    env = palaestra.make("Arithmetic-v0")
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="state_attrs"):
        env.get_state()
