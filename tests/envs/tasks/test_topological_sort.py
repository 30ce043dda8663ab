"""Topological order and cycles: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.graphs.topological_sort import TopologicalSortTask, find_cycle
from palaestra.verdict import Status

ACYCLIC = {"nodes": ["A", "B", "C", "D"], "edges": [["A", "B"], ["A", "C"], ["C", "D"]]}
CYCLIC = {"nodes": ["A", "B", "C", "D"], "edges": [["A", "B"], ["B", "C"], ["C", "A"], ["C", "D"]]}


def test_any_valid_order_scores_and_a_broken_rule_does_not():
    task = TopologicalSortTask.from_level(1)
    problem = Problem("", {"kind": "order", "nodes": ["A", "B", "C", "D"]}, ACYCLIC)
    for answer in ("A, B, C, D", "A -> C -> D -> B", "a c b d"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 1, answer
    assert task.verify("<answer>A, D, C, B</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>cycle: A, B</answer>", problem).status is Status.INCORRECT


def test_cycles_need_a_real_witness():
    task = TopologicalSortTask.from_level(1)
    problem = Problem(
        "", {"kind": "cycle", "nodes": find_cycle(CYCLIC["nodes"], CYCLIC["edges"])}, CYCLIC
    )
    assert task.certify(problem).solvable
    for answer in ("cycle: A, B, C", "Cycle B -> C -> A -> B", "CYCLE: c, a, b"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 1, answer
    for answer in ("cycle: A, C, B", "cycle: A, B", "cycle: A, B, C, A, B", "A, B, C, D"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 0, answer


def test_the_word_cycle_alone_is_not_an_answer():
    problem = Problem("", {"kind": "cycle", "nodes": ["A", "B", "C"]}, CYCLIC)
    assert (
        TopologicalSortTask.from_level(1).verify("<answer>cycle</answer>", problem).status
        is Status.BAD_FORMAT
    )
