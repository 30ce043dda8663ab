"""Graph colouring: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.graphs.graph_coloring import GraphColoringTask, colourings
from palaestra.verdict import Status

# A 4-cycle A-B-C-D-A: two colours suffice, in two ways (up to renaming).
DATA = {
    "nodes": ["A", "B", "C", "D"],
    "edges": [["A", "B"], ["B", "C"], ["C", "D"], ["D", "A"]],
    "colours": 2,
}


def test_any_proper_colouring_scores():
    task = GraphColoringTask.from_level(1)
    problem = Problem("", {"A": 1, "B": 2, "C": 1, "D": 2}, DATA)
    assert task.verify("<answer>A=2, B=1, C=2, D=1</answer>", problem).score == 1
    assert task.verify("<answer>A=1, B=1, C=2, D=2</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>A=1, B=3, C=1, D=2</answer>", problem).status is Status.BAD_FORMAT


def test_the_search_breaks_colour_symmetry_and_finds_odd_cycles_uncolourable():
    found, _ = colourings(DATA["nodes"], DATA["edges"], 2, limit=10)
    assert len(found) == 1
    triangle, _ = colourings(["A", "B", "C"], [["A", "B"], ["B", "C"], ["C", "A"]], 2, limit=1)
    assert triangle == []


def test_generated_graphs_contain_a_k_clique():
    task = GraphColoringTask.from_level(6)
    problem = task.problem(3)
    k = problem.data["colours"]
    assert colourings(problem.data["nodes"], problem.data["edges"], k - 1, limit=1)[0] == []
