r"""Numbers with explicit tolerances, checked in-process without sympy.

The answer slot must hold one number (integers, decimals, fractions, ``\frac``, powers, simple
arithmetic; percent, degree and unit marks are handled as in the math verifier). With
``rel_tol`` and ``abs_tol`` both 0 the precision rules of `palaestra.verifiers.fastmath` apply
(exact for integers, a decimal reference is a rounded value); otherwise
``|answer - reference| <= max(rel_tol * |reference|, abs_tol)``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers import fastmath
from palaestra.verifiers.base import Verifier, verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer, normalize_unicode


@dataclasses.dataclass(frozen=True)
class NumericConfig(ExtractionConfig):
    """Config of the `numeric` verifier.

    Attributes:
        rel_tol: Relative tolerance (0: none).
        abs_tol: Absolute tolerance (0: none).
        min_answer_sig: See `MathConfig.min_answer_sig`.
        min_reference_sig: See `MathConfig.min_reference_sig`.
    """

    VERSION: ClassVar[int] = 1

    rel_tol: float = 0.0
    abs_tol: float = 0.0
    min_answer_sig: int = 6
    min_reference_sig: int = 3

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("rel_tol", "abs_tol"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value < 0 or value != value:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")


def _number(text: str) -> Any:
    from palaestra.verifiers.math import decorate

    return fastmath.parse_scalar(fastmath._preprocess(decorate(text).core))


class NumericVerifier(Verifier):
    """Checks that the answer is a number equal to the reference within the tolerances."""

    name: ClassVar[str] = "numeric"
    config_class = NumericConfig
    config: NumericConfig

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        if isinstance(reference, bool) or not isinstance(reference, (int, float, str, Fraction)):
            return Verdict.error(
                f"numeric reference must be a number or a string, got {reference!r}"
            )
        ref_text = repr(reference) if isinstance(reference, float) else str(reference)
        try:
            ref = _number(normalize_unicode(ref_text))
        except (fastmath.Undecided, fastmath.TooLarge) as e:
            return Verdict.error(f"the reference {ref_text!r} is not a number ({e})")
        if ref.value is None:
            return Verdict.error(f"the reference {ref_text!r} is not a plain number")
        extraction = extract_answer(completion, self.config)
        if extraction.kind == "conflict":
            return verdict(
                Status.INCORRECT, extraction.reason, answer=extraction.answer, reference=ref_text
            )
        if not extraction.ok:
            status = Status.NO_ANSWER if extraction.kind == "no_answer" else Status.BAD_FORMAT
            return verdict(status, extraction.reason, reference=ref_text)
        answer = extraction.answer or ""
        try:
            ans = _number(answer)
        except fastmath.TooLarge as e:
            return verdict(
                Status.TIMEOUT,
                f"the answer is too large to evaluate ({e})",
                answer=answer,
                reference=ref_text,
            )
        except fastmath.Undecided:
            return verdict(
                Status.INCORRECT, "the answer is not a number", answer=answer, reference=ref_text
            )
        if ans.value is None:
            return verdict(
                Status.INCORRECT,
                "the answer is not a plain number",
                answer=answer,
                reference=ref_text,
            )
        if self.config.rel_tol or self.config.abs_tol:
            bound = max(
                Fraction(self.config.rel_tol) * abs(ref.value), Fraction(self.config.abs_tol)
            )
            same = abs(ans.value - ref.value) <= bound
            how = f"within tolerance {float(bound):g}"
        else:
            same = bool(
                fastmath.scalars_equal(
                    ans,
                    ref,
                    min_answer_sig=self.config.min_answer_sig,
                    min_reference_sig=self.config.min_reference_sig,
                )
            )
            how = "precision rules"
        status = Status.CORRECT if same else Status.INCORRECT
        return verdict(
            status, f"{'equal' if same else 'not equal'} ({how})", answer=answer, reference=ref_text
        )
