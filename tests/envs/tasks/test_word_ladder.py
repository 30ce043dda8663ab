"""Word ladders: any shortest valid ladder; longer, invented or jumping ladders score zero."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings.word_ladder import WordLadderTask, shortest_ladders

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
    ):
        assert TASK.verify(f"<answer>{answer}</answer>", cold_warm).score == 0.0, answer
