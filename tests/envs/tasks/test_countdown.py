"""Countdown and the 24 game: the expression checker's rules and the solvers."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks.arithmetic.countdown import (
    CountdownTask,
    CountdownV0Task,
    ExpressionError,
    parse_expression,
    search,
)
from palaestra.envs.tasks.arithmetic.game24 import Game24Task, Game24V0Task, brute_force, hands
from palaestra.envs.tasks.base import Problem

COUNTDOWN = CountdownTask.from_level(3)
PROBLEM = Problem("", "(25 - 1) * 3", {"numbers": [25, 3, 1, 7], "target": 72})


def score(task, answer, problem=PROBLEM):
    return task.verify(f"<answer>{answer}</answer>", problem)


@pytest.mark.parametrize(
    "answer",
    ["(25 - 1) * 3", "3 × (25 − 1)", "(25-1)*3 = 72", "[25 - 1] x 3", "3 * 25 - 7 + 1 * 4"],
)
def test_any_valid_expression_scores(answer):
    expected = 0.0 if "4" in answer else 1.0  # 4 is not among the numbers
    assert score(COUNTDOWN, answer).score == expected, answer


@pytest.mark.parametrize(
    "answer, why",
    [
        ("(25 - 1) * 3 * 1", "uses 1 twice"),
        ("72", "a number not given"),
        ("(25 - 1) * 3 = 71", "states a different value"),
        ("251 - 179", "digits concatenated"),
        ("25 / (1 - 1) * 3", "divides by zero"),
        ("(25 - 1) * 3 + 0", "0 is not given"),
    ],
)
def test_rule_breaking_expressions_score_zero(answer, why):
    verdict = score(COUNTDOWN, answer)
    assert verdict.score == 0.0, why
    assert verdict.status.value != "error"


@pytest.mark.parametrize(
    "answer", ["-(1 - 25) * 3", "3 * -(1 - 25)", "-(25 - 1) * -3", "-(-25 + 1) * 3"]
)
def test_a_unary_minus_scores(answer):
    # v0 refused a minus sign that negates, though its prompt allowed "+ - * /".
    verdict = score(COUNTDOWN, answer)
    assert verdict.score == 1.0, verdict.reason


@pytest.mark.parametrize(
    "answer, why",
    [
        ("-(1 - 25) * 3 = -72", "states the negated target"),
        ("-((25 - 1) * 3)", "the negated target"),
        ("-(1 - 25) * 3 * -1 * -1", "a negated number still counts: 1 used three times"),
        ("-72", "a number not given, negated"),
        ("-(1 - 25) * 3 + -0", "0 is not given"),
        ("--", "no operand"),
        ("(25 - 1) * 3 -", "a trailing minus"),
        ("-" * 300 + "3", "too many tokens"),
    ],
)
def test_a_unary_minus_never_admits_what_the_rules_forbid(answer, why):
    verdict = score(COUNTDOWN, answer)
    assert verdict.score == 0.0, why
    assert verdict.status.value != "error"


def test_version_0_still_refuses_a_unary_minus():
    countdown, game = CountdownV0Task.from_level(3), Game24V0Task.from_level(1)
    assert score(countdown, "-(1 - 25) * 3").status.value == "bad_format"
    assert score(countdown, "(25 - 1) * 3").score == 1.0
    problem = Problem("", "20 + 7 - 3 * 1", {"numbers": [1, 3, 7, 20], "target": 24})
    assert score(game, "-(3 - 20) + 7 * 1", problem).status.value == "bad_format"
    assert score(game, "20 + 7 - 3 * 1", problem).score == 1.0
    assert "negate" not in countdown.problem(0).prompt and "negate" not in game.problem(0).prompt
    assert (
        "negate" in COUNTDOWN.problem(0).prompt
        and "negate" in Game24Task.from_level(1).problem(0).prompt
    )


def test_division_is_exact_with_fractions():
    value, used = parse_expression("8 / (3 - 8 / 3)")
    assert value == 24 and sorted(used) == [3, 3, 8, 8]
    with pytest.raises(ExpressionError):
        parse_expression("2 ** 3")


def test_the_24_game_needs_every_number_exactly_once():
    game = Game24Task.from_level(1)
    problem = Problem("", "8 / (3 - 8 / 3)", {"numbers": [3, 3, 8, 8], "target": 24})
    assert score(game, "8 / (3 - 8 / 3)", problem).score == 1.0
    assert score(game, "8 * 3", problem).score == 0.0
    assert score(game, "-(8 / (3 - 8 / 3))", problem).score == 0.0  # -24
    assert score(game, "-(3 - 8 / 3) * -8 * 3 / 3", problem).score == 0.0  # 3 used three times


def test_the_24_game_accepts_a_unary_minus():
    game = Game24Task.from_level(1)
    problem = Problem("", "20 + 7 - 3 * 1", {"numbers": [1, 3, 7, 20], "target": 24})
    for answer in ("-(3 - 20) * 1 + 7", "7 - -(20 - 3) * 1", "-(3 - 20) + 7 * 1"):
        verdict = score(game, answer, problem)
        assert verdict.score == 1.0, (answer, verdict.reason)


def test_the_table_and_brute_force_agree_on_every_shipped_hand_sampled():
    for hand, _, solution in hands()[::97]:
        assert parse_expression(solution)[0] == 24
        assert brute_force(list(hand))
    assert not brute_force([1, 1, 1, 1])


def test_search_finds_a_solution_when_one_exists_and_none_otherwise():
    found, _ = search((2, 3), 7, False)
    assert found is None
    found, _ = search((25, 50, 75, 100, 3, 6), 952, False)
    assert found is not None and parse_expression(found)[0] == 952
