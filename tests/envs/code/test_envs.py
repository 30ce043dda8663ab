"""The synthesis envs: prompts, single-turn scoring modes, multi-turn feedback and rewards,
failures."""

from __future__ import annotations

import asyncio

import pytest

import palaestra
from palaestra.envs.code import problems
from palaestra.sandbox import RunResult

VALID_BRACKETS = "strings/valid_brackets"
WRONG_COUNTS = problems.get_problem(VALID_BRACKETS).wrong[0]


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}```"


def test_the_prompt_shows_the_task_the_interface_and_the_public_tests_only():
    env = palaestra.make("CodeSynthesis-v1")
    observation, info = env.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    prompt = observation[0]["content"]
    problem = problems.get_problem(VALID_BRACKETS)
    assert info["problem_id"] == VALID_BRACKETS and info["style"] == "function"
    assert problem.statement in prompt and "def is_balanced(s):" in prompt and "```python" in prompt
    for test in problem.public:
        assert test.input in prompt
    shown = {t.input for t in problem.public}
    hidden_only = [t for t in problem.hidden if t.input not in shown]
    assert hidden_only
    for test in hidden_only:
        assert test.input not in prompt


def test_stdio_prompts_show_example_input_and_output():
    env = palaestra.make("CodeSynthesis-v1")
    observation, _ = env.reset(seed=0, options={"problem_id": "strings/count_vowels"})
    assert "Example 1 input:\n```\nHello World\n" in observation[0]["content"]
    assert "standard input" in observation[0]["content"]


def test_single_turn_rewards_all_pass_or_the_fraction():
    strict = palaestra.make("CodeSynthesis-v1")
    strict.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    _, reward, terminated, _, info = strict.step(fenced(WRONG_COUNTS))
    assert reward == 0.0 and terminated and info["success"] is False
    assert info["tests"]["hidden"] == "7/9"
    partial = palaestra.make("CodeSynthesis-v1", reward="fraction")
    partial.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    _, reward, *_ = partial.step(fenced(WRONG_COUNTS))
    assert reward == pytest.approx(7 / 9)


def test_only_the_last_code_block_after_the_reasoning_counts():
    env = palaestra.make("CodeSynthesis-v1")
    env.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    reference = problems.get_problem(VALID_BRACKETS).reference
    thinking = f"<think>```python\n{reference}```</think>\n```python\n{WRONG_COUNTS}```"
    assert env.step(thinking)[1] == 0.0
    env.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    assert env.step(f"```python\n{WRONG_COUNTS}```\nBetter:\n```python\n{reference}```")[1] == 1.0
    env.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    _, reward, terminated, _, info = env.step("I cannot solve this.")
    assert reward == 0.0 and terminated and info["verdict"].status.value == "no_answer"


def test_filters_pick_matching_problems():
    env = palaestra.make("CodeSynthesis-v1", level=3, category=["search"], style="stdio")
    for seed in range(5):
        _, info = env.reset(seed=seed)
        assert info["level"] == 3 and info["category"] == "search" and info["style"] == "stdio"
    assert problems.select(categories="search", levels=1, styles="stdio") == []
    with pytest.raises(ValueError, match="no shipped problem matches"):
        palaestra.make("CodeSynthesis-v1", level=1, category="search", style="stdio")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"reward": "improvement"}, "reward must be one of"),
        ({"sandbox_backend": "vm"}, "sandbox_backend"),
        ({"time_scale": 0}, "time_scale"),
        ({"level": 7}, "unknown levels"),
        ({"format": "apps"}, "format= only applies"),
    ],
)
def test_bad_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        palaestra.make("CodeSynthesis-v1", **kwargs)


def test_unknown_reset_options_are_rejected():
    env = palaestra.make("CodeSynthesis-v1")
    with pytest.raises(ValueError, match="problem_id"):
        env.reset(seed=0, options={"level": 2})


def _feedback_env(**kwargs):
    env = palaestra.make("CodeFeedback-v1", **kwargs)
    env.reset(seed=0, options={"problem_id": VALID_BRACKETS})
    return env


