"""Arithmetic chains: only one exact number is an answer; restated expressions are not."""

from __future__ import annotations

from palaestra.envs.tasks.arithmetic.arithmetic_chain import ArithmeticChainTask
from palaestra.envs.tasks.base import Problem

TASK = ArithmeticChainTask.from_level(5)
THIRD = Problem("", "1/3", {"expression": "1 ÷ 3", "work": 1})


def score(answer: str, problem: Problem = THIRD) -> float:
    return TASK.verify(f"<answer>{answer}</answer>", problem).score


def test_equivalent_exact_forms_score():
    assert score("1/3") == score("2/6") == score(r"\frac{1}{3}") == 1.0
    half = Problem("", "1/2", {"expression": "1 ÷ 2", "work": 1})
    assert score("0.5", half) == score("0.50", half) == 1.0


def test_rounded_decimals_and_restated_expressions_do_not():
    assert score("0.333333") == 0.0
    assert score("1 ÷ 3") == 0.0
    assert score("1/6 + 1/6") == 0.0


def test_the_printed_expression_evaluates_to_the_reference():
    for seed in range(30):
        problem = TASK.problem(seed)
        assert TASK.certify(problem).unique, problem.data["expression"]
