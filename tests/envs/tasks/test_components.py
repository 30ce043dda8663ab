"""Connected components and islands: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.graphs.components import ConnectedComponentsTask, island_sizes
from palaestra.verdict import Status


def test_diagonal_neighbours_do_not_join_islands():
    assert island_sizes(["#.#", ".#.", "##."]) == [3, 1, 1]


def test_grid_answers_are_multisets_of_sizes():
    task = ConnectedComponentsTask.from_level(1)
    problem = Problem("", [3, 1, 1], {"kind": "grid", "rows": ["#.#", ".#.", "##."]})
    assert task.verify("<answer>1, 3, 1</answer>", problem).score == 1
    assert task.verify("<answer>3, 2</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>3 islands</answer>", problem).status is Status.BAD_FORMAT


def test_graph_answers_are_partitions():
    task = ConnectedComponentsTask.from_level(1)
    data = {"kind": "graph", "nodes": ["A", "B", "C", "D"], "edges": [["A", "C"], ["B", "D"]]}
    problem = Problem("", [["A", "C"], ["B", "D"]], data)
    assert task.certify(problem).unique
    assert task.verify("<answer>{D, B} | {C, A}</answer>", problem).score == 1
    assert task.verify("<answer>A, B | C, D</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>A, C | B, D | A</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>A, C | B, Z</answer>", problem).status is Status.BAD_FORMAT


def test_both_variants_appear():
    task = ConnectedComponentsTask.from_level(3)
    assert {task.problem(1, i).data["kind"] for i in range(20)} == {"graph", "grid"}
