"""SAT: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.sat import SatTask
from palaestra.verdict import Status


def small() -> Problem:
    # (a | b) & (~a | c): satisfied by a=1,c=1 (any b) and by a=0,b=1 (any c).
    return Problem(
        "", {"a": 1, "b": 0, "c": 1}, {"names": ["a", "b", "c"], "clauses": [[1, 2], [-1, 3]]}
    )


def test_any_satisfying_assignment_scores():
    task = SatTask.from_level(1)
    for answer in ("a=1, b=0, c=1", "a = 0, b = 1, c = 0", "c: true; b: T; a: F"):
        assert task.verify(f"<answer>{answer}</answer>", small()).score == 1, answer


def test_a_falsified_clause_is_named():
    verdict = SatTask.from_level(1).verify("<answer>a=1, b=1, c=0</answer>", small())
    assert verdict.status is Status.INCORRECT and "clause 2" in verdict.reason


def test_every_variable_exactly_once_with_a_boolean_value():
    task = SatTask.from_level(1)
    for answer in ("a=1, c=1", "a=1, b=0, c=1, a=1", "a=1, b=0, c=1, d=0", "a=1, b=0, c=yes"):
        assert task.verify(f"<answer>{answer}</answer>", small()).status is Status.BAD_FORMAT


def test_instances_are_satisfiable_by_their_hidden_assignment_and_some_flips_break_them():
    task = SatTask.from_level(7)
    for i in range(5):
        problem = task.problem(11, i)
        assert task.verify(task.slot(task.solve(problem)), problem).score == 1
        flips = [m for m in task.mutations(problem) if " = 2" not in m]
        assert any(task.verify(task.slot(m), problem).status is Status.INCORRECT for m in flips)
