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


def build_server(host: str = "127.0.0.1", port: int = 8000) -> Any:
    """The MCP server (an `mcp.server.fastmcp.FastMCP`) with one tool, ``calculator``.

    Args:
        host: The address it serves streamable HTTP on (when run that way).
        port: The port it serves streamable HTTP on.
    """
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError
    from pydantic import Field

    server = FastMCP("palaestra-calculator", log_level="WARNING", host=host, port=port)

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
    if options.port is None:
        build_server().run()
    else:
        build_server(options.host, options.port).run("streamable-http")


if __name__ == "__main__":
    main()
