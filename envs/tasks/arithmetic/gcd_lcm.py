"""Greatest common divisor and least common multiple of several integers.

The task:
    "What is the greatest common divisor of 924, 1540 and 2002?" (or their least common
    multiple). The numbers share factors by construction, so the answer is rarely 1.

Observation:
    One user message: the numbers, which of gcd/lcm is asked, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one positive integer (checked
    exactly by the ``numeric`` verifier).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the integer is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from the gcd of two numbers below 100 to the gcd or lcm of five numbers of
        up to eight digits.
    count, max_digits, lcm: Override what the level sets (``lcm``: whether lcm questions
        are asked besides gcd).

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

SMALL_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)


@dataclasses.dataclass(frozen=True)
class GcdLcmConfig:
    """Knobs.

    Attributes:
        count: How many numbers (2 to 6).
        max_digits: Most digits of a number (2 to 12).
        lcm: Whether least-common-multiple questions are asked (else only gcd).
    """

    count: int = 2
    max_digits: int = 2
    lcm: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or not 2 <= self.count <= 6:
            raise ValueError(f"count must be an integer from 2 to 6, got {self.count!r}")
        if not isinstance(self.max_digits, int) or not 2 <= self.max_digits <= 12:
            raise ValueError(f"max_digits must be an integer from 2 to 12, got {self.max_digits!r}")
        if not isinstance(self.lcm, bool):
            raise ValueError(f"lcm must be True or False, got {self.lcm!r}")


def euclid(a: int, b: int) -> tuple[int, int]:
    """gcd(a, b) by Euclid's algorithm, and the number of division steps."""
    steps = 0
    while b:
        a, b = b, a % b
        steps += 1
    return a, steps


def _smooth(rng: np.random.Generator, limit: int, primes: tuple[int, ...]) -> int:
    """A random product of the given primes not above ``limit`` (at least 1)."""
    value = 1
    for _ in range(40):
        p = primes[int(rng.integers(len(primes)))]
        if value * p > limit:
            break
        value *= p
    return value


class GcdLcmTask(Task[GcdLcmConfig]):
    """The gcd or lcm of several integers."""

    name = "gcd_lcm"
    Config = GcdLcmConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> GcdLcmConfig:
        """More numbers and more digits; lcm questions from level 2."""
        count, digits = {
            1: (2, 3),
            2: (2, 3),
            3: (2, 4),
            4: (3, 4),
            5: (3, 5),
            6: (3, 6),
            7: (4, 6),
            8: (4, 7),
            9: (5, 8),
            10: (5, 9),
        }[level]
        return GcdLcmConfig(count=count, max_digits=digits, lcm=level >= 2)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A shared factor times cofactors (gcd), or numbers built from shared primes (lcm)."""
        cfg = self.config
        limit = 10**cfg.max_digits - 1
        kind = "lcm" if cfg.lcm and rng.random() < 0.5 else "gcd"
        while True:
            if kind == "gcd":
                common = _smooth(rng, int(limit**0.5), SMALL_PRIMES[:8]) * int(rng.integers(1, 4))
                numbers = [
                    common * int(rng.integers(2, max(3, limit // common) + 1))
                    for _ in range(cfg.count)
                ]
            else:
                pool = SMALL_PRIMES[: 4 + cfg.count]
                # lcm answers stay below about the product of two numbers' size.
                cap = int(limit ** (1 / max(1, cfg.count - 1))) if cfg.count > 2 else limit
                numbers = [
                    _smooth(rng, max(cap, 12), pool) * int(rng.choice([1, 1, 1, 7, 11, 13]))
                    for _ in range(cfg.count)
                ]
            if len(set(numbers)) == cfg.count and min(numbers) > 1 and max(numbers) <= limit:
                break
        value = numbers[0]
        for n in numbers[1:]:
            g, _ = euclid(value, n)
            value = g if kind == "gcd" else value // g * n
        what = "greatest common divisor" if kind == "gcd" else "least common multiple"
        shown = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
        prompt = (
            f"What is the {what} of {shown}? Answer with one integer (for example 12). "
            f"{ANSWER_FORMAT}"
        )
        return Problem(prompt, str(value), {"kind": kind, "numbers": numbers})

    def solve(self, problem: Problem) -> str:
        """Euclid's algorithm, folded over the numbers."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One integer, equal to the gcd or lcm."""
        value = parse_int(answer.rstrip(". "))
        if value is None:
            return self.malformed(answer, problem, f"{answer[:40]!r} is not one integer")
        if not same_number(str(value), int(problem.reference)):
            return self.wrong(answer, problem, f"{value} is not the {problem.data['kind']}")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Python's math.gcd / math.lcm (independent of the generator's Euclid)."""
        numbers = problem.data["numbers"]
        value = math.gcd(*numbers) if problem.data["kind"] == "gcd" else math.lcm(*numbers)
        return Certificate(1 if value == int(problem.reference) else 0)

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings of the one right integer: signed, with a full stop."""
        return [f"+{problem.reference}", f"{problem.reference}."]

    def mutations(self, problem: Problem) -> list[str]:
        """Off by one, doubled, and the other of gcd/lcm."""
        value = int(problem.reference)
        numbers = problem.data["numbers"]
        other = math.lcm(*numbers) if problem.data["kind"] == "gcd" else math.gcd(*numbers)
        return [str(v) for v in sorted({value + 1, value - 1, 2 * value, other} - {value})]

    def work(self, problem: Problem) -> float:
        """Division steps of Euclid's algorithm over the numbers, times their digits."""
        numbers = problem.data["numbers"]
        value, steps = numbers[0], 0
        for n in numbers[1:]:
            g, s = euclid(value, n)
            steps += s
            value = g if problem.data["kind"] == "gcd" else value // g * n
        return float(steps * max(len(str(n)) for n in numbers))


class GcdLcmEnv(TaskEnv):
    """The gcd or lcm of several integers; see the module docstring."""

    task_class = GcdLcmTask
