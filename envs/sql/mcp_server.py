"""The SQL tools as an MCP server (the `mcp` SDK's `MCPServer`), and a client for the env.

    python -m palaestra.envs.sql.mcp_server --location sqlite:/path/to/db.sqlite
    python -m palaestra.envs.sql.mcp_server --transport streamable-http --port 8765

The server offers ``list_tables``, ``describe(table)``, ``query(sql)`` and ``submit(sql)``
over one database (``--location``, or ``$PALAESTRA_SQL_LOCATION`` so a DSN stays off the
command line): ``sqlite:PATH`` or ``postgres:SCHEMA:DSN``. Any MCP client may use it; its
``submit`` only runs the query and reports the row count, because scoring belongs to the
env: `SQLEnv` with ``tools_via="mcp"`` sends the exploring tools through this server and
scores ``submit`` itself on its own fresh read-only copy, so a tool server never decides a
reward.

The server executes model-controlled SQL; it relies on the readers' guards (see
`palaestra.envs.sql.backends`), and runs as a local subprocess of the env, not in the
sandbox: it reads only the episode's database, read-only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
from typing import Any

from palaestra.envs.sql.backends import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, reader_at
from palaestra.envs.sql.tools import TOOL_DESCRIPTIONS, SQLTools
from palaestra.errors import InfrastructureError

LOCATION_VARIABLE = "PALAESTRA_SQL_LOCATION"


def _mcp_missing(error: ImportError) -> InfrastructureError:
    return InfrastructureError(
        f'the MCP tools need the mcp SDK: pip install "palaestra[mcp]" ({error})'
    )


def build_server(
    location: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S
) -> Any:
    """An `MCPServer` offering the SQL tools over the database at ``location``."""
    try:
        from mcp.server.mcpserver import MCPServer  # noqa: PLC0415 (an optional dependency)
    except ImportError as e:
        raise _mcp_missing(e) from e

    tools = SQLTools(reader_at(location), max_rows, timeout_s)
    server = MCPServer("palaestra-sql", instructions="Explore the database, then submit a query.")

    @server.tool(description=TOOL_DESCRIPTIONS["list_tables"])
    def list_tables() -> str:
        return tools.list_tables()

    @server.tool(description=TOOL_DESCRIPTIONS["describe"])
    def describe(table: str) -> str:
        return tools.describe(table)

    @server.tool(description=TOOL_DESCRIPTIONS["query"])
    def query(sql: str) -> str:
        return tools.query(sql)

    @server.tool(description=TOOL_DESCRIPTIONS["submit"])
    def submit(sql: str) -> str:
        shown = tools.query(sql)
        if shown.startswith("Error:"):
            return shown
        return "Submitted. " + shown.rsplit("\n", 1)[-1]

    return server


class MCPToolClient:
    """A synchronous handle on an MCP server, driven by the SDK's `Client` in a private loop.

    The session lives in one background thread's event loop, so sync and async env code
    alike can call it; a call that takes longer than ``timeout_s`` or a server that dies is
    an `InfrastructureError`.

    Args:
        server: What `mcp.Client` accepts: a URL (streamable HTTP), or a
            ``StdioServerParameters`` (a subprocess over stdio).
        timeout_s: Seconds one call may take.
    """

    def __init__(self, server: Any, *, timeout_s: float = 30.0):
        try:
            from mcp import Client  # noqa: PLC0415 (an optional dependency)
        except ImportError as e:
            raise _mcp_missing(e) from e
        self.timeout_s = timeout_s
        self._client = Client(server, read_timeout_seconds=timeout_s)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._closed = False
        try:
            self._run(self._client.__aenter__(), "start the MCP server")
        except BaseException:
            self._stop_loop()
            raise

    def _run(self, coroutine: Any, what: str) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(self.timeout_s + 5.0)
        except TimeoutError as e:
            future.cancel()
            raise InfrastructureError(f"could not {what}: no answer in {self.timeout_s:g} s") from e
        except InfrastructureError:
            raise
        except Exception as e:  # the server crashed, hung up or broke the protocol
            raise InfrastructureError(f"could not {what}: {type(e).__name__}: {e}") from e

    def list_tools(self) -> list[dict[str, Any]]:
        """The server's tools as OpenAI function schemas (input schemas as the server gives)."""
        result = self._run(self._client.list_tools(), "list the MCP server's tools")
        return [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description or "",
                    "parameters": t.input_schema,
                },
            }
            for t in result.tools
        ]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Calls a tool and returns its text.

        The SQL tools answer a refused query with text; a result flagged as an error means
        the server itself failed (the env checks arguments against the schema first), so it
        raises `InfrastructureError`.
        """
        result = self._run(self._client.call_tool(name, arguments), f"call the MCP tool {name}")
        text = "\n".join(getattr(part, "text", "") for part in result.content)
        if result.is_error:
            raise InfrastructureError(f"the MCP tool {name} failed: {text}")
        return text

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self._loop.close()

    def close(self) -> None:
        """Ends the session (and the server subprocess, for stdio); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            future = asyncio.run_coroutine_threadsafe(
                self._client.__aexit__(None, None, None), self._loop
            )
            future.result(15.0)
        except Exception:  # noqa: BLE001 (closing a dead server must not raise)
            pass
        finally:
            self._stop_loop()


def stdio_parameters(location: str, *, max_rows: int, timeout_s: float) -> Any:
    """The SDK's parameters to start this module as a stdio server for ``location``."""
    try:
        from mcp import StdioServerParameters  # noqa: PLC0415 (an optional dependency)
    except ImportError as e:
        raise _mcp_missing(e) from e
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "palaestra.envs.sql.mcp_server", "--max-rows", str(max_rows),
              "--timeout-s", str(timeout_s)],
        env={LOCATION_VARIABLE: location},
    )


def main(argv: list[str] | None = None) -> None:
    """Runs the server (stdio by default)."""
    parser = argparse.ArgumentParser(prog="python -m palaestra.envs.sql.mcp_server")
    parser.add_argument("--location", default=os.environ.get(LOCATION_VARIABLE))
    parser.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS)
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args(argv)
    if not args.location:
        parser.error(f"give --location or set ${LOCATION_VARIABLE}")
    server = build_server(args.location, max_rows=args.max_rows, timeout_s=args.timeout_s)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=args.host, port=args.port)


if __name__ == "__main__":
    main()
