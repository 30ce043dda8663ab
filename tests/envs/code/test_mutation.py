"""Mutation testing of hidden tests: the mutants each operator makes, their ids, and the check
that fails a problem whose hidden tests let a non-equivalent mutant through."""

from __future__ import annotations

import ast
import asyncio

import pytest

from palaestra.envs.code import problems
from palaestra.envs.code.mutation import (
    EQUIVALENT,
    KILLED,
    OPERATORS,
    SURVIVED,
    check_problem,
    check_shipped,
    fuzz_inputs,
    generate_mutants,
    in_sample,
)
from palaestra.envs.code.problem import CodeProblem

SOURCE = """\
def f(xs, n):
    total = 0
    for i in range(1, n):
        if xs[i] < n and not xs[i] == 0:
            total += xs[i] * 2
        elif i >= 3 or xs[i:n] is None:
            break
    while total > 10:
        total = -total // 2
    return max(total, 0) if True else 1
"""


def _mutant(mutant_id: str) -> str:
    return next(m.code for m in generate_mutants(SOURCE) if m.id == mutant_id)


def test_every_operator_makes_its_edit_at_the_position_its_id_names():
    mutants = generate_mutants(SOURCE)
    assert {m.operator for m in mutants} == set(OPERATORS)
    assert "if xs[i] <= n and" in _mutant("compare:4:19:<=")
    assert "if xs[i] >= n and" in _mutant("compare:4:19:>=")
    assert "not xs[i] != 0" in _mutant("compare:4:38:!=")
    assert "xs[i:n] is not None" in _mutant("compare:6:34:is not")
    assert "range(2, n)" in _mutant("constant:3:19:2")
    assert "max(total, 0) if False else 1" in _mutant("constant:10:28:False")
    assert "range(1, n + 1)" in _mutant("bound:3:22:+1")
    assert "xs[i - 1:n]" in _mutant("bound:6:26:-1")
    assert "total -= xs[i] * 2" in _mutant("arith:5:21:-")
    assert "total += xs[i] // 2" in _mutant("arith:5:29://")
    assert "-total * 2" in _mutant("arith:9:26:*")
    assert "xs[i] < n or not" in _mutant("boolean:4:25:or")
    assert "if not (xs[i] < n and (not xs[i] == 0)):" in _mutant("negate:4:11:not")
    assert "and xs[i] == 0" in _mutant("negate:4:25:drop-not")
    assert "total = total // 2" in _mutant("unary:9:16:drop-minus")
    assert "total = 0" not in _mutant("delete:2:4:pass")
    assert "return []" in _mutant("return:10:4:[]")
    assert "continue" in _mutant("jump:7:12:continue")
    assert "return min(total, 0)" in _mutant("minmax:10:11:min")


def test_mutants_are_distinct_programs_with_unique_ids_in_source_order():
    mutants = generate_mutants(SOURCE)
    codes = [ast.unparse(ast.parse(m.code)) for m in mutants]
    assert len(set(codes)) == len(codes)
    assert ast.unparse(ast.parse(SOURCE)) not in codes
    assert len({m.id for m in mutants}) == len(mutants)
    assert [m.line for m in mutants] == sorted(m.line for m in mutants)
    # A literal bound is moved once, by `constant`, not again by `bound`.
    assert not any(m.id.startswith("bound:3:19:") for m in mutants)
    assert generate_mutants(SOURCE) == mutants


def test_nested_operators_on_one_line_get_different_ids():
    ids = [m.id for m in generate_mutants("def g(a, b, c):\n    return a + b + c\n")]
    assert "arith:2:15:-" in ids and "arith:2:19:-" in ids


def test_fuzz_inputs_are_new_calls_near_the_tests_and_repeatable():
    problem = problems.get_problem("arithmetic/is_prime")
    inputs = fuzz_inputs(problem, 50)
    assert len(inputs) == 50 and inputs == fuzz_inputs(problem, 50)
    assert all(i.startswith("is_prime(") for i in inputs)
    assert not set(inputs) & {t.input for t in problem.tests}
    stdio = problems.get_problem("strings/count_vowels")
    assert fuzz_inputs(stdio, 20) and not set(fuzz_inputs(stdio, 20)) & {
        t.input for t in stdio.tests
    }


ABSOLUTE = "def absolute(x):\n    if x < 0:\n        return -x\n    return x\n"


