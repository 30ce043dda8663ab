"""Tools an environment offers to the model: a schema for the chat template, a function to run.

    @tool
    def calculator(expression: str) -> str:
        '''Evaluates an arithmetic expression.

Args:
            expression: The expression, e.g. "(3 + 4) * 12".
        '''

`tool` derives the JSON schema from the signature and the Google-style docstring.
`call_tool` checks a parsed `ToolCall` against the schema, runs it, caps its output, and
turns the model's mistakes (unknown tool, bad arguments, an exception raised by the tool)
into an error message for the model. Only `InfrastructureError` escapes: the env masks
the episode.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from palaestra.core import (
    INVALID_ACTION_PENALTY,
    Env,
    Info,
    Message,
    Observation,
    Step,
    tool_message,
    user,
)
from palaestra.errors import InfrastructureError
from palaestra.parsers import ParsedAction, ToolCall, ToolCallParser, get_parser

DEFAULT_MAX_OUTPUT_CHARS = 8_000

_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
}


@dataclasses.dataclass(frozen=True)
class Tool:
    """A function the model may call.

    Attributes:
        name: The name the model calls it by.
        description: What it does, for the model.
        parameters: A JSON schema of type ``object`` for its arguments.
        fn: The function (sync or async) taking the arguments as keywords, returning text.
        max_output_chars: Longer outputs are cut, with a note saying how much was cut.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., str | Awaitable[str]]
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS

    def check(self, arguments: Mapping[str, Any]) -> str | None:
        """Returns a message describing what is wrong with ``arguments``, or None.

        Checks the common subset of JSON schema that `tool` writes; tools whose schemas come
        from elsewhere (an MCP server's) override it with a full validator.
        """
        return check_arguments(self, arguments)

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclasses.dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call.

    Attributes:
        call: The call that was run.
        content: The text the model sees (output, or an error message).
        ok: False when the call was malformed or the tool raised.
        truncated: True when the output was cut.
    """

    call: ToolCall
    content: str
    ok: bool
    truncated: bool = False


def _json_type(annotation: Any) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return _json_type(options[0])
        return {"anyOf": [_json_type(a) for a in options]}
    if origin is typing.Literal:
        values = list(typing.get_args(annotation))
        return {"enum": values}
    base = origin or annotation
    if base in _JSON_TYPES:
        return {"type": _JSON_TYPES[base]}
    raise TypeError(
        f"tool parameters must be annotated with str, int, float, bool, list, dict, Literal or "
        f"Optional of those; got {annotation!r}"
    )


def _docstring_parts(doc: str) -> tuple[str, dict[str, str]]:
    """Splits a Google-style docstring into a summary and per-argument descriptions."""
    doc = inspect.cleandoc(doc or "")
    summary = doc.split("\n\n", 1)[0].strip()
    arguments: dict[str, str] = {}
    match = re.search(r"^Args:\s*\n(.*?)(?:\n\S|\Z)", doc, flags=re.S | re.M)
    if match:
        current = None
        for line in match.group(1).splitlines():
            item = re.match(r"\s+(\w+)(?:\s*\(.*?\))?:\s*(.*)", line)
            if item and len(line) - len(line.lstrip()) <= 4:
                current = item.group(1)
                arguments[current] = item.group(2).strip()
            elif current and line.strip():
                arguments[current] += " " + line.strip()
    return summary, arguments


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> Any:
    """Makes a `Tool` from a typed, documented function (usable with or without arguments)."""

    def build(function: Callable[..., Any]) -> Tool:
        hints = typing.get_type_hints(function)
        summary, descriptions = _docstring_parts(function.__doc__ or "")
        properties, required = {}, []
        for parameter in inspect.signature(function).parameters.values():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                raise TypeError(f"tool {function.__name__} may not take *args or **kwargs")
            if parameter.name not in hints:
                raise TypeError(
                    f"tool {function.__name__}: parameter {parameter.name!r} "
                    "needs a type annotation"
                )
            prop = _json_type(hints[parameter.name])
            if parameter.name in descriptions:
                prop["description"] = descriptions[parameter.name]
            properties[parameter.name] = prop
            if parameter.default is inspect.Parameter.empty:
                required.append(parameter.name)
        schema = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        return Tool(name or function.__name__, summary, schema, function, max_output_chars)

    return build if fn is None else build(fn)


def _type_ok(value: Any, schema: Mapping[str, Any]) -> bool:
    if "anyOf" in schema:
        return any(_type_ok(value, option) for option in schema["anyOf"])
    if "enum" in schema:
        return value in schema["enum"]
    expected = schema.get("type")
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected is None:
        return True
    python = {"string": str, "boolean": bool, "array": list, "object": dict}[expected]
    return isinstance(value, python)


def check_arguments(tool_: Tool, arguments: Mapping[str, Any]) -> str | None:
    """Returns a message describing what is wrong with ``arguments``, or None."""
    properties = tool_.parameters.get("properties", {})
    unknown = sorted(set(arguments) - set(properties))
    if unknown and tool_.parameters.get("additionalProperties") is False:
        return f"unknown argument(s) {unknown} for {tool_.name}; it takes {sorted(properties)}"
    missing = [n for n in tool_.parameters.get("required", []) if n not in arguments]
    if missing:
        return f"missing argument(s) {missing} for {tool_.name}"
    for key, value in arguments.items():
        if key in properties and not _type_ok(value, properties[key]):
            return (
                f"argument {key!r} of {tool_.name} must match {properties[key]}, "
                f"got {type(value).__name__}"
            )
    return None


def cap_output(text: str, limit: int) -> tuple[str, bool]:
    """Cuts ``text`` to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n[... {len(text) - limit:,} more characters cut]", True


