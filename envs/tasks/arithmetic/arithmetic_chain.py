r"""Arithmetic chains: the exact value of an expression with parentheses, fractions and decimals.

The task:
    "Compute the exact value of (3/4 + 2.5) × (7 − (−2/3)) ÷ 5." Operands are integers,
    fractions written ``(p/q)`` and decimals; × and ÷ bind tighter than + and −.

Observation:
    One user message: the expression and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one exact number, written as an
    integer, a fraction ``p/q`` (reduced or not, or ``\\frac{p}{q}``) or a terminating decimal.
    Equality is decided by the ``numeric`` verifier with exact rules: a decimal must equal
    the value exactly (so a value like 1/3 can only be given as a fraction). Expressions,
    lists and words in the slot are malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the value is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from 3 operands up to 10, integers from 20 up to 60, with parentheses from level 2,
        division from 3, fraction operands from 4, decimals from 5 and negatives from 6.
    num_operands, max_int, parentheses, division, fractions, decimals, negatives: Override
        what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from fractions import Fraction
from typing import Any

import numpy as np

from palaestra.envs.tasks.answers import decimal_text, number_text, parse_number, same_number
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

MAX_NUMERATOR = 10**9
MAX_DENOMINATOR = 10**5
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}
_SHOWN = {"+": "+", "-": "−", "*": "×", "/": "÷"}


@dataclasses.dataclass(frozen=True)
class ArithmeticChainConfig:
    """Knobs.

    Attributes:
        num_operands: How many numbers the expression has (2 to 16).
        max_int: Largest integer operand (and numerator of fraction operands).
        parentheses: Whether sub-expressions are grouped (else a flat chain with precedence).
        division: Whether ÷ appears.
        fractions: Whether fraction operands ``(p/q)`` appear.
        decimals: Whether decimal operands appear.
        negatives: Whether negative operands appear.
    """

    num_operands: int = 3
    max_int: int = 10
    parentheses: bool = False
    division: bool = False
    fractions: bool = False
    decimals: bool = False
    negatives: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.num_operands, int) or not 2 <= self.num_operands <= 16:
            raise ValueError(
                f"num_operands must be an integer from 2 to 16, got {self.num_operands!r}"
            )
        if not isinstance(self.max_int, int) or not 2 <= self.max_int <= 10**6:
            raise ValueError(f"max_int must be an integer from 2 to 1000000, got {self.max_int!r}")
        for name in ("parentheses", "division", "fractions", "decimals", "negatives"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")


Node = Any  # a leaf (value, text) or an operator node (op, left, right)


def _leaf(rng: np.random.Generator, config: ArithmeticChainConfig) -> tuple[Fraction, str]:
    kinds = ["int"] + ["fraction"] * config.fractions + ["decimal"] * config.decimals
    kind = kinds[int(rng.integers(len(kinds)))]
    negative = config.negatives and rng.random() < 0.3
    if kind == "int":
        value = Fraction(int(rng.integers(1, config.max_int + 1)))
        text = str(value)
    elif kind == "fraction":
        q = int(rng.integers(2, 10))
        p = int(rng.integers(1, min(config.max_int, 3 * q) + 1))
        while math.gcd(p, q) != 1 or p % q == 0:
            p += 1
        value, text = Fraction(p, q), f"{p}/{q}"
    else:
        places = int(rng.integers(1, 3))
        scaled = int(rng.integers(1, config.max_int * 10**places))
        while scaled % 10 == 0:
            scaled += 1
        value = Fraction(scaled, 10**places)
        text = decimal_text(value)
    if negative:
        value, text = -value, f"−{text}"
    if negative or kind == "fraction":
        text = f"({text})"
    return value, text


def _tree(rng: np.random.Generator, config: ArithmeticChainConfig, n: int, ops: list[str]) -> Node:
    if n == 1:
        return _leaf(rng, config)
    k = int(rng.integers(1, n))
    op = ops[int(rng.integers(len(ops)))]
    return (op, _tree(rng, config, k, ops), _tree(rng, config, n - k, ops))


def _chain(rng: np.random.Generator, config: ArithmeticChainConfig, n: int, ops: list[str]) -> Node:
    """A flat chain: terms joined by + and −, each a left-to-right run of × and ÷."""
    additive = [o for o in ops if o in "+-"]
    multiplicative = [o for o in ops if o in "*/"]
    node = _leaf(rng, config)
    term = node
    for _ in range(n - 1):
        if multiplicative and rng.random() < 0.4:
            op = multiplicative[int(rng.integers(len(multiplicative)))]
            new_term = (op, term, _leaf(rng, config))
            node = new_term if node is term else (node[0], node[1], new_term)
            term = new_term
        else:
            op = additive[int(rng.integers(len(additive)))]
            term = _leaf(rng, config)
            node = (op, node, term)
    return node


def evaluate(node: Node) -> Fraction:
    """The exact value of a tree; raises ZeroDivisionError or OverflowError when out of range."""
    if len(node) == 2:
        return node[0]
    op, left, right = node
    a, b = evaluate(left), evaluate(right)
    value = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
    if abs(value.numerator) > MAX_NUMERATOR or value.denominator > MAX_DENOMINATOR:
        raise OverflowError("intermediate value too large")
    return value


def render(node: Node, parent: str | None = None, right: bool = False) -> str:
    """The expression text, parenthesised only where precedence needs it."""
    if len(node) == 2:
        return node[1]
    op, left, right_node = node
    text = f"{render(left, op, False)} {_SHOWN[op]} {render(right_node, op, True)}"
    if parent is not None and (
        _PRECEDENCE[op] < _PRECEDENCE[parent] or (right and _PRECEDENCE[op] == _PRECEDENCE[parent])
    ):
        text = f"({text})"
    return text


def _digit_work(node: Node) -> int:
    if len(node) == 2:
        return 0
    _, left, right = node
    value_digits = sum(
        len(str(abs(x.numerator))) + len(str(x.denominator))
        for x in (evaluate(left), evaluate(right))
    )
    return _digit_work(left) + _digit_work(right) + value_digits


def _python_value(text: str) -> Fraction:
    """Evaluates generated expression text with Python's own parser (never model text)."""
    source = text.replace("×", "*").replace("÷", "/").replace("−", "-")
    tree = ast.parse(source, mode="eval")

    def walk(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant):
            return Fraction(ast.get_source_segment(source, node))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = walk(node.left), walk(node.right)
            ops = {
                ast.Add: a.__add__,
                ast.Sub: a.__sub__,
                ast.Mult: a.__mul__,
                ast.Div: a.__truediv__,
            }
            return ops[type(node.op)](b)
        raise ValueError(f"unexpected node {ast.dump(node)}")

    return walk(tree)