def _toy(hidden) -> CodeProblem:
    return CodeProblem(
        id="toy/absolute",
        statement="Write `absolute(x)`, the absolute value of the integer `x`.",
        style="function",
        entry="absolute",
        public=[("absolute(-3)", 3)],
        hidden=hidden,
        reference=ABSOLUTE,
    )


WEAK = _toy([("absolute(-3)", 3), ("absolute(4)", 4)])
STRONG = _toy([("absolute(-3)", 3), ("absolute(4)", 4), ("absolute(-1)", 1), ("absolute(0)", 0)])
# x <= 0 and x < 1 return -0 == 0 for zero: the same function on integers.
REASONS = {
    "compare:2:11:<=": "for x == 0 both branches return 0",
    "constant:2:11:1": "on integers x < 1 is x <= 0, and -0 == 0",
}


def test_a_problem_whose_hidden_tests_miss_a_near_miss_fails_the_check():
    report = asyncio.run(check_problem(WEAK, REASONS))
    assert not report.passed
    survivor = {o.mutant.id: o for o in report.survivors}
    # `if x < -1` returns -1 for -1: a hidden test absolute(-1) would kill it.
    assert "constant:2:11:-1" in survivor
    assert "differs on a perturbed input" in survivor["constant:2:11:-1"].detail
    assert report.score < 1.0


def test_survivors_without_a_listed_reason_fail_the_check():
    report = asyncio.run(check_problem(STRONG))
    assert not report.passed
    assert {o.mutant.id for o in report.survivors} == set(REASONS)
    assert all("same results as the reference" in o.detail for o in report.survivors)


def test_strong_tests_and_listed_equivalents_pass_the_check():
    report = asyncio.run(check_problem(STRONG, REASONS))
    assert report.passed and report.score == 1.0 and report.errors == ()
    assert {o.mutant.id for o in report.outcomes if o.status == EQUIVALENT} == set(REASONS)
    assert report.count(KILLED) == len(report.outcomes) - len(REASONS)


def test_stale_or_wrong_equivalence_listings_fail_the_check():
    listed = {**REASONS, "compare:9:9:<": "no such mutant", "unary:3:15:drop-minus": "wrong"}
    report = asyncio.run(check_problem(STRONG, listed))
    assert not report.passed and report.count(SURVIVED) == 0
    assert len(report.errors) == 2
    assert "compare:9:9:< is listed as equivalent but is not a mutant" in report.errors[0]
    assert (
        "unary:3:15:drop-minus is listed as equivalent but a hidden test kills it"
        in (report.errors[1])
    )


def test_a_reference_that_fails_its_own_tests_fails_the_check():
    broken = _toy([("absolute(-3)", 4)])
    report = asyncio.run(check_problem(broken))
    assert not report.passed and report.errors[0].startswith("the reference fails")


def test_the_sample_is_a_share_of_the_mutants_chosen_by_id():
    ids = [m.id for m in generate_mutants(SOURCE)]
    chosen = {i for i in ids if in_sample("toy/f", i, 4)}
    assert 0 < len(chosen) < len(ids) / 2
    assert chosen != {i for i in ids if in_sample("toy/g", i, 4)}
    assert all(in_sample("toy/f", i, 1) for i in ids)


def test_every_listed_equivalent_mutant_names_a_mutant_of_its_reference():
    for entry in problems.index():
        listed = problems.equivalent_mutants(entry.id)
        ids = {m.id for m in generate_mutants(problems.get_problem(entry.id).reference)}
        assert set(listed) <= ids, (entry.id, sorted(set(listed) - ids))


SAMPLE = 10
"""The slow test runs one mutant in SAMPLE of every problem (a fixed choice by id), to stay
within a few minutes on two cores; ``python -m bench.code.mutation`` runs them all."""


@pytest.mark.slow
def test_the_shipped_hidden_tests_kill_every_non_equivalent_mutant_of_a_sample():
    reports = asyncio.run(check_shipped(problems.select(), sample=SAMPLE, fuzz=0))
    assert len(reports) == len(problems.index())
    failing = {r.problem_id: [o.mutant.id for o in r.survivors] + list(r.errors) for r in reports}
    assert {k: v for k, v in failing.items() if v} == {}
    killed = sum(r.count(KILLED) for r in reports)
    survived = sum(r.count(SURVIVED) for r in reports)
    assert killed + survived > 400
    assert killed / (killed + survived) >= 0.995
