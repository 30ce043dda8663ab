"""Prime factorisation, gcd/lcm and modular arithmetic: rules of their answers."""

from __future__ import annotations

from palaestra.envs.tasks.arithmetic.modular_arithmetic import ModularArithmeticTask
from palaestra.envs.tasks.arithmetic.prime_factorization import (
    PrimeFactorizationTask,
    is_prime,
    trial_division,
)
from palaestra.envs.tasks.base import Problem

FACTOR = PrimeFactorizationTask.from_level(2)
N5544 = Problem("", "2^3 × 3^2 × 7 × 11", {"number": 5544})


def factor_score(answer: str) -> float:
    return FACTOR.verify(f"<answer>{answer}</answer>", N5544).score


def test_any_order_and_spelling_of_the_factorisation_scores():
    for answer in (
        "2^3 × 3^2 × 7 × 11",
        "11 * 7 * 3 * 3 * 2 * 2 * 2",
        r"2^{3} \cdot 3^2 \cdot 7 \cdot 11",
    ):
        assert factor_score(answer) == 1.0, answer


def test_composite_factors_wrong_products_and_huge_powers_score_zero():
    for answer in ("8 × 9 × 7 × 11", "2^3 × 3^2 × 7", "2^999 × 3", "1 × 2^3 × 3^2 × 7 × 11"):
        assert factor_score(answer) == 0.0, answer


def test_primality_and_trial_division_agree():
    for n in range(2, 3000):
        factors, _ = trial_division(n)
        assert is_prime(n) == (dict(factors) == {n: 1})


def test_a_congruent_answer_outside_the_range_is_wrong():
    task = ModularArithmeticTask.from_level(3)
    problem = Problem("", "5", {"kind": "inverse", "a": 3, "m": 7})
    assert task.verify("<answer>5</answer>", problem).score == 1.0
    assert task.verify("<answer>12</answer>", problem).score == 0.0
