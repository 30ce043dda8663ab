"""First-order entailment over a small finite story: True, False or Unknown.

The task:
    A story names everyone who exists (2-5 people) and states facts and rules about them:
    properties ("Alice is brave"), a relation at higher levels ("Bob trusts Carol"), rules
    ("Everyone who is brave is calm", "Everyone who trusts someone curious is happy"),
    existentials ("Someone is both tall and calm") and counts ("Exactly one person is
    rich"). A statement is True if it holds in every world consistent with the story (over
    exactly these people), False if it fails in every such world, Unknown otherwise.

    The generator enumerates every world (all truth values of the ground atoms, bit-parallel
    over at most 2^20 worlds) from a story built to be true in a hidden world; the
    certificate asks z3, with the people as a finite enumerated sort and the rules as
    quantified formulas, whether the statement or its negation can be false.

Observation:
    One user message: the story, the statement and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: ``True``, ``False`` or
    ``Unknown`` (case free, a trailing full stop allowed). Anything else is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for the right label, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 2 people, 2 properties and 3 premises at level 1 up to 4 people, 2
        properties, a relation and 12 premises with counting at level 10.
    people: Number of people (2-5).
    properties: Number of properties (1-6).
    relations: 0 or 1 binary relation.
    premises: Number of premises (2-16).
    counting: Whether "exactly k people are ..." premises and statements appear.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import draw_names, parse_label, z3_module
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LABELS = {"true": "True", "false": "False", "unknown": "Unknown"}
ADJECTIVES = (
    "brave",
    "calm",
    "clever",
    "curious",
    "happy",
    "kind",
    "quiet",
    "rich",
    "tall",
    "busy",
)
VERBS = (
    ("likes", "like", "liked"),
    ("trusts", "trust", "trusted"),
    ("admires", "admire", "admired"),
    ("helps", "help", "helped"),
)
"""A relation's third person, base form and participle."""

MAX_ATOMS = 20
"""Ground atoms past this make the 2^atoms worlds too many to enumerate."""

LEVELS = {
    1: (2, 2, 0, 3, False),
    2: (2, 3, 0, 4, False),
    3: (3, 3, 0, 5, False),
    4: (3, 2, 1, 6, False),
    5: (3, 3, 1, 7, False),
    6: (3, 4, 1, 8, True),
    7: (3, 4, 1, 9, True),
    8: (3, 4, 1, 10, True),
    9: (3, 4, 1, 11, True),
    10: (4, 2, 1, 12, True),
}
"""(people, properties, relations, premises, counting) by level; worlds grow from 2^4 to 2^20."""

STATEMENT_CANDIDATES = 24
"""Random statements drawn (besides every "X is P") to find one with the chosen label."""

UNARY = ("fact", "all_if", "all_if_and", "cover", "some", "some_both", "fact_or", "everyone")
RELATIONAL = ("rel_fact", "rel_rule", "rel_some", "rel_all_from", "rel_liked", "rel_mutual")


@dataclasses.dataclass(frozen=True)
class FolEntailmentConfig:
    """Knobs.

    Attributes:
        people: Number of people (2-5).
        properties: Number of properties (1-6).
        relations: Number of binary relations (0 or 1).
        premises: Number of premises (2-16).
        counting: Whether counting premises and statements appear.
    """

    people: int = 3
    properties: int = 3
    relations: int = 0
    premises: int = 5
    counting: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.people, int) or not 2 <= self.people <= 5:
            raise ValueError(f"people must be an integer from 2 to 5, got {self.people!r}")
        if not isinstance(self.properties, int) or not 1 <= self.properties <= 6:
            raise ValueError(f"properties must be an integer from 1 to 6, got {self.properties!r}")
        if self.relations not in (0, 1):
            raise ValueError(f"relations must be 0 or 1, got {self.relations!r}")
        if not isinstance(self.premises, int) or not 2 <= self.premises <= 16:
            raise ValueError(f"premises must be an integer from 2 to 16, got {self.premises!r}")
        if not isinstance(self.counting, bool):
            raise ValueError(f"counting must be True or False, got {self.counting!r}")
        atoms = self.people * self.properties + self.relations * self.people * (self.people - 1)
        if atoms > MAX_ATOMS:
            raise ValueError(
                f"{atoms} ground atoms "
                "(people * properties + people * (people - 1) per relation) is over "
                f"{MAX_ATOMS}; use fewer people or properties"
            )


# --- formulas ------------------------------------------------------------------------------
#
# JSON lists: ["P", property, term], ["R", term, term], ["neq", term, term], ["not", f],
# ["and", f, g], ["or", f, g], ["imp", f, g], ["all", var, f], ["some", var, f],
# ["exactly", k, var, f]. A term is a person's index or a variable name ("x", "y").


