"""The Env base class: the contract applied around every env."""

from __future__ import annotations

import asyncio

import pytest

import palaestra
from palaestra.core import InvalidAction, as_message
from palaestra.errors import ResetNeeded
from palaestra.spaces import ChatAction, Conversation


def test_step_before_reset_and_after_the_end_raise():
    env = palaestra.make("Arithmetic-v0")
    with pytest.raises(ResetNeeded, match="before reset"):
        env.step("<answer>1</answer>")
    env.reset(seed=0)
    env.step("<answer>1</answer>")
    with pytest.raises(ResetNeeded, match="after the episode ended"):
        env.unwrapped.step("<answer>1</answer>")


def test_terminated_and_truncated_together_is_a_bug(registered):
    env_id = registered("BothFlags-v0", "tests_support.envs:BrokenBothFlagsEnv")
    env = palaestra.make(env_id)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="terminated=True and truncated=True"):
        env.step("x")


def test_infrastructure_failure_is_masked_not_zero(registered):
    env_id = registered("Infra-v0", "tests_support.envs:InfraFailureEnv")
    env = palaestra.make(env_id)
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step("alpha")
    assert info["status"] == "error" and info["mask"] is True
    assert truncated and not terminated and reward == 0.0
    assert info["verdict"].mask and "unreachable" in info["error"]


def test_reward_is_the_sum_of_its_parts():
    env = palaestra.make("GuessNumber-v0")
    env.reset(seed=5)
    total = 0.0
    while True:
        _, reward, terminated, truncated, info = env.step(env.oracle_action())
        assert reward == pytest.approx(sum(info["reward_parts"].values()))
        total += reward
        if terminated or truncated:
            break
    assert total == pytest.approx(1.0)


def test_returned_data_is_never_shared():
    env = palaestra.make("GuessNumber-v0")
    first, info = env.reset(seed=1)
    first[0]["content"] = "tampered"
    second, _ = env.reset(seed=1)
    assert second[0]["content"] != "tampered"


@pytest.mark.parametrize(
    "action, fragment",
    [
        (3, "got int"),
        ({"role": "user", "content": "x"}, "role 'assistant'"),
        ({"content": 3}, "must be a string"),
        ({"content": "", "tool_calls": [1]}, "list of objects"),
        ("x" * 300_000, "limit is 200,000"),
    ],
)
def test_as_message_rejects_bad_actions(action, fragment):
    with pytest.raises(InvalidAction, match=fragment):
        as_message(action)


def test_as_message_accepts_strings_and_assistant_messages():
    assert as_message("hi") == {"role": "assistant", "content": "hi"}
    calls = [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    assert as_message({"content": None, "tool_calls": calls})["tool_calls"] == calls


def test_invalid_actions_are_answered_with_a_message_and_penalty():
    env = palaestra.make("GuessNumber-v0")
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(12345)
    assert info["invalid_action"] and reward == -0.1 and not (terminated or truncated)
    assert "Invalid action" in observation[0]["content"] and "int" in observation[0]["content"]


def test_async_twins_match_sync():
    env = palaestra.make("Calculator-v0")

    async def play():
        observation, _ = await env.areset(seed=3)
        steps = []
        while True:
            out = await env.astep(env.oracle_action())
            steps.append(out[:4])
            if out[2] or out[3]:
                return observation, steps

    async_run = asyncio.run(play())
    observation, _ = env.reset(seed=3)
    steps = []
    while True:
        out = env.step(env.oracle_action())
        steps.append(out[:4])
        if out[2] or out[3]:
            break
    assert async_run == (observation, steps)


def test_spaces_contain_what_envs_produce_and_sample_deterministically():
    space, actions = Conversation(), ChatAction(seed=3)
    assert space.contains([{"role": "user", "content": "x"}])
    assert not space.contains([{"role": "assistant", "content": "x"}])
    assert not space.contains([{"role": "tool", "content": "x"}])
    assert space.contains([{"role": "tool", "content": "x", "tool_call_id": "c"}])
    samples = [actions.sample() for _ in range(20)]
    again = ChatAction(seed=3)
    assert samples == [again.sample() for _ in range(20)]
    assert all(actions.contains(s) for s in samples)


def test_render_modes():
    env = palaestra.make("GuessNumber-v0", render_mode="ansi")
    env.reset(seed=0)
    assert "Secret in [1, 64]" in env.render()
    assert palaestra.make("GuessNumber-v0").render() is None