def _lookup(tools: Mapping[str, Tool], call: ToolCall) -> Tool | str:
    if call.name not in tools:
        return f"Error: unknown tool {call.name!r}; available tools: {sorted(tools)}"
    problem = tools[call.name].check(call.arguments)
    return f"Error: {problem}" if problem else tools[call.name]


def _result(call: ToolCall, tool_: Tool, output: Any) -> ToolResult:
    content, truncated = cap_output(
        output if isinstance(output, str) else str(output), tool_.max_output_chars
    )
    return ToolResult(call, content, ok=True, truncated=truncated)


def call_tool(tools: Mapping[str, Tool], call: ToolCall) -> ToolResult:
    """Runs one call. Model mistakes become error text; `InfrastructureError` propagates."""
    found = _lookup(tools, call)
    if isinstance(found, str):
        return ToolResult(call, found, ok=False)
    try:
        output = found.fn(**call.arguments)
        if inspect.isawaitable(output):
            raise TypeError(f"tool {found.name} is async; use acall_tool")
    except InfrastructureError:
        raise
    except Exception as e:  # the tool rejected the model's input: the model sees why
        return ToolResult(call, f"Error: {type(e).__name__}: {e}", ok=False)
    return _result(call, found, output)


async def acall_tool(tools: Mapping[str, Tool], call: ToolCall) -> ToolResult:
    """The async twin of `call_tool`; sync tools run in a worker thread."""
    found = _lookup(tools, call)
    if isinstance(found, str):
        return ToolResult(call, found, ok=False)
    try:
        if inspect.iscoroutinefunction(found.fn):
            output = await found.fn(**call.arguments)
        else:
            output = await asyncio.to_thread(found.fn, **call.arguments)
    except InfrastructureError:
        raise
    except Exception as e:  # the tool rejected the model's input: the model sees why
        return ToolResult(call, f"Error: {type(e).__name__}: {e}", ok=False)
    return _result(call, found, output)


# --- tool turns: shared by ToolEnv and the ToolExecution wrapper ---------------------------


@dataclasses.dataclass
class ToolBudget:
    """Per-episode limits on tool use.

    Attributes:
        max_calls: Calls allowed per episode; calling past it ends the episode.
        max_calls_per_turn: Calls run per turn; the rest are refused with a message.
        used: Calls made so far this episode.
    """

    max_calls: int = 16
    max_calls_per_turn: int = 4
    used: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.max_calls, int) or self.max_calls < 0:
            raise ValueError(f"max_calls must be an integer >= 0, got {self.max_calls!r}")
        if self.max_calls_per_turn < 1:
            raise ValueError(f"max_calls_per_turn must be >= 1, got {self.max_calls_per_turn}")

    def take(self, wanted: int) -> int:
        """How many of ``wanted`` calls may run now (and books them)."""
        left = max(0, self.max_calls - self.used)
        granted = min(wanted, left, self.max_calls_per_turn)
        self.used += granted
        return granted


def _tool_step(
    parsed: ParsedAction, results: list[ToolResult], refused: list[ToolCall], penalty: float
) -> Step:
    observation = [tool_message(r.call.id, r.content, r.call.name) for r in results]
    for call in refused:
        observation.append(
            tool_message(
                call.id, "Error: the tool-call budget is spent; give your final answer.", call.name
            )
        )
    if parsed.errors:
        observation.append(user(f"Some tool calls were malformed: {parsed.error_message()}"))
    info = {
        "tool_calls": len(results),
        "tool_errors": sum(not r.ok for r in results) + len(parsed.errors),
        "tool_refused": len(refused),
        "tool_output_truncated": any(r.truncated for r in results),
    }
    # Calling tools after the budget is spent ends the episode: a policy that never
    # answers cannot loop forever, whatever wrappers surround the env.
    if refused and not results:
        info.update(truncation="tool_budget", success=False)
        return Step(observation, {"tool": 0.0}, truncated=True, info=info)
    # A turn whose every call was the model's mistake is an invalid action.
    if results and not any(r.ok for r in results):
        info.update(invalid_action=True, invalid_reason="every tool call failed")
        return Step(observation, {"invalid": penalty}, info=info)
    return Step(observation, {"tool": 0.0}, info=info)


