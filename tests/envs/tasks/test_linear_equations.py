"""Linear equations: every variable once, exact values, any order."""

from __future__ import annotations

from palaestra.envs.tasks.arithmetic.linear_equations import LinearEquationsTask, gauss_jordan
from palaestra.envs.tasks.base import Problem

TASK = LinearEquationsTask.from_level(5)
PROBLEM = Problem(
    "",
    "x = 3/2, y = -1",
    {"variables": ["x", "y"], "rows": [[2, 0, 3], [0, 1, -1]], "values": ["3/2", "-1"], "terms": 4},
)


def verdict(answer: str):
    return TASK.verify(f"<answer>{answer}</answer>", PROBLEM)


def test_orders_separators_and_exact_decimals_are_accepted():
    for answer in ("x = 3/2, y = -1", "y=-1; x=1.5", "X = 6/4 and y = -1"):
        assert verdict(answer).score == 1.0, answer


def test_missing_repeated_or_unknown_variables_are_malformed():
    for answer in (
        "x = 3/2",
        "x = 3/2, x = 3/2, y = -1",
        "x = 3/2, y = -1, z = 0",
        "x = 3/2, y = -1 + 0",
    ):
        result = verdict(answer)
        assert result.score == 0.0 and result.status.value == "bad_format", answer


def test_a_wrong_value_is_wrong():
    assert verdict("x = 3/2, y = 1").status.value == "incorrect"


def test_singular_systems_have_no_unique_solution():
    assert gauss_jordan([[1, 2, 3], [2, 4, 6]]) is None
