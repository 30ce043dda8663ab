"""Zebra puzzles: rules the generic quality bar cannot know."""

from __future__ import annotations

import itertools

import numpy as np

from palaestra.envs.tasks.logic.zebra import ZebraTask, holds, solve_all
from palaestra.verdict import Status


def brute_force(clues, n, m):
    count = 0
    for perms in itertools.product(itertools.permutations(range(n)), repeat=m):
        where = [house for perm in perms for house in perm]
        count += all(holds(c, where) for c in clues)
    return count


def test_the_propagation_solver_counts_like_brute_force():
    task = ZebraTask.from_level(1, houses=3, categories=2, prune=False)
    rng = np.random.default_rng(5)
    where = [0, 1, 2, 2, 0, 1]
    for _ in range(40):
        clues = [task._clue(rng, where) for _ in range(int(rng.integers(0, 4)))]
        assert len(solve_all(clues, 3, 2, cap=100)) == brute_force(clues, 3, 2)


def test_an_arrangement_breaking_a_clue_is_rejected_and_order_is_free():
    task = ZebraTask.from_level(4)
    problem = task.problem(3)
    lines = task.solve(problem).split("\n")
    entries = []
    for line in reversed(lines):
        head, values = line.split(": ")
        entries.append(f"house {head[len('House ') :]}: {', '.join(reversed(values.split(', ')))}")
    reordered = "; ".join(entries)
    assert task.verify(f"<answer>{reordered}</answer>", problem).score == 1
    for mutant in task.mutations(problem):
        verdict = task.verify(f"<answer>{mutant}</answer>", problem)
        assert verdict.status is Status.INCORRECT and "clue" in verdict.reason


def test_a_house_twice_or_a_value_missing_is_malformed():
    task = ZebraTask.from_level(2)
    problem = task.problem(1)
    lines = task.solve(problem).split("\n")
    twice = "\n".join([lines[0], lines[0], *lines[2:]])
    missing = "\n".join([lines[0].rsplit(",", 1)[0], *lines[1:]])
    for answer in (twice, missing, "\n".join(lines[:-1])):
        assert task.verify(f"<answer>{answer}</answer>", problem).status is Status.BAD_FORMAT


def test_pruning_leaves_no_clue_that_could_go():
    task = ZebraTask.from_level(3)
    problem = task.problem(7)
    data = problem.data
    n, m = data["houses"], len(data["categories"])
    for i in range(len(data["clues"])):
        rest = data["clues"][:i] + data["clues"][i + 1 :]
        assert len(solve_all(rest, n, m)) > 1
