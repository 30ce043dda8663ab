"""Self-reference puzzles: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.self_reference import (
    SelfReferenceTask,
    _Table,
    consistent_assignments,
    holds,
    render,
)
from palaestra.verdict import Status


def test_a_hand_checked_puzzle():
    # 1: "Exactly one of these statements is true."  2: "Statement 1 is false."
    # 3: "This statement is false" would be a paradox; instead
    # 3: "Statements 1 and 2 are both true or both false."
    statements = [["count", "exactly", 1, True], ["is", 0, False], ["same", 0, 1]]
    assert consistent_assignments(statements, cap=5) == [(True, False, False)]
    problem = Problem("", [1], {"statements": statements})
    task = SelfReferenceTask.from_level(1)
    assert task.certify(problem).unique
    assert task.verify("<answer>1</answer>", problem).score == 1
    assert task.verify("<answer>1, 3</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>1, 1</answer>", problem).status is Status.BAD_FORMAT
    assert task.verify("<answer>4</answer>", problem).status is Status.BAD_FORMAT


def test_none_is_the_empty_answer():
    # Each says "exactly one of us two is true": both true or one true are inconsistent.
    statements = [["either", 0, 1], ["either", 0, 1]]
    problem = Problem("", [], {"statements": statements})
    assert consistent_assignments(statements, cap=5) == [(False, False)]
    assert SelfReferenceTask.from_level(1).verify("<answer>None.</answer>", problem).score == 1


def test_the_vectorised_table_agrees_with_holds():
    table = _Table(4)
    kinds = [
        ["count", "at most", 2, False],
        ["parity", 1],
        ["prime"],
        ["first", 2],
        ["last", 1],
        ["if", 0, 3],
        ["either", 1, 2],
    ]
    for s in kinds:
        vector = table.holds(s)
        assert all(vector[r] == holds(s, table.assignment(r)) for r in range(16))
    assert render(["first", 2], 2) == "This statement is the first true statement."
