"""An MCP server for the tests, built with the `mcp` SDK's FastMCP.

    python -m tests_support.mcp_servers               # stdio
    python -m tests_support.mcp_servers --port 8000   # streamable HTTP at /mcp

Its tools cover what a client must survive: ``add`` and ``echo`` answer, ``fail`` reports
an error, ``crash`` kills the server in the middle of the call, ``hang`` never answers,
``whoami`` says where it runs.
``--prefix`` renames every tool (two servers with distinct names), ``--only`` keeps some.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at run time.
import argparse
import os
import sys
from typing import Annotated

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field


def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


def echo(text: Annotated[str, Field(max_length=100_000)], times: int = 1) -> str:
    """Repeats a text."""
    return text * times


def fail(message: str) -> str:
    """Reports an error with the given message."""
    raise ToolError(message)


def crash() -> str:
    """Kills this server while the call is in flight."""
    print("crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "unreachable"


def whoami() -> str:
    """The user id the server runs as, and whether it can reach the network."""
    import socket

    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        network = "network"
    except OSError:
        network = "no network"
    return f"uid {os.getuid()}, {network}"


TOOLS = {
    "add": add,
    "echo": echo,
    "fail": fail,
    "crash": crash,
    "hang": hang,
    "whoami": whoami,
}


def build(prefix: str = "", only: list[str] | None = None, port: int = 8000) -> FastMCP:
    """The server with the chosen tools, each named ``prefix + name`` (HTTP on ``port``)."""
    server = FastMCP("palaestra-test", log_level="WARNING", port=port)
    for name, fn in TOOLS.items():
        if only is None or name in only:
            server.add_tool(fn, name=prefix + name)
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    parser.add_argument("--prefix", default="")
    parser.add_argument("--only", nargs="*")
    options = parser.parse_args()
    if options.port is None:
        build(options.prefix, options.only).run()
    else:
        build(options.prefix, options.only, options.port).run("streamable-http")


if __name__ == "__main__":
    main()
