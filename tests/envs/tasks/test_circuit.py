"""Boolean circuits: rules the generic quality bar cannot know."""

from __future__ import annotations

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.circuit import BooleanCircuitTask, apply
from palaestra.verdict import Status


def test_gate_semantics():
    assert apply("XOR", [1, 1, 1]) == 1 and apply("XNOR", [1, 0]) == 0
    assert apply("NAND", [1, 1, 1]) == 0 and apply("NOR", [0, 0]) == 1 and apply("NOT", [0]) == 1


def test_listed_out_of_order_the_certificate_still_evaluates():
    gates = [["g2", "AND", ["g1", "b"]], ["g1", "OR", ["a", "b"]], ["g3", "NOT", ["g2"]]]
    problem = Problem(
        "",
        {"g2": 0, "g3": 1},
        {"inputs": {"a": 1, "b": 0}, "gates": gates, "outputs": ["g2", "g3"]},
    )
    task = BooleanCircuitTask.from_level(4)
    assert task.certify(problem).unique
    assert task.verify("<answer>g3 = true, g2 = false</answer>", problem).score == 1
    assert task.verify("<answer>g2 = 1, g3 = 1</answer>", problem).status is Status.INCORRECT
    assert task.verify("<answer>g2 = 0</answer>", problem).status is Status.BAD_FORMAT


def test_shuffled_circuits_do_not_number_gates_in_evaluation_order():
    task = BooleanCircuitTask.from_level(8)
    in_order = 0
    for i in range(10):
        gates = task.problem(0, i).data["gates"]
        defined: set[str] = set()
        ok = True
        for name, _, sources in gates:  # listed by number
            ok &= all(not s.startswith("g") or s in defined for s in sources)
            defined.add(name)
        in_order += ok
    assert in_order <= 1
