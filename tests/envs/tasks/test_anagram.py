"""Anagrams: any dictionary word with exactly the letters scores; the hint binds."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks._words import common_words, dictionary
from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings.anagram import AnagramTask, AnagramV0Task, anagrams

TASK = AnagramTask.from_level(2)


def test_every_dictionary_anagram_scores():
    problem = Problem("", "STOP", {"letters": "tpso", "first": None})
    assert set(anagrams("tpso")) >= {"stop", "spot", "post", "pots", "tops", "opts"}
    for word in anagrams("tpso"):
        assert TASK.verify(f"<answer>{word}</answer>", problem).score == 1.0


@pytest.mark.parametrize(
    "reference, other",
    [
        ("TEENAGER", "GENERATE"),
        ("FOREST", "FOSTER"),
        ("THEATER", "THEATRE"),
        ("TRIANGLE", "INTEGRAL"),
    ],
)
def test_other_english_words_with_the_same_letters_score(reference, other):
    # v0 knew only its own 3,100 words and scored these 0.
    scrambled = reference.lower()[::-1]
    problem = Problem("", reference, {"letters": scrambled, "first": None})
    verdict = TASK.verify(f"<answer>{other}</answer>", problem)
    assert verdict.score == 1.0, verdict.reason


def test_non_words_wrong_letters_and_the_hint_score_zero():
    problem = Problem("", "STOP", {"letters": "tpso", "first": "s"})
    for answer in ("post", "tops s", "stoop", "opts", "stpo", "sotp"):
        assert TASK.verify(f"<answer>{answer}</answer>", problem).score == 0.0, answer


def test_puzzles_draw_common_words_say_what_counts_and_never_show_a_word():
    for level in (1, 6, 10):
        task = AnagramTask.from_level(level)
        for seed in range(10):
            problem = task.problem(seed, 0)
            word, letters = problem.reference.lower(), problem.data["letters"]
            assert word in common_words(len(word), 20)
            assert letters not in dictionary() and sorted(letters) == sorted(word)
            assert "most English dictionaries" in problem.prompt


def test_version_0_still_counts_only_its_own_list():
    v0 = AnagramV0Task.from_level(2)
    problem = Problem("", "TEENAGER", {"letters": "reganeet", "first": None})
    assert v0.verify("<answer>TEENAGER</answer>", problem).score == 1.0
    assert v0.verify("<answer>GENERATE</answer>", problem).score == 0.0
