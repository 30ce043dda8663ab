"""Dyck: the stack scan and pair deletion agree; answers are brackets or yes/no only."""

from __future__ import annotations

import numpy as np

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings.dyck import DyckTask, reduce_pairs, stack_scan

TASK = DyckTask.from_level(5)


def test_stack_scan_and_pair_deletion_agree_on_random_sequences():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        sequence = "".join(rng.choice(list("()[]{}<>"), size=int(rng.integers(0, 12))))
        assert stack_scan(sequence)[0] == (reduce_pairs(sequence) == "")


def test_completion_answers():
    problem = Problem("", ") ] )", {"kind": "complete", "sequence": "([(<>"})
    assert TASK.verify("<answer>)])</answer>", problem).score == 1.0
    assert TASK.verify("<answer>) ]</answer>", problem).score == 0.0
    assert TASK.verify("<answer>) ] ) )</answer>", problem).score == 0.0
    assert TASK.verify("<answer>close ) ] )</answer>", problem).status.value == "bad_format"
