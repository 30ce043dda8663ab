"""ARC-like 1-D transformations: rules the generic quality bar cannot know."""

from __future__ import annotations

import numpy as np
from palaestra.envs.tasks.induction.arc_1d import RULES, Arc1DTask, apply, candidates

from palaestra.verdict import Status


def test_rule_semantics():
    assert apply(["shift", 2], (0, 3, 3, 0, 0)) == (0, 0, 0, 3, 3)
    assert apply(["shift", 2], (0, 0, 0, 3, 3)) is None  # cells would fall off
    assert apply(["to_pivot", 5], (2, 2, 0, 0, 0, 5, 0)) == (0, 0, 0, 2, 2, 5, 0)
    assert apply(["fill"], (0, 4, 0, 0, 4, 0)) == (0, 4, 4, 4, 4, 0)
    assert apply(["denoise"], (1, 0, 2, 2, 0, 3)) == (0, 0, 2, 2, 0, 0)
    assert apply(["hollow"], (6, 6, 6, 6, 0)) == (6, 0, 0, 6, 0)
    assert apply(["flip_span"], (0, 1, 2, 3, 0)) == (0, 3, 2, 1, 0)


def test_the_candidate_filter_never_drops_a_rule_that_fits():
    rng = np.random.default_rng(3)
    for _ in range(15):
        row = tuple(int(x) for x in rng.integers(0, 4, size=8))
        for rule in RULES:
            out = apply(rule, row)
            if out is not None:
                assert tuple(rule) in {tuple(c) for c in candidates(row, out)}, (rule, row)


def test_rows_must_have_the_right_length_and_digits():
    task = Arc1DTask.from_level(2)
    problem = task.problem(4)
    reference = " ".join(str(x) for x in problem.reference)
    assert task.verify(f"<answer>{reference.replace(' ', '')}</answer>", problem).score == 1
    assert task.verify(f"<answer>{reference} 0</answer>", problem).status is Status.BAD_FORMAT
    assert task.verify(f"<answer>{reference[:-1]}a</answer>", problem).status is Status.BAD_FORMAT
