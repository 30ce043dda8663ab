"""The interpreter tool envs: state across calls, numpy/sympy, caps, budgets, failures, masked
tool output."""

from __future__ import annotations

import json

import pytest

import palaestra
from palaestra.envs.tools.python_tool import PythonToolEnv
from palaestra.errors import InfrastructureError
from palaestra.sandbox import RunResult


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def python(code: str) -> str:
    return call("python", code=code)


def _sandbox_has_numpy_and_sympy() -> bool:
    from palaestra import sandbox

    with sandbox.open_session("python") as session:
        return session.exec("import numpy, sympy").exit_code == 0


@pytest.fixture
def factorisation():
    env = palaestra.make("PythonTool-v0", tasks=["PrimeFactorization-v0"], level=4)
    observation, info = env.reset(seed=5)
    yield env, observation, info
    env.close()


def test_a_scripted_episode_solves_a_task_in_several_calls_that_share_state(factorisation):
    if not _sandbox_has_numpy_and_sympy():
        pytest.skip(
            "the sandbox's python3 lacks numpy or sympy (Debian: apt-get install "
            "python3-numpy python3-sympy)"
        )
    env, observation, info = factorisation
    assert (
        info["task_id"] == "PrimeFactorization-v0"
        and "Python interpreter" in observation[0]["content"]
    )
    number = env.unwrapped.problem.data["number"]
    script = [
        python(f"import sympy\nn = {number}"),
        python(
            "factors = sympy.factorint(n)\nimport numpy as np\n"
            "check = int(np.prod([p ** e for p, e in factors.items()], dtype=object))"
        ),
        python(
            "assert check == n\n"
            "print(' × '.join(f'{p}^{e}' if e > 1 else str(p) for p, e in sorted(factors.items())))"
        ),
    ]
    outputs = []
    for action in script:
        observation, reward, terminated, truncated, info = env.step(action)
        assert observation[0]["role"] == "tool" and observation[0]["name"] == "python"
        assert (
            not (terminated or truncated) and info["tool_calls"] == 1 and info["tool_errors"] == 0
        )
        outputs.append(observation[0]["content"])
    assert outputs[:2] == ["(no output)", "(no output)"]
    _, reward, terminated, _, info = env.step(f"<answer>{outputs[2]}</answer>")
    assert terminated and reward == 1.0 and info["success"]


def test_variables_persist_and_errors_come_back_as_tracebacks(factorisation):
    env, *_ = factorisation
    assert env.step(python("x = 41"))[0][0]["content"] == "(no output)"
    assert env.step(python("x + 1"))[0][0]["content"] == "42"
    content = env.step(python("1 / 0"))[0][0]["content"]
    assert "ZeroDivisionError" in content and "Traceback" in content
    assert env.step(python("x"))[0][0]["content"] == "41"


def test_state_is_fresh_in_every_episode(factorisation):
    env, *_ = factorisation
    env.step(python("secret = 7"))
    env.reset(seed=6)
    assert "NameError" in env.step(python("secret"))[0][0]["content"]


def test_the_shell_keeps_files_between_calls(factorisation):
    env, *_ = factorisation
    observation = env.step(call("shell", command="echo hello > note.txt && ls"))[0]
    assert observation[0] == {
        "role": "tool",
        "content": "note.txt",
        "tool_call_id": "call_0",
        "name": "shell",
    }
    assert (
        env.step(call("shell", command="cat note.txt; exit 3"))[0][0]["content"]
        == "hello\n[exit status 3]"
    )


def test_tool_output_is_capped():
    env = palaestra.make("PythonTool-v0", max_output_chars=500)
    env.reset(seed=0)
    observation, _, _, _, info = env.step(python("print('x' * 200_000)"))
    content = observation[0]["content"]
    assert len(content) < 700 and "more characters cut" in content and info["tool_output_truncated"]
    env.close()


def test_a_timeout_interrupts_the_call_and_keeps_the_state():
    env = palaestra.make("PythonTool-v0", call_timeout_s=1.0)
    env.reset(seed=0)
    env.step(python("kept = 'yes'"))
    content = env.step(python("while True:\n    pass"))[0][0]["content"]
    assert "timed out after 1 s" in content and "kept" in content
    assert env.step(python("print(kept)"))[0][0]["content"] == "yes"
    env.close()


