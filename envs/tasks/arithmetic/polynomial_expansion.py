"""Polynomial expansion: write a product of polynomials in x in expanded standard form.

The task:
    "Expand (2x − 3)(x + 4)(x² − 1)." The answer is one sum of terms ``c·x^k``.

Observation:
    One user message: the product and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: a polynomial in x written as a
    sum of terms with integer coefficients, each power of x at most once and no parentheses,
    e.g. ``2x^3 - 5x + 7``. ``*`` between coefficient and x and ``**`` for powers are
    accepted; the order of terms is free. Equality with the product is checked
    algebraically (the printed product expanded in exact integers), never by comparing
    strings; `certify` has sympy expand the product.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the expanded polynomial equals the product, else 0.
    A product left unexpanded (parentheses) or with like terms not combined is malformed.

Episode end:
    After one step.

Arguments:
    level: 1-10; from two linear factors with small coefficients to five or six factors
        mixing quadratics and powers such as ``(x + 2)^3``.
    num_factors, max_factor_degree, max_coef, max_power: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.errors import require
from palaestra.verdict import Verdict

MAX_POLY_CHARS = 600
MAX_DEGREE = 60
MAX_COEF_DIGITS = 40
_TERM = re.compile(
    r"(?P<sign>[+-])?\s*(?:(?P<coef>\d+)\s*(?:\*\s*)?)?(?P<x>x(?:\s*(?:\^|\*\*)\s*(?:(?P<exp>\d+)|\{(?P<bexp>\d+)\}))?)?\s*"
)


def multiply(a: list[int], b: list[int]) -> list[int]:
    """The product of two coefficient lists (index = power of x)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, u in enumerate(a):
        for j, v in enumerate(b):
            out[i + j] += u * v
    return out


def poly_text(coefs: list[int], var: str = "x") -> str:
    """``2x^3 - 5x + 7`` from coefficients (index = power), highest power first."""
    parts: list[str] = []
    for power in range(len(coefs) - 1, -1, -1):
        c = coefs[power]
        if c == 0:
            continue
        magnitude = abs(c)
        body = var if power == 1 else f"{var}^{power}" if power else ""
        shown = (str(magnitude) if magnitude != 1 or not body else "") + body
        parts.append(
            ("-" if c < 0 else "") + shown if not parts else ("- " if c < 0 else "+ ") + shown
        )
    return " ".join(parts) if parts else "0"


def parse_polynomial(text: str) -> dict[int, int] | str:
    """Power -> coefficient of a polynomial in x written as a sum of terms, or why it is not."""
    text = text.strip().replace("\\cdot", "*").replace("\\times", "*").replace(" ", "")
    if text.endswith("."):
        text = text[:-1]
    if not text or len(text) > MAX_POLY_CHARS:
        return "empty or too long"
    out: dict[int, int] = {}
    pos = 0
    while pos < len(text):
        match = _TERM.match(text, pos)
        if match is None or match.end() == pos or not (match["coef"] or match["x"]):
            return f"cannot read a term at {text[pos : pos + 12]!r}"
        if pos > 0 and not match["sign"]:
            return f"terms must be joined by + or - (at {text[pos : pos + 12]!r})"
        coef_text = match["coef"] or "1"
        exponent_text = match["exp"] or match["bexp"] or ("1" if match["x"] else "0")
        if (
            len(coef_text) > MAX_COEF_DIGITS
            or len(exponent_text) > 3
            or int(exponent_text) > MAX_DEGREE
        ):
            return "a coefficient or a power is too large"
        power = int(exponent_text)
        if power in out:
            return f"the power x^{power} appears twice: combine like terms"
        out[power] = -int(coef_text) if match["sign"] == "-" else int(coef_text)
        pos = match.end()
    return out


def factor_text(coefs: list[int], power: int) -> str:
    """``(2x - 3)`` or ``(x + 2)^3``."""
    return f"({poly_text(coefs)})" + (f"^{power}" if power > 1 else "")


