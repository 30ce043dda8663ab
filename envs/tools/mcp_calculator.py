"""An MCP server offering the calculator tool, built with the `mcp` SDK (MCPTools-v0's default).

    python -m palaestra.envs.tools.mcp_calculator                  # stdio
    python -m palaestra.envs.tools.mcp_calculator --port 8000      # streamable HTTP at /mcp

It runs on the host: the expressions it reads are the model's, but
`palaestra.envs.tools.calculator.evaluate` only interprets a syntax tree of numbers and
arithmetic operators, with caps on length, exponents and result size; nothing is executed.
"""

# No `from __future__ import annotations`: the SDK reads the tool's annotations at run
# time, and `Field` is imported inside `build_server`.
import argparse
from typing import Annotated, Any

from palaestra.envs.tools.calculator import evaluate


def build_server() -> Any:
    """The MCP server (an `mcp.server.mcpserver.MCPServer`) with one tool, ``calculator``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import Field

    server = MCPServer("palaestra-calculator", log_level="WARNING")

    @server.tool(description="Evaluates an arithmetic expression exactly (integers stay exact).")
    def calculator(
        expression: Annotated[
            str,
            Field(description='Numbers with + - * / // % ** and parentheses, e.g. "48 * 91 - 3".'),
        ],
    ) -> str:
        try:
            return str(evaluate(expression))
        except (ValueError, ZeroDivisionError) as e:
            raise ToolError(f"{type(e).__name__}: {e}") from e

    return server


def main(argv: list[str] | None = None) -> None:
    """Serves the calculator over stdio, or over streamable HTTP with ``--port``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="serve streamable HTTP on this port")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    options = parser.parse_args(argv)
    server = build_server()
    if options.port is None:
        server.run()
    else:
        server.run("streamable-http", host=options.host, port=options.port)


if __name__ == "__main__":
    main()