def test_feedback_names_failing_public_tests_and_lets_the_model_revise():
    env = _feedback_env()
    first_try = "def is_balanced(s):\n    return False\n"
    observation, reward, terminated, truncated, info = env.step(fenced(first_try))
    message = observation[0]["content"]
    assert not (terminated or truncated) and reward == 0.0
    assert "1 of 2 public tests passed" in message and "is_balanced('()[]{}')" in message
    assert "expected: True" in message and "got: False" in message and "3 attempts left" in message
    problem = problems.get_problem(VALID_BRACKETS)
    shown = {t.input for t in problem.public}
    for test in problem.hidden:
        if test.input not in shown:
            assert test.input not in message
    observation, reward, terminated, _, info = env.step(env.oracle_action())
    assert terminated and reward == 1.0 and info["success"] and info["attempt"] == 2
    assert "submitted" in observation[0]["content"]


def test_passing_the_public_tests_ends_the_episode_and_the_hidden_ones_decide():
    env = _feedback_env()
    _, reward, terminated, _, info = env.step(fenced(WRONG_COUNTS))
    assert terminated and reward == 0.0 and info["success"] is False
    assert info["tests"] == {"public": "2/2", "hidden": "7/9", "status": "ok"}


def test_attempts_run_out():
    env = _feedback_env(max_attempts=2)
    broken = fenced("def is_balanced(s):\n    return None\n")
    assert env.step(broken)[2] is False
    _, reward, terminated, _, info = env.step(broken)
    assert terminated and reward == 0.0 and info["attempt"] == 2


def test_improvement_rewards_telescope_to_the_last_fraction():
    env = _feedback_env(reward="improvement")
    steps = [
        fenced("def is_balanced(s):\n    return False\n"),
        fenced("def is_balanced(s):\n    return len(s) % 2 == 0 and s[:1] != ')'\n"),
        env.oracle_action(),
    ]
    rewards = []
    for action in steps:
        _, reward, terminated, _, info = env.step(action)
        rewards.append(reward)
        if terminated:
            break
    assert sum(rewards) == pytest.approx(1.0)
    assert all("progress" in parts for parts in [info["reward_parts"]])
    assert rewards[0] == pytest.approx(4 / 9)


def test_fraction_mode_pays_the_last_fraction():
    env = _feedback_env(reward="fraction")
    assert env.step(fenced(WRONG_COUNTS))[1] == pytest.approx(7 / 9)


def test_a_turn_without_code_is_invalid_and_costs_no_attempt():
    env = _feedback_env(max_attempts=1)
    observation, reward, terminated, _, info = env.step("Let me think about it.")
    assert info["invalid_action"] and reward == pytest.approx(-0.1) and not terminated
    assert "```python" in observation[0]["content"]
    assert env.step(env.oracle_action())[1] == 1.0


class _Broken:
    name = "broken"

    def run(self, request):
        return RunResult.failure("the sandbox engine is gone")

    async def arun(self, request):
        return RunResult.failure("the sandbox engine is gone")


@pytest.mark.parametrize("env_id", ["CodeSynthesis-v1", "CodeFeedback-v1", "CodeMachine-v0"])
def test_a_sandbox_failure_masks_the_episode(env_id, monkeypatch):
    monkeypatch.setattr("palaestra.sandbox.get_backend", lambda name="local", **options: _Broken())
    env = palaestra.make(env_id)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(env.oracle_action())
    assert info["status"] == "error" and info["mask"] is True and truncated and not terminated
    assert reward == 0.0 and "engine is gone" in info["error"]
    env.reset(seed=0)
    _, _, _, truncated, info = asyncio.run(env.astep(env.oracle_action()))
    assert info["mask"] is True and truncated


def test_async_steps_score_like_sync_steps():
    sync_env, async_env = palaestra.make("CodeFeedback-v1"), palaestra.make("CodeFeedback-v1")
    sync_env.reset(seed=3)
    asyncio.run(async_env.areset(seed=3))
    action = fenced("def f(x):\n    return x\n")
    sync_out = sync_env.step(action)
    async_out = asyncio.run(async_env.astep(action))
    assert sync_out[0] == async_out[0] and sync_out[1:4] == async_out[1:4]


@pytest.mark.parametrize(
    "env_id", ["CodeStringTransform-v0", "CodeExpression-v0", "CodeMachine-v0"]
)
def test_generated_families_play_their_oracle_at_every_level(env_id):
    for level in (1, 10):
        env = palaestra.make(env_id, level=level)
        _, info = env.reset(seed=level)
        assert info["level"] == level
        assert env.step(env.oracle_action())[1] == 1.0
        env.reset(seed=level)
        assert env.step(fenced(env.unwrapped.problem.wrong[0]))[1] == 0.0
