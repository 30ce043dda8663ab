"""Propositional entailment: rules the generic quality bar cannot know."""

from __future__ import annotations

import numpy as np

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.logic.propositional import (
    ATOMS,
    PropositionalEntailmentTask,
    _formula,
    entails,
    table,
)

P, Q, R = ["var", "p"], ["var", "q"], ["var", "r"]


def test_textbook_cases():
    assert entails([["imp", P, Q], P], Q, 2)  # modus ponens
    assert not entails([["imp", P, Q], Q], P, 2)  # affirming the consequent
    assert entails([["imp", P, Q], ["not", Q]], ["not", P], 2)  # modus tollens
    assert entails([["or", P, Q], ["not", P]], Q, 2)  # disjunctive syllogism


def test_truth_tables_match_direct_evaluation():
    def value(f, row):
        op = f[0]
        if op == "var":
            return bool(row >> ATOMS.index(f[1]) & 1)
        if op == "not":
            return not value(f[1], row)
        a, b = value(f[1], row), value(f[2], row)
        return {"and": a and b, "or": a or b, "imp": (not a) or b, "iff": a == b}[op]

    rng = np.random.default_rng(0)
    for _ in range(200):
        f = _formula(rng, "pqr", 3)
        bits = table(f, 3)
        assert all(bool(bits >> row & 1) == value(f, row) for row in range(8))


def test_only_one_word_answers_count():
    task = PropositionalEntailmentTask.from_level(1)
    problem = Problem("", "yes", {"atoms": 2, "premises": [["imp", P, Q], P], "conclusion": Q})
    assert task.certify(problem).unique
    assert task.verify("<answer>Yes.</answer>", problem).score == 1
    for answer in ("yes, entailed", "entailed", "true", "y"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 0


def test_labels_are_balanced_and_premises_consistent():
    task = PropositionalEntailmentTask.from_level(6)
    problems = [task.problem(2, i) for i in range(60)]
    assert 20 <= sum(p.reference == "yes" for p in problems) <= 40
    # Consistent premises never entail a contradiction.
    assert not any(
        entails(p.data["premises"], ["and", P, ["not", P]], p.data["atoms"]) for p in problems
    )
