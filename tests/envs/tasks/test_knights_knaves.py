"""Knights and knaves: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.knights_knaves import KnightsKnavesTask, holds, render, solutions
from palaestra.verdict import Status


def classic() -> Problem:
    # Ann: "We are both knaves." -> Ann is a knave (a knight could not say it), so Bob is a knight.
    data = {"names": ["Ann", "Bob"], "statements": [["both", 0, 1, False], ["is", 0, False]]}
    return Problem("", {"Ann": "knave", "Bob": "knight"}, data)


def test_the_classic_puzzle_has_one_solution():
    assert solutions(classic().data["statements"], 2) == [(False, True)]
    assert KnightsKnavesTask.from_level(1).certify(classic()).unique


def test_roles_that_contradict_a_statement_are_rejected_with_the_reason():
    task = KnightsKnavesTask.from_level(1)
    verdict = task.verify("<answer>Ann: knight, Bob: knave</answer>", classic())
    assert verdict.score == 0 and "could not say" in verdict.reason
    assert task.verify("<answer>bob = KNIGHT; ann = knave.</answer>", classic()).score == 1


def test_names_must_be_complete_and_unique():
    task = KnightsKnavesTask.from_level(1)
    for answer in (
        "Ann: knave",
        "Ann: knave, Bob: knight, Ann: knave",
        "Ann: knave, Bob: liar",
        "Ann knave, Bob knight",
    ):
        assert task.verify(f"<answer>{answer}</answer>", classic()).status is Status.BAD_FORMAT


def test_statements_read_in_the_first_person_when_about_the_speaker():
    names = ["Ann", "Bob"]
    assert render(["both", 0, 1, True], 0, names) == "Bob and I are both knights."
    assert render(["is", 0, False], 0, names) == "I am a knave."
    assert render(["count", "at least", 1, False], 1, names) == "At least 1 of us is a knave."
    assert holds(["count", "exactly", 2, True], (True, True, False))
