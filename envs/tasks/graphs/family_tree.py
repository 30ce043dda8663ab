"""Family trees: how is one person related to another?

The task:
    Facts about a family over two to five generations ("Bob is Alice's son", "Carol is
    Dan's wife"), with the rule that children of a married couple are children of both
    spouses. The question "How is A related to B?" is answered with one term from a fixed
    vocabulary (mother, uncle, cousin, sister-in-law, great-grandson, ...), completing "A is
    B's ___". Names come from the shipped list ``data/first_names.tsv``; every person's sex
    is listed.

    The generator names the relation from the tree it built (generations down from the
    closest common ancestors, or a marriage on the way); the certificate rebuilds parents
    and spouses from the stated facts alone and tests every term's definition, which must
    hold for exactly one term.

Observation:
    One user message: the people, the facts, the vocabulary and the question.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one term of the vocabulary.
    Case, spaces and hyphens are free (``Great grandmother`` = ``great-grandmother``);
    anything else is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for the right term, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; two generations and close relations at level 1 up to five generations
        with cousins, in-laws and great-grandparents at level 10.
    generations: Number of generations (2-5).
    children: Most children per couple (1-4).
    tier: Hardest relations asked: 1 (spouse, parent, child, sibling), 2 (also grandparents,
        grandchildren, uncles, aunts, nieces, nephews, parents- and children-in-law), 3 (also
        cousins, great-grandparents, great-grandchildren, siblings-in-law).
    max_people: Most people in the family (4-40).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import MAX_ANSWER_CHARS, first_names
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

TERMS = {
    # term: (tier, sex of A or None)
    "husband": (1, "m"),
    "wife": (1, "f"),
    "father": (1, "m"),
    "mother": (1, "f"),
    "son": (1, "m"),
    "daughter": (1, "f"),
    "brother": (1, "m"),
    "sister": (1, "f"),
    "grandfather": (2, "m"),
    "grandmother": (2, "f"),
    "grandson": (2, "m"),
    "granddaughter": (2, "f"),
    "uncle": (2, "m"),
    "aunt": (2, "f"),
    "nephew": (2, "m"),
    "niece": (2, "f"),
    "father-in-law": (2, "m"),
    "mother-in-law": (2, "f"),
    "son-in-law": (2, "m"),
    "daughter-in-law": (2, "f"),
    "cousin": (3, None),
    "great-grandfather": (3, "m"),
    "great-grandmother": (3, "f"),
    "great-grandson": (3, "m"),
    "great-granddaughter": (3, "f"),
    "brother-in-law": (3, "m"),
    "sister-in-law": (3, "f"),
}
"""The vocabulary: term -> (tier, the sex the term implies for A)."""

LEVELS = {
    1: (2, 3, 1, 6),
    2: (3, 2, 1, 10),
    3: (3, 2, 2, 12),
    4: (3, 3, 2, 14),
    5: (4, 2, 2, 18),
    6: (4, 2, 3, 20),
    7: (4, 3, 3, 24),
    8: (4, 3, 3, 30),
    9: (5, 2, 3, 34),
    10: (5, 3, 3, 40),
}
"""(generations, most children, tier, most people) by level."""

# Generations down from the closest common ancestors to (A, B) -> (neutral term, male, female).
BLOOD = {
    (0, 1): ("parent", "father", "mother"),
    (0, 2): ("grandparent", "grandfather", "grandmother"),
    (0, 3): ("great-grandparent", "great-grandfather", "great-grandmother"),
    (1, 0): ("child", "son", "daughter"),
    (2, 0): ("grandchild", "grandson", "granddaughter"),
    (3, 0): ("great-grandchild", "great-grandson", "great-granddaughter"),
    (1, 1): ("sibling", "brother", "sister"),
    (1, 2): ("parent's sibling", "uncle", "aunt"),
    (2, 1): ("sibling's child", "nephew", "niece"),
    (2, 2): ("cousin", "cousin", "cousin"),
}


@dataclasses.dataclass(frozen=True)
class FamilyTreeConfig:
    """Knobs.

    Attributes:
        generations: Number of generations (2-5).
        children: Most children per couple (1-4).
        tier: Hardest relations asked (1-3).
        max_people: Most people in the family (4-40).
    """

    generations: int = 3
    children: int = 2
    tier: int = 2
    max_people: int = 12

    def __post_init__(self) -> None:
        if not isinstance(self.generations, int) or not 2 <= self.generations <= 5:
            raise ValueError(
                f"generations must be an integer from 2 to 5, got {self.generations!r}"
            )
        if not isinstance(self.children, int) or not 1 <= self.children <= 4:
            raise ValueError(f"children must be an integer from 1 to 4, got {self.children!r}")
        if self.tier not in (1, 2, 3):
            raise ValueError(f"tier must be 1, 2 or 3, got {self.tier!r}")
        if not isinstance(self.max_people, int) or not 4 <= self.max_people <= 40:
            raise ValueError(f"max_people must be an integer from 4 to 40, got {self.max_people!r}")


def _key(term: str) -> str:
    return re.sub(r"[\s\-]+", "", term.lower())


TERM_KEYS = {_key(t): t for t in TERMS}

PAIRS = (
    ("husband", "wife"),
    ("father", "mother"),
    ("son", "daughter"),
    ("brother", "sister"),
    ("grandfather", "grandmother"),
    ("grandson", "granddaughter"),
    ("uncle", "aunt"),
    ("nephew", "niece"),
    ("father-in-law", "mother-in-law"),
    ("son-in-law", "daughter-in-law"),
    ("brother-in-law", "sister-in-law"),
    ("great-grandfather", "great-grandmother"),
    ("great-grandson", "great-granddaughter"),
)
"""Male and female forms of the same relation."""


# --- the generator's tree ------------------------------------------------------------------
#
# A person is a dict: name, sex ("m"/"f"), parents (indices, [] for founders and in-laws),
# spouse (index or None).


def _ancestors(people: list[dict[str, Any]], i: int) -> dict[int, int]:
    """Ancestor index -> generations up (the person is their own ancestor at 0)."""
    out = {i: 0}
    frontier = [i]
    while frontier:
        nxt = []
        for j in frontier:
            for p in people[j]["parents"]:
                if p not in out:
                    out[p] = out[j] + 1
                    nxt.append(p)
        frontier = nxt
    return out


def _blood(ancestors: list[dict[int, int]], a: int, b: int) -> tuple[int, int] | None:
    """(generations from the closest common ancestor down to a, down to b), or None."""
    up_a, up_b = ancestors[a], ancestors[b]
    common = [(up_a[x] + up_b[x], up_a[x], up_b[x]) for x in up_a if x in up_b]
    if not common:
        return None
    _, da, db = min(common)
    return da, db


def relation(
    people: list[dict[str, Any]], a: int, b: int, ancestors: list[dict[int, int]] | None = None
) -> str | None:
    """The vocabulary term for "a is b's ___", or None when the vocabulary has none.

    Args:
        people: The family.
        a: Index of the person described.
        b: Index of the person they are related to.
        ancestors: `_ancestors` of everyone (computed when not given).
    """
    if ancestors is None:
        ancestors = [_ancestors(people, i) for i in range(len(people))]
    if a == b:
        return None
    sex = people[a]["sex"]
    if people[a]["spouse"] == b:
        return "husband" if sex == "m" else "wife"
    found = _blood(ancestors, a, b)
    if found in BLOOD:
        _, male, female = BLOOD[found]
        return male if sex == "m" else female
    if found is not None:
        return None
    spouse_a, spouse_b = people[a]["spouse"], people[b]["spouse"]
    # a married into b's family: a's spouse is b's child or sibling.
    if spouse_a is not None and _blood(ancestors, spouse_a, b) in ((1, 0), (1, 1)):
        kind = _blood(ancestors, spouse_a, b)
        if kind == (1, 0):
            return "son-in-law" if sex == "m" else "daughter-in-law"
        return "brother-in-law" if sex == "m" else "sister-in-law"
    # b married into a's family: a is b's spouse's parent or sibling.
    if spouse_b is not None and _blood(ancestors, a, spouse_b) in ((0, 1), (1, 1)):
        if _blood(ancestors, a, spouse_b) == (0, 1):
            return "father-in-law" if sex == "m" else "mother-in-law"
        return "brother-in-law" if sex == "m" else "sister-in-law"
    return None


class FamilyTreeTask(Task[FamilyTreeConfig]):
    """Name a family relation."""

    name = "family_tree"
    Config = FamilyTreeConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> FamilyTreeConfig:
        """More generations, people and harder relations with the level."""
        generations, children, tier, max_people = LEVELS[level]
        return FamilyTreeConfig(
            generations=generations, children=children, tier=tier, max_people=max_people
        )

    def _family(self, rng: np.random.Generator) -> list[dict[str, Any]]:
        cfg = self.config
        female, male = first_names()
        pools = {
            "f": [female[int(i)] for i in rng.permutation(len(female))],
            "m": [male[int(i)] for i in rng.permutation(len(male))],
        }

        def person(sex: str, parents: list[int]) -> int:
            people.append(
                {"name": pools[sex].pop(), "sex": sex, "parents": parents, "spouse": None}
            )
            return len(people) - 1

        def marry(a: int, b: int) -> None:
            people[a]["spouse"], people[b]["spouse"] = b, a

        people: list[dict[str, Any]] = []
        couples = [(person("m", []), person("f", []))]
        marry(*couples[0])
        for generation in range(1, cfg.generations):
            next_couples = []
            for father, mother in couples:
                for _ in range(int(rng.integers(1, cfg.children + 1))):
                    if len(people) >= cfg.max_people:
                        break
                    sex = "m" if rng.random() < 0.5 else "f"
                    child = person(sex, [father, mother])
                    # Children who will have children of their own marry someone from outside.
                    if (
                        generation < cfg.generations - 1
                        and len(people) < cfg.max_people
                        and rng.random() < 0.85
                    ):
                        spouse = person("f" if sex == "m" else "m", [])
                        marry(child, spouse)
                        next_couples.append((child, spouse) if sex == "m" else (spouse, child))
            couples = next_couples
        return people

    def _facts(self, rng: np.random.Generator, people: list[dict[str, Any]]) -> list[list[str]]:
        """One parent link per child and every marriage, as ``[kind, name, name]``."""
        facts = []
        for i, p in enumerate(people):
            if p["parents"]:
                parent = p["parents"][int(rng.integers(2))]
                facts.append(["parent", people[parent]["name"], p["name"]])
            if p["spouse"] is not None and p["spouse"] > i:
                facts.append(["married", p["name"], people[p["spouse"]]["name"]])
        return [facts[int(i)] for i in rng.permutation(len(facts))]

    @staticmethod
    def _render(fact: list[str], sex: dict[str, str], rng: np.random.Generator) -> str:
        kind, a, b = fact
        if kind == "married":
            if rng.random() < 0.6:
                return f"{a} is {b}'s {'husband' if sex[a] == 'm' else 'wife'}."
            return f"{a} and {b} are married."
        if rng.random() < 0.5:
            return f"{a} is {b}'s {'father' if sex[a] == 'm' else 'mother'}."
        return f"{b} is {a}'s {'son' if sex[b] == 'm' else 'daughter'}."

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random family; a pair related at the hardest tier on offer (most of the time)."""
        cfg = self.config
        people = self._family(rng)
        by_tier: dict[int, list[tuple[int, int, str]]] = {1: [], 2: [], 3: []}
        ancestors = [_ancestors(people, i) for i in range(len(people))]
        for a in range(len(people)):
            for b in range(len(people)):
                term = relation(people, a, b, ancestors)
                if term is not None and TERMS[term][0] <= cfg.tier:
                    by_tier[TERMS[term][0]].append((a, b, term))
        offered = [t for t in (1, 2, 3) if by_tier[t]]
        tier = max(offered) if rng.random() < 0.6 else offered[int(rng.integers(len(offered)))]
        a, b, term = by_tier[tier][int(rng.integers(len(by_tier[tier])))]
        sex = {p["name"]: p["sex"] for p in people}
        facts = self._facts(rng, people)
        roster = ", ".join(
            f"{p['name']} ({'male' if p['sex'] == 'm' else 'female'})" for p in people
        )
        lines = "\n".join(self._render(f, sex, rng) for f in facts)
        vocabulary = ", ".join(t for t in TERMS if TERMS[t][0] <= cfg.tier)
        a_name, b_name = people[a]["name"], people[b]["name"]
        prompt = (
            f"The people of a family: {roster}.\nFacts:\n{lines}\n\n"
            "Children of a married couple are the children of both spouses, "
            "and there are no other family ties than those that follow from these facts.\n"
            f"How is {a_name} related to {b_name}? "
            f"Complete '{a_name} is {b_name}'s ___' with one term from this "
            f"list: {vocabulary}. e.g. <answer>nephew</answer>. " + ANSWER_FORMAT
        )
        data = {
            "people": [[p["name"], p["sex"]] for p in people],
            "facts": facts,
            "a": a_name,
            "b": b_name,
            "tier": tier,
        }
        return Problem(prompt, term, data)

    def solve(self, problem: Problem) -> str:
        """The generator's term."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One term of the vocabulary, compared with the reference (unique by certificate)."""
        if len(answer) > MAX_ANSWER_CHARS:
            return self.malformed(answer, problem, "the answer is too long")
        text = answer.strip().removesuffix(".")
        term = (
            TERM_KEYS.get(_key(text)) if re.fullmatch(r"[A-Za-z][A-Za-z\s\-]{0,40}", text) else None
        )
        if term is None:
            return self.malformed(
                answer, problem, "the answer must be one term of the listed vocabulary"
            )
        if term != problem.reference:
            return self.wrong(
                term, problem, f"{problem.data['a']} is {problem.data['b']}'s {problem.reference}"
            )
        return self.correct(term, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Rebuilds parents and spouses from the facts; exactly one term's definition must hold."""
        data = problem.data
        sex = dict((name, s) for name, s in data["people"])
        parents: dict[str, set[str]] = {name: set() for name in sex}
        spouse: dict[str, str] = {}
        for kind, x, y in data["facts"]:
            if kind == "married":
                spouse[x], spouse[y] = y, x
            else:
                parents[y].add(x)
        for child in parents:
            parents[child] |= {spouse[p] for p in list(parents[child]) if p in spouse}

        def kids(x: str) -> set[str]:
            return {c for c in parents if x in parents[c]}

        def siblings(x: str) -> set[str]:
            return {y for y in parents if y != x and parents[x] and parents[y] == parents[x]}

        def grand(x: str) -> set[str]:
            return {g for p in parents[x] for g in parents[p]}

        a, b = data["a"], data["b"]
        in_law_b = {spouse[b]} if b in spouse else set()
        tests = {
            "spouse": a == spouse.get(b),
            "parent": a in parents[b],
            "child": b in parents[a],
            "sibling": a in siblings(b),
            "grandparent": a in grand(b),
            "grandchild": b in grand(a),
            "great-grandparent": any(a in grand(p) for p in parents[b]),
            "great-grandchild": any(b in grand(p) for p in parents[a]),
            "parent's sibling": any(a in siblings(p) for p in parents[b]),
            "sibling's child": any(p in siblings(b) for p in parents[a]),
            "cousin": any(p in siblings(q) for p in parents[a] for q in parents[b]),
            "parent-in-law": any(a in parents[s] for s in in_law_b),
            "child-in-law": a in spouse and spouse[a] in kids(b) and a not in kids(b),
            "sibling-in-law": any(a in siblings(s) for s in in_law_b)
            or (a in spouse and spouse[a] in siblings(b)),
        }
        holding = [name for name, ok in tests.items() if ok]
        if len(holding) != 1:
            return Certificate(2 if holding else 0)
        male = sex[a] == "m"
        names = {
            "spouse": ("husband", "wife"),
            "parent": ("father", "mother"),
            "child": ("son", "daughter"),
            "sibling": ("brother", "sister"),
            "grandparent": ("grandfather", "grandmother"),
            "grandchild": ("grandson", "granddaughter"),
            "great-grandparent": ("great-grandfather", "great-grandmother"),
            "great-grandchild": ("great-grandson", "great-granddaughter"),
            "parent's sibling": ("uncle", "aunt"),
            "sibling's child": ("nephew", "niece"),
            "cousin": ("cousin", "cousin"),
            "parent-in-law": ("father-in-law", "mother-in-law"),
            "child-in-law": ("son-in-law", "daughter-in-law"),
            "sibling-in-law": ("brother-in-law", "sister-in-law"),
        }[holding[0]]
        return Certificate(1 if names[0 if male else 1] == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The term of the other sex, and a generation more or less (or no marriage)."""
        term = problem.reference
        out = [female if term == male else male for male, female in PAIRS if term in (male, female)]
        if term.startswith("great-"):
            out.append(term[len("great-") :])
        elif term.startswith("grand"):
            out += ["great-" + term, term[len("grand") :]]
        elif term.endswith("-in-law"):
            out.append(term[: -len("-in-law")])
        else:
            out.append("cousin" if term != "cousin" else "brother")
        return [m for m in dict.fromkeys(out) if m != term and m in TERMS]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other case, spaces for hyphens, a full stop."""
        term = problem.reference
        return [term.upper(), term.replace("-", " ").capitalize() + "."]

    def work(self, problem: Problem) -> float:
        """People in the family times the relation's tier (the steps of the reasoning)."""
        data = problem.data
        return float(len(data["people"]) * data["tier"])


class FamilyTreeEnv(TaskEnv):
    """Family-tree relations; see the module docstring."""

    task_class = FamilyTreeTask
