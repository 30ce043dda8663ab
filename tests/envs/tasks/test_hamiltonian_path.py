"""Hamiltonian path: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.graphs.hamiltonian_path import HamiltonianPathTask, hamiltonian_paths
from palaestra.verdict import Status

DATA = {"nodes": ["A", "B", "C", "D"], "edges": [["A", "B"], ["B", "C"], ["C", "D"], ["A", "C"]]}


def test_any_path_through_every_node_scores():
    task = HamiltonianPathTask.from_level(1)
    problem = Problem("", ["A", "B", "C", "D"], DATA)
    for answer in ("D -> C -> B -> A", "B, A, C, D", "d c a b"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 1, answer
    for answer in ("A -> B -> C", "A -> B -> D -> C", "A -> B -> C -> D -> C"):
        assert task.verify(f"<answer>{answer}</answer>", problem).status is Status.INCORRECT, answer


def test_the_search_finds_paths_and_knows_when_there_is_none():
    found, _ = hamiltonian_paths(DATA["nodes"], DATA["edges"], limit=10)
    assert ["A", "B", "C", "D"] in found or ["D", "C", "B", "A"] in found
    star, _ = hamiltonian_paths(["A", "B", "C", "D"], [["A", "B"], ["A", "C"], ["A", "D"]], limit=1)
    assert star == []