def test_a_dead_interpreter_loses_its_state_but_the_episode_goes_on():
    env = palaestra.make("PythonTool-v0")
    env.reset(seed=0)
    env.step(python("y = 1"))
    observation, _, _, truncated, info = env.step(python("import os\nos._exit(1)"))
    assert info["status"] == "ok" and not truncated
    content = env.step(python("y"))[0][0]["content"]
    assert "NameError" in content
    env.close()


def test_the_call_budget_ends_an_episode_that_never_answers():
    env = palaestra.make("PythonTool-v0", max_tool_calls=2, max_turns=10)
    env.reset(seed=0)
    assert env.step(python("1"))[3] is False
    assert env.step(python("2"))[3] is False
    observation, _, terminated, truncated, info = env.step(python("3"))
    assert (
        truncated
        and not terminated
        and info["truncation"] == "tool_budget"
        and info["success"] is False
    )
    assert "budget is spent" in observation[0]["content"]
    env.close()


def test_the_tool_time_budget_refuses_further_calls():
    env = palaestra.make("PythonTool-v0", tool_time_s=0.5, call_timeout_s=0.5)
    env.reset(seed=0)
    env.step(python("import time\ntime.sleep(2)"))
    observation, reward, _, _, info = env.step(python("print('more')"))
    assert (
        "tool time are spent" in observation[0]["content"] and info["invalid_action"] and reward < 0
    )
    env.close()


def test_python_tags_run_like_tool_calls():
    env = palaestra.make("PythonTags-v0")
    env.reset(seed=0)
    observation, *_ = env.step("Let me compute.\n<python>z = 6 * 7\nprint(z)</python>")
    assert observation[0]["role"] == "tool" and observation[0]["content"] == "42"
    observation, reward, terminated, _, info = env.step("<python>print(z")
    assert info["invalid_action"] and "never closed" in observation[0]["content"] and not terminated
    env.close()


def test_native_tool_calls_are_accepted():
    env = palaestra.make("PythonTool-v0")
    env.reset(seed=0)
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c7",
                "type": "function",
                "function": {"name": "python", "arguments": json.dumps({"code": "print(2 + 2)"})},
            }
        ],
    }
    observation = env.step(message)[0]
    assert observation[0] == {
        "role": "tool",
        "content": "4",
        "tool_call_id": "c7",
        "name": "python",
    }
    assert [t["function"]["name"] for t in env.tools] == ["python", "shell"]
    env.close()


def test_a_sandbox_that_fails_masks_the_episode(monkeypatch):
    env = palaestra.make("PythonTool-v0")
    env.reset(seed=0)
    env.step(python("a = 1"))
    session = env.unwrapped._sessions["python"]
    monkeypatch.setattr(
        session,
        "exec",
        lambda source, **kw: RunResult.failure("the session stopped answering and was killed"),
    )
    _, reward, terminated, truncated, info = env.step(python("a"))
    assert (
        info["status"] == "error"
        and info["mask"] is True
        and truncated
        and not terminated
        and reward == 0.0
    )
    env.close()


def test_a_sandbox_that_cannot_start_masks_the_episode(monkeypatch):
    def refuse(*args, **kwargs):
        raise InfrastructureError("all 64 sessions are in use; close one first")

    monkeypatch.setattr("palaestra.sandbox.open_session", refuse)
    env = palaestra.make("PythonTool-v0")
    env.reset(seed=0)
    _, _, _, truncated, info = env.step(python("1"))
    assert info["mask"] is True and truncated and "sessions are in use" in info["error"]


def test_bad_arguments_are_rejected():
    for kwargs, match in (
        ({"tasks": ["GuessNumber-v0"]}, "not a single-turn task family"),
        ({"tasks": []}, "at least one task"),
        ({"tool_parser": "hermes"}, "tool_parser"),
        ({"sandbox_backend": "python"}, "sessions"),
        ({"call_timeout_s": 0}, "call_timeout_s"),
    ):
        with pytest.raises(ValueError, match=match):
            PythonToolEnv(**kwargs)


def test_closing_twice_and_after_reset_is_safe():
    env = palaestra.make("PythonTool-v0")
    env.reset(seed=0)
    env.step(python("1"))
    env.close()
    env.close()
