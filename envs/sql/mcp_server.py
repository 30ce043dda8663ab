"""The SQL tools as an MCP server, built with the `mcp` SDK's `FastMCP`.

    python -m palaestra.envs.sql.mcp_server --location sqlite:/path/to/db.sqlite
    python -m palaestra.envs.sql.mcp_server --transport streamable-http --port 8765

The server offers ``list_tables``, ``describe(table)``, ``query(sql)`` and ``submit(sql)``
over one database (``--location``, or ``$PALAESTRA_SQL_LOCATION`` so a DSN stays off the
command line): ``sqlite:PATH`` or ``postgres:SCHEMA:DSN``. Any MCP client may use it; its
``submit`` only runs the query and reports the row count, because scoring belongs to the
env: `SQLEnv` with ``tools_via="mcp"`` connects to this server through
`palaestra.mcp.MCPServers` (the SDK's client), sends the exploring tools to it, and scores
``submit`` itself on its own fresh read-only copy, so a tool server never decides a reward.

The server executes model-controlled SQL; it relies on the readers' guards (see
`palaestra.envs.sql.backends`), and runs as a local subprocess of the env, not in the
sandbox: it reads only the episode's database, read-only.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at runtime, and
# string annotations naming local aliases could not be resolved.

import argparse
import os
import sys
from typing import Annotated, Any

from palaestra.envs.sql.backends import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, reader_at
from palaestra.envs.sql.tools import TOOL_DESCRIPTIONS, SQLTools
from palaestra.errors import InfrastructureError

LOCATION_VARIABLE = "PALAESTRA_SQL_LOCATION"


def _mcp_missing(error: ImportError) -> InfrastructureError:
    return InfrastructureError(
        f'the MCP tools need the mcp SDK: pip install "palaestra[mcp]" ({error})'
    )


def build_server(
    location: str,
    *,
    max_rows: int = DEFAULT_MAX_ROWS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> Any:
    """A `FastMCP` server offering the SQL tools over the database at ``location``.

    ``host`` and ``port`` are where it serves streamable HTTP, when run that way.
    """
    try:
        from mcp.server.fastmcp import FastMCP  # noqa: PLC0415 (an optional dependency)
        from pydantic import Field  # noqa: PLC0415 (the SDK's dependency)
    except ImportError as e:
        raise _mcp_missing(e) from e

    tools = SQLTools(reader_at(location), max_rows, timeout_s)
    server = FastMCP(
        "palaestra-sql",
        instructions="Explore the database, then submit a query.",
        host=host,
        port=port,
    )

    @server.tool(description=TOOL_DESCRIPTIONS["list_tables"])
    def list_tables() -> str:
        return tools.list_tables()

    table_argument = Annotated[str, Field(description="The table's name.")]
    sql_argument = Annotated[str, Field(description="One SELECT statement.")]

    @server.tool(description=TOOL_DESCRIPTIONS["describe"])
    def describe(table: table_argument) -> str:
        return tools.describe(table)

    @server.tool(description=TOOL_DESCRIPTIONS["query"])
    def query(sql: sql_argument) -> str:
        return tools.query(sql)

    @server.tool(description=TOOL_DESCRIPTIONS["submit"])
    def submit(sql: sql_argument) -> str:
        shown = tools.query(sql)
        if shown.startswith("Error:"):
            return shown
        return "Submitted. " + shown.rsplit("\n", 1)[-1]

    return server


def server_spec(location: str, *, max_rows: int, timeout_s: float) -> dict[str, Any]:
    """A `palaestra.mcp.MCPServers` spec that runs this module over stdio for ``location``."""
    return {
        "command": [
            sys.executable, "-m", "palaestra.envs.sql.mcp_server",
            "--max-rows", str(max_rows), "--timeout-s", str(timeout_s),
        ],
        "env": {LOCATION_VARIABLE: location},
        "name": "sql",
    }


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
    server = build_server(
        args.location,
        max_rows=args.max_rows,
        timeout_s=args.timeout_s,
        host=args.host,
        port=args.port,
    )
    server.run(args.transport)


if __name__ == "__main__":
    main()
