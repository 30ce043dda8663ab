"""MCP tools for any env: an env's task, with tools served by Model Context Protocol servers.

The task:
    The task of any registered env (``env``, default ``Arithmetic-v0``), played with the
    tools of one or more MCP servers (``servers``; by default the calculator server of
    `palaestra.envs.tools.mcp_calculator` over stdio). Servers run as stdio subprocesses
    or are reached over streamable HTTP, through the `mcp` SDK's client
    (`palaestra.mcp.MCPServers`); see docs/mcp.md.

Observation:
    A system message naming the MCP tools and how to call them, then the env's opening
    messages; after a tool turn, one tool message per call (capped at
    ``max_output_chars``; tool messages are environment text, masked from the loss by the
    rollout engine); after any other turn, whatever the env answers.

Action:
    Tool calls (native ``tool_calls`` or Hermes
    ``<tool_call>{"name": "calculator", "arguments": {"expression": "6 * 7"}}</tool_call>``),
    or a turn for the env (its final answer). When the env offers tools of its own, a turn
    whose calls all name its tools goes to the env.

Reward (``info["reward_parts"]``):
    ``tool``: 0 for a tool turn (the budget caps tool use).
    ``invalid``: `INVALID_ACTION_PENALTY` for a turn whose every tool call failed: an
    unknown tool, arguments that do not match the tool's JSON schema (the schema error is
    shown), or a tool that reported an error.
    Any other part: the env's own, for the turns it plays.

Episode end:
    When the env's episode ends; truncated when tool calls continue past the call budget
    (or by `TurnLimit`). A server that crashes, closes the connection or takes longer than
    ``call_timeout_s`` truncates the episode with ``info["status"] = "error"`` and
    ``info["mask"] = True``; the server is connected again at the next reset.

Arguments:
    env: The registry id of the env whose task is played.
    env_kwargs: Arguments for that env.
    servers: MCP server specs (``{"command": [...]}`` or ``{"url": ...}``; see
        `palaestra.mcp`); None: the calculator server.
    call_timeout_s: Seconds one tool call may take.
    connect_timeout_s: Seconds a server may take to start and list its tools.
    max_output_chars: Characters of a result the model reads.
    max_tool_calls: Tool calls per episode.
    max_calls_per_turn: Tool calls run per turn.
    tool_parser: The named tool-call parser (``"auto"``: native, else Hermes tags).
    restart_servers: ``"never"`` (servers live as long as the env, reconnected after a
        failure) or ``"episode"`` (every reset restarts them: fresh server state).

Version history:
    v0: first version.
"""

from __future__ import annotations

import sys
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, Env, Info, Message, Observation, Step, system
from palaestra.mcp import DEFAULT_CALL_TIMEOUT_S, DEFAULT_CONNECT_TIMEOUT_S, MCPServers
from palaestra.parsers import ParsedAction, get_parser
from palaestra.tools import ToolBudget, arun_tool_turn, run_tool_turn


def calculator_server() -> dict[str, Any]:
    """The spec of the calculator MCP server, run over stdio by this interpreter."""
    return {
        "command": [sys.executable, "-m", "palaestra.envs.tools.mcp_calculator"],
        "name": "calculator",
    }


