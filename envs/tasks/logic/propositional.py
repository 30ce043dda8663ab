"""Propositional entailment: do the premises logically imply the conclusion?

The task:
    Premises and a conclusion are formulas over a few atoms (p, q, r, ...) built with not
    (``~``), and (``&``), or (``|``), implies (``->``) and if-and-only-if (``<->``). The
    answer is yes when every assignment that makes all premises true makes the conclusion
    true. Labels are balanced between yes and no; the generator decides by truth tables
    (bit-parallel over all assignments), the certificate by z3.

Observation:
    One user message: the notation, the premises, the conclusion and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: ``yes`` or ``no`` (case free, a
    trailing full stop allowed). Anything else in the slot is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for the right answer, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 2 atoms, 3 premises and depth-1 formulas at level 1 up to 7 atoms, 7
        premises and depth-3 formulas at level 10.
    atoms: Number of atoms (2-8).
    premises: Number of premises (1-10).
    depth: Greatest nesting depth of a formula (1-4).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import parse_label, z3_module
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

ATOMS = "pqrstuvw"
LABELS = {"yes": "yes", "no": "no"}
LEVELS = {
    1: (2, 3, 1),
    2: (3, 2, 1),
    3: (3, 3, 2),
    4: (4, 3, 2),
    5: (4, 4, 2),
    6: (5, 4, 2),
    7: (5, 5, 3),
    8: (6, 5, 3),
    9: (6, 6, 3),
    10: (7, 7, 3),
}
"""(atoms, premises, depth) by level."""

BINARY = ("and", "or", "imp", "iff")
SYMBOLS = {"and": "&", "or": "|", "imp": "->", "iff": "<->"}
CONCLUSION_TRIES = 300
"""Conclusions drawn while looking for one with the wanted label."""


@dataclasses.dataclass(frozen=True)
class PropositionalEntailmentConfig:
    """Knobs.

    Attributes:
        atoms: Number of atoms (2-8).
        premises: Number of premises (1-10).
        depth: Greatest nesting depth of a formula (1-4).
    """

    atoms: int = 3
    premises: int = 3
    depth: int = 2

    def __post_init__(self) -> None:
        if not isinstance(self.atoms, int) or not 2 <= self.atoms <= len(ATOMS):
            raise ValueError(f"atoms must be an integer from 2 to {len(ATOMS)}, got {self.atoms!r}")
        if not isinstance(self.premises, int) or not 1 <= self.premises <= 10:
            raise ValueError(f"premises must be an integer from 1 to 10, got {self.premises!r}")
        if not isinstance(self.depth, int) or not 1 <= self.depth <= 4:
            raise ValueError(f"depth must be an integer from 1 to 4, got {self.depth!r}")


# A formula is JSON: ["var", "p"], ["not", f], or [op, f, g] with op in BINARY.


def render(formula: list[Any], top: bool = True) -> str:
    """The formula in the prompt's notation, fully parenthesised below the top."""
    if formula[0] == "var":
        return formula[1]
    if formula[0] == "not":
        return "~" + render(formula[1], top=False)
    text = f"{render(formula[1], top=False)} {SYMBOLS[formula[0]]} {render(formula[2], top=False)}"
    return text if top else f"({text})"


@functools.lru_cache(maxsize=16)
def _columns(n: int) -> tuple[int, ...]:
    """Truth tables of the atoms as bitsets over the 2^n rows (row r: atom i = bit i of r)."""
    rows = 1 << n
    return tuple(sum(1 << r for r in range(rows) if (r >> i) & 1) for i in range(n))


def table(formula: list[Any], n: int) -> int:
    """The formula's truth table as a bitset over all 2^n assignments."""
    full = (1 << (1 << n)) - 1
    op = formula[0]
    if op == "var":
        return _columns(n)[ATOMS.index(formula[1])]
    if op == "not":
        return full & ~table(formula[1], n)
    a, b = table(formula[1], n), table(formula[2], n)
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "imp":
        return (full & ~a) | b
    return full & ~(a ^ b)


def entails(premises: list[list[Any]], conclusion: list[Any], n: int) -> bool:
    """Truth tables: no assignment makes every premise true and the conclusion false."""
    models = (1 << (1 << n)) - 1
    for premise in premises:
        models &= table(premise, n)
    return models & ~table(conclusion, n) == 0


def _formula(rng: np.random.Generator, atoms: str, depth: int) -> list[Any]:
    if depth == 0 or rng.random() < 0.2:
        leaf = ["var", atoms[int(rng.integers(len(atoms)))]]
        return ["not", leaf] if rng.random() < 0.3 else leaf
    if rng.random() < 0.15:
        return ["not", _formula(rng, atoms, depth - 1)]
    op = BINARY[int(rng.integers(len(BINARY)))]
    return [op, _formula(rng, atoms, depth - 1), _formula(rng, atoms, depth - 1)]