def sympy_product(product: str):
    """The printed product as a sympy expression (generated text only, never model text)."""
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    transformations = (*standard_transformations, implicit_multiplication_application, convert_xor)
    return parse_expr(product, local_dict={"x": sympy.Symbol("x")}, transformations=transformations)


_FACTOR = re.compile(r"\((?P<poly>[^()]*)\)(?:\^(?P<power>\d+))?")


def expand_product(product: str) -> dict[int, int]:
    """Power -> nonzero coefficient of a printed product such as ``(2x - 3)(x + 2)^3``.

    Reads the printed factors (generated text only, never model text), not the generator's
    coefficient lists, and multiplies them in exact integers. It replaced a sympy expansion
    that was most of an episode's cost (3 ms at level 1, 27 ms at level 10); `certify` still
    has sympy expand the product.

    Raises:
        ValueError: The text is not a product of parenthesised polynomials in x.
    """
    coefs = [1]
    pos = 0
    while pos < len(product):
        match = _FACTOR.match(product, pos)
        factor = parse_polynomial(match["poly"]) if match else "no factor"
        if isinstance(factor, str):
            raise ValueError(f"cannot read a factor at {product[pos : pos + 12]!r}: {factor}")
        factor_coefs = [factor.get(p, 0) for p in range(max(factor) + 1)]
        for _ in range(int(match["power"] or 1)):
            coefs = multiply(coefs, factor_coefs)
        pos = match.end()
    return {p: c for p, c in enumerate(coefs) if c}


def equals_product(parsed: dict[int, int], product: str) -> bool:
    """Whether the parsed polynomial equals the printed product, term by term."""
    return {p: c for p, c in parsed.items() if c} == expand_product(product)


@dataclasses.dataclass(frozen=True)
class PolynomialExpansionConfig:
    """Knobs.

    Attributes:
        num_factors: Factors in the product (2 to 8).
        max_factor_degree: Highest degree of a factor (1 or 2).
        max_coef: Largest absolute coefficient within a factor.
        max_power: Largest power a factor is raised to (1: no powers).
    """

    num_factors: int = 2
    max_factor_degree: int = 1
    max_coef: int = 5
    max_power: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.num_factors, int) or not 2 <= self.num_factors <= 8:
            raise ValueError(
                f"num_factors must be an integer from 2 to 8, got {self.num_factors!r}"
            )
        if self.max_factor_degree not in (1, 2):
            raise ValueError(f"max_factor_degree must be 1 or 2, got {self.max_factor_degree!r}")
        if not isinstance(self.max_coef, int) or not 1 <= self.max_coef <= 100:
            raise ValueError(f"max_coef must be an integer from 1 to 100, got {self.max_coef!r}")
        if not isinstance(self.max_power, int) or not 1 <= self.max_power <= 4:
            raise ValueError(f"max_power must be an integer from 1 to 4, got {self.max_power!r}")