class World:
    """The ground atoms of a story: P(property, person) and R(a, b) for a != b."""

    def __init__(self, people: int, properties: int, relations: int):
        self.people, self.properties, self.relations = people, properties, relations
        self.size = people * properties + relations * people * (people - 1)

    def unary(self, prop: int, person: int) -> int:
        """The index of P(prop, person)."""
        return prop * self.people + person

    def binary(self, a: int, b: int) -> int | None:
        """The index of R(a, b), or None for a == b (nobody relates to themselves)."""
        if a == b:
            return None
        return self.people * self.properties + a * (self.people - 1) + (b if b < a else b - 1)


def truth(
    f: list[Any], world: World, values: list[bool], env: dict[str, int] | None = None
) -> bool:
    """Whether ``f`` holds in one world (``values`` of the ground atoms)."""
    env = env or {}

    def term(t: Any) -> int:
        return env[t] if isinstance(t, str) else t

    op = f[0]
    if op == "P":
        return values[world.unary(f[1], term(f[2]))]
    if op == "R":
        index = world.binary(term(f[1]), term(f[2]))
        return index is not None and values[index]
    if op == "neq":
        return term(f[1]) != term(f[2])
    if op == "not":
        return not truth(f[1], world, values, env)
    if op == "and":
        return truth(f[1], world, values, env) and truth(f[2], world, values, env)
    if op == "or":
        return truth(f[1], world, values, env) or truth(f[2], world, values, env)
    if op == "imp":
        return not truth(f[1], world, values, env) or truth(f[2], world, values, env)
    if op == "all":
        return all(truth(f[2], world, values, {**env, f[1]: p}) for p in range(world.people))
    if op == "some":
        return any(truth(f[2], world, values, {**env, f[1]: p}) for p in range(world.people))
    if op == "exactly":
        return (
            sum(truth(f[3], world, values, {**env, f[2]: p}) for p in range(world.people)) == f[1]
        )
    raise ValueError(f"unknown formula operator {op!r}")


@functools.lru_cache(maxsize=24)
def _columns(size: int) -> tuple[int, ...]:
    """Atom i's truth over all 2^size worlds as a bitset (world w: atom i = bit i of w)."""
    rows = 1 << size
    out = []
    for i in range(size):
        # 2^i zeros then 2^i ones, doubled until it covers every world.
        column, length = ((1 << (1 << i)) - 1) << (1 << i), 2 << i
        while length < rows:
            column |= column << length
            length *= 2
        out.append(column)
    return tuple(out)


@functools.lru_cache(maxsize=24)
def _full(size: int) -> int:
    return (1 << (1 << size)) - 1


def worlds(f: list[Any], world: World, env: dict[str, int] | None = None) -> int:
    """The bitset of worlds (over all 2^atoms) in which ``f`` holds."""
    env = env or {}
    full = _full(world.size)

    def term(t: Any) -> int:
        return env[t] if isinstance(t, str) else t

    op = f[0]
    if op == "P":
        return _columns(world.size)[world.unary(f[1], term(f[2]))]
    if op == "R":
        index = world.binary(term(f[1]), term(f[2]))
        return 0 if index is None else _columns(world.size)[index]
    if op == "neq":
        return full if term(f[1]) != term(f[2]) else 0
    if op == "not":
        return full ^ worlds(f[1], world, env)
    if op in ("and", "or", "imp"):
        a = worlds(f[1], world, env)
        if op == "and" and not a:
            return 0
        if op == "imp" and not a:
            return full
        b = worlds(f[2], world, env)
        return a & b if op == "and" else a | b if op == "or" else (full ^ a) | b
    if op in ("all", "some"):
        out = full if op == "all" else 0
        for p in range(world.people):
            part = worlds(f[2], world, {**env, f[1]: p})
            out = out & part if op == "all" else out | part
        return out
    if op == "exactly":
        # Worlds where exactly k of the people satisfy the body: a running count as bitsets.
        counts = [full] + [0] * world.people  # counts[j]: worlds where j so far satisfy it
        for p in range(world.people):
            part = worlds(f[3], world, {**env, f[2]: p})
            rest = full ^ part
            counts = [
                (counts[j] & rest) | ((counts[j - 1] & part) if j else 0)
                for j in range(world.people + 1)
            ]
        return counts[f[1]]
    raise ValueError(f"unknown formula operator {op!r}")


# --- rendering -----------------------------------------------------------------------------