class PropositionalEntailmentTask(Task[PropositionalEntailmentConfig]):
    """Decide propositional entailment."""

    name = "propositional_entailment"
    Config = PropositionalEntailmentConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> PropositionalEntailmentConfig:
        """More atoms, premises and nesting with the level."""
        atoms, premises, depth = LEVELS[level]
        return PropositionalEntailmentConfig(atoms=atoms, premises=premises, depth=depth)

    def generate(self, rng: np.random.Generator) -> Problem:
        """Satisfiable premises; a conclusion labelled by a coin flip (neither valid nor absurd)."""
        n, atoms = self.config.atoms, ATOMS[: self.config.atoms]
        full = (1 << (1 << n)) - 1
        want = bool(rng.integers(2))
        while True:
            premises = [
                _formula(rng, atoms, self.config.depth) for _ in range(self.config.premises)
            ]
            models = full
            for p in premises:
                models &= table(p, n)
            if models == 0 or any(table(p, n) == full for p in premises):
                continue  # absurd premises entail everything; valid ones say nothing
            shown = {render(p) for p in premises}
            fallback = None
            for _ in range(CONCLUSION_TRIES):
                conclusion = _formula(
                    rng,
                    atoms,
                    max(1, self.config.depth - 1) if rng.random() < 0.5 else self.config.depth,
                )
                truth = table(conclusion, n)
                if truth in (0, full) or render(conclusion) in shown:
                    continue
                label = models & ~truth == 0
                if label == want:
                    break
                fallback = fallback or conclusion
            else:
                if fallback is None:
                    continue
                conclusion = fallback
            break
        answer = "yes" if entails(premises, conclusion, n) else "no"
        lines = "\n".join(f"{i + 1}. {render(p)}" for i, p in enumerate(premises))
        prompt = (
            f"The atoms {', '.join(atoms)} are each true or false. "
            "Notation: ~ is not, & is and, | is or, -> is implies, <-> is if and only if.\n"
            f"Premises:\n{lines}\n"
            f"Conclusion: {render(conclusion)}\n\n"
            "Do the premises entail the conclusion, "
            "that is, is the conclusion true under every assignment "
            "that makes all the premises true? Answer yes or no, e.g. <answer>no</answer>. "
            + ANSWER_FORMAT
        )
        return Problem(prompt, answer, {"atoms": n, "premises": premises, "conclusion": conclusion})

    def solve(self, problem: Problem) -> str:
        """Truth tables."""
        data = problem.data
        return "yes" if entails(data["premises"], data["conclusion"], data["atoms"]) else "no"

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One label, compared with the truth-table verdict."""
        label = parse_label(answer, LABELS)
        if label is None:
            return self.malformed(answer, problem, "the answer must be yes or no")
        if label != problem.reference:
            return self.wrong(label, problem, f"the answer is {problem.reference}")
        return self.correct(label, problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3: the premises with the negated conclusion are unsatisfiable exactly when entailed."""
        z3 = z3_module()
        data = problem.data
        atoms = {a: z3.Bool(a) for a in ATOMS[: data["atoms"]]}

        def encode(f: list[Any]):
            if f[0] == "var":
                return atoms[f[1]]
            if f[0] == "not":
                return z3.Not(encode(f[1]))
            a, b = encode(f[1]), encode(f[2])
            return {"and": z3.And(a, b), "or": z3.Or(a, b), "imp": z3.Implies(a, b), "iff": a == b}[
                f[0]
            ]

        solver = z3.Solver()
        solver.add(*[encode(p) for p in data["premises"]])
        if solver.check() != z3.sat:
            return Certificate(0)
        solver.add(z3.Not(encode(data["conclusion"])))
        label = "yes" if solver.check() == z3.unsat else "no"
        return Certificate(1 if label == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The other label."""
        return ["no" if problem.reference == "yes" else "yes"]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other case and a full stop."""
        return [problem.reference.upper(), problem.reference.capitalize() + "."]

    def work(self, problem: Problem) -> float:
        """Truth-table cells: 2^atoms rows times the formulas' total size."""
        data = problem.data

        def size(f: list[Any]) -> int:
            return 1 if f[0] == "var" else 1 + sum(size(g) for g in f[1:])

        total = sum(size(p) for p in data["premises"]) + size(data["conclusion"])
        return float((1 << data["atoms"]) * total)


class PropositionalEntailmentEnv(TaskEnv):
    """Propositional entailment; see the module docstring."""

    task_class = PropositionalEntailmentTask