class PolynomialExpansionTask(Task[PolynomialExpansionConfig]):
    """Expand a product of polynomials."""

    name = "polynomial_expansion"
    Config = PolynomialExpansionConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> PolynomialExpansionConfig:
        """More factors, quadratic factors, larger coefficients, then powers."""
        n, degree, coef, power = {
            1: (2, 1, 9, 1),
            2: (2, 1, 12, 1),
            3: (2, 2, 6, 1),
            4: (3, 1, 5, 1),
            5: (3, 2, 6, 1),
            6: (3, 2, 6, 2),
            7: (4, 2, 6, 2),
            8: (4, 2, 8, 3),
            9: (5, 2, 8, 3),
            10: (6, 2, 9, 3),
        }[level]
        return PolynomialExpansionConfig(
            num_factors=n, max_factor_degree=degree, max_coef=coef, max_power=power
        )

    def _factor(self, rng: np.random.Generator, degree: int) -> list[int]:
        m = self.config.max_coef
        lead_max = 1 if m <= 5 and degree == 2 else max(1, m // 3)
        lead = int(rng.integers(1, lead_max + 1)) * (1 if rng.random() < 0.8 else -1)
        rest = [int(v) for v in rng.integers(-m, m + 1, size=degree)]
        if rest[0] == 0:
            rest[0] = int(rng.integers(1, m + 1))
        return rest + [lead]

    def generate(self, rng: np.random.Generator) -> Problem:
        """Random factors; the product is expanded by convolving coefficient lists."""
        cfg = self.config
        factors: list[tuple[list[int], int]] = []
        for i in range(cfg.num_factors):
            degree = 2 if cfg.max_factor_degree == 2 and (i == 0 or rng.random() < 0.35) else 1
            power = int(rng.integers(2, cfg.max_power + 1)) if cfg.max_power > 1 and i == 0 else 1
            factors.append((self._factor(rng, degree), power))
        product = [1]
        multiplications = 0
        for coefs, power in factors:
            for _ in range(power):
                multiplications += len(product) * len(coefs)
                product = multiply(product, coefs)
        shown = "".join(factor_text(coefs, power) for coefs, power in factors)
        prompt = (
            f"Expand and simplify:\n\n{shown}\n\n"
            "Write the result as a polynomial in x in standard form: a sum of terms with integer "
            "coefficients, each power of x at most once, no parentheses, using ^ for powers "
            f"(for example 3x^4 - x^2 + 10). {ANSWER_FORMAT}"
        )
        data = {"product": shown, "coefficients": product, "multiplications": multiplications}
        return Problem(prompt, poly_text(product), data)

    def solve(self, problem: Problem) -> str:
        """The convolved coefficients, highest power first."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Parses a sum of terms and compares it with the printed product, expanded."""
        parsed = parse_polynomial(answer)
        if isinstance(parsed, str):
            return self.malformed(answer, problem, f"not an expanded polynomial in x: {parsed}")
        if not equals_product(parsed, problem.data["product"]):
            return self.wrong(answer, problem, "the polynomial does not equal the product")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Sympy expands the printed product; it must match the convolved coefficients."""
        sympy = require("sympy", "math", "certifying a polynomial expansion")

        expanded = sympy.Poly(sympy_product(problem.data["product"]), sympy.Symbol("x"))
        coefficients = [int(c) for c in reversed(expanded.all_coeffs())]
        return Certificate(1 if coefficients == problem.data["coefficients"] else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """One coefficient bumped, one term dropped, one term's sign flipped."""
        coefs = problem.data["coefficients"]
        top = len(coefs) - 1
        bumped = coefs[:]
        bumped[0] += 1
        dropped = coefs[:]
        power = next(p for p in range(top) if coefs[p] != 0) if any(coefs[:top]) else top
        dropped[power] = 0
        flipped = coefs[:]
        flipped[top] = -flipped[top]
        return [poly_text(c) for c in (bumped, dropped, flipped)]

    def alternatives(self, problem: Problem) -> list[str]:
        """Ascending order, and ``*``/``**`` spelling."""
        coefs = problem.data["coefficients"]
        terms = []
        for power, c in enumerate(coefs):
            if c:
                body = "" if power == 0 else "x" if power == 1 else f"x^{power}"
                terms.append(
                    ("-" if c < 0 else "+")
                    + (str(abs(c)) if abs(c) != 1 or not body else "")
                    + body
                )
        ascending = " ".join(terms).lstrip("+")
        starred = re.sub(r"(\d)x", r"\1*x", problem.reference).replace("^", "**")
        return [ascending, starred]

    def work(self, problem: Problem) -> float:
        """Term multiplications of the expansion."""
        return float(problem.data["multiplications"])


class PolynomialExpansionEnv(TaskEnv):
    """Expand a product of polynomials; see the module docstring."""

    task_class = PolynomialExpansionTask
