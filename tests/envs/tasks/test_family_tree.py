"""Family trees: rules the generic quality bar cannot know."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.graphs.family_tree import FamilyTreeTask, relation

# Tom + Ann -> Bob, Eve.  Bob + Kim -> Joe.  Eve + Sam -> Liz.
PEOPLE = [
    {"name": "Tom", "sex": "m", "parents": [], "spouse": 1},
    {"name": "Ann", "sex": "f", "parents": [], "spouse": 0},
    {"name": "Bob", "sex": "m", "parents": [0, 1], "spouse": 4},
    {"name": "Eve", "sex": "f", "parents": [0, 1], "spouse": 6},
    {"name": "Kim", "sex": "f", "parents": [], "spouse": 2},
    {"name": "Joe", "sex": "m", "parents": [2, 4], "spouse": None},
    {"name": "Sam", "sex": "m", "parents": [], "spouse": 3},
    {"name": "Liz", "sex": "f", "parents": [3, 6], "spouse": None},
]
FACTS = [
    ["married", "Tom", "Ann"],
    ["parent", "Tom", "Bob"],
    ["parent", "Ann", "Eve"],
    ["married", "Bob", "Kim"],
    ["parent", "Kim", "Joe"],
    ["married", "Eve", "Sam"],
    ["parent", "Eve", "Liz"],
]
INDEX = {p["name"]: i for i, p in enumerate(PEOPLE)}


@pytest.mark.parametrize(
    "a, b, term",
    [
        ("Joe", "Liz", "cousin"),
        ("Eve", "Joe", "aunt"),
        ("Sam", "Joe", None),
        ("Kim", "Eve", "sister-in-law"),
        ("Sam", "Bob", "brother-in-law"),
        ("Ann", "Kim", "mother-in-law"),
        ("Kim", "Tom", "daughter-in-law"),
        ("Liz", "Ann", "granddaughter"),
        ("Bob", "Eve", "brother"),
        ("Joe", "Kim", "son"),
        ("Ann", "Tom", "wife"),
    ],
)
def test_relations_from_the_tree_and_from_the_stated_facts_agree(a, b, term):
    assert relation(PEOPLE, INDEX[a], INDEX[b]) == term
    if term is not None:
        data = {
            "people": [[p["name"], p["sex"]] for p in PEOPLE],
            "facts": FACTS,
            "a": a,
            "b": b,
            "tier": 3,
        }
        assert FamilyTreeTask.from_level(10).certify(Problem("", term, data)).unique


def test_spelling_is_free_but_the_vocabulary_is_fixed():
    task = FamilyTreeTask.from_level(10)
    data = {"people": [], "facts": [], "a": "Kim", "b": "Eve", "tier": 3}
    problem = Problem("", "sister-in-law", data)
    for answer in ("Sister in law", "SISTER-IN-LAW.", "sister in-law"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 1, answer
    for answer in (
        "sister",
        "Kim is Eve's sister-in-law",
        "sibling-in-law",
        "aunt or sister-in-law",
    ):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 0, answer
