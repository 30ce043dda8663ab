"""Countdown: reach a target with the given numbers, each at most once, and + − × ÷.

The task:
    "Using the numbers 25, 3, 7, 1 and 9 (each at most once), make 188." Any valid expression
    scores: the checker parses it, checks the numbers it uses and evaluates it exactly.

Observation:
    One user message: the numbers, the target, the rules and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one expression of the given
    numbers with ``+ - * /`` (``×``, ``÷``, ``x`` are accepted too) and parentheses, optionally
    followed by ``= <target>``. A minus sign may also negate a number or a bracket
    (``-(3 - 20)``), as the prompt says; no concatenating digits, no other numbers. Division
    is exact: intermediate results may be fractions. The expression is parsed by a small
    recursive-descent parser (never evaluated as code).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the expression uses only the given numbers (each at
    most as often as given) and equals the target, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from 3 small numbers and a two-digit target up to 7 numbers (large ones
        among them) and a three-digit target built from all of them.
    num_numbers, max_small, large, min_used, target_min, target_max: Override what the level sets.

Version history:
    v0: first version; a unary minus (``-(3 - 20)``) was refused as bad format, though the
        prompt allowed "+ - * / and parentheses".
    v1: a unary minus is accepted, and the prompt says so.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from fractions import Fraction
from typing import ClassVar

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LARGE = (25, 50, 75, 100)
MAX_TOKENS = 200
MAX_NUMBER_DIGITS = 6
_TOKEN = re.compile(r"\s*(?:(\d+)|(\\times|\\cdot|\\div|[-+*/×÷xX·()\[\]]))")
_OPS = {
    "\\times": "*",
    "\\cdot": "*",
    "×": "*",
    "x": "*",
    "X": "*",
    "·": "*",
    "\\div": "/",
    "÷": "/",
    "[": "(",
    "]": ")",
}


class ExpressionError(ValueError):
    """The answer is not an expression of the accepted form."""


def tokenize(text: str) -> list[str]:
    """Numbers and operators of an expression; raises `ExpressionError` on anything else."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ExpressionError(f"unexpected {text[pos : pos + 10]!r}")
        number, op = match.groups()
        if number is not None and len(number) > MAX_NUMBER_DIGITS:
            raise ExpressionError(f"the number {number[:12]}... is too long")
        tokens.append(number if number is not None else _OPS.get(op, op))
        pos = match.end()
        if len(tokens) > MAX_TOKENS:
            raise ExpressionError(f"more than {MAX_TOKENS} tokens")
    return tokens


def parse_expression(text: str, unary_minus: bool = True) -> tuple[Fraction, list[int]]:
    """The exact value of an arithmetic expression and the numbers it uses.

    Grammar: ``expr := term (('+'|'-') term)*``, ``term := factor (('*'|'/') factor)*``,
    ``factor := '-' factor | NUMBER | '(' expr ')'``; the ``'-' factor`` form (a unary minus)
    only with ``unary_minus``. A negated number still counts as a use of that number.

    Raises:
        ExpressionError: It does not parse, or divides by zero.
    """
    tokens = tokenize(text)
    used: list[int] = []
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise ExpressionError("the expression ends too early")
        pos += 1
        return tokens[pos - 1]

    def expr(depth: int) -> Fraction:
        value = term(depth)
        while peek() in ("+", "-"):
            op = take()
            right = term(depth)
            value = value + right if op == "+" else value - right
        return value

    def term(depth: int) -> Fraction:
        value = factor(depth)
        while peek() in ("*", "/"):
            op = take()
            right = factor(depth)
            if op == "*":
                value *= right
            elif right == 0:
                raise ExpressionError("the expression divides by zero")
            else:
                value /= right
        return value

    def factor(depth: int) -> Fraction:
        if depth > 50:
            raise ExpressionError("parentheses nest too deeply")
        token = take()
        if token == "-" and unary_minus:
            return -factor(depth + 1)
        if token == "(":
            value = expr(depth + 1)
            if take() != ")":
                raise ExpressionError("a parenthesis is not closed")
            return value
        if token.isdigit():
            used.append(int(token))
            return Fraction(int(token))
        raise ExpressionError(f"expected a number or '(', got {token!r}")

    value = expr(0)
    if pos != len(tokens):
        raise ExpressionError(f"unexpected {tokens[pos]!r} after the expression")
    return value, used


def read_answer(answer: str, target: int, unary_minus: bool = True) -> tuple[Fraction, list[int]]:
    """Parses ``expression`` or ``expression = target``; raises `ExpressionError`."""
    if answer.count("=") > 1:
        raise ExpressionError("more than one '='")
    expression, equals, stated = answer.partition("=")
    if equals and stated.strip() != str(target):
        raise ExpressionError(
            f"the expression is said to equal {stated.strip()[:20]!r}, not the target {target}"
        )
    return parse_expression(expression, unary_minus)


