"""Syllogisms: rules the generic quality bar cannot know."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.syllogism import SyllogismTask, label

A, B, C = 0, 1, 2


@pytest.mark.parametrize(
    "premises, statement, expected",
    [
        ([["all", A, B], ["all", B, C]], ["all", A, C], "True"),  # Barbara
        ([["no", B, C], ["all", A, B]], ["no", A, C], "True"),  # Celarent
        (
            [["all", A, B], ["all", B, C]],
            ["some_not", A, C],
            "False",
        ),  # the contradictory of Barbara
        ([["all", A, B], ["all", C, B]], ["all", A, C], "Unknown"),  # undistributed middle
        ([["some", A, B], ["some", B, C]], ["some", A, C], "Unknown"),
        ([["all", A, B]], ["some", A, B], "True"),  # existential import, as the prompt states
        ([["all", A, B], ["no", B, C]], ["some", A, C], "False"),
    ],
)
def test_classical_forms(premises, statement, expected):
    assert label(premises, statement, 3) == expected
    problem = Problem(
        "",
        expected,
        {"kinds": 3, "words": ["as", "bs", "cs"], "premises": premises, "statement": statement},
    )
    assert SyllogismTask.from_level(1).certify(problem).unique


def test_contradictory_premises_are_detected():
    assert label([["all", A, B], ["some_not", A, B]], ["all", A, C], 3) is None


def test_labels_take_all_three_values_and_words_are_made_up():
    task = SyllogismTask.from_level(5)
    problems = [task.problem(4, i) for i in range(60)]
    assert {p.reference for p in problems} == {"True", "False", "Unknown"}
    assert all(w.endswith("s") and w.isalpha() for p in problems for w in p.data["words"])
