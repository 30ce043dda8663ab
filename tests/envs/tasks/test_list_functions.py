"""List functions: rules the generic quality bar cannot know."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.induction.list_functions import (
    PRIMITIVES,
    ListFunctionsTask,
    ListFunctionsV0Task,
    behaviours,
    run,
)

AMBIGUITY_SAMPLE = 1000


def test_programs_run_left_to_right():
    assert run(["sort", "reverse"], (3, 1, 2)) == (3, 2, 1)
    assert run(["drop_first", "cumsum"], (5, 1, 2)) == (1, 3)


def test_the_natural_variants_behave_as_named():
    xs = (9, 1, 9, 4, 1)
    assert run(["remove_max"], xs) == (1, 9, 4, 1)
    assert run(["remove_last_max"], xs) == (9, 1, 4, 1)
    assert run(["remove_every_max"], xs) == (1, 4, 1)
    assert run(["remove_every_min"], xs) == (9, 9, 4)
    assert run(["unique"], xs) == (9, 1, 4) and run(["unique_last"], xs) == (9, 4, 1)
    assert run(["remove_repeated"], xs) == (4,)
    assert run(["keep_above_4"], xs) == run(["keep_above_5"], xs) == (9, 9)
    assert run(["keep_above_0"], (0, 3, 0)) == (3,)


def test_a_single_example_leaves_several_programs():
    _, answers = behaviours([(3, 1, 2), (9, 8, 7)], 1, [(1, 2, 3)])
    assert len(answers) > 1  # sort, rotate-left, ... all fit [3, 1, 2] -> [1, 2, 3]
    _, answers = behaviours(
        [(3, 1, 2), (5, 9, 4, 1), (2, 7, 7), (6, 0, 8)], 1, [(1, 2, 3), (1, 4, 5, 9), (2, 7, 7)]
    )
    assert answers == {(0, 6, 8)}


@pytest.mark.parametrize(
    "inputs, outputs, test, program",
    [
        # "Remove the largest" and "remove every largest" fit; on [1, 1] they give [1] and [].
        ([[8, 2], [4, 0, 9, 5], [9, 8]], [[2], [4, 0, 5], [8]], [1, 1], ["remove_max"]),
        # "Keep the numbers above 4", "above 5" and "above 6" fit; on [5, 6] they differ.
        ([[9, 2, 0], [3, 9, 1], [4, 9]], [[9], [9], [9]], [5, 6], ["keep_above_4"]),
    ],
)
def test_examples_that_a_natural_variant_also_fits_are_ambiguous(inputs, outputs, test, program):
    # v0 checked the examples against the drawn operations only and posed such instances.
    problem = Problem(
        "",
        list(run(program, tuple(test))),
        {"program": program, "inputs": inputs, "outputs": outputs, "test": test},
    )
    rows = [tuple(x) for x in inputs] + [tuple(test)]
    _, answers = behaviours(rows, 1, [tuple(y) for y in outputs])
    assert len(answers) >= 2
    assert ListFunctionsTask.from_level(1).certify(problem).solutions >= 2
    assert ListFunctionsV0Task.from_level(1).certify(problem).solutions == 1


def test_generated_programs_are_not_shorter_than_they_look():
    task = ListFunctionsTask.from_level(4)
    for i in range(5):
        problem = task.problem(2, i)
        data = problem.data
        inputs = [tuple(x) for x in data["inputs"]] + [tuple(data["test"])]
        fewest, _ = behaviours(inputs, 2, [tuple(y) for y in data["outputs"]])
        signature = tuple(tuple(y) for y in data["outputs"]) + (tuple(problem.reference),)
        assert fewest.get(signature, 2) == 2


def test_programs_are_drawn_from_the_primitives_only():
    task = ListFunctionsTask.from_level(10)
    for i in range(20):
        program = task.problem(5, i).data["program"]
        assert all(step in PRIMITIVES for step in program)


@pytest.mark.slow
@pytest.mark.parametrize("level", range(1, 11))
def test_no_instance_fits_a_second_rule(level):
    """Over 1,000 instances per level, the plain enumeration finds exactly one answer."""
    task = ListFunctionsTask.from_level(level)
    ambiguous = []
    for i in range(AMBIGUITY_SAMPLE):
        problem = task.problem(level, i)
        if not task.certify(problem).unique:
            ambiguous.append(i)
    assert not ambiguous, f"{len(ambiguous)} ambiguous instances (items {ambiguous[:10]})"


def test_answers_are_lists_of_integers():
    task = ListFunctionsTask.from_level(1)
    problem = Problem(
        "", [1, 2], {"program": ["sort"], "inputs": [[2, 1]], "outputs": [[1, 2]], "test": [2, 1]}
    )
    assert task.verify("<answer>[1,2]</answer>", problem).score == 1
    assert task.verify("<answer>[1, 2, 3]</answer>", problem).score == 0
    assert task.verify("<answer>[1, two]</answer>", problem).score == 0