def check_expression(
    answer: str, numbers: list[int], target: int, exact_use: bool, unary_minus: bool = True
) -> tuple[bool, str, bool]:
    """(correct, reason, well_formed) for an expression answer against numbers and target."""
    try:
        value, used = read_answer(answer, target, unary_minus)
    except ExpressionError as e:
        return False, f"not an expression of the given numbers: {e}", False
    extra = Counter(used) - Counter(numbers)
    if extra:
        return (
            False,
            f"uses {sorted(extra.elements())} more often than given (numbers: {numbers})",
            True,
        )
    if exact_use and Counter(used) != Counter(numbers):
        missing = sorted((Counter(numbers) - Counter(used)).elements())
        return False, f"does not use every number exactly once (missing {missing})", True
    if value != target:
        return False, f"the expression equals {value}, not {target}", True
    return True, "correct", True


def _integer_search(numbers: tuple[int, ...], target: int, node_cap: int) -> tuple[str | None, int]:
    """Depth-first search over positive integer intermediate results (the fast, common case)."""
    seen: set[tuple[int, ...]] = set()
    nodes = 0

    def dfs(values: list[int], texts: list[str]) -> str | None:
        nonlocal nodes
        nodes += 1
        if nodes > node_cap:
            return None
        for value, text in zip(values, texts, strict=True):
            if value == target:
                return text
        key = tuple(sorted(values))
        if len(values) == 1 or key in seen:
            return None
        seen.add(key)
        for i in range(len(values)):
            for j in range(i + 1, len(values)):
                a, b, ta, tb = values[i], values[j], texts[i], texts[j]
                if a < b:
                    a, b, ta, tb = b, a, tb, ta
                rest_values = values[:i] + values[i + 1 : j] + values[j + 1 :]
                rest_texts = texts[:i] + texts[i + 1 : j] + texts[j + 1 :]
                options = [(a + b, f"({ta} + {tb})")]
                if a > b:
                    options.append((a - b, f"({ta} - {tb})"))
                if b != 1:
                    options.append((a * b, f"({ta} * {tb})"))
                if b > 1 and a % b == 0:
                    options.append((a // b, f"({ta} / {tb})"))
                for value, text in options:
                    found = dfs(rest_values + [value], rest_texts + [text])
                    if found is not None:
                        return found
        return None

    return dfs(list(numbers), [str(n) for n in numbers]), nodes


def _rational_search(
    numbers: tuple[int, ...], target: int, all_numbers: bool, node_cap: int
) -> tuple[str | None, int]:
    """Depth-first search over every exact rational intermediate result (complete)."""
    target_value = Fraction(target)
    seen: set[tuple[Fraction, ...]] = set()
    nodes = 0

    def dfs(items: list[tuple[Fraction, str]]) -> str | None:
        nonlocal nodes
        nodes += 1
        if nodes > node_cap:
            return None
        if not all_numbers or len(items) == 1:
            for value, text in items:
                if value == target_value:
                    return text
        key = tuple(sorted(v for v, _ in items))
        if len(items) == 1 or key in seen:
            return None
        seen.add(key)
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                (a, ta), (b, tb) = items[i], items[j]
                rest = items[:i] + items[i + 1 : j] + items[j + 1 :]
                options = [(a + b, f"({ta} + {tb})"), (a * b, f"({ta} * {tb})")]
                options += [(a - b, f"({ta} - {tb})"), (b - a, f"({tb} - {ta})")]
                if b:
                    options.append((a / b, f"({ta} / {tb})"))
                if a:
                    options.append((b / a, f"({tb} / {ta})"))
                for value, text in options:
                    found = dfs(rest + [(value, text)])
                    if found is not None:
                        return found
        return None

    return dfs([(Fraction(n), str(n)) for n in numbers]), nodes


@functools.lru_cache(maxsize=256)
def search(
    numbers: tuple[int, ...], target: int, all_numbers: bool, node_cap: int = 5_000_000
) -> tuple[str | None, int]:
    """Finds an expression for ``target``; returns (the expression or None, nodes visited).

    Positive integer intermediate results are tried first (fast, and enough for almost every
    instance); then every rational one, which makes the search complete. With
    ``all_numbers`` a solution must use every number exactly once; otherwise any subset.
    """
    nodes = 0
    if not all_numbers:
        found, nodes = _integer_search(numbers, target, node_cap)
        if found is not None:
            return _strip_outer(found), nodes
    found, more = _rational_search(numbers, target, all_numbers, node_cap)
    return (_strip_outer(found) if found is not None else None), nodes + more


def _strip_outer(text: str) -> str:
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0 and i < len(text) - 1:
            return text
    return text[1:-1]


@dataclasses.dataclass(frozen=True)
class CountdownConfig:
    """Knobs.

    Attributes:
        num_numbers: How many numbers are given (2 to 8).
        max_small: Largest small number (small numbers may repeat once).
        large: Whether large numbers (25, 50, 75, 100) may be among them.
        min_used: Fewest numbers the generator's own construction of the target uses.
        target_min: Smallest target.
        target_max: Largest target.
    """

    num_numbers: int = 3
    max_small: int = 10
    large: bool = False
    min_used: int = 2
    target_min: int = 10
    target_max: int = 50

    def __post_init__(self) -> None:
        if not isinstance(self.num_numbers, int) or not 2 <= self.num_numbers <= 8:
            raise ValueError(
                f"num_numbers must be an integer from 2 to 8, got {self.num_numbers!r}"
            )
        if not isinstance(self.max_small, int) or not 2 <= self.max_small <= 100:
            raise ValueError(f"max_small must be an integer from 2 to 100, got {self.max_small!r}")
        if not isinstance(self.large, bool):
            raise ValueError(f"large must be True or False, got {self.large!r}")
        if not isinstance(self.min_used, int) or not 2 <= self.min_used <= self.num_numbers:
            raise ValueError(
                f"min_used must be an integer from 2 to num_numbers, got {self.min_used!r}"
            )
        if (
            not isinstance(self.target_min, int)
            or not isinstance(self.target_max, int)
            or not 1 <= self.target_min < self.target_max
        ):
            raise ValueError(
                "need integers 1 <= target_min < target_max, "
                f"got {self.target_min!r}, {self.target_max!r}"
            )


def _random_expression(rng: np.random.Generator, numbers: list[int]) -> tuple[Fraction, str]:
    items = [(Fraction(n), str(n)) for n in numbers]
    while len(items) > 1:
        i, j = (int(x) for x in rng.choice(len(items), size=2, replace=False))
        (a, ta), (b, tb) = items[i], items[j]
        op = "+-*/"[int(rng.integers(4))]
        if op == "/" and b == 0:
            op = "+"
        value = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
        items = [item for k, item in enumerate(items) if k not in (i, j)] + [
            (value, f"({ta} {op} {tb})")
        ]
    value, text = items[0]
    return value, text[1:-1] if text.startswith("(") and len(numbers) > 1 else text


def _two_number_values(numbers: list[int]) -> set[Fraction]:
    out = {Fraction(n) for n in numbers}
    for i, a in enumerate(numbers):
        for j, b in enumerate(numbers):
            if i != j:
                out |= {Fraction(a + b), Fraction(a - b), Fraction(a * b)} | (
                    {Fraction(a, b)} if b else set()
                )
    return out


OPERATIONS_RULE = (
    "Use + - * / and parentheses; a minus sign may also negate a number or a bracket, "
    "as in -(3 - 20)"
)
"""What the prompts of Countdown and the 24 game allow."""


class CountdownTask(Task[CountdownConfig]):
    """Reach the target with the given numbers."""

    name = "countdown"
    Config = CountdownConfig
    unique = False
    unary_minus: ClassVar[bool] = True
    """Whether a minus sign may negate a number or a bracket."""

    @classmethod
    def level_config(cls, level: int) -> CountdownConfig:
        """More numbers, large numbers, longer constructions and larger targets."""
        table = {
            1: (3, 25, False, 2, 10, 99),
            2: (4, 15, False, 3, 10, 100),
            3: (5, 10, False, 3, 20, 150),
            4: (5, 10, False, 4, 30, 200),
            5: (5, 10, True, 4, 100, 400),
            6: (6, 10, True, 4, 100, 600),
            7: (6, 10, True, 5, 100, 999),
            8: (6, 10, True, 6, 100, 999),
            9: (7, 10, True, 6, 200, 999),
            10: (7, 10, True, 7, 300, 999),
        }
        n, small, large, used, low, high = table[level]
        return CountdownConfig(
            num_numbers=n,
            max_small=small,
            large=large,
            min_used=used,
            target_min=low,
            target_max=high,
        )

    def _numbers(self, rng: np.random.Generator) -> list[int]:
        n = self.config.num_numbers
        big = int(rng.integers(1, min(2, n - 1) + 1)) if self.config.large else 0
        large = [int(x) for x in rng.choice(LARGE, size=big, replace=False)]
        small = [
            int(x)
            for x in rng.choice(
                np.repeat(np.arange(1, self.config.max_small + 1), 2), size=n - big, replace=False
            )
        ]
        numbers = large + small
        return [numbers[int(i)] for i in rng.permutation(n)]

    def generate(self, rng: np.random.Generator) -> Problem:
        """Numbers, then a random construction over a subset of them fixes the target."""
        cfg = self.config
        for _ in range(20_000):
            numbers = self._numbers(rng)
            k = int(rng.integers(cfg.min_used, cfg.num_numbers + 1))
            subset = [numbers[int(i)] for i in rng.choice(cfg.num_numbers, size=k, replace=False)]
            value, text = _random_expression(rng, subset)
            if (
                value.denominator != 1
                or not cfg.target_min <= value <= cfg.target_max
                or value in numbers
            ):
                continue
            if cfg.min_used >= 3 and value in _two_number_values(numbers):
                continue
            break
        else:  # pragma: no cover - targets in range are common at every level
            raise RuntimeError("countdown: no target in range in 20000 draws")
        target = int(value)
        return Problem(self.prompt(numbers, target), text, {"numbers": numbers, "target": target})

    def prompt(self, numbers: list[int], target: int) -> str:
        """The question, with the operations allowed."""
        return (
            f"Using the numbers {', '.join(map(str, numbers))}, make {target}. "
            f"{OPERATIONS_RULE}. Each number may be used at most once (you need not use all of "
            "them), and no other numbers may appear. Division is exact, so intermediate results "
            f"may be fractions. Answer with one expression, for example (2 + 3) * 4 - 1. "
            f"{ANSWER_FORMAT}"
        )

    def solve(self, problem: Problem) -> str:
        """The generator's construction."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Parses the expression, checks the numbers used, evaluates it exactly."""
        ok, reason, well_formed = check_expression(
            answer,
            problem.data["numbers"],
            problem.data["target"],
            exact_use=False,
            unary_minus=self.unary_minus,
        )
        if ok:
            return self.correct(answer, problem)
        return (
            self.wrong(answer, problem, reason)
            if well_formed
            else self.malformed(answer, problem, reason)
        )

    def certify(self, problem: Problem) -> Certificate:
        """An exhaustive pair-combining search (counts whether any solution exists)."""
        found, _ = search(tuple(problem.data["numbers"]), problem.data["target"], False)
        return Certificate(1 if found is not None else 0, cap=1)

    def mutations(self, problem: Problem) -> list[str]:
        """The first operator changed, a number bumped, a number not given appended."""
        reference = problem.reference
        out = []
        for old, new in (("+", "-"), ("-", "+"), ("*", "+"), ("/", "*")):
            at = reference.find(f" {old} ")
            if at >= 0:
                mutant = reference[:at] + f" {new} " + reference[at + 3 :]
                try:
                    value, _ = read_answer(mutant, problem.data["target"], self.unary_minus)
                    if value != problem.data["target"]:
                        out.append(mutant)
                except ExpressionError:
                    pass
                break
        out.append(f"({reference}) + 1")
        absent = max(problem.data["numbers"]) + 1
        out.append(f"({reference}) * {absent} / {absent}")
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """The solver's own solution, the reference with ``= target``, and ``×``/``÷`` spelling."""
        found, _ = search(tuple(problem.data["numbers"]), problem.data["target"], False)
        out = [
            f"{problem.reference} = {problem.data['target']}",
            problem.reference.replace("*", "×").replace("/", "÷"),
        ]
        return out + ([found] if found is not None else [])

    def work(self, problem: Problem) -> float:
        """Search nodes the solver visits before it finds a solution."""
        return float(search(tuple(problem.data["numbers"]), problem.data["target"], False)[1])


class CountdownEnv(TaskEnv):
    """Reach a target with given numbers; see the module docstring."""

    task_class = CountdownTask


class CountdownV0Task(CountdownTask):
    """Version 0, kept so that ``Countdown-v0`` generates and scores as recorded: no unary minus."""

    unary_minus = False

    def prompt(self, numbers: list[int], target: int) -> str:
        """The v0 question."""
        return (
            f"Using the numbers {', '.join(map(str, numbers))}, make {target}. Use + - * / and "
            "parentheses; each number may be used at most once (you need not use all of them), "
            "and no other numbers may appear. Division is exact, so intermediate results may be "
            f"fractions. Answer with one expression, for example (2 + 3) * 4 - 1. {ANSWER_FORMAT}"
        )


class CountdownV0Env(TaskEnv):
    """``Countdown-v0``: expressions without a unary minus."""

    task_class = CountdownV0Task
