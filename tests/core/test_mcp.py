"""MCPServers: tools listed and called through the mcp SDK's client, failures, no leaks."""

from __future__ import annotations

import asyncio
import subprocess
import sysconfig

import pytest
from tests_support.mcp_helpers import SUPPORT, child_pids, stdio_spec

from palaestra.errors import InfrastructureError
from palaestra.mcp import MCPServers, MCPToolError, schema_error
from palaestra.parsers import ToolCall
from palaestra.tools import acall_tool, call_tool


@pytest.fixture(scope="module")
def servers():
    with MCPServers([stdio_spec(name="test")], max_output_chars=1000) as servers:
        yield servers


def test_tools_carry_the_schemas_the_server_gives(servers):
    schemas = {s["function"]["name"]: s["function"] for s in servers.schemas}
    assert sorted(schemas) == ["add", "crash", "echo", "fail", "hang", "whoami"]
    add = schemas["add"]
    assert add["description"] == "Adds two integers."
    assert add["parameters"]["properties"]["a"]["type"] == "integer"
    assert add["parameters"]["required"] == ["a", "b"]
    assert schemas["echo"]["parameters"]["properties"]["text"]["maxLength"] == 100_000


def test_calls_from_sync_and_async_code(servers):
    assert servers.call("add", {"a": 2, "b": 40}) == "42"

    async def both():
        return await asyncio.gather(
            servers.acall("add", {"a": 1, "b": 1}), servers.acall("echo", {"text": "ab"})
        )

    assert asyncio.run(both()) == ["2", "ab"]


def test_arguments_off_the_schema_are_refused_with_the_schema_error(servers):
    with pytest.raises(ValueError, match="'b' is a required property") as caught:
        servers.call("add", {"a": 2})
    assert '"required": ["a", "b"]' in str(caught.value)
    with pytest.raises(ValueError, match=r"at arguments\['a'\]: 'two' is not of type 'integer'"):
        servers.call("add", {"a": "two", "b": 2})
    with pytest.raises(ValueError, match="must be an object"):
        servers.call("add", [1, 2])
    with pytest.raises(ValueError, match="did you mean 'add'"):
        servers.call("ad", {"a": 1, "b": 2})


def test_as_tools_results_are_capped_and_errors_are_shown(servers):
    tools = {t.name: t for t in servers.tools}
    long = call_tool(tools, ToolCall("echo", {"text": "x", "times": 5000}))
    assert long.ok and long.truncated and long.content.startswith("x" * 1000)
    assert long.content.endswith("[... 4,000 more characters cut]")
    assert servers.call("echo", {"text": "x", "times": 5000}) == "x" * 5000
    bad = call_tool(tools, ToolCall("add", {"a": 1, "b": "2"}))
    assert not bad.ok and "'2' is not of type 'integer'" in bad.content
    failed = asyncio.run(
        acall_tool({t.name: t for t in servers.async_tools}, ToolCall("fail", {"message": "no"}))
    )
    assert not failed.ok and failed.content.startswith("Error: MCPToolError:")
    assert failed.content.endswith("no")
    with pytest.raises(MCPToolError, match="no such row"):
        servers.call("fail", {"message": "no such row"})


def test_schema_error_uses_the_whole_schema():
    schema = {
        "type": "object",
        "properties": {"n": {"type": ["integer", "null"], "minimum": 1}},
        "additionalProperties": False,
    }
    assert schema_error("f", schema, {"n": None}) is None
    assert "0 is less than the minimum of 1" in schema_error("f", schema, {"n": 0})
    assert "Additional properties are not allowed" in schema_error("f", schema, {"m": 1})


@pytest.mark.parametrize(
    "spec, message",
    [
        ("python server.py", "must be a dict"),
        ({"command": ["x"], "url": "http://h/mcp"}, "exactly one of 'command'"),
        ({"command": "python server.py"}, "non-empty list of strings"),
        ({"command": []}, "non-empty list of strings"),
        ({"command": ["x"], "port": 1}, r"unknown keys \['port'\]"),
        ({"url": "ftp://h/mcp"}, "http\\(s\\) URL"),
        ({"url": "http://h/mcp", "env": {}}, r"unknown keys \['env'\]"),
        ({"command": ["x"], "env": {"A": 1}}, "env must map strings to strings"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        MCPServers([spec])


def test_bad_limits_are_refused():
    with pytest.raises(ValueError, match="call_timeout_s must be a positive"):
        MCPServers([stdio_spec()], call_timeout_s=0)
    with pytest.raises(ValueError, match="at least one MCP server"):
        MCPServers([])


def test_a_tool_name_offered_twice_is_refused():
    before = child_pids()
    with MCPServers([stdio_spec("--only", "add", name="one"), stdio_spec(name="two")]) as both:
        with pytest.raises(ValueError, match="'one' and 'two' both offer a tool named 'add'"):
            both.start()
    assert child_pids() == before


def test_a_server_that_cannot_start_is_an_infrastructure_error():
    with MCPServers([{"command": ["/nonexistent/mcp-server"]}]) as servers:
        with pytest.raises(InfrastructureError, match="could not connect to MCP server"):
            servers.start()


def test_a_crashed_server_fails_its_calls_and_restarts():
    before = child_pids()
    servers = MCPServers([stdio_spec(name="crashy")])
    servers.start()
    assert len(child_pids() - before) == 1
    with pytest.raises(InfrastructureError, match="'crashy' failed during crash") as caught:
        servers.call("crash", {})
    assert "crashing on purpose" in str(caught.value)  # the server's stderr, for the reader
    with pytest.raises(InfrastructureError, match="unavailable"):
        servers.call("add", {"a": 1, "b": 2})
    servers.start()
    assert servers.call("add", {"a": 1, "b": 2}) == "3"
    servers.close()
    servers.close()
    assert child_pids() == before
    with pytest.raises(RuntimeError, match="closed"):
        servers.call("add", {"a": 1, "b": 2})


def test_a_hung_server_times_out_and_is_stopped_on_close():
    before = child_pids()
    with MCPServers([stdio_spec(name="slow")], call_timeout_s=1) as servers:
        with pytest.raises(InfrastructureError, match="did not answer hang within 1 s"):
            servers.call("hang", {})
        assert len(child_pids() - before) == 1
    assert child_pids() == before


def _our_containers() -> set[str]:
    listed = subprocess.run(
        ["docker", "ps", "--all", "--quiet", "--filter", "name=palaestra-mcp-"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(listed.stdout.split())


@pytest.mark.docker
@pytest.mark.slow
def test_a_server_in_a_docker_sandbox():
    from tests_support.docker import require_docker_engine

    from palaestra.sandbox.images import base_tag

    require_docker_engine()
    site = sysconfig.get_paths()["purelib"]  # the SDK, for the image's Python (the same 3.11)
    spec = stdio_spec(name="boxed")
    spec["command"] = ["python3", *spec["command"][1:]]
    spec["env"] = {"PYTHONPATH": "/opt/site:/opt/support"}
    spec["docker"] = {
        "image": base_tag(),
        "mounts": {site: "/opt/site", SUPPORT: "/opt/support"},
        "memory_mb": 512,
    }
    before = _our_containers()
    with MCPServers([spec], call_timeout_s=5, connect_timeout_s=120) as servers:
        assert servers.call("whoami", {}) == "uid 10001, no network"
        assert servers.call("add", {"a": 2, "b": 2}) == "4"
        assert len(_our_containers() - before) == 1
        with pytest.raises(InfrastructureError, match="did not answer hang within 5 s"):
            servers.call("hang", {})
    assert _our_containers() == before  # the hung server's container is removed on close
