"""ARC-like 1-D transformations: rules the generic quality bar cannot know."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.induction.arc_1d import (
    KINDS,
    RULES,
    VARIANTS,
    Arc1DTask,
    Arc1DV0Task,
    apply,
    candidates,
    run,
)
from palaestra.verdict import Status

AMBIGUITY_SAMPLE = 1000


def test_rule_semantics():
    assert apply(["shift", 2], (0, 3, 3, 0, 0)) == (0, 0, 0, 3, 3)
    assert apply(["shift", 2], (0, 0, 0, 3, 3)) is None  # cells would fall off
    assert apply(["to_pivot", 5], (2, 2, 0, 0, 0, 5, 0)) == (0, 0, 0, 2, 2, 5, 0)
    assert apply(["fill"], (0, 4, 0, 0, 4, 0)) == (0, 4, 4, 4, 4, 0)
    assert apply(["denoise"], (1, 0, 2, 2, 0, 3)) == (0, 0, 2, 2, 0, 0)
    assert apply(["hollow"], (6, 6, 6, 6, 0)) == (6, 0, 0, 6, 0)
    assert apply(["flip_span"], (0, 1, 2, 3, 0)) == (0, 3, 2, 1, 0)


def test_variant_semantics():
    row = (0, 3, 3, 0, 3, 0, 5, 0)
    assert apply(["recolour", 3, 7], row) == (0, 7, 7, 0, 7, 0, 5, 0)
    assert apply(["recolour_first", 3, 7], row) == (0, 7, 7, 0, 3, 0, 5, 0)
    assert apply(["recolour_last", 3, 7], row) == (0, 3, 3, 0, 7, 0, 5, 0)
    assert apply(["extend", "right"], row) == (0, 3, 3, 0, 3, 0, 5, 5)
    assert apply(["extend_every", "right"], row) == (0, 3, 3, 3, 3, 3, 5, 5)
    assert apply(["fill_first"], (4, 0, 4, 2, 0, 0, 2)) == (4, 4, 4, 2, 0, 0, 2)
    assert apply(["fill_last"], (4, 0, 4, 2, 0, 0, 2)) == (4, 0, 4, 2, 2, 2, 2)
    assert apply(["denoise_runs", 2], (1, 0, 2, 2, 0, 3, 3, 3)) == (0, 0, 0, 0, 0, 3, 3, 3)
    assert apply(["hollow_from", 4], (6, 6, 6, 0, 5, 5, 5, 5)) == (6, 6, 6, 0, 5, 0, 0, 5)
    assert apply(["denoise_runs", 1], row) == apply(["denoise"], row)
    assert apply(["hollow_from", 3], row) == apply(["hollow"], row)


@pytest.mark.parametrize("variants", [False, True])
def test_the_candidate_filter_never_drops_a_rule_that_fits(variants):
    rng = np.random.default_rng(3)
    for _ in range(15):
        row = tuple(int(x) for x in rng.integers(0, 4, size=8))
        for rule in RULES + (VARIANTS if variants else []):
            out = apply(rule, row)
            if out is not None:
                kept = {tuple(c) for c in candidates(row, out, variants)}
                assert tuple(rule) in kept, (rule, row)


def test_examples_that_a_natural_variant_also_fits_are_ambiguous():
    # Every example has one block of colour 3; the new row has two. Recolouring every block,
    # the first block or the last block all fit the examples; v0 posed such instances.
    inputs = [[0, 3, 3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 3, 0, 0, 0], [0, 0, 3, 3, 3, 0, 5, 0]]
    rules = [["recolour", 3, 7]]
    outputs = [list(run(rules, tuple(x))) for x in inputs]
    test = [3, 0, 0, 0, 0, 0, 3, 3]
    problem = Problem(
        "",
        list(run(rules, tuple(test))),
        {"rules": rules, "inputs": inputs, "outputs": outputs, "test": test},
    )
    assert Arc1DTask.from_level(1).certify(problem).solutions >= 2
    assert Arc1DV0Task.from_level(1).certify(problem).solutions == 1


def test_rules_are_drawn_from_the_family_only():
    task = Arc1DTask.from_level(10)
    for i in range(20):
        assert all(rule[0] in KINDS for rule in task.problem(6, i).data["rules"])


@pytest.mark.slow
@pytest.mark.parametrize("level", range(1, 11))
def test_no_instance_fits_a_second_rule(level):
    """Over 1,000 instances per level, the plain enumeration finds exactly one answer."""
    task = Arc1DTask.from_level(level)
    ambiguous = []
    for i in range(AMBIGUITY_SAMPLE):
        problem = task.problem(level, i)
        if not task.certify(problem).unique:
            ambiguous.append(i)
    assert not ambiguous, f"{len(ambiguous)} ambiguous instances (items {ambiguous[:10]})"


def test_rows_must_have_the_right_length_and_digits():
    task = Arc1DTask.from_level(2)
    problem = task.problem(4)
    reference = " ".join(str(x) for x in problem.reference)
    assert task.verify(f"<answer>{reference.replace(' ', '')}</answer>", problem).score == 1
    assert task.verify(f"<answer>{reference} 0</answer>", problem).status is Status.BAD_FORMAT
    assert task.verify(f"<answer>{reference[:-1]}a</answer>", problem).status is Status.BAD_FORMAT
