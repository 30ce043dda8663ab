"""Polynomials: expansion is checked algebraically but must be expanded; roots each once."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks.arithmetic.polynomial_expansion import (
    PolynomialExpansionTask,
    expand_product,
    parse_polynomial,
)
from palaestra.envs.tasks.arithmetic.polynomial_roots import PolynomialRootsTask
from palaestra.envs.tasks.base import Problem

EXPANSION = PolynomialExpansionTask.from_level(1)
PRODUCT = Problem(
    "",
    "x^2 - 3x - 10",
    {"product": "(x + 2)(x - 5)", "coefficients": [-10, -3, 1], "multiplications": 4},
)
ROOTS = PolynomialRootsTask.from_level(3)
CUBIC = Problem("", "-2, 1/3, 5", {"coefficients": [10, -27, -8, 3], "roots": ["-2", "1/3", "5"]})


def test_any_term_order_and_spelling_of_the_expansion_scores():
    for answer in ("x^2 - 3x - 10", "-10 - 3x + x^2", "x**2 - 3*x - 10", "1x^{2} - 3x - 10"):
        assert EXPANSION.verify(f"<answer>{answer}</answer>", PRODUCT).score == 1.0, answer


def test_unexpanded_or_uncombined_answers_are_malformed():
    for answer in ("(x + 2)(x - 5)", "x^2 + 2x - 5x - 10", "x2 - 3x - 10"):
        verdict = EXPANSION.verify(f"<answer>{answer}</answer>", PRODUCT)
        assert verdict.score == 0.0 and verdict.status.value == "bad_format", answer
    assert isinstance(parse_polynomial("x^999 + 1"), str)


def test_the_printed_product_is_expanded_in_integers():
    assert expand_product("(2x - 3)(x + 2)^3") == {4: 2, 3: 9, 2: 6, 1: -20, 0: -24}
    assert expand_product("(x^2 - 1)(-x^2 - 1)") == {4: -1, 0: 1}
    assert EXPANSION.verify("<answer>x^2 - 3x - 9</answer>", PRODUCT).score == 0.0
    for text in ("(x + 2", "(x + 2)y", "(x + 2)^(3)"):
        with pytest.raises(ValueError, match="cannot read a factor"):
            expand_product(text)


def test_roots_are_listed_each_once_in_any_order():
    for answer in ("-2, 1/3, 5", "{5, -2, 1/3}", "5, 2/6, -2"):
        assert ROOTS.verify(f"<answer>{answer}</answer>", CUBIC).score == 1.0, answer
    for answer in ("-2, 5", "-2, 1/3, 5, 2", "-2, 0.333, 5", "5, 5, -2, 1/3", "5, 10/2, -2, 1/3"):
        assert ROOTS.verify(f"<answer>{answer}</answer>", CUBIC).score == 0.0, answer


def test_quadratic_factors_without_real_roots_add_no_roots():
    task = PolynomialRootsTask.from_level(6)
    for seed in range(5):
        problem = task.problem(seed)
        assert task.certify(problem).unique