class ArithmeticChainTask(Task[ArithmeticChainConfig]):
    """Evaluate an expression exactly."""

    name = "arithmetic_chain"
    Config = ArithmeticChainConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> ArithmeticChainConfig:
        """More and larger operands, then parentheses, division, fractions, decimals, negatives."""
        operands = (3, 4, 5, 5, 6, 6, 7, 8, 9, 10)[level - 1]
        return ArithmeticChainConfig(
            num_operands=operands,
            max_int=(20, 20, 20, 25, 25, 30, 35, 40, 50, 60)[level - 1],
            parentheses=level >= 2,
            division=level >= 3,
            fractions=level >= 4,
            decimals=level >= 5,
            negatives=level >= 6,
        )

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random tree (or flat chain) whose value stays within the size caps."""
        ops = ["+", "-", "*"] + ["/"] * self.config.division
        for _ in range(1000):
            build = _tree if self.config.parentheses else _chain
            node = build(rng, self.config, self.config.num_operands, ops)
            try:
                value = evaluate(node)
            except (ZeroDivisionError, OverflowError):
                continue
            break
        else:  # pragma: no cover - the caps are far from binding at every level
            raise RuntimeError("arithmetic_chain: no expression within the size caps in 1000 draws")
        text = render(node)
        prompt = (
            "Compute the exact value of the expression below. × is multiplication, ÷ is division, "
            "and × and ÷ bind tighter than + and −.\n\n"
            f"{text}\n\n"
            "Give the value as one exact number: an integer, a fraction p/q (e.g. -7/3) or a "
            f"terminating decimal (e.g. 0.25), with no other text. {ANSWER_FORMAT}"
        )
        return Problem(prompt, number_text(value), {"expression": text, "work": _digit_work(node)})

    def solve(self, problem: Problem) -> str:
        """The value computed when the expression was built."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One exact number equal to the value (the ``numeric`` verifier, exact rules)."""
        value = parse_number(answer)
        if value is None:
            return self.malformed(
                answer, problem, f"{answer[:40]!r} is not one number (integer, p/q or decimal)"
            )
        expected = Fraction(problem.reference)
        if not same_number(answer, expected):
            return self.wrong(answer, problem, f"{answer} is not the value {problem.reference}")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Python's parser evaluates the printed expression (checks the rendering too)."""
        return Certificate(
            1 if _python_value(problem.data["expression"]) == Fraction(problem.reference) else 0
        )

    def mutations(self, problem: Problem) -> list[str]:
        """Off by one, the negation, the reciprocal and a bumped numerator."""
        value = Fraction(problem.reference)
        out = [value + 1, value - 1]
        if value:
            out.append(-value)
        if value not in (0, 1, -1):
            out.append(1 / value)
        if value.denominator > 1:
            out.append(Fraction(value.numerator + 1, value.denominator))
        return [number_text(v) for v in out if v != value]

    def alternatives(self, problem: Problem) -> list[str]:
        """An unreduced fraction, the LaTeX fraction and the exact decimal where it terminates."""
        value = Fraction(problem.reference)
        out = [
            f"{2 * value.numerator}/{2 * value.denominator}",
            rf"\frac{{{value.numerator}}}{{{value.denominator}}}",
        ]
        if value < 0:
            out[1] = rf"-\frac{{{-value.numerator}}}{{{value.denominator}}}"
        decimal = decimal_text(value)
        if decimal is not None:
            out.append(decimal if value.denominator > 1 else f"{decimal}.0")
        return out

    def work(self, problem: Problem) -> float:
        """Digits handled: the digits of both operands of every operation."""
        return float(problem.data["work"])


class ArithmeticChainEnv(TaskEnv):
    """Evaluate an expression exactly; see the module docstring."""

    task_class = ArithmeticChainTask
