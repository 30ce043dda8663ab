"""List functions: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.induction.list_functions import ListFunctionsTask, behaviours, run


def test_programs_run_left_to_right():
    assert run(["sort", "reverse"], (3, 1, 2)) == (3, 2, 1)
    assert run(["drop_first", "cumsum"], (5, 1, 2)) == (1, 3)


def test_a_single_example_leaves_several_programs():
    _, answers = behaviours([(3, 1, 2), (9, 8, 7)], 1, [(1, 2, 3)])
    assert len(answers) > 1  # sort, rotate-left, ... all fit [3, 1, 2] -> [1, 2, 3]
    _, answers = behaviours(
        [(3, 1, 2), (5, 9, 4, 1), (2, 7, 7), (6, 0, 8)], 1, [(1, 2, 3), (1, 4, 5, 9), (2, 7, 7)]
    )
    assert answers == {(0, 6, 8)}


def test_generated_programs_are_not_shorter_than_they_look():
    task = ListFunctionsTask.from_level(4)
    for i in range(5):
        problem = task.problem(2, i)
        data = problem.data
        inputs = [tuple(x) for x in data["inputs"]] + [tuple(data["test"])]
        fewest, _ = behaviours(inputs, 2, [tuple(y) for y in data["outputs"]])
        signature = tuple(tuple(y) for y in data["outputs"]) + (tuple(problem.reference),)
        assert fewest.get(signature, 2) == 2


def test_answers_are_lists_of_integers():
    task = ListFunctionsTask.from_level(1)
    problem = Problem(
        "", [1, 2], {"program": ["sort"], "inputs": [[2, 1]], "outputs": [[1, 2]], "test": [2, 1]}
    )
    assert task.verify("<answer>[1,2]</answer>", problem).score == 1
    assert task.verify("<answer>[1, 2, 3]</answer>", problem).score == 0
    assert task.verify("<answer>[1, two]</answer>", problem).score == 0
