"""Knights and knaves: decide who always tells the truth and who always lies.

The task:
    On an island every inhabitant is a knight (always truthful) or a knave (always lying).
    Each of n inhabitants says one thing about the others or themselves ("Bob and I are
    both knights", "at least two of us are knaves", "if Carol is a knight then Dan is a
    knave"). Exactly one assignment of roles is consistent with all statements (certified
    by z3, independent of the generator's brute force).

Observation:
    One user message: the inhabitants, their statements and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: every inhabitant with a role,
    ``Name: knight`` or ``Name: knave`` (``=`` also accepted), separated by commas,
    semicolons or line breaks, in any order. Case and spacing are free; a name given twice,
    a missing name or any other word makes the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every role is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 2 inhabitants at level 1 up to 8 at level 10, with same/different claims from
        level 3 and counting and conditional statements from level 5.
    people: Number of inhabitants (2-10).
    complexity: 1 (claims about one or two people: is, both, at least one), 2 (also same and
        different kinds) or 3 (also if-then and counting).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import draw_names, name_index, parse_assignment, z3_count
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

ROLES = {"knight": True, "knave": False}
LEVELS = {
    1: (2, 1),
    2: (3, 1),
    3: (3, 2),
    4: (4, 2),
    5: (4, 3),
    6: (5, 3),
    7: (6, 3),
    8: (6, 3),
    9: (7, 3),
    10: (8, 3),
}
"""(people, complexity) by level."""

KINDS = {
    1: ("is", "both", "either"),
    2: ("is", "both", "either", "same", "different"),
    3: ("is", "both", "either", "same", "different", "if", "count"),
}
"""Statement kinds allowed at each complexity. Claims about single others alone never settle the
roles (flipping everyone keeps every such claim's truth relative to its speaker), so "both" and
"either" are there from the start."""

REPAIRS_PER_PERSON = 6
"""Repairs tried per inhabitant before the generator starts over with a new secret assignment
(some secrets are hard to pin down with the allowed statements; starting over is cheaper)."""


@dataclasses.dataclass(frozen=True)
class KnightsKnavesConfig:
    """Knobs.

    Attributes:
        people: Number of inhabitants (2-10).
        complexity: 1, 2 or 3 (see the module docstring).
    """

    people: int = 3
    complexity: int = 2

    def __post_init__(self) -> None:
        if not isinstance(self.people, int) or not 2 <= self.people <= 10:
            raise ValueError(f"people must be an integer from 2 to 10, got {self.people!r}")
        if self.complexity not in (1, 2, 3):
            raise ValueError(f"complexity must be 1, 2 or 3, got {self.complexity!r}")


def holds(statement: list[Any], roles: tuple[bool, ...] | list[bool]) -> bool:
    """Whether ``statement`` is true when ``roles[i]`` says whether person i is a knight."""
    kind = statement[0]
    if kind == "is":
        return roles[statement[1]] == statement[2]
    if kind == "both":
        return roles[statement[1]] == statement[3] and roles[statement[2]] == statement[3]
    if kind == "either":
        return roles[statement[1]] == statement[3] or roles[statement[2]] == statement[3]
    if kind == "same":
        return roles[statement[1]] == roles[statement[2]]
    if kind == "different":
        return roles[statement[1]] != roles[statement[2]]
    if kind == "if":
        return roles[statement[1]] != statement[2] or roles[statement[3]] == statement[4]
    if kind == "count":
        count = sum(1 for r in roles if r == statement[3])
        bound = statement[2]
        return {"exactly": count == bound, "at least": count >= bound, "at most": count <= bound}[
            statement[1]
        ]
    raise ValueError(f"unknown statement kind {kind!r}")


def render(statement: list[Any], speaker: int, names: list[str]) -> str:
    """The statement as the speaker says it."""

    def who(i: int) -> str:
        return "I" if i == speaker else names[i]

    def role(knight: bool, plural: bool = False) -> str:
        word = "knight" if knight else "knave"
        return word + "s" if plural else f"a {word}"

    kind = statement[0]
    if kind == "is":
        verb = "am" if statement[1] == speaker else "is"
        return f"{who(statement[1])} {verb} {role(statement[2])}."
    if kind == "both":
        first, second = statement[1], statement[2]
        if second == speaker:
            first, second = second, first
        pair = f"{who(second)} and I" if first == speaker else f"{who(first)} and {who(second)}"
        return f"{pair} are both {role(statement[3], True)}."
    if kind == "either":
        return (
            f"At least one of {who(statement[1])} and {who(statement[2])} is {role(statement[3])}."
        )
    if kind == "same":
        return f"{who(statement[1])} and {who(statement[2])} are the same kind."
    if kind == "different":
        return f"{who(statement[1])} and {who(statement[2])} are different kinds."
    if kind == "if":
        verb1 = "am" if statement[1] == speaker else "is"
        verb2 = "am" if statement[3] == speaker else "is"
        return (
            f"If {who(statement[1])} {verb1} {role(statement[2])}, "
            f"then {who(statement[3])} {verb2} {role(statement[4])}."
        )
    count = statement[2]
    noun = role(statement[3]) if count == 1 else role(statement[3], True)
    return f"{statement[1].capitalize()} {count} of us {'is' if count == 1 else 'are'} {noun}."


def _random_statement(rng: np.random.Generator, speaker: int, n: int, complexity: int) -> list[Any]:
    kind = KINDS[complexity][int(rng.integers(len(KINDS[complexity])))]
    if kind == "is":
        other = int(rng.integers(n - 1))
        return ["is", other + (other >= speaker), bool(rng.integers(2))]
    if kind in ("both", "either", "same", "different", "if"):
        # Pairs may include the speaker (but never twice the same person).
        i, j = int(rng.integers(n)), int(rng.integers(n - 1))
        j += j >= i
        if kind in ("both", "either"):
            return [kind, i, j, bool(rng.integers(2))]
        if kind == "if":
            return ["if", i, bool(rng.integers(2)), j, bool(rng.integers(2))]
        return [kind, i, j]
    op = ("exactly", "at least", "at most")[int(rng.integers(3))]
    return ["count", op, int(rng.integers(1, n)), bool(rng.integers(2))]


def _consistent_statement(
    rng: np.random.Generator,
    speaker: int,
    secret: tuple[bool, ...],
    rival: tuple[bool, ...] | None,
    complexity: int,
) -> list[Any] | None:
    """A statement the secret roles make consistent for the speaker (and the rival roles do not)."""
    n = len(secret)
    for _ in range(30):
        s = _random_statement(rng, speaker, n, complexity)
        if holds(s, secret) == secret[speaker] and (
            rival is None or holds(s, rival) != rival[speaker]
        ):
            return s
    return None


def consistent(statements: list[list[Any]], roles: tuple[bool, ...]) -> bool:
    """Knights' statements are true and knaves' false."""
    return all(holds(s, roles) == roles[i] for i, s in enumerate(statements))


def solutions(statements: list[list[Any]], n: int, cap: int = 2) -> list[tuple[bool, ...]]:
    """Consistent role assignments by brute force, up to ``cap``."""
    out = []
    for roles in itertools.product((True, False), repeat=n):
        if consistent(statements, roles):
            out.append(roles)
            if len(out) >= cap:
                break
    return out


class KnightsKnavesTask(Task[KnightsKnavesConfig]):
    """Decide who is a knight and who is a knave."""

    name = "knights_knaves"
    Config = KnightsKnavesConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> KnightsKnavesConfig:
        """More inhabitants and richer statements with the level."""
        people, complexity = LEVELS[level]
        return KnightsKnavesConfig(people=people, complexity=complexity)

    def _statements(self, rng: np.random.Generator) -> tuple[tuple[bool, ...], list[list[Any]]]:
        n, complexity = self.config.people, self.config.complexity
        while True:
            secret = tuple(bool(x) for x in rng.integers(0, 2, size=n))
            if complexity == 1 and len(set(secret)) == 1:
                # With claims of one kind only, all-knights and all-knaves always have a twin
                # (everyone flipped), so they can never be the unique answer.
                continue
            statements = [_consistent_statement(rng, i, secret, None, complexity) for i in range(n)]
            if any(s is None for s in statements):
                continue
            for _ in range(REPAIRS_PER_PERSON * n):
                found = solutions(statements, n)
                if len(found) == 1:
                    return secret, statements
                rival = found[0] if found[0] != secret else found[1]
                speaker = int(rng.integers(n))
                replacement = _consistent_statement(rng, speaker, secret, rival, complexity)
                if replacement is not None:
                    statements[speaker] = replacement

    def generate(self, rng: np.random.Generator) -> Problem:
        """A secret assignment, one consistent statement each, repaired until it is the only one."""
        n = self.config.people
        names = draw_names(rng, n)
        secret, statements = self._statements(rng)
        lines = [f'{names[i]} says: "{render(s, i, names)}"' for i, s in enumerate(statements)]
        prompt = (
            "On an island, every inhabitant is either a knight, who always tells the truth, "
            f"or a knave, who always lies. You meet {n} inhabitants: {', '.join(names)}.\n"
            + "\n".join(lines)
            + "\n\nWho is a knight and who is a knave? "
            "Give every inhabitant's role as 'Name: knight' or 'Name: knave', separated by commas, "
            "e.g. <answer>Name1: knave, Name2: knight</answer>. " + ANSWER_FORMAT
        )
        reference = {name: ("knight" if secret[i] else "knave") for i, name in enumerate(names)}
        return Problem(prompt, reference, {"names": names, "statements": statements})

    def solve(self, problem: Problem) -> str:
        """Brute force over all role assignments."""
        names = problem.data["names"]
        roles = solutions(problem.data["statements"], len(names), cap=1)[0]
        return ", ".join(
            f"{name}: {'knight' if r else 'knave'}" for name, r in zip(names, roles, strict=True)
        )

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every inhabitant's role must make all statements consistent (unique, so the secret)."""
        names = problem.data["names"]
        parsed, why = parse_assignment(answer, name_index(names), ROLES)
        if parsed is None:
            return self.malformed(answer, problem, why)
        roles = tuple(parsed[name] for name in names)
        for i, statement in enumerate(problem.data["statements"]):
            if holds(statement, roles) != roles[i]:
                kind = "knight" if roles[i] else "knave"
                return self.wrong(
                    parsed,
                    problem,
                    f"{names[i]} as a {kind} could not say: {render(statement, i, names)}",
                )
        return self.correct(parsed, problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3 counts the consistent assignments (up to 2)."""
        names, statements = problem.data["names"], problem.data["statements"]

        def build(z3):
            knight = [z3.Bool(f"k{i}") for i in range(len(names))]

            def is_(i: int, role: bool):
                return knight[i] if role else z3.Not(knight[i])

            def formula(s: list[Any]):
                kind = s[0]
                if kind == "is":
                    return is_(s[1], s[2])
                if kind == "both":
                    return z3.And(is_(s[1], s[3]), is_(s[2], s[3]))
                if kind == "either":
                    return z3.Or(is_(s[1], s[3]), is_(s[2], s[3]))
                if kind == "same":
                    return knight[s[1]] == knight[s[2]]
                if kind == "different":
                    return knight[s[1]] != knight[s[2]]
                if kind == "if":
                    return z3.Implies(is_(s[1], s[2]), is_(s[3], s[4]))
                count = z3.Sum([z3.If(is_(i, s[3]), 1, 0) for i in range(len(names))])
                return {
                    "exactly": count == s[2],
                    "at least": count >= s[2],
                    "at most": count <= s[2],
                }[s[1]]

            solver = z3.Solver()
            for i, s in enumerate(statements):
                solver.add(knight[i] == formula(s))
            return solver, knight

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """Each inhabitant's role flipped."""
        reference = problem.reference
        out = []
        for flip in reference:
            roles = {
                n: (("knave" if r == "knight" else "knight") if n == flip else r)
                for n, r in reference.items()
            }
            out.append(", ".join(f"{n}: {r}" for n, r in roles.items()))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Another order, other separators, ``=`` and upper case."""
        items = list(problem.reference.items())
        return [
            "; ".join(f"{n}: {r}" for n, r in reversed(items)),
            "\n".join(f"{n.upper()} = {r.upper()}" for n, r in items),
            ", ".join(f"{n.lower()}:{r.capitalize()}" for n, r in items) + ".",
        ]

    def work(self, problem: Problem) -> float:
        """Statement evaluations of the brute force: n * 2^n."""
        n = len(problem.data["names"])
        return float(n * 2**n)


class KnightsKnavesEnv(TaskEnv):
    """Knights and knaves; see the module docstring."""

    task_class = KnightsKnavesTask