def run_tool_turn(
    tools: Mapping[str, Tool],
    parsed: ParsedAction,
    budget: ToolBudget,
    penalty: float = INVALID_ACTION_PENALTY,
) -> Step:
    """Runs a turn's tool calls within the budget and returns the env's `Step`.

    The observation holds one tool message per call (refused calls say why) and, if some
    calls were malformed, a user message explaining the parse errors. A turn where every
    call failed (unknown tool, bad arguments, the tool rejected its input) is an invalid
    action charged ``penalty``; calling past the budget truncates the episode.
    """
    granted = budget.take(len(parsed.tool_calls))
    results = [call_tool(tools, call) for call in parsed.tool_calls[:granted]]
    return _tool_step(parsed, results, list(parsed.tool_calls[granted:]), penalty)


async def arun_tool_turn(
    tools: Mapping[str, Tool],
    parsed: ParsedAction,
    budget: ToolBudget,
    penalty: float = INVALID_ACTION_PENALTY,
) -> Step:
    """The async twin of `run_tool_turn` (calls run one after another: tools may be stateful)."""
    granted = budget.take(len(parsed.tool_calls))
    results = [await acall_tool(tools, call) for call in parsed.tool_calls[:granted]]
    return _tool_step(parsed, results, list(parsed.tool_calls[granted:]), penalty)


class ToolEnv(Env):
    """An env where the model may call tools for some turns, then gives a final answer.

    A turn with tool calls runs them (within a `ToolBudget`) and answers with tool
    messages; a turn with only malformed calls is an invalid action; any other turn is the
    final answer, scored by `_answer`.

    Subclasses implement `available_tools`, `_reset_task` and `_answer` (and the oracle).

    Args:
        max_tool_calls: Tool calls allowed per episode.
        max_calls_per_turn: Tool calls run per turn.
        tool_parser: The named parser for tool calls in text (``"auto"``: native
            ``tool_calls``, else Hermes ``<tool_call>`` tags).
    """

    def __init__(
        self,
        *,
        max_tool_calls: int = 16,
        max_calls_per_turn: int = 4,
        tool_parser: str = "auto",
    ):
        self._budget_limits = (max_tool_calls, max_calls_per_turn)
        self.budget = ToolBudget(max_tool_calls, max_calls_per_turn)
        self.parser: ToolCallParser = get_parser(tool_parser)

    def available_tools(self) -> list[Tool]:
        """The tools offered in this episode."""
        raise NotImplementedError(f"{type(self).__name__} must implement available_tools()")

    @property
    def tools(self) -> list[dict[str, Any]]:
        """JSON schemas of the offered tools."""
        return [t.schema() for t in self.available_tools()]

    def _reset_task(self, options: dict[str, Any]) -> tuple[Observation, Info]:
        raise NotImplementedError(f"{type(self).__name__} must implement _reset_task(options)")

    def _answer(self, action: Message, parsed: ParsedAction) -> Step:
        raise NotImplementedError(f"{type(self).__name__} must implement _answer(action, parsed)")

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, Info]:
        self.budget = ToolBudget(*self._budget_limits)
        return self._reset_task(options)

    def _route(self, action: Message) -> tuple[str, ParsedAction]:
        parsed = self.parser.parse(action)
        if parsed.tool_calls:
            return "tools", parsed
        if parsed.errors and (
            action.get("tool_calls") or "<tool_call>" in (action.get("content") or "")
        ):
            return "invalid", parsed
        return "answer", parsed

    def _step(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "tools":
            tools = {t.name: t for t in self.available_tools()}
            return run_tool_turn(tools, parsed, self.budget, self.invalid_action_penalty)
        if route == "invalid":
            return self.invalid(f"malformed tool call: {parsed.error_message()}")
        return self._answer(action, parsed)

    async def _astep(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "tools":
            tools = {t.name: t for t in self.available_tools()}
            return await arun_tool_turn(tools, parsed, self.budget, self.invalid_action_penalty)
        if route == "invalid":
            return self.invalid(f"malformed tool call: {parsed.error_message()}")
        return await asyncio.to_thread(self._answer, action, parsed)
