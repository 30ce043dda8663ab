"""The shipped problem set: its size and shape, its versions, hidden tests that include the
public examples and catch near-miss programs, and in the sandbox, that every reference passes,
every wrong solution fails a hidden test and a program that does nothing earns nothing."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import json
from collections import Counter

import pytest

import palaestra
from palaestra.envs.code import problems
from palaestra.envs.code.judge import ajudge, judge, judge_many

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


def _pairs(tests):
    return [(t.input, json.dumps(t.output), t.label) for t in tests]


@pytest.mark.parametrize("problem_id", IDS)
def test_the_hidden_tests_include_the_public_examples(problem_id):
    problem = problems.get_problem(problem_id)
    hidden = _pairs(problem.hidden)
    assert all(pair in hidden for pair in _pairs(problem.public))


def test_version_0_keeps_the_first_hidden_tests_and_version_1_only_adds():
    for problem_id in IDS:
        first, latest = (problems.get_problem(problem_id, version=v) for v in (0, 1))
        assert (first.statement, first.reference, first.public) == (
            latest.statement,
            latest.reference,
            latest.public,
        )
        added = [pair for pair in _pairs(latest.hidden) if pair not in _pairs(first.hidden)]
        assert [p for p in _pairs(latest.hidden) if p not in added] == _pairs(first.hidden)
    # Version 0 is the set as it first shipped: the public examples were not hidden tests.
    is_prime = problems.get_problem("arithmetic/is_prime", version=0)
    assert [t.input for t in is_prime.hidden][:2] == ["is_prime(1)", "is_prime(2)"]
    assert len(is_prime.hidden) == 8
    with pytest.raises(ValueError, match="version must be one of"):
        problems.get_problem("arithmetic/is_prime", version=2)


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


# Near-miss programs that version 0's hidden tests let through with full marks.
NEAR_MISSES = {
    # No even check: every even number above 2 is called prime.
    "arithmetic/is_prime": """
def is_prime(n):
    if n < 2:
        return False
    i = 3
    while i * i <= n:
        if n % i == 0:
            return False
        i += 2
    return True
""",
    # No parity check: an odd total is split at its floor half.
    "dynamic_programming/equal_partition": """
def can_partition(nums):
    total = sum(nums)
    reachable = 1
    for x in nums:
        reachable |= reachable << x
    return bool(reachable >> (total // 2) & 1)
""",
    # Any obstacle means no path (most of version 0's hidden tests expect 0).
    "dynamic_programming/unique_paths_obstacles": """
from math import comb

def count_paths(grid):
    if any(1 in row for row in grid):
        return 0
    return comb(len(grid) + len(grid[0]) - 2, len(grid) - 1)
""",
    # The last row and the last column are never read.
    "data_structures/valid_sudoku": """
def valid_sudoku(board):
    seen = set()
    for r in range(8):
        for c in range(8):
            d = board[r][c]
            if d == ".":
                continue
            keys = (("row", r, d), ("col", c, d), ("box", r // 3, c // 3, d))
            if any(k in seen for k in keys):
                return False
            seen.update(keys)
    return True
""",
}


@pytest.mark.parametrize("problem_id", sorted(NEAR_MISSES))
def test_near_miss_programs_fail_a_hidden_test(problem_id):
    code = NEAR_MISSES[problem_id].lstrip("\n")
    first = judge(code, problems.get_problem(problem_id, version=0), which="hidden")
    assert first.all_passed()  # the finding: version 0 gives it full marks
    latest = judge(code, problems.get_problem(problem_id), which="hidden")
    assert latest.status == "ok" and not latest.all_passed()


def _does_nothing(problem):
    if problem.style == "function":
        return f"def {problem.entry}(*args, **kwargs):\n    pass\n"
    return "import sys\nsys.stdin.read()\n"


@pytest.mark.slow
@pytest.mark.parametrize("category", problems.CATEGORIES)
def test_a_program_that_does_nothing_earns_nothing_in_any_reward_mode(category):
    selection = problems.load_problems(categories=category)
    judgements = judge_many([(_does_nothing(p), p) for p in selection])
    for problem, judgement in zip(selection, judgements, strict=True):
        assert judgement.status == "ok", problem.id
        # all_pass, fraction, and improvement (whose return is the last fraction).
        scores = [judgement.verdict().score, judgement.verdict(partial=True).score]
        assert scores + [judgement.fraction()] == [0.0, 0.0, 0.0], problem.id


BLANK_OUTPUT_PROBLEMS = [
    p.id
    for p in problems.load_problems()
    if any(p.check.same_text("", t.output) for t in p.hidden if p.style == "stdio")
]
ENV_MODES = [
    ("CodeSynthesis-v1", {"reward": "all_pass"}),
    ("CodeSynthesis-v1", {"reward": "fraction"}),
    ("CodeFeedback-v1", {"reward": "all_pass", "max_attempts": 1}),
    ("CodeFeedback-v1", {"reward": "fraction", "max_attempts": 1}),
    ("CodeFeedback-v1", {"reward": "improvement", "max_attempts": 1}),
]


@pytest.mark.slow
@pytest.mark.parametrize("problem_id", BLANK_OUTPUT_PROBLEMS)
def test_doing_nothing_earns_nothing_where_some_tests_expect_no_output(problem_id):
    code = f"```python\n{_does_nothing(problems.get_problem(problem_id))}```"
    for env_id, kwargs in ENV_MODES:
        env = palaestra.make(env_id, **kwargs)
        env.reset(seed=0, options={"problem_id": problem_id})
        _, reward, terminated, _, _ = env.step(code)
        assert terminated and reward == 0.0, (env_id, kwargs)
    # Version 0 counted those tests alone.
    first = palaestra.make("CodeSynthesis-v0", reward="fraction")
    first.reset(seed=0, options={"problem_id": problem_id})
    assert first.step(code)[1] > 0