def render(
    f: list[Any], names: list[str], adjectives: list[str], verb: tuple[str, str, str]
) -> str:
    """A premise or statement in English (only the shapes the templates build)."""

    def adj(p: int) -> str:
        return adjectives[p]

    op = f[0]
    if op == "P":
        return f"{names[f[2]]} is {adj(f[1])}"
    if op == "R":
        return f"{names[f[1]]} {verb[0]} {names[f[2]]}"
    if op == "not" and f[1][0] == "P":
        return f"{names[f[1][2]]} is not {adj(f[1][1])}"
    if op == "not" and f[1][0] == "R":
        return f"{names[f[1][1]]} does not {verb[1]} {names[f[1][2]]}"
    if op == "or" and f[1][0] == "P" and f[2][0] == "P":
        return (
            f"{render(f[1], names, adjectives, verb)} or "
            f"{render(f[2], names, adjectives, verb)} (or both)"
        )
    shape = f[-1] if op in ("all", "some") else None
    if op == "all" and shape[0] == "P":
        return f"Everyone is {adj(shape[1])}"
    if op == "all" and shape[0] == "not":
        return f"Nobody is {adj(shape[1][1])}"
    if op == "all" and shape[0] == "or":
        return f"Everyone is {adj(shape[1][1])} or {adj(shape[2][1])} (or both)"
    if op == "all" and shape[0] == "imp":
        left, right = shape[1], shape[2]
        if left[0] == "P":
            if right[0] == "P":
                return f"Everyone who is {adj(left[1])} is {adj(right[1])}"
            if right[0] == "not":
                return f"Nobody who is {adj(left[1])} is {adj(right[1][1])}"
            if right[0] == "some":
                return f"Everyone who is {adj(left[1])} {verb[0]} someone"
        if left[0] == "and" and left[1][0] == "P":
            ending = adj(right[1]) if right[0] == "P" else "not " + adj(right[1][1])
            return f"Everyone who is {adj(left[1][1])} and {adj(left[2][1])} is {ending}"
        if left[0] == "and" and left[1][0] == "neq":
            return f"{names[right[1]]} {verb[0]} everyone else who is {adj(left[2][1])}"
        if left[0] == "some":
            return f"Everyone who is {verb[2]} by someone is {adj(right[1])}"
    if op == "all" and shape[0] == "all":
        inner = shape[2]
        if inner[2][0] == "P":
            return f"Everyone who {verb[0]} someone {adj(inner[1][2][1])} is {adj(inner[2][1])}"
        return f"Whenever one person {verb[0]} another, the other {verb[0]} them back"
    if op == "some" and shape[0] == "P":
        return f"Someone is {adj(shape[1])}"
    if op == "some" and shape[0] == "and":
        if shape[2][0] == "P":
            return f"Someone is both {adj(shape[1][1])} and {adj(shape[2][1])}"
        return f"Someone is {adj(shape[1][1])} but not {adj(shape[2][1][1])}"
    if op == "exactly":
        count = (
            "no one is",
            "exactly one person is",
            "exactly two people are",
            "exactly three people are",
            "exactly four people are",
        )[f[1]]
        return f"{count.capitalize()} {adj(f[3][1])}"
    raise ValueError(f"cannot render {f!r}")


def sentence(
    f: list[Any], names: list[str], adjectives: list[str], verb: tuple[str, str, str]
) -> str:
    """`render` with a capital letter and a full stop."""
    text = render(f, names, adjectives, verb)
    return text[0].upper() + text[1:] + "."


# --- the task ------------------------------------------------------------------------------


