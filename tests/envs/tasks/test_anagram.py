"""Anagrams: any listed word with exactly the letters scores; the hint binds."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings.anagram import AnagramTask, anagrams

TASK = AnagramTask.from_level(2)


def test_every_listed_anagram_scores():
    problem = Problem("", "STOP", {"letters": "tpso", "first": None})
    assert set(anagrams("tpso")) >= {"stop", "spot", "post", "pots"}
    for word in anagrams("tpso"):
        assert TASK.verify(f"<answer>{word}</answer>", problem).score == 1.0


def test_unlisted_words_wrong_letters_and_the_hint_score_zero():
    problem = Problem("", "STOP", {"letters": "tpso", "first": "s"})
    for answer in ("post", "tops s", "stoop", "opts"):
        assert TASK.verify(f"<answer>{answer}</answer>", problem).score == 0.0, answer
