"""The SQL tools served by an MCP server (the SDK's FastMCP), reached with the SDK's client."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import palaestra
from palaestra.envs.sql.mcp_server import LOCATION_VARIABLE
from palaestra.envs.sql.tools import SQLTools
from palaestra.mcp import MCPServers


def tool_call(name: str, **arguments) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def sql_server_pids() -> list[int]:
    """This process's children that run the SQL MCP server."""
    found = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(status.read_text().rsplit(")", 1)[1].split()[1])
            command = (status.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"palaestra.envs.sql.mcp_server" in command:
            found.append(int(status.parent.name))
    return found


def test_a_full_episode_through_the_mcp_server_over_stdio(backend):
    others = set(sql_server_pids())  # servers of envs other tests left to the collector
    direct = palaestra.make("SQL-v0", **backend)
    env = palaestra.make("SQLMCP-v0", **backend)
    direct.reset(seed=5)
    env.reset(seed=5)
    assert [t["function"]["name"] for t in env.tools] == ["list_tables", "describe", "query",
                                                          "submit"]
    for action in (
        tool_call("list_tables"),
        tool_call("describe", table=env.unwrapped.database.tables[0].name),
        tool_call("query", sql="SELECT nothing FROM nowhere"),
    ):
        through_mcp = env.step(action)
        assert through_mcp[0] == direct.step(action)[0]  # the same text as the direct tools
        assert through_mcp[4]["status"] == "ok"
    *_, terminated, _, info = env.step(tool_call("submit", sql=env.unwrapped.question.sql))
    assert terminated and info["success"] and info["reward_parts"]["outcome"] == 1.0
    (server,) = set(sql_server_pids()) - others
    env.close()
    direct.close()
    assert server not in sql_server_pids()


def test_bad_arguments_are_invalid_with_the_schema_error():
    env = palaestra.make("SQLMCP-v0")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(tool_call("query", statement="SELECT 1"))
    assert info["invalid_action"] and reward < 0 and not (terminated or truncated)
    assert "do not match its input schema" in obs[0]["content"] and "'sql'" in obs[0]["content"]
    env.close()


def test_a_server_that_crashes_mid_episode_is_masked_and_restarted_next_episode():
    others = set(sql_server_pids())
    env = palaestra.make("SQLMCP-v0")
    env.reset(seed=0)
    env.step(tool_call("list_tables"))
    (pid,) = set(sql_server_pids()) - others
    os.kill(pid, 9)
    *_, terminated, truncated, info = env.step(tool_call("query", sql="SELECT 1"))
    assert truncated and not terminated and info["status"] == "error" and info["mask"]
    env.reset(seed=1)  # a new server for the next episode
    assert play_to_the_end(env)["success"]
    env.close()


def play_to_the_end(env) -> dict:
    for _ in range(4):
        *_, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            return info
    raise AssertionError("the oracle did not finish")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(backend):
    """The SQL MCP server over streamable HTTP, on an episode's database, and its reader."""
    env = palaestra.make("SQL-v0", **backend)
    env.reset(seed=3)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "palaestra.envs.sql.mcp_server", "--transport",
         "streamable-http", "--port", str(port)],
        env={**os.environ, LOCATION_VARIABLE: env.unwrapped.store.location()},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, process.stderr.read().decode()
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}/mcp", env
    process.terminate()
    process.wait(10)
    env.close()


def test_the_server_over_streamable_http_answers_as_the_direct_tools(http_server):
    url, env = http_server
    direct = SQLTools(env.unwrapped.store.reader())
    table = env.unwrapped.database.tables[1].name
    with MCPServers([{"url": url}]) as servers:
        assert {t["function"]["name"] for t in servers.schemas} == {
            "list_tables", "describe", "query", "submit"}
        assert servers.call("list_tables", {}) == direct.list_tables()
        assert servers.call("describe", {"table": table}) == direct.describe(table)
        sql = env.unwrapped.question.sql
        assert servers.call("query", {"sql": sql}) == direct.query(sql)
        assert servers.call("query", {"sql": f"DROP TABLE {table}"}).startswith("Error: ")
        assert servers.call("submit", {"sql": sql}).startswith("Submitted. (")
    direct.reader.close()
