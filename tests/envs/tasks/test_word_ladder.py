"""Word ladders: any shortest valid ladder; longer, invented or jumping ladders score zero."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks._words import common_words, dictionary
from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings.word_ladder import (
    WordLadderTask,
    WordLadderV0Task,
    shortest_ladders,
)

TASK = WordLadderTask.from_level(5)


def problem(start: str, target: str) -> Problem:
    steps, (ladder, *_) = shortest_ladders(start, target)
    return Problem(
        "", ", ".join(ladder).upper(), {"start": start, "target": target, "steps": steps}
    )


def test_other_shortest_ladders_are_accepted():
    cold_warm = problem("cold", "warm")
    steps, ladders = shortest_ladders("cold", "warm", cap=5)
    assert steps == 4 and len(ladders) > 1
    for ladder in ladders:
        assert TASK.verify(f"<answer>{' -> '.join(ladder)}</answer>", cold_warm).score == 1.0


def test_invalid_ladders_score_zero():
    cold_warm = problem("cold", "warm")
    for answer in (
        "cold, cord, card, ward, warm, worm, warm",  # valid steps but not shortest
        "cold, cord, card, wxrd, warm",  # not a word
        "cold, card, ward, warm",  # two letters at once
        "cord, card, ward, warm",  # wrong start
        "cold, cord, card, warp, warm",  # card -> warp changes two letters
    ):
        assert TASK.verify(f"<answer>{answer}</answer>", cold_warm).score == 0.0, answer


def test_a_ladder_through_any_dictionary_word_scores():
    # v0 knew only its own 3,100 words: SWAP was "not in the word list" and the shortest
    # ladder it knew took seven steps.
    swan_flaw = problem("swan", "flaw")
    assert swan_flaw.data["steps"] == 4
    verdict = TASK.verify("<answer>SWAN, SWAP, SLAP, FLAP, FLAW</answer>", swan_flaw)
    assert verdict.score == 1.0, verdict.reason


def test_shortest_is_measured_over_the_dictionary_the_checker_accepts():
    for level in (1, 5, 10):
        task = WordLadderTask.from_level(level)
        for seed in range(6):
            p = task.problem(seed, 3)
            d = p.data
            steps, ladders = shortest_ladders(d["start"], d["target"], cap=20)
            assert steps == d["steps"]
            for ladder in ladders:  # every shortest ladder of dictionary words scores
                assert task.verify(f"<answer>{', '.join(ladder)}</answer>", p).score == 1.0


def test_puzzles_are_drawn_from_common_words():
    common = set(common_words(4))
    assert len(dictionary()) > 100_000 and 1_500 < len(common) < 2_500
    for level in (1, 10):
        task = WordLadderTask.from_level(level)
        for seed in range(6):
            p = task.problem(seed, 0)
            assert set(p.reference.lower().split(", ")) <= common, p.reference
            assert "most English dictionaries" in p.prompt


def test_version_0_still_measures_inside_its_own_list():
    v0 = WordLadderV0Task.from_level(5)
    steps, (ladder, *_) = shortest_ladders("swan", "flaw", vocabulary="listed")
    swan_flaw = Problem("", ", ".join(ladder), {"start": "swan", "target": "flaw", "steps": steps})
    assert steps == 7
    assert v0.verify("<answer>SWAN, SWAP, SLAP, FLAP, FLAW</answer>", swan_flaw).score == 0.0
    assert v0.verify(f"<answer>{', '.join(ladder)}</answer>", swan_flaw).score == 1.0


@pytest.mark.parametrize("word", ["theatre", "colour", "swap", "cafe", "generate"])
def test_the_dictionary_holds_common_words_in_both_spellings(word):
    assert word in dictionary()
