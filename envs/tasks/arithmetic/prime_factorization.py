"""Prime factorisation of an integer.

The task:
    "Write 5,544 as a product of primes." The answer is checked as a product: every factor
    must be prime and the product must be the number, so any order and any spelling of
    repeated factors (``2^3`` or ``2 × 2 × 2``) is right.

Observation:
    One user message: the number and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: factors joined by ``×``, ``*``
    or ``·``, each a prime with an optional exponent ``^k`` (``2^3 × 3^2 × 7 × 11``).
    Anything else in the slot (words, ``=``, lists) is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every factor is prime and the product equals the
    number, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from products of three or four primes below 100 to products of seven or eight
        primes, the largest two with up to five digits.
    num_factors, max_prime: Override what the level sets (prime factors counted with
        multiplicity; the largest prime drawn).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

MAX_FACTORS = 64
_FACTOR = re.compile(r"\s*(\d{1,30})\s*(?:(?:\^|\*\*)\s*(?:(\d{1,3})|\{(\d{1,3})\}))?\s*")
_SEPARATOR = re.compile(r"\\times|\\cdot|[×*·xX]")


@functools.lru_cache(maxsize=8)
def primes_up_to(limit: int) -> tuple[int, ...]:
    """The primes up to ``limit`` (sieve of Eratosthenes)."""
    sieve = bytearray([1]) * (limit + 1)
    sieve[:2] = b"\x00\x00"
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytearray(len(sieve[p * p :: p]))
    return tuple(i for i, flag in enumerate(sieve) if flag)


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin (exact for every n below 3.3e24)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def trial_division(n: int) -> tuple[Counter, int]:
    """The factorisation of ``n`` by trial division, and the number of trial divisions."""
    factors: Counter = Counter()
    divisions, p = 0, 2
    while p * p <= n:
        divisions += 1
        while n % p == 0:
            factors[p] += 1
            n //= p
        p += 1 if p == 2 else 2
    if n > 1:
        factors[n] += 1
    return factors, divisions


def factor_text(factors: Counter) -> str:
    """``2^3 × 3 × 7``."""
    return " × ".join(f"{p}^{k}" if k > 1 else str(p) for p, k in sorted(factors.items()))


def parse_factors(text: str) -> list[tuple[int, int]] | None:
    """[(base, exponent)] of a product of powers, or None if it is not one."""
    text = text.strip().rstrip(".")
    parts = _SEPARATOR.split(text)
    if len(parts) > MAX_FACTORS:
        return None
    out = []
    for part in parts:
        match = _FACTOR.fullmatch(part)
        if match is None:
            return None
        out.append((int(match[1]), int(match[2] or match[3] or 1)))
    return out


@dataclasses.dataclass(frozen=True)
class PrimeFactorizationConfig:
    """Knobs.

    Attributes:
        num_factors: Most prime factors of the number, counted with multiplicity (2 to 12);
            ``num_factors - 1`` or ``num_factors`` are drawn.
        max_prime: Largest prime that may be drawn (at least 7).
    """

    num_factors: int = 3
    max_prime: int = 13

    def __post_init__(self) -> None:
        if not isinstance(self.num_factors, int) or not 2 <= self.num_factors <= 12:
            raise ValueError(
                f"num_factors must be an integer from 2 to 12, got {self.num_factors!r}"
            )
        if not isinstance(self.max_prime, int) or not 7 <= self.max_prime <= 10**6:
            raise ValueError(
                f"max_prime must be an integer from 7 to 1000000, got {self.max_prime!r}"
            )


class PrimeFactorizationTask(Task[PrimeFactorizationConfig]):
    """Factor an integer into primes."""

    name = "prime_factorization"
    Config = PrimeFactorizationConfig
    unique = True
    # Level 1 numbers are products of three or four primes below 100: a few thousand
    # distinct numbers, so a sample of 150 repeats one or two by chance.
    duplicate_allowance = {1: 0.03}

    @classmethod
    def level_config(cls, level: int) -> PrimeFactorizationConfig:
        """More factors and larger primes."""
        n, largest = {
            1: (4, 97),
            2: (5, 97),
            3: (5, 199),
            4: (5, 499),
            5: (6, 499),
            6: (6, 997),
            7: (6, 1999),
            8: (7, 4999),
            9: (7, 9973),
            10: (8, 29989),
        }[level]
        return PrimeFactorizationConfig(num_factors=n, max_prime=largest)

    def generate(self, rng: np.random.Generator) -> Problem:
        """``num_factors - 1`` or ``num_factors`` primes: one or two large ones, the rest small."""
        cfg = self.config
        primes = primes_up_to(cfg.max_prime)
        small = [p for p in primes if p <= 23]
        large = [p for p in primes if p > cfg.max_prime // 4]
        count = int(rng.integers(max(2, cfg.num_factors - 1), cfg.num_factors + 1))
        n_large = int(rng.integers(1, 3)) if count >= 4 else 1
        chosen = [large[int(rng.integers(len(large)))] for _ in range(n_large)]
        chosen += [small[int(rng.integers(len(small)))] for _ in range(count - n_large)]
        number = 1
        for p in chosen:
            number *= p
        factors = Counter(chosen)
        prompt = (
            f"Write {number} as a product of prime numbers. Join the factors with × and write "
            f"repeated factors as powers, for example 2^2 × 3 × 5^3. {ANSWER_FORMAT}"
        )
        return Problem(prompt, factor_text(factors), {"number": number})

    def solve(self, problem: Problem) -> str:
        """The primes the number was built from."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every factor prime, and the product equal to the number."""
        parsed = parse_factors(answer)
        if parsed is None:
            return self.malformed(answer, problem, "not a product of primes like 2^2 × 3 × 5")
        number = problem.data["number"]
        product = 1
        for base, exponent in parsed:
            if not is_prime(base):
                return self.wrong(answer, problem, f"{base} is not prime")
            if (
                exponent == 0
                or base > number
                or exponent > number.bit_length()
                or base**exponent > number
            ):
                return self.wrong(answer, problem, f"{base}^{exponent} does not divide {number}")
            product *= base**exponent
            if product > number:
                return self.wrong(answer, problem, f"the product exceeds {number}")
        if product != number:
            return self.wrong(answer, problem, f"the product is {product}, not {number}")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Trial division recovers the same factorisation."""
        factors, _ = trial_division(problem.data["number"])
        return Certificate(1 if factor_text(factors) == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """A factor dropped, an exponent raised, the largest prime replaced by the next prime."""
        factors, _ = trial_division(problem.data["number"])
        items = sorted(factors.items())
        dropped = (
            Counter(dict(items[1:])) if len(items) > 1 else Counter({items[0][0]: items[0][1] + 1})
        )
        raised = Counter(factors)
        raised[items[0][0]] += 1
        largest = items[-1][0]
        replaced = Counter(factors)
        del replaced[largest]
        following = largest + 1
        while not is_prime(following):
            following += 1
        replaced[following] = factors[largest]
        return [factor_text(dropped), factor_text(raised), factor_text(replaced)]

    def alternatives(self, problem: Problem) -> list[str]:
        r"""Repeated factors written out, the reverse order, ``*`` and ``\cdot`` spelling."""
        factors, _ = trial_division(problem.data["number"])
        expanded = " * ".join(str(p) for p in sorted(factors.elements()))
        reverse = r" \cdot ".join(
            f"{p}^{k}" if k > 1 else str(p) for p, k in sorted(factors.items(), reverse=True)
        )
        return [expanded, reverse]

    def work(self, problem: Problem) -> float:
        """Trial divisions needed to factor the number."""
        return float(trial_division(problem.data["number"])[1] + len(str(problem.data["number"])))


class PrimeFactorizationEnv(TaskEnv):
    """Factor an integer into primes; see the module docstring."""

    task_class = PrimeFactorizationTask
