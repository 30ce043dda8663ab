"""Modular arithmetic: powers, inverses, linear congruences and the Chinese remainder theorem.

The task (one of four kinds, drawn per instance from the level's kinds):
    ``power``:       "Compute 7^123 mod 40."
    ``inverse``:     "Find the inverse of 17 modulo 43."
    ``congruence``:  "Solve 17x ≡ 5 (mod 43)."
    ``crt``:         "Find the smallest x ≥ 0 with x ≡ 2 (mod 3), x ≡ 3 (mod 5), x ≡ 2 (mod 7)."
Every answer is the unique integer in the stated range, so it is unique.

Observation:
    One user message: the question, the range of the answer, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one integer (checked exactly by
    the ``numeric`` verifier). A congruent integer outside the stated range is wrong.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the integer is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from powers modulo numbers up to 30 to every kind with moduli up to a
        million, exponents up to a billion and four simultaneous congruences.
    kinds, max_modulus, max_exponent, crt_moduli: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from palaestra.envs.tasks.answers import parse_int, same_number
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

KINDS = ("power", "inverse", "congruence", "crt")
MAX_CRT_MODULUS = 50
BRUTE_FORCE_LIMIT = 200_000


@dataclasses.dataclass(frozen=True)
class ModularArithmeticConfig:
    """Knobs.

    Attributes:
        kinds: The kinds of question drawn from (a tuple drawn from `KINDS`).
        max_modulus: Largest modulus.
        max_exponent: Largest exponent of ``power`` questions.
        crt_moduli: How many congruences a ``crt`` question has (2 to 5).
    """

    kinds: tuple[str, ...] = ("power",)
    max_modulus: int = 20
    max_exponent: int = 10
    crt_moduli: int = 2

    def __post_init__(self) -> None:
        kinds = tuple(self.kinds) if isinstance(self.kinds, (list, tuple)) else None
        if not kinds or any(k not in KINDS for k in kinds):
            raise ValueError(
                f"kinds must be a non-empty tuple drawn from {KINDS}, got {self.kinds!r}"
            )
        object.__setattr__(self, "kinds", kinds)
        if not isinstance(self.max_modulus, int) or not 7 <= self.max_modulus <= 10**9:
            raise ValueError(
                f"max_modulus must be an integer from 7 to 10**9, got {self.max_modulus!r}"
            )
        if not isinstance(self.max_exponent, int) or not 2 <= self.max_exponent <= 10**18:
            raise ValueError(
                f"max_exponent must be an integer from 2 to 10**18, got {self.max_exponent!r}"
            )
        if not isinstance(self.crt_moduli, int) or not 2 <= self.crt_moduli <= 5:
            raise ValueError(f"crt_moduli must be an integer from 2 to 5, got {self.crt_moduli!r}")


def square_and_multiply(base: int, exponent: int, modulus: int) -> tuple[int, int]:
    """``base**exponent % modulus`` by binary exponentiation, and the multiplications done."""
    result, base, steps = 1 % modulus, base % modulus, 0
    while exponent:
        if exponent & 1:
            result = result * base % modulus
            steps += 1
        base = base * base % modulus
        exponent >>= 1
        steps += 1
    return result, steps


def extended_euclid(a: int, b: int) -> tuple[int, int, int, int]:
    """(g, x, y, steps) with ``a*x + b*y = g = gcd(a, b)``."""
    x0, y0, x1, y1, steps = 1, 0, 0, 1, 0
    while b:
        q, a, b = a // b, b, a % b
        x0, x1 = x1, x0 - q * x1
        y0, y1 = y1, y0 - q * y1
        steps += 1
    return a, x0, y0, steps


def _inverse(a: int, m: int) -> tuple[int, int]:
    g, x, _, steps = extended_euclid(a % m, m)
    if g != 1:
        raise ValueError(f"{a} has no inverse modulo {m}")
    return x % m, steps


class ModularArithmeticTask(Task[ModularArithmeticConfig]):
    """Modular powers, inverses, congruences and CRT systems."""

    name = "modular_arithmetic"
    Config = ModularArithmeticConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> ModularArithmeticConfig:
        """Larger moduli and exponents; more kinds and more congruences."""
        kinds = KINDS[: (1, 2, 3, 4, 4, 4, 4, 4, 4, 4)[level - 1]]
        modulus, exponent, crt = {
            1: (30, 20, 2),
            2: (40, 30, 2),
            3: (60, 50, 2),
            4: (100, 100, 2),
            5: (200, 1000, 2),
            6: (300, 10**4, 3),
            7: (1000, 10**5, 3),
            8: (10**4, 10**6, 3),
            9: (10**5, 10**8, 4),
            10: (10**6, 10**9, 4),
        }[level]
        return ModularArithmeticConfig(
            kinds=kinds, max_modulus=modulus, max_exponent=exponent, crt_moduli=crt
        )

    def _unit(self, rng: np.random.Generator, m: int) -> int:
        while True:
            a = int(rng.integers(2, 3 * m))
            if math.gcd(a, m) == 1 and a % m != 1:
                return a

    def generate(self, rng: np.random.Generator) -> Problem:
        """A question of a random kind; the answer by the textbook algorithm."""
        cfg = self.config
        kind = cfg.kinds[int(rng.integers(len(cfg.kinds)))]
        m = int(rng.integers(max(7, cfg.max_modulus // 10), cfg.max_modulus + 1))
        if kind == "power":
            a = int(rng.integers(2, max(3, 3 * m)))
            e = int(rng.integers(max(2, cfg.max_exponent // 10), cfg.max_exponent + 1))
            value, _ = square_and_multiply(a, e, m)
            question = (
                f"Compute {a}^{e} mod {m}: the remainder of {a}^{e} divided by {m} (the integer x "
                f"with 0 ≤ x < {m})."
            )
            data = {"a": a, "e": e, "m": m}
        elif kind == "inverse":
            a = self._unit(rng, m)
            value, _ = _inverse(a, m)
            question = (
                f"Find the inverse of {a} modulo {m}: the integer x with 0 ≤ x < {m} and {a}·x ≡ 1 "
                f"(mod {m})."
            )
            data = {"a": a, "m": m}
        elif kind == "congruence":
            a = self._unit(rng, m)
            b = int(rng.integers(1, m))
            value = _inverse(a, m)[0] * b % m
            question = f"Solve {a}x ≡ {b} (mod {m}) for the integer x with 0 ≤ x < {m}."
            data = {"a": a, "b": b, "m": m}
        else:
            moduli: list[int] = []
            cap = min(cfg.max_modulus, MAX_CRT_MODULUS)
            while len(moduli) < cfg.crt_moduli:
                candidate = int(rng.integers(2, cap + 1))
                if all(math.gcd(candidate, other) == 1 for other in moduli):
                    moduli.append(candidate)
            remainders = [int(rng.integers(0, n)) for n in moduli]
            total = math.prod(moduli)
            value = 0
            for r, n in zip(remainders, moduli, strict=True):
                rest = total // n
                value += r * rest * _inverse(rest, n)[0]
            value %= total
            system = ", ".join(
                f"x ≡ {r} (mod {n})" for r, n in zip(remainders, moduli, strict=True)
            )
            question = f"Find the smallest non-negative integer x with {system}."
            data = {"remainders": remainders, "moduli": moduli}
        prompt = f"{question} Answer with one integer (for example 5). {ANSWER_FORMAT}"
        return Problem(prompt, str(value), {"kind": kind, **data})

    def solve(self, problem: Problem) -> str:
        """Square-and-multiply, the extended Euclidean algorithm, or the CRT formula."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One integer, equal to the answer (the smallest non-negative one)."""
        value = parse_int(answer.rstrip(". "))
        if value is None:
            return self.malformed(answer, problem, f"{answer[:40]!r} is not one integer")
        if not same_number(str(value), int(problem.reference)):
            return self.wrong(answer, problem, f"{value} is not the answer in the stated range")
        return self.correct(answer, problem)

    def _solutions(self, problem: Problem) -> list[int]:
        """Solutions in range found by brute force (or Python's own pow for large moduli)."""
        d = problem.data
        kind = d["kind"]
        if kind == "power":
            return [pow(d["a"], d["e"], d["m"])]
        if kind in ("inverse", "congruence"):
            a, m, b = d["a"], d["m"], d.get("b", 1)
            if m > BRUTE_FORCE_LIMIT:
                return [pow(a, -1, m) * b % m] if math.gcd(a, m) == 1 else []
            return [x for x in range(m) if a * x % m == b % m][:2]
        moduli, remainders = d["moduli"], d["remainders"]
        step = max(moduli)
        start = remainders[moduli.index(step)]
        found = []
        for x in range(start, math.prod(moduli), step):
            if all(x % n == r for n, r in zip(moduli, remainders, strict=True)):
                found.append(x)
                if len(found) == 2:
                    break
        return found

    def certify(self, problem: Problem) -> Certificate:
        """Brute force over the range (Python's pow for powers and very large moduli)."""
        found = self._solutions(problem)
        if found and found[0] != int(problem.reference):
            return Certificate(0)
        return Certificate(len(found))

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings of the one residue in the stated range: signed, with a full stop."""
        return [f"+{problem.reference}", f"{problem.reference}."]

    def mutations(self, problem: Problem) -> list[str]:
        """Off by one, and the right residue outside the stated range."""
        value = int(problem.reference)
        d = problem.data
        modulus = d["m"] if "m" in d else math.prod(d["moduli"])
        return [str((value + 1) % modulus), str(value + modulus), str((value - 1) % modulus)]

    def work(self, problem: Problem) -> float:
        """Multiplications of square-and-multiply, or Euclid steps, times the digits handled."""
        d = problem.data
        if d["kind"] == "power":
            return float(square_and_multiply(d["a"], d["e"], d["m"])[1] * len(str(d["m"])))
        if d["kind"] in ("inverse", "congruence"):
            return float((extended_euclid(d["a"], d["m"])[3] + 2) * len(str(d["m"])))
        total = math.prod(d["moduli"])
        steps = sum(extended_euclid(total // n % n, n)[3] + 2 for n in d["moduli"])
        return float(steps * len(str(total)))


class ModularArithmeticEnv(TaskEnv):
    """Modular powers, inverses, congruences and CRT systems; see the module docstring."""

    task_class = ModularArithmeticTask
