"""Procedural code families: deterministic, levelled, and their references pass the generated
tests."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from palaestra.envs.code.generators import (
    GENERATORS,
    ExpressionGenerator,
    MachineGenerator,
    MachineSpec,
    Operator,
    StringTransformGenerator,
    host_evaluate,
    run_machine,
)
from palaestra.envs.code.judge import ajudge
from palaestra.envs.tasks.base import item_rng

FAMILIES = list(GENERATORS.values())


def _problem(family, level, seed):
    return family(level).generate(item_rng(seed, 0))


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_the_same_seed_gives_the_same_problem(family):
    assert _problem(family, 4, 7) == _problem(family, 4, 7)
    assert _problem(family, 4, 7).id != _problem(family, 4, 8).id


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_problems_are_complete_at_every_level(family):
    for level in (1, 5, 10):
        for seed in range(4):
            problem = _problem(family, level, seed)
            assert problem.public and len(problem.hidden) >= 5
            assert [t.label for t in problem.hidden].count("performance") == 1
            assert problem.wrong, f"{problem.id} has no wrong solution"
            assert problem.level == level and problem.source == "generated"
            assert problem.round_trip() == problem


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_bad_levels_are_rejected(family):
    for level in (0, 11, "3", True):
        with pytest.raises(ValueError, match="level"):
            family(level)


async def _check(problems):
    failures = []
    jobs = [ajudge(p.reference, p) for p in problems] + [
        ajudge(w, p) for p in problems for w in p.wrong
    ]
    results = await asyncio.gather(*jobs)
    references, wrongs = results[: len(problems)], iter(results[len(problems) :])
    for problem, reference in zip(problems, references, strict=True):
        if not reference.all_passed(hidden=None):
            failures.append(f"{problem.id}: reference {[r.outcome for r in reference.results]}")
        for _ in problem.wrong:
            if next(wrongs).all_passed(hidden=True):
                failures.append(f"{problem.id}: a wrong solution passes")
    return failures


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_generated_references_pass_and_mutants_fail_in_the_sandbox(family):
    problems = [_problem(family, level, seed) for level in (1, 6, 10) for seed in range(2)]
    assert asyncio.run(_check(problems)) == []


def test_the_host_evaluator_follows_precedence_and_associativity():
    ops = {
        "+": Operator("+", "a + b", 1, False),
        "*": Operator("*", "a * b", 2, False),
        "~": Operator("~", "a - b", 1, False),
        "^": Operator("^", "2 * a + b", 3, True),
    }
    assert host_evaluate("2 + 3 * 4", ops) == 14
    assert host_evaluate("(2 + 3) * 4", ops) == 20
    assert host_evaluate("10 ~ 3 ~ 2", ops) == 5
    assert host_evaluate("1 ^ 2 ^ 3", ops) == 2 * 1 + (2 * 2 + 3)
    assert host_evaluate("0 ~ 1", ops) == 1_000_002


def test_the_host_machine_wraps_jumps_and_stops_at_the_limit():
    spec = MachineSpec(
        registers=2,
        bits=8,
        step_limit=10,
        instructions=("set", "addi", "dec", "jnz"),
        jump_absolute=False,
    )
    assert run_machine(spec, [["dec", "r0"]]) == "255 0\n1\n"
    assert run_machine(spec, [["set", "r0", "1"], ["jnz", "r0", "0"]]) == "1 0\n10\n"
    looped = [["set", "r0", "3"], ["addi", "r1", "2"], ["dec", "r0"], ["jnz", "r0", "-2"]]
    assert run_machine(spec, looped) == "0 6\n10\n"
    absolute = MachineSpec(2, 8, 100, ("set", "addi", "dec", "jnz"), True)
    assert run_machine(absolute, looped[:3] + [["jnz", "r0", "1"]]) == "0 6\n10\n"


def test_statements_describe_the_generated_specification():
    strings = StringTransformGenerator(9).generate(np.random.default_rng(0))
    assert strings.statement.count("\n") >= 5 and strings.entry == "transform"
    expression = ExpressionGenerator(9).generate(np.random.default_rng(0))
    assert "| operator |" in expression.statement and "1000003" in expression.statement
    machine = MachineGenerator(9).generate(np.random.default_rng(0))
    assert "jnz" in machine.statement and machine.style == "stdio"
