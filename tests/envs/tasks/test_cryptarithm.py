"""Cryptarithms: both solvers agree on the classic puzzle; the checker verifies constraints."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings.cryptarithm import (
    CryptarithmTask,
    column_solutions,
    weighted_solutions,
)

SEND = Problem(
    "",
    "D=7, E=5, M=1, N=6, O=0, R=8, S=9, Y=2",
    {"words": ["SEND", "MORE"], "result": "MONEY", "hints": {}},
)
TASK = CryptarithmTask.from_level(4)


def test_both_solvers_find_exactly_the_classic_solution():
    (solution,) = column_solutions(["SEND", "MORE"], "MONEY", {}, 5)
    found, _ = weighted_solutions(["SEND", "MORE"], "MONEY", {}, 5)
    assert found == [solution]
    assert solution == {"D": 7, "E": 5, "M": 1, "N": 6, "O": 0, "R": 8, "S": 9, "Y": 2}


def test_any_order_and_case_is_accepted():
    assert TASK.verify("<answer>s=9 e=5 n=6 d=7 m=1 o=0 r=8 y=2</answer>", SEND).score == 1.0


def test_constraint_violations_score_zero():
    bad = {
        "shared digit": "D=7, E=5, M=1, N=6, O=0, R=8, S=9, Y=7",
        "missing letter": "D=7, E=5, M=1, N=6, O=0, R=8, S=9",
        "wrong sum": "D=7, E=5, M=1, N=6, O=0, R=8, S=9, Y=3",
        "letter twice": "D=7, D=7, E=5, M=1, N=6, O=0, R=8, S=9, Y=2",
    }
    for why, answer in bad.items():
        assert TASK.verify(f"<answer>{answer}</answer>", SEND).score == 0.0, why


def test_hints_are_constraints():
    hinted = Problem("", SEND.reference, {**SEND.data, "hints": {"E": 4}})
    assert TASK.verify(f"<answer>{SEND.reference}</answer>", hinted).score == 0.0
