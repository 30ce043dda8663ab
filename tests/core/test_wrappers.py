"""Wrappers: turn limit, invalid-action allowance, budgets, statistics."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import palaestra
from palaestra.errors import ResetNeeded
from palaestra.wrappers import EpisodeStatistics, InvalidActionLimit, TokenBudget, TurnLimit


def bare(env_id="GuessNumber-v0", **kwargs):
    return palaestra.make(env_id, max_turns=None, max_invalid=None, **kwargs)


def test_turn_limit_truncates_at_the_cap():
    env = TurnLimit(bare(level=10), 2)
    env.reset(seed=0)
    assert env.step("<guess>1</guess>")[3] is False
    observation, reward, terminated, truncated, info = env.step("<guess>2</guess>")
    assert (
        truncated
        and not terminated
        and info["truncation"] == "max_turns"
        and info["success"] is False
    )


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
    env = TokenBudget(
        bare(level=10), budget=10, count=lambda s: len(s.split()), include_observations=False
    )
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
    env = TurnLimit(InvalidActionLimit(bare(), 3), 20)
    assert env.oracle_action().startswith("<guess>")
    with pytest.raises(AttributeError, match="private"):
        env._secret  # noqa: B018

    async def go():
        await env.areset(seed=0)
        return await env.astep("junk")

    assert asyncio.run(go())[4]["invalid_action"]


def test_snapshots_carry_wrapper_counters():
    env = TurnLimit(InvalidActionLimit(bare("Sokoban-v0"), 3), 100)
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


def test_snapshots_carry_the_limit_counters_of_made_envs():
    env = palaestra.make("Sokoban-v0", max_invalid=1)
    env.reset(seed=3)
    env.step("junk")
    snapshot = env.get_state()
    assert env.step("junk")[2]  # the second invalid action exceeds the allowance
    env.set_state(snapshot)
    assert env.turn == 1 and env._invalid_count == 1
    observation, _, terminated, _, info = env.step("junk")
    assert terminated and info["termination"] == "invalid_action_limit"
    assert observation[-1]["content"] == "Too many invalid actions (2); the episode is over."


def _play(env, actions):
    out = []
    for action in actions:
        try:
            observation, reward, terminated, truncated, info = env.step(action)
        except ResetNeeded as error:
            out.append(("raised", str(error)))
            break
        info = {k: v for k, v in info.items() if k != "verdict"} | {
            "verdict": repr(info.get("verdict"))
        }
        out.append((observation, reward, terminated, truncated, info))
    return out


@pytest.mark.parametrize(
    "env_id", ["GuessNumber-v0", "TowerOfHanoi-v0", "Sokoban-v0", "Minesweeper-v1", "TicTacToe-v0"]
)
@pytest.mark.parametrize("max_turns, max_invalid", [(4, 1), (6, 0), (3, None), (None, 2), (40, 3)])
def test_make_limits_follow_the_wrappers_rules(env_id, max_turns, max_invalid):
    made = palaestra.make(env_id, max_turns=max_turns, max_invalid=max_invalid)
    wrapped = bare(env_id)
    if max_invalid is not None:
        wrapped = InvalidActionLimit(wrapped, max_invalid)
    if max_turns is not None:
        wrapped = TurnLimit(wrapped, max_turns)
    rng = np.random.default_rng(7)
    for seed in range(6):
        made_opening, wrapped_opening = made.reset(seed=seed), wrapped.reset(seed=seed)
        assert made_opening == wrapped_opening
        base = made.unwrapped
        # Junk, moves and oracle moves, past the limits (stepping on after a limit's end,
        # which neither form forbids).
        actions = [
            ["junk", None, {"role": "user", "content": "x"}][int(rng.integers(3))]
            if rng.random() < 0.4
            else (base.random_action(rng) if hasattr(base, "random_action") else "<guess>3</guess>")
            for _ in range(12)
        ]
        assert _play(made, actions) == _play(wrapped, actions)


def test_make_sets_the_limits_on_envs_with_their_own_snapshots():
    spec = palaestra.spec("TicTacToe-v0")
    env = palaestra.make("TicTacToe-v0", max_invalid=1)
    assert env is env.unwrapped and env.episode_limits == (spec.max_turns, 1)
    env.reset(seed=0)
    env.step("junk")
    snapshot = env.get_state()
    assert env.step("junk")[2]  # the second invalid action exceeds the allowance
    env.set_state(snapshot)
    observation, _, terminated, _, info = env.step("junk")
    assert terminated and info["termination"] == "invalid_action_limit"
    assert observation[-1]["content"] == "Too many invalid actions (2); the episode is over."


def test_set_limits_rejects_bad_values():
    env = bare()
    with pytest.raises(ValueError, match="max_turns"):
        env.set_limits(max_turns=0)
    with pytest.raises(ValueError, match="allowance"):
        env.set_limits(max_invalid=-1)


def test_envs_without_state_attrs_cannot_snapshot():
    env = palaestra.make("Arithmetic-v0")
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="state_attrs"):
        env.get_state()
