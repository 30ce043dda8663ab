"""Shortest path: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.graphs.shortest_path import ShortestPathTask
from palaestra.verdict import Status

# Two shortest routes from A to D (length 4), a longer one through E, no road B-C.
EDGES = [["A", "B", 2], ["B", "D", 2], ["A", "C", 1], ["C", "D", 3], ["A", "E", 1], ["E", "D", 9]]


def problem() -> Problem:
    data = {
        "nodes": ["A", "B", "C", "D", "E"],
        "edges": EDGES,
        "source": "A",
        "target": "D",
        "distance": 4,
    }
    return Problem("", ["A", "B", "D"], data)


def test_any_shortest_route_scores():
    task = ShortestPathTask.from_level(1)
    assert task.certify(problem()).solvable
    for route in ("A -> B -> D", "a, c, d", "A-C-D", "A B D"):
        assert task.verify(f"<answer>{route}</answer>", problem()).score == 1, route


def test_longer_routes_missing_roads_and_wrong_ends_are_rejected():
    task = ShortestPathTask.from_level(1)
    for route, why in (
        ("A -> E -> D", "shortest"),
        ("A -> B -> C -> D", "no road"),
        ("D -> B -> A", "start"),
    ):
        verdict = task.verify(f"<answer>{route}</answer>", problem())
        assert verdict.status is Status.INCORRECT and why in verdict.reason


def test_unknown_towns_are_malformed():
    verdict = ShortestPathTask.from_level(1).verify("<answer>A -> X -> D</answer>", problem())
    assert verdict.status is Status.BAD_FORMAT
