"""First-order entailment over a finite story: rules the generic quality bar cannot know."""

from __future__ import annotations

import itertools

import numpy as np

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.fol_entailment import FolEntailmentTask, World, truth, worlds

# Two people (0, 1), two properties (0 = brave, 1 = calm), one relation.
RULE = ["all", "x", ["imp", ["P", 0, "x"], ["P", 1, "x"]]]  # everyone brave is calm


def problem(premises, statement, answer):
    data = {
        "people": 2,
        "properties": 2,
        "relations": 1,
        "names": ["Ann", "Bob"],
        "adjectives": ["brave", "calm"],
        "verb": ["likes", "like", "liked"],
        "premises": premises,
        "statement": statement,
    }
    return Problem("", answer, data)


def test_true_false_and_unknown():
    task = FolEntailmentTask.from_level(4)
    cases = [
        ([RULE, ["P", 0, 0]], ["P", 1, 0], "True"),
        ([RULE, ["not", ["P", 1, 1]]], ["P", 0, 1], "False"),
        ([RULE, ["P", 1, 0]], ["P", 0, 0], "Unknown"),
        ([["exactly", 1, "x", ["P", 0, "x"]], ["P", 0, 0]], ["P", 0, 1], "False"),
        (
            [["all", "x", ["imp", ["P", 0, "x"], ["some", "y", ["R", "x", "y"]]]], ["P", 0, 0]],
            ["R", 0, 1],
            "True",
        ),
    ]
    for premises, statement, expected in cases:
        p = problem(premises, statement, expected)
        assert task.solve(p) == expected, (premises, statement)
        assert task.certify(p).unique
        assert task.verify(f"<answer>{expected.lower()}</answer>", p).score == 1


def test_bitset_worlds_agree_with_direct_evaluation():
    task = FolEntailmentTask.from_level(5)
    world = World(3, 3, 1)
    rng = np.random.default_rng(1)
    kinds = task._kinds() + ["counting"]
    formulas = [
        f
        for f in (task._template(rng, kinds[int(rng.integers(len(kinds)))]) for _ in range(40))
        if f
    ]
    for f in formulas:
        bits = worlds(f, world)
        for w in itertools.islice(rng.permutation(1 << world.size), 64):
            values = [bool(int(w) >> i & 1) for i in range(world.size)]
            assert bool(bits >> int(w) & 1) == truth(f, world, values), f


def test_nobody_relates_to_themselves():
    world = World(2, 1, 1)
    assert world.binary(0, 0) is None
    assert worlds(["some", "x", ["R", "x", "x"]], world) == 0