class MCPToolsEnv(Env):
    """An env's task with tools from MCP servers; see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(
        self,
        env: str = "Arithmetic-v0",
        env_kwargs: dict[str, Any] | None = None,
        servers: list[dict[str, Any]] | None = None,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        max_output_chars: int = 4000,
        max_tool_calls: int = 16,
        max_calls_per_turn: int = 4,
        tool_parser: str = "auto",
        restart_servers: str = "never",
    ):
        import palaestra

        if restart_servers not in ("never", "episode"):
            raise ValueError(
                f"restart_servers must be 'never' or 'episode', got {restart_servers!r}"
            )
        if env_kwargs is not None and not isinstance(env_kwargs, dict):
            raise ValueError(f"env_kwargs must be a dict, got {env_kwargs!r}")
        self.budget_limits = (max_tool_calls, max_calls_per_turn)
        self.budget = ToolBudget(max_tool_calls, max_calls_per_turn)
        self.parser = get_parser(tool_parser)
        self.restart_servers = restart_servers
        self.env_id = env
        self.inner = palaestra.make(env, **(env_kwargs or {}))
        self.servers = MCPServers(
            servers if servers is not None else [calculator_server()],
            call_timeout_s=call_timeout_s,
            connect_timeout_s=connect_timeout_s,
            max_output_chars=max_output_chars,
        )

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The env's own tool schemas, then the MCP servers' (connects them if needed)."""
        return [*self.inner.tools, *self.servers.schemas]

    def _inner_tool_names(self) -> set[str]:
        return {schema["function"]["name"] for schema in self.inner.tools}

    # --- episodes ----------------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, Info]:
        if self.restart_servers == "episode":
            self.servers.restart()
        else:
            self.servers.start()
        tools = self.servers.tools
        clash = sorted(self._inner_tool_names() & {t.name for t in tools})
        if clash:
            raise ValueError(
                f"{self.env_id} and the MCP servers both offer tools named {clash}; "
                "serve them under other names"
            )
        self.budget = ToolBudget(*self.budget_limits)
        # The env's episode is drawn from this env's generator: same seed, same episode.
        seed = int(self.np_random.integers(2**62))
        observation, info = self.inner.reset(seed=seed, options=options or None)
        listing = "\n".join(f"- {t.name}: {t.description.strip()}" for t in tools)
        guide = system(
            "You can call these tools, served by MCP servers:\n"
            f"{listing}\n"
            "Call one with a native tool call or "
            '<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>; its result comes '
            f"back to you. You may make up to {self.budget.max_calls} calls. "
            "Reply without a tool call to answer."
        )
        return [guide, *observation], {**info, "env_id": self.env_id}

    def _route(self, action: Message) -> tuple[str, ParsedAction]:
        parsed = self.parser.parse(action)
        own = self._inner_tool_names()
        if parsed.tool_calls:
            if own and all(call.name in own for call in parsed.tool_calls):
                return "env", parsed
            return "tools", parsed
        tagged = action.get("tool_calls") or "<tool_call>" in (action.get("content") or "")
        if parsed.errors and tagged and not own:
            return "invalid", parsed
        return "env", parsed

    def _step(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "tools":
            tools = {t.name: t for t in self.servers.tools}
            return run_tool_turn(tools, parsed, self.budget, self.invalid_action_penalty)
        if route == "invalid":
            return self.invalid(f"malformed tool call: {parsed.error_message()}")
        return _as_step(*self.inner.step(action))

    async def _astep(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "tools":
            tools = {t.name: t for t in self.servers.async_tools}
            return await arun_tool_turn(tools, parsed, self.budget, self.invalid_action_penalty)
        if route == "invalid":
            return self.invalid(f"malformed tool call: {parsed.error_message()}")
        return _as_step(*await self.inner.astep(action))

    def oracle_action(self) -> Any:
        """The env's oracle (the tools are offered, not required)."""
        return self.inner.oracle_action()

    def best_return(self) -> float:
        """The env's best return."""
        return self.inner.best_return()

    def render_text(self) -> str:
        """The env's picture and the tool use so far."""
        return f"{self.inner.render_text()}\n\n({self.budget.used} MCP tool calls used)"

    def close(self) -> None:
        """Stops the MCP servers and closes the env (safe to call twice)."""
        self.servers.close()
        self.inner.close()
        super().close()


def _as_step(
    observation: Observation, reward: float, terminated: bool, truncated: bool, info: Info
) -> Step:
    """The inner env's step as this env's `Step` (its reward parts, status and mask kept)."""
    parts = dict(info["reward_parts"])
    info = {k: v for k, v in info.items() if k not in ("reward_parts", "turn")}
    return Step(observation, parts, terminated, truncated, info)
