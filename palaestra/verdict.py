"""The structured result of every check: what a verifier decided and why.

A `Verdict` lives in the core (not in `palaestra.verifiers`) because every layer reads it:
environments put it in `info["verdict"]`, games report their outcome with it, and trainers
drop episodes whose verdict is masked.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any


class Status(str, enum.Enum):
    """What a verifier concluded about a completion."""

    CORRECT = "correct"
    """The answer is right."""
    INCORRECT = "incorrect"
    """An answer was found and it is wrong (includes conflicting final answers)."""
    NO_ANSWER = "no_answer"
    """No answer could be found where the protocol says it must be."""
    BAD_FORMAT = "bad_format"
    """The completion breaks the required format (tags, JSON schema, ...)."""
    TIMEOUT = "timeout"
    """Checking the answer ran out of time; the answer's fault (e.g. `9^{9^{9^9}}`), scored 0."""
    ERROR = "error"
    """Infrastructure failed (sandbox died, judge unreachable); never a score, always masked."""
    SUSPECT = "suspect"
    """The completion looks like an attempt to game the check; scored 0."""

    def __str__(self) -> str:
        return self.value


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The result of checking one completion against one reference.

    Attributes:
        score: The reward the check pays, usually in [0, 1].
        status: The category of the outcome (a `Status`, or its string value).
        answer: The answer parsed from the completion (None when there is none).
        reference: The reference as the verifier understood it.
        reason: One sentence a person can read: why this score.
        elapsed_s: Wall-clock seconds the check took (ignored by equality, so that
            verdicts of identical episodes compare equal).
        mask: True when a trainer must not learn from this result (infrastructure errors);
            always True for `Status.ERROR`.
        verifier: The name of the verifier that produced it.
        details: Verifier-specific extras (per-test results, judge output, ...); None
            gives an empty dict.
    """

    score: float
    status: Status
    answer: Any = None
    reference: Any = None
    reason: str = ""
    elapsed_s: float = dataclasses.field(default=0.0, compare=False)
    mask: bool = False
    verifier: str = ""
    details: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        # Strings and None are accepted so that verdicts round-trip through JSON.
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "score", float(self.score))
        if self.status is Status.ERROR:
            object.__setattr__(self, "mask", True)
        if self.details is None:
            object.__setattr__(self, "details", {})

    @property
    def correct(self) -> bool:
        """True when the status is `correct`."""
        return self.status is Status.CORRECT

    @classmethod
    def error(cls, reason: str, *, verifier: str = "", **details: Any) -> Verdict:
        """An infrastructure failure: score 0, masked."""
        return cls(0.0, Status.ERROR, reason=reason, mask=True, verifier=verifier, details=details)

    def replace(self, **changes: Any) -> Verdict:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (answers and references are kept as given)."""
        out = dataclasses.asdict(self)
        out["status"] = self.status.value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """The inverse of `to_dict`."""
        return cls(**data)
