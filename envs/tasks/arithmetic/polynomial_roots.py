"""Polynomial roots: the set of real roots of an integer polynomial whose real roots are rational.

The task:
    "Find every real root of 6x^3 − 7x^2 − x + 2 = 0." The roots are rational (built from
    factors ``qx − p``); from level 6 an irreducible quadratic factor with no real roots is
    mixed in, and repeated roots appear.

Observation:
    One user message: the polynomial equation and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the distinct real roots,
    separated by commas, optionally inside braces (``{-2, 1/3, 5}``). Each is an integer, a
    fraction ``p/q`` or a terminating decimal; order does not matter and a root listed twice
    counts once. Each root is compared exactly by the ``numeric`` verifier.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the set of roots is exactly right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from a quadratic with two integer roots to degree 7 or more with five
        rational roots, repeated roots and a quadratic factor without real roots.
    num_roots, max_root, max_denominator, repeated, no_real_quadratic: Override what the
        level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from palaestra.envs.tasks.answers import (
    decimal_text,
    number_text,
    parse_number,
    same_number,
    split_items,
)
from palaestra.envs.tasks.arithmetic.polynomial_expansion import multiply, poly_text
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict


@dataclasses.dataclass(frozen=True)
class PolynomialRootsConfig:
    """Knobs.

    Attributes:
        num_roots: Distinct rational roots (1 to 8).
        max_root: Largest absolute numerator of a root.
        max_denominator: Largest denominator of a root (1: integer roots).
        repeated: Whether one root has multiplicity two.
        no_real_quadratic: Whether a quadratic factor without real roots is multiplied in.
    """

    num_roots: int = 2
    max_root: int = 6
    max_denominator: int = 1
    repeated: bool = False
    no_real_quadratic: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.num_roots, int) or not 1 <= self.num_roots <= 8:
            raise ValueError(f"num_roots must be an integer from 1 to 8, got {self.num_roots!r}")
        if not isinstance(self.max_root, int) or not 1 <= self.max_root <= 50:
            raise ValueError(f"max_root must be an integer from 1 to 50, got {self.max_root!r}")
        if not isinstance(self.max_denominator, int) or not 1 <= self.max_denominator <= 12:
            raise ValueError(
                f"max_denominator must be an integer from 1 to 12, got {self.max_denominator!r}"
            )
        if 2 * self.max_root + 1 < self.num_roots:
            raise ValueError("max_root is too small for that many distinct roots; raise max_root")
        for name in ("repeated", "no_real_quadratic"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")


class PolynomialRootsTask(Task[PolynomialRootsConfig]):
    """Find every real root of a polynomial."""

    name = "polynomial_roots"
    Config = PolynomialRootsConfig
    unique = True
    # Level 1 poses quadratics with two integer roots up to 20 and a small common factor:
    # about 5,000 distinct equations, so a sample of 150 repeats one by chance now and then.
    duplicate_allowance = {1: 0.04}

    @classmethod
    def level_config(cls, level: int) -> PolynomialRootsConfig:
        """More roots, fractional roots, a repeated root, then a quadratic without real roots."""
        n, root, den, repeated, quadratic = {
            1: (2, 20, 1, False, False),
            2: (2, 6, 3, False, False),
            3: (3, 6, 1, False, False),
            4: (3, 6, 3, False, False),
            5: (3, 6, 4, True, False),
            6: (3, 6, 4, False, True),
            7: (4, 6, 4, True, False),
            8: (5, 8, 5, True, False),
            9: (4, 8, 5, True, True),
            10: (5, 9, 6, True, True),
        }[level]
        return PolynomialRootsConfig(
            num_roots=n,
            max_root=root,
            max_denominator=den,
            repeated=repeated,
            no_real_quadratic=quadratic,
        )

    def generate(self, rng: np.random.Generator) -> Problem:
        """Distinct rational roots, their factors ``qx - p`` multiplied out."""
        cfg = self.config
        roots: list[Fraction] = []
        while len(roots) < cfg.num_roots:
            q = int(rng.integers(1, cfg.max_denominator + 1))
            p = int(rng.integers(-cfg.max_root, cfg.max_root + 1))
            root = Fraction(p, q)
            if root not in roots:
                roots.append(root)
        coefs = [1]
        for root in roots:
            coefs = multiply(coefs, [-root.numerator, root.denominator])
        if cfg.repeated:
            twice = roots[int(rng.integers(len(roots)))]
            coefs = multiply(coefs, [-twice.numerator, twice.denominator])
        if cfg.no_real_quadratic:
            # a x^2 + b x + c with b^2 < 4ac has no real roots.
            while True:
                a, b, c = (
                    int(rng.integers(1, 4)),
                    int(rng.integers(-5, 6)),
                    int(rng.integers(1, 10)),
                )
                if b * b < 4 * a * c:
                    break
            coefs = multiply(coefs, [c, b, a])
        scale = int(rng.integers(1, 4)) * (1 if rng.random() < 0.5 else -1)
        coefs = [scale * c for c in coefs]
        roots.sort()
        prompt = (
            f"Find every real root of\n\n{poly_text(coefs)} = 0\n\n"
            "List each distinct real root once, separated by commas, as exact numbers (integers, "
            f"fractions p/q or terminating decimals), for example -3, 1/2, 4. {ANSWER_FORMAT}"
        )
        data = {"coefficients": coefs, "roots": [number_text(r) for r in roots]}
        return Problem(prompt, ", ".join(data["roots"]), data)

    def solve(self, problem: Problem) -> str:
        """The roots the polynomial was built from, ascending."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Each root listed exactly once, and nothing else (exact comparison)."""
        items = split_items(answer)
        if items is None or not all(items):
            return self.malformed(answer, problem, "not a comma-separated list of roots")
        values = [parse_number(item) for item in items]
        if any(v is None for v in values):
            return self.malformed(
                answer,
                problem,
                "every listed root must be an exact number (integer, p/q or decimal)",
            )
        expected = [Fraction(r) for r in problem.data["roots"]]
        matched = set()
        for text in items:
            hit = next((i for i, r in enumerate(expected) if same_number(text, r)), None)
            if hit is None:
                return self.wrong(answer, problem, f"{text} is not a root")
            if hit in matched:
                return self.wrong(answer, problem, f"{text} lists a root a second time")
            matched.add(hit)
        if len(matched) != len(expected):
            return self.wrong(
                answer, problem, f"{len(expected) - len(matched)} real root(s) missing"
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Sympy's real roots of the printed polynomial must be exactly the reference set."""
        import sympy

        x = sympy.Symbol("x")
        polynomial = sympy.Poly(list(reversed(problem.data["coefficients"])), x)
        found = {
            Fraction(int(r.p), int(r.q)) for r in sympy.real_roots(polynomial) if r.is_Rational
        }
        irrational = [r for r in sympy.real_roots(polynomial) if not r.is_Rational]
        return Certificate(
            1 if found == {Fraction(r) for r in problem.data["roots"]} and not irrational else 0
        )

    def mutations(self, problem: Problem) -> list[str]:
        """A root dropped, a non-root added, a root bumped by one, a root listed twice."""
        roots = [Fraction(r) for r in problem.data["roots"]]
        out = []
        if len(roots) > 1:
            out.append(", ".join(number_text(r) for r in roots[1:]))
        extra = max(roots) + 1
        out.append(", ".join(number_text(r) for r in [*roots, extra]))
        bumped = roots[0] - 1
        out.append(", ".join(number_text(r) for r in [bumped, *roots[1:]]))
        out.append(", ".join(number_text(r) for r in [*roots, roots[0]]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Reversed order in braces, decimals where they terminate."""
        roots = [Fraction(r) for r in problem.data["roots"]]
        out = ["{" + ", ".join(number_text(r) for r in reversed(roots)) + "}"]
        decimals = [decimal_text(r) for r in roots]
        if all(d is not None for d in decimals):
            out.append(", ".join(decimals))
        return out

    def work(self, problem: Problem) -> float:
        """Synthetic divisions: degree * (roots + 2 * fractional roots + coefficient digits)."""
        coefs = problem.data["coefficients"]
        roots = [Fraction(r) for r in problem.data["roots"]]
        fractional = sum(r.denominator > 1 for r in roots)
        digits = max(len(str(abs(c))) for c in coefs)
        return float((len(coefs) - 1) * (len(roots) + 2 * fractional + digits))


class PolynomialRootsEnv(TaskEnv):
    """Find every real root of a polynomial; see the module docstring."""

    task_class = PolynomialRootsTask
