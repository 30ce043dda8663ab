"""The shipped problem set: its size and shape, and in the sandbox, that every reference passes
and every wrong solution fails a hidden test."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
from collections import Counter

import pytest

from palaestra.envs.code import problems
from palaestra.envs.code.judge import ajudge, judge

# Problems are built (their large inputs generated) when a test needs them, not at collection.
IDS = [entry.id for entry in problems.index()]
ENTRIES = {entry.id: entry for entry in problems.index()}


def test_the_set_has_150_problems_across_categories_levels_and_styles():
    # The index describes every shipped module; test_each_problem_is_complete checks that each
    # entry agrees with the problem built from it.
    entries = problems.index()
    assert len(entries) >= 150
    assert len({e.id for e in entries}) == len(entries)
    by_category = Counter(e.category for e in entries)
    assert set(by_category) == set(problems.CATEGORIES)
    assert min(by_category.values()) >= 20
    for category in problems.CATEGORIES:
        assert {e.level for e in entries if e.category == category} == {1, 2, 3}, category
    styles = Counter(e.style for e in entries)
    assert styles["function"] >= 50 and styles["stdio"] >= 30


@pytest.mark.parametrize("problem_id", IDS)
def test_each_problem_is_complete(problem_id):
    problem = problems.get_problem(problem_id)
    entry = ENTRIES[problem_id]
    assert (entry.category, entry.level, entry.style) == (
        problem.category,
        problem.level,
        problem.style,
    )
    assert problem.title and problem.statement
    assert problem.reference and problem.wrong
    assert all(w.strip() != problem.reference.strip() for w in problem.wrong)
    assert problem.public and len(problem.hidden) >= 3
    assert [t.label for t in problem.hidden].count("performance") >= 1
    assert any(t.label != "performance" for t in problem.hidden)
    for code in (problem.reference, *problem.wrong):
        ast.parse(code)
    if problem.style == "function":
        defined = {
            n.name for n in ast.walk(ast.parse(problem.reference)) if isinstance(n, ast.FunctionDef)
        }
        assert problem.entry in defined
        assert problem.signature().startswith(f"def {problem.entry}(")
    assert problem.round_trip() == problem


def test_selection_and_lookup():
    chosen = problems.select(categories="strings", levels=1, styles="function")
    assert chosen and all(
        (ENTRIES[i].category, ENTRIES[i].level, ENTRIES[i].style) == ("strings", 1, "function")
        for i in chosen
    )
    assert len(problems.select()) == len(IDS)
    with pytest.raises(ValueError, match="unknown categories"):
        problems.select(categories=["stringz"])
    with pytest.raises(KeyError, match="did you mean"):
        problems.get_problem("strings/reverse_word")


def test_a_sample_validates_on_the_fast_path():
    for problem in (
        problems.get_problem("strings/valid_brackets"),
        problems.get_problem("search/dijkstra"),
    ):
        assert judge(problem.reference, problem).all_passed(hidden=None)
        assert not judge(problem.wrong[0], problem).all_passed(hidden=True)


REFERENCE_TIME_SCALE = 2.0
"""Stretches the time limits of reference runs only. Limits are wall-clock and count time spent
waiting for a CPU; a reference uses a small share of its limit in CPU time, and a loaded CI
machine must not fail it. Wrong solutions run at the problem's own limits."""


def _without_performance(problem):
    quick = tuple(t for t in problem.hidden if t.label != "performance")
    return dataclasses.replace(problem, hidden=quick)


async def _fails_a_hidden_test(wrong, problem, backend):
    # Most wrong solutions give a wrong answer on a quick hidden test: try those first, and
    # run the performance tests (with the problem's own time limit) only when they all pass.
    quick = await ajudge(wrong, _without_performance(problem), which="hidden", backend=backend)
    if quick.status == "ok" and quick.passed(hidden=True) < quick.total(hidden=True):
        return True, quick
    full = await ajudge(wrong, problem, which="hidden", backend=backend)
    return full.status == "ok" and full.passed(hidden=True) < full.total(hidden=True), full


async def _validate(selection, backend="python"):
    jobs = []
    for problem in selection:
        jobs.append(
            ajudge(problem.reference, problem, backend=backend, time_scale=REFERENCE_TIME_SCALE)
        )
        jobs.extend(_fails_a_hidden_test(wrong, problem, backend) for wrong in problem.wrong)
    results = iter(await asyncio.gather(*jobs))
    failures = []
    for problem in selection:
        reference = next(results)
        if not reference.all_passed(hidden=None):
            outcomes = [r.outcome for r in reference.results]
            failures.append(f"{problem.id}: the reference fails: {reference.reason} {outcomes}")
        for number in range(len(problem.wrong)):
            failed, judgement = next(results)
            if not failed:
                failures.append(
                    f"{problem.id}: wrong solution {number} passes every hidden test "
                    f"({judgement.status}: {judgement.reason})"
                )
    return failures


@pytest.mark.slow
@pytest.mark.parametrize("category", problems.CATEGORIES)
def test_every_reference_passes_and_every_wrong_solution_fails_a_hidden_test(category):
    selection = problems.load_problems(categories=category)
    assert selection
    assert asyncio.run(_validate(selection)) == []


@pytest.mark.docker
def test_a_sample_validates_on_docker(docker_backend):
    # One problem per category, function and stdin/stdout styles in turn.
    sample = []
    for number, category in enumerate(problems.CATEGORIES):
        style = ("function", "stdio")[number % 2]
        sample.append(problems.load_problems(categories=category, styles=style)[0])
    assert asyncio.run(_validate(sample, backend=docker_backend)) == []
