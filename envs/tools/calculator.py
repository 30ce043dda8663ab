"""Calculator: multiply and add large numbers with a calculator tool (the tool-use exemplar).

The task:
    A word problem whose arithmetic is too long to do reliably by hand, e.g. "A depot
    ships 4821 crates of 9172 bolts and returns 3334 bolts. How many bolts left?". The
    model may call ``calculator(expression)`` as often as its budget allows, then answers.

Observation:
    The problem; then a tool message per calculator call.

Action:
    Either tool calls (native ``tool_calls``, or Hermes
    ``<tool_call>{"name": "calculator", "arguments": {"expression": "..."}}</tool_call>``),
    or the final answer as ``<answer>INTEGER</answer>``.

Reward (``info["reward_parts"]``):
    ``tool``: 0 for a tool turn (tools are free; the budget caps them).
    ``outcome``: `CORRECT_REWARD` for the right final integer, else 0.
    ``invalid``: `INVALID_ACTION_PENALTY` for a malformed tool call.

Episode end:
    Terminated on the final answer; truncated when calls continue past the tool budget
    (or by `TurnLimit`).

Arguments:
    level: 1-10; numbers have ``2 + level // 2`` digits and the problem ``2 + level // 3``
        operations.
    max_tool_calls: Calculator calls allowed per episode.

Version history:
    v0: first version.
"""

from __future__ import annotations

import ast
import json
import operator
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, Message, Step, user
from palaestra.envs.tasks.arithmetic.arithmetic import ANSWER_FORMAT, extract_integer
from palaestra.parsers import ParsedAction
from palaestra.tools import Tool, ToolEnv, tool
from palaestra.verdict import Status, Verdict

CORRECT_REWARD = 1.0
MAX_EXPRESSION_CHARS = 500
MAX_RESULT_DIGITS = 200
MAX_EXPONENT = 1000

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def evaluate(expression: str) -> int | float:
    """Evaluates an arithmetic expression safely (numbers, + - * / // % **, parentheses).

    Nothing is executed: the expression is parsed into a syntax tree and only numeric
    literals and those operators are interpreted, with caps on length, exponents and
    result size so that no expression can hang the caller.

    Raises:
        ValueError: The expression is too long, not arithmetic, or too large.
        ZeroDivisionError: It divides by zero.
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(
            expression.replace("^", "**").replace("×", "*").replace("÷", "/"), mode="eval"
        )
    except SyntaxError as e:
        raise ValueError(f"not an arithmetic expression: {e.msg}") from e
    return _eval(tree.body)


def _eval(node: ast.AST) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ValueError(f"exponents above {MAX_EXPONENT} are not supported")
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, int) and result.bit_length() > MAX_RESULT_DIGITS * 3.33:
            raise ValueError(f"the result has more than {MAX_RESULT_DIGITS} digits")
        if isinstance(result, complex):
            raise ValueError("the result is not a real number")
        return result
    raise ValueError(
        f"unsupported element {type(node).__name__}; use numbers and + - * / // % ** ( )"
    )


@tool
def calculator(expression: str) -> str:
    """Evaluates an arithmetic expression exactly (integers stay exact).

    Args:
        expression: Numbers with + - * / // % ** and parentheses, e.g. "4821 * 9172 - 3334".
    """
    return str(evaluate(expression))


_STORIES = [
    ("A depot ships {a} crates holding {b} bolts each", "bolts"),
    ("A farm plants {a} rows of {b} seedlings each", "seedlings"),
    ("A printer makes {a} boxes of {b} labels each", "labels"),
]


class CalculatorEnv(ToolEnv):
    """Word problems with long arithmetic and a calculator tool; see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(self, level: int = 3, max_tool_calls: int = 8):
        if not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"level must be an integer from 1 to 10, got {level!r}")
        super().__init__(max_tool_calls=max_tool_calls)
        self.level = level
        self.expression, self.value = "", 0

    def available_tools(self) -> list[Tool]:
        """The calculator."""
        return [calculator]

    def _reset_task(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"CalculatorEnv.reset takes no options, got {sorted(options)}")
        rng = self.np_random
        digits = 2 + self.level // 2
        low, high = 10 ** (digits - 1), 10**digits
        a, b = (int(x) for x in rng.integers(low, high, size=2))
        story, unit = _STORIES[int(rng.integers(0, len(_STORIES)))]
        sentences, expression = [story.format(a=a, b=b) + "."], f"{a} * {b}"
        for _ in range(self.level // 3 + 1):
            amount = int(rng.integers(low, high))
            if rng.random() < 0.5:
                sentences.append(f"Then {amount} more {unit} arrive.")
                expression += f" + {amount}"
            else:
                sentences.append(f"Then {amount} {unit} are lost.")
                expression += f" - {amount}"
        self.expression, self.value = expression, int(evaluate(expression))
        prompt = (
            " ".join(sentences)
            + f" How many {unit} are there now? You may use the calculator tool. "
            + ANSWER_FORMAT
        )
        return [user(prompt)], {"level": self.level, "reference": self.value}

    def _answer(self, action: Message, parsed: ParsedAction) -> Step:
        answer, status, reason = extract_integer(action.get("content") or "")
        if status is Status.CORRECT and answer != self.value:
            status, reason = Status.INCORRECT, f"{answer} is wrong"
        score = CORRECT_REWARD if status is Status.CORRECT else 0.0
        verdict = Verdict(
            score,
            status,
            answer=answer,
            reference=self.value,
            reason=reason or "correct",
            verifier="integer",
        )
        return self.finish(verdict)

    def oracle_action(self) -> str:
        """First the calculator on the whole expression, then its result as the answer."""
        if self.budget.used == 0:
            call = {"name": "calculator", "arguments": {"expression": self.expression}}
            return f"<tool_call>{json.dumps(call)}</tool_call>"
        return f"<answer>{self.value}</answer>"

    def render_text(self) -> str:
        """The expression behind the story."""
        return f"{self.expression} = ?  ({self.budget.used} calculator calls used)"
