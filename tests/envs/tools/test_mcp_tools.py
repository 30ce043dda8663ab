"""MCPTools-v0: full episodes through MCP servers over stdio and streamable HTTP.

Everything goes through the mcp SDK's own client and servers built with its FastMCP
(tests_support.mcp_servers): tool results, schema errors, a crash and a hang mid-episode.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from tests_support.mcp_helpers import child_pids, http_server, stdio_spec

import palaestra
from palaestra.errors import InfrastructureError


def _call(name: str, arguments: dict, call_id: str = "c1") -> dict:
    """An assistant message with one native tool call."""
    import json

    function = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _tagged(name: str, arguments: dict) -> str:
    import json

    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def _play_oracle(env):
    for _ in range(10):
        observation, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            return reward, terminated, info
    raise AssertionError("the oracle did not finish")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_full_episodes_with_a_bad_call_and_a_crash(transport, tmp_path):
    before = child_pids()
    with contextlib.ExitStack() as stack:
        if transport == "stdio":
            spec = stdio_spec(name="test")
        else:
            spec = stack.enter_context(http_server(log=tmp_path / "server.log"))
        # Calculator-v0 has a calculator tool of its own: its calls go to it, the rest to MCP.
        env = palaestra.make("MCPTools-v0", env="Calculator-v0", servers=[spec])
        stack.callback(env.close)

        observation, info = env.reset(seed=5)
        assert (
            observation[0]["role"] == "system"
            and "- add: Adds two integers." in (observation[0]["content"])
        )
        names = [t["function"]["name"] for t in env.tools]
        assert names == ["calculator", "add", "echo", "fail", "crash", "hang", "whoami"]

        observation, reward, terminated, truncated, info = env.step(_call("add", {"a": 2, "b": 3}))
        assert observation == [
            {"role": "tool", "content": "5", "tool_call_id": "c1", "name": "add"}
        ]
        assert reward == 0.0 and not (terminated or truncated) and info["status"] == "ok"

        observation, reward, terminated, truncated, info = env.step(_tagged("add", {"a": 2}))
        assert info["invalid_action"] is True and reward == -0.1 and not (terminated or truncated)
        shown = observation[0]["content"]
        assert observation[0]["role"] == "tool" and "'b' is a required property" in shown
        assert '"required": ["a", "b"]' in shown  # the schema itself is shown

        reward, terminated, info = _play_oracle(env)  # the env's own calculator, then the answer
        assert terminated and reward == 1.0 and info["success"] is True

        env.reset(seed=6)
        observation, *_ = env.step(_call("echo", {"text": "hi", "times": 2}))
        assert observation[0]["content"] == "hihi"
        observation, reward, terminated, truncated, info = env.step(_call("crash", {}))
        assert truncated and not terminated and reward == 0.0
        assert info["status"] == "error" and info["mask"] is True
        assert "failed during crash" in info["error"]
        assert info["verdict"].mask is True

        if transport == "stdio":
            assert "crashing on purpose" in info["error"]
            env.reset(seed=7)  # a fresh server
            observation, *_ = env.step(_call("add", {"a": 1, "b": 1}))
            assert observation[0]["content"] == "2"
        else:
            with pytest.raises(InfrastructureError, match="could not connect"):
                env.reset(seed=7)  # the HTTP server is not ours to restart
    assert child_pids() == before


def test_async_episode_and_a_hung_server(tmp_path):
    before = child_pids()
    env = palaestra.make(
        "MCPTools-v0", servers=[stdio_spec(name="test")], call_timeout_s=2, max_output_chars=200
    )

    async def play():
        await env.areset(seed=1)
        observation, *_ = await env.astep(_call("echo", {"text": "ab", "times": 300}))
        assert observation[0]["content"].endswith("[... 400 more characters cut]")
        *_, info = await env.astep(_tagged("add", {"a": "1", "b": 2}))
        assert info["invalid_action"] and info["reward_parts"] == {"invalid": -0.1}
        *_, terminated, truncated, info = await env.astep(env.unwrapped.oracle_action())
        assert terminated and info["success"] is True
        await env.areset(seed=2)
        *_, terminated, truncated, info = await env.astep(_call("hang", {}))
        assert truncated and info["status"] == "error" and info["mask"] is True
        assert "did not answer hang within 2 s" in info["error"]

    try:
        asyncio.run(play())
        assert len(child_pids() - before) == 1  # the hung server, until close
    finally:
        env.close()
    assert child_pids() == before


def test_the_default_calculator_server():
    env = palaestra.make("MCPTools-v0")
    try:
        env.reset(seed=3)
        assert [t["function"]["name"] for t in env.tools] == ["calculator"]
        observation, *_ = env.step(_tagged("calculator", {"expression": "4821 * 9172"}))
        assert observation[0]["content"] == str(4821 * 9172)
        observation, reward, *_, info = env.step(_tagged("calculator", {"expression": "1 / 0"}))
        assert "ZeroDivisionError" in observation[0]["content"] and info["invalid_action"]
        reward, terminated, info = _play_oracle(env)
        assert terminated and info["success"] is True
    finally:
        env.close()


def test_tool_names_shared_with_the_env_are_refused():
    env = palaestra.make("MCPTools-v0", env="Calculator-v0")  # both offer `calculator`
    try:
        with pytest.raises(ValueError, match=r"both offer tools named \['calculator'\]"):
            env.reset(seed=0)
    finally:
        env.close()


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="restart_servers must be"):
        palaestra.make("MCPTools-v0", restart_servers="sometimes")
    with pytest.raises(ValueError, match="must be a dict"):
        palaestra.make("MCPTools-v0", servers=["python server.py"])