class FolEntailmentTask(Task[FolEntailmentConfig]):
    """Decide a statement about a finite story."""

    name = "fol_entailment"
    Config = FolEntailmentConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> FolEntailmentConfig:
        """More people, properties, a relation, more premises and counting with the level."""
        people, properties, relations, premises, counting = LEVELS[level]
        return FolEntailmentConfig(
            people=people,
            properties=properties,
            relations=relations,
            premises=premises,
            counting=counting,
        )

    def _template(self, rng: np.random.Generator, kind: str) -> list[Any] | None:
        """A random formula of one shape (true or not in the hidden world)."""
        d, k = self.config.people, self.config.properties

        def prop() -> int:
            return int(rng.integers(k))

        def person() -> int:
            return int(rng.integers(d))

        def lit(p: int, term: Any, positive: bool) -> list[Any]:
            return ["P", p, term] if positive else ["not", ["P", p, term]]

        def pair_of_props() -> tuple[int, int] | None:
            if k < 2:
                return None
            a, b = (int(x) for x in rng.choice(k, size=2, replace=False))
            return a, b

        coin = bool(rng.integers(2))
        if kind == "fact":
            return lit(prop(), person(), coin)
        if kind == "everyone":
            return ["all", "x", lit(prop(), "x", coin)]
        if kind == "some":
            return ["some", "x", ["P", prop(), "x"]]
        if kind == "counting":
            return ["exactly", int(rng.integers(1, d)), "x", ["P", prop(), "x"]]
        if kind == "rel_fact":
            a, b = (int(x) for x in rng.choice(d, size=2, replace=False))
            return ["R", a, b] if coin else ["not", ["R", a, b]]
        if kind == "rel_some":
            return ["all", "x", ["imp", ["P", prop(), "x"], ["some", "y", ["R", "x", "y"]]]]
        if kind == "rel_all_from":
            a = person()
            return [
                "all",
                "y",
                ["imp", ["and", ["neq", "y", a], ["P", prop(), "y"]], ["R", a, "y"]],
            ]
        if kind == "rel_liked":
            return ["all", "x", ["imp", ["some", "y", ["R", "y", "x"]], ["P", prop(), "x"]]]
        if kind == "rel_mutual":
            return ["all", "x", ["all", "y", ["imp", ["R", "x", "y"], ["R", "y", "x"]]]]
        pair = pair_of_props()
        if pair is None:
            return None
        a, b = pair
        if kind == "all_if":
            return ["all", "x", ["imp", ["P", a, "x"], lit(b, "x", coin)]]
        if kind == "cover":
            return ["all", "x", ["or", ["P", a, "x"], ["P", b, "x"]]]
        if kind == "some_both":
            return ["some", "x", ["and", ["P", a, "x"], lit(b, "x", coin)]]
        if kind == "fact_or":
            return ["or", ["P", a, person()], ["P", b, person()]]
        if kind == "rel_rule":
            return [
                "all",
                "x",
                ["all", "y", ["imp", ["and", ["R", "x", "y"], ["P", a, "y"]], ["P", b, "x"]]],
            ]
        if k < 3:
            return None
        a, b, c = (int(x) for x in rng.choice(k, size=3, replace=False))
        return [
            "all",
            "x",
            ["imp", ["and", ["P", a, "x"], ["P", b, "x"]], lit(c, "x", coin)],
        ]  # all_if_and

    def _kinds(self) -> list[str]:
        kinds = list(UNARY)
        if self.config.relations:
            kinds += RELATIONAL
        if self.config.counting:
            kinds.append("counting")
        return kinds

    def generate(self, rng: np.random.Generator) -> Problem:
        """Premises true in a hidden world; a statement with a label drawn among those on offer."""
        cfg = self.config
        world = World(cfg.people, cfg.properties, cfg.relations)
        names = draw_names(rng, cfg.people)
        adjectives = [
            ADJECTIVES[int(i)]
            for i in sorted(rng.choice(len(ADJECTIVES), size=cfg.properties, replace=False))
        ]
        verb = VERBS[int(rng.integers(len(VERBS)))]
        hidden = [bool(v) for v in rng.integers(0, 2, size=world.size)]
        kinds = self._kinds()

        def text(f: list[Any]) -> str:
            return sentence(f, names, adjectives, verb)

        premises: list[list[Any]] = []
        seen: set[str] = set()
        # Facts alone make dull stories: at most a third of the premises are ground facts.
        facts_left = max(1, cfg.premises // 3)
        while len(premises) < cfg.premises:
            kind = kinds[int(rng.integers(len(kinds)))]
            if kind in ("fact", "rel_fact") and facts_left == 0:
                continue
            f = self._template(rng, kind)
            if f is None or not truth(f, world, hidden) or text(f) in seen:
                continue
            facts_left -= kind in ("fact", "rel_fact")
            premises.append(f)
            seen.add(text(f))
        models = _full(world.size)
        for f in premises:
            models &= worlds(f, world)
        by_label: dict[str, list[list[Any]]] = {"True": [], "False": [], "Unknown": []}
        candidates = [
            self._template(rng, kinds[int(rng.integers(len(kinds)))])
            for _ in range(STATEMENT_CANDIDATES)
        ]
        candidates += [["P", p, a] for p in range(cfg.properties) for a in range(cfg.people)]
        negations = {text(["not", f]) for f in premises if f[0] in ("P", "R")} | {
            text(f[1]) for f in premises if f[0] == "not"
        }
        for f in candidates:
            if f is None or text(f) in seen or text(f) in negations:
                continue
            seen.add(text(f))
            holds = worlds(f, world)
            found = (
                "True" if models & ~holds == 0 else "False" if models & holds == 0 else "Unknown"
            )
            by_label[found].append(f)
        offered = [name for name in ("True", "False", "Unknown") if by_label[name]]
        answer = offered[int(rng.integers(len(offered)))]
        statement = by_label[answer][int(rng.integers(len(by_label[answer])))]
        story = " ".join(text(f) for f in premises)
        relation_note = f" Nobody {verb[0]} themselves." if cfg.relations else ""
        prompt = (
            f"In this story exactly {len(names)} people exist: "
            f"{', '.join(names[:-1])} and {names[-1]}.{relation_note}\n"
            f"{story}\n\n"
            f"Statement: {text(statement)}\n\n"
            "Answer True if the statement must hold given the story, "
            "False if it cannot hold given the story, "
            "and Unknown if the story leaves it open. Give one word: True, False or Unknown, e.g. "
            "<answer>Unknown</answer>. " + ANSWER_FORMAT
        )
        data = {
            "people": cfg.people,
            "properties": cfg.properties,
            "relations": cfg.relations,
            "names": names,
            "adjectives": adjectives,
            "verb": list(verb),
            "premises": premises,
            "statement": statement,
        }
        return Problem(prompt, answer, data)

    def solve(self, problem: Problem) -> str:
        """Enumerates every world of the ground atoms."""
        data = problem.data
        world = World(data["people"], data["properties"], data["relations"])
        models = _full(world.size)
        for f in data["premises"]:
            models &= worlds(f, world)
        holds = worlds(data["statement"], world)
        return "True" if models & ~holds == 0 else "False" if models & holds == 0 else "Unknown"

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One label, compared with the enumeration's."""
        given = parse_label(answer, LABELS)
        if given is None:
            return self.malformed(answer, problem, "the answer must be True, False or Unknown")
        if given != problem.reference:
            return self.wrong(given, problem, f"the answer is {problem.reference}")
        return self.correct(given, problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3 with the people as an enumerated sort and quantified premises."""
        z3 = z3_module()
        data = problem.data
        ctx = z3.Context()
        person, people = z3.EnumSort("Person", data["names"], ctx=ctx)
        props = [z3.Function(f"p{i}", person, z3.BoolSort(ctx)) for i in range(data["properties"])]
        rel = z3.Function("r", person, person, z3.BoolSort(ctx))

        def encode(f: list[Any], env: dict[str, Any]):
            def term(t: Any):
                return env[t] if isinstance(t, str) else people[t]

            op = f[0]
            if op == "P":
                return props[f[1]](term(f[2]))
            if op == "R":
                return rel(term(f[1]), term(f[2]))
            if op == "neq":
                return term(f[1]) != term(f[2])
            if op == "not":
                return z3.Not(encode(f[1], env))
            if op in ("and", "or", "imp"):
                a, b = encode(f[1], env), encode(f[2], env)
                return (
                    z3.And(a, b) if op == "and" else z3.Or(a, b) if op == "or" else z3.Implies(a, b)
                )
            if op in ("all", "some"):
                v = z3.Const(f"{f[1]}{len(env)}", person)
                body = encode(f[2], {**env, f[1]: v})
                return z3.ForAll([v], body) if op == "all" else z3.Exists([v], body)
            count = z3.Sum([z3.If(encode(f[3], {**env, f[2]: p}), 1, 0) for p in people])
            return count == f[1]

        solver = z3.Solver(ctx=ctx)
        x = z3.Const("self", person)
        solver.add(z3.ForAll([x], z3.Not(rel(x, x))))
        solver.add(*[encode(f, {}) for f in data["premises"]])
        if solver.check() != z3.sat:
            return Certificate(0)
        statement = encode(data["statement"], {})
        results = []
        for goal in (z3.Not(statement), statement):
            solver.push()
            solver.add(goal)
            results.append(solver.check())
            solver.pop()
        if z3.unknown in results:
            return Certificate(0)
        found = (
            "True" if results[0] == z3.unsat else "False" if results[1] == z3.unsat else "Unknown"
        )
        return Certificate(1 if found == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The two other labels."""
        return [name for name in ("Unknown", "True", "False") if name != problem.reference]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other case and a full stop."""
        return [problem.reference.lower(), problem.reference.upper() + "."]

    def work(self, problem: Problem) -> float:
        """Worlds enumerated times premises read."""
        data = problem.data
        world = World(data["people"], data["properties"], data["relations"])
        return float((1 << world.size) * len(data["premises"]))


class FolEntailmentEnv(TaskEnv):
    """First-order entailment over a finite story; see the module docstring."""

    task_class = FolEntailmentTask
