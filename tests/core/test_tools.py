"""Tools: schemas from signatures, checked calls, budgets, ToolEnv and ToolExecution."""

from __future__ import annotations

from typing import Literal

import pytest

import palaestra
from palaestra.errors import InfrastructureError
from palaestra.parsers import ToolCall, parse_action
from palaestra.tools import ToolBudget, acall_tool, call_tool, run_tool_turn, tool
from palaestra.wrappers import ToolExecution


@tool
def lookup(
    term: str, limit: int = 3, mode: Literal["exact", "fuzzy"] = "exact", note: str | None = None
) -> str:
    """Looks a term up.

    Args:
        term: What to look up.
        limit: How many results
            to return at most.
        mode: Matching mode.
        note: Free text.
    """
    return f"{term}:{limit}:{mode}"


@tool(max_output_chars=10)
def chatty() -> str:
    """Talks a lot."""
    return "x" * 100


@tool
def broken_service() -> str:
    """Its server is down."""
    raise InfrastructureError("search server unreachable")


TOOLS = {t.name: t for t in (lookup, chatty, broken_service)}


def test_schema_comes_from_signature_and_docstring():
    schema = lookup.schema()["function"]
    assert schema["name"] == "lookup" and schema["description"] == "Looks a term up."
    properties = schema["parameters"]["properties"]
    assert properties["term"] == {"type": "string", "description": "What to look up."}
    assert properties["limit"]["description"] == "How many results to return at most."
    assert properties["mode"]["enum"] == ["exact", "fuzzy"]
    assert properties["note"]["type"] == "string"
    assert schema["parameters"]["required"] == ["term"]


def test_tool_definitions_are_checked():
    with pytest.raises(TypeError, match="annotation"):
        tool(lambda x: x)

    def star(*args: int) -> str:
        return ""

    with pytest.raises(TypeError, match=r"\*args"):
        tool(star)


@pytest.mark.parametrize(
    "call, fragment",
    [
        (ToolCall("nope", {}), "unknown tool"),
        (ToolCall("lookup", {}), "missing argument"),
        (ToolCall("lookup", {"term": "a", "colour": 1}), "unknown argument"),
        (ToolCall("lookup", {"term": 5}), "must match"),
        (ToolCall("lookup", {"term": "a", "limit": True}), "must match"),
        (ToolCall("lookup", {"term": "a", "mode": "loose"}), "must match"),
    ],
)
def test_model_mistakes_become_error_text(call, fragment):
    result = call_tool(TOOLS, call)
    assert not result.ok and fragment in result.content


def test_outputs_are_capped():
    result = call_tool(TOOLS, ToolCall("chatty", {}))
    assert result.ok and result.truncated and "90 more characters cut" in result.content


def test_infrastructure_errors_propagate():
    with pytest.raises(InfrastructureError):
        call_tool(TOOLS, ToolCall("broken_service", {}))


async def _async_call():
    return await acall_tool(TOOLS, ToolCall("lookup", {"term": "q", "limit": 1}))


def test_async_call():
    import asyncio

    assert asyncio.run(_async_call()).content == "q:1:exact"


def test_budget_refuses_and_then_truncates():
    budget = ToolBudget(max_calls=2, max_calls_per_turn=2)
    three = parse_action(
        "".join(
            '<tool_call>{"name": "lookup", "arguments": {"term": "a"}}</tool_call>'
            for _ in range(3)
        )
    )
    step = run_tool_turn(TOOLS, three, budget)
    assert step.info["tool_calls"] == 2 and step.info["tool_refused"] == 1 and not step.truncated
    assert "budget is spent" in step.observation[-1]["content"]
    step = run_tool_turn(
        TOOLS,
        parse_action('<tool_call>{"name": "lookup", "arguments": {"term": "b"}}</tool_call>'),
        budget,
    )
    assert step.truncated and step.info["truncation"] == "tool_budget"


def test_a_turn_of_failed_calls_is_invalid():
    step = run_tool_turn(
        TOOLS,
        parse_action('<tool_call>{"name": "nope", "arguments": {}}</tool_call>'),
        ToolBudget(),
    )
    assert step.info["invalid_action"] and step.reward_parts == {"invalid": -0.1}


def test_tool_execution_wrapper_gives_any_env_tools():
    from palaestra.envs.tools.calculator import calculator

    env = ToolExecution(palaestra.make("Arithmetic-v0"), tools=[calculator], max_calls=3)
    assert [t["function"]["name"] for t in env.tools] == ["calculator"]
    observation, info = env.reset(seed=4)
    expression = env.unwrapped.expression
    observation, reward, terminated, truncated, info = env.step(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {
                        "name": "calculator",
                        "arguments": f'{{"expression": "{expression}"}}',
                    },
                }
            ],
        }
    )
    assert observation[0]["role"] == "tool" and observation[0]["tool_call_id"] == "t1"
    assert int(observation[0]["content"]) == env.unwrapped.value and not (terminated or truncated)
    observation, reward, terminated, truncated, info = env.step(
        f"<answer>{observation[0]['content']}</answer>"
    )
    assert terminated and reward == 1.0 and info["success"]


def test_tool_execution_masks_a_tool_whose_infrastructure_failed():
    import asyncio

    call = '<tool_call>{"name": "broken_service", "arguments": {}}</tool_call>'
    env = ToolExecution(palaestra.make("Arithmetic-v0"), tools=[broken_service])
    env.reset(seed=1)
    observation, reward, terminated, truncated, info = env.step(call)
    assert truncated and not terminated and reward == 0.0
    assert info["status"] == "error" and info["mask"] is True
    assert "search server unreachable" in info["error"]
    env.reset(seed=1)
    *_, truncated, info = asyncio.run(env.astep(call))
    assert truncated and info["status"] == "error" and info["mask"] is True


def test_a_tool_may_check_its_own_arguments():
    import dataclasses

    class Strict(type(lookup)):
        def check(self, arguments):
            return None if arguments.get("term") == "ok" else "term must be 'ok'"

    strict = Strict(**{f.name: getattr(lookup, f.name) for f in dataclasses.fields(lookup)})
    refused = call_tool({"lookup": strict}, ToolCall("lookup", {"term": "other"}))
    assert not refused.ok and refused.content == "Error: term must be 'ok'"
    assert call_tool({"lookup": strict}, ToolCall("lookup", {"term": "ok"})).content == "ok:3:exact"


def test_calculator_evaluator_is_safe():
    from palaestra.envs.tools.calculator import evaluate

    assert evaluate("2 ** 10 - (3 * 4) // 5") == 1022
    for hostile in [
        "__import__('os').system('true')",
        "9**9**9**9",
        "(10**200)**1000",
        "x + 1",
        "1" * 600,
        "'a' * 3",
    ]:
        with pytest.raises(ValueError):
            evaluate(hostile)
    with pytest.raises(ZeroDivisionError):
        evaluate("1 / 0")
