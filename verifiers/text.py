"""Short answers: normalised exact match and token F1 (SQuAD-style normalisation).

Normalisation: NFKC, lower case, punctuation removed, articles (a, an, the) removed, whitespace
collapsed. The reference may be one string or a list of acceptable aliases; the best alias counts.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import string
import unicodedata
from collections.abc import Sequence
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer

_PUNCT = re.compile("[" + re.escape(string.punctuation) + "\u2018\u2019\u201c\u201d\u3001\u3002]")


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"\\text\s*\{([^{}]*)\}", r"\1", text)
    text = _PUNCT.sub(" ", text)
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, reference: str) -> float:
    """Token-level F1 of two normalised strings."""
    p, r = normalize_answer(prediction).split(), normalize_answer(reference).split()
    if not p or not r:
        return float(p == r)
    common = collections.Counter(p) & collections.Counter(r)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(p), overlap / len(r)
    return 2 * precision * recall / (precision + recall)


@dataclasses.dataclass(frozen=True)
class TextConfig(ExtractionConfig):
    """Config of the `exact_match` and `f1` verifiers.

    Attributes:
        correct_at: The F1 from which the status is `correct` (exact match uses 1.0).
    """

    VERSION: ClassVar[int] = 1

    correct_at: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 < self.correct_at <= 1:
            raise ValueError(f"correct_at must be in (0, 1], got {self.correct_at!r}")


class _TextVerifier(Verifier):
    config_class = TextConfig
    config: TextConfig

    def _aliases(self, reference: Any) -> list[str] | Verdict:
        if isinstance(reference, str):
            aliases = [reference]
        elif isinstance(reference, Sequence) and all(isinstance(r, str) for r in reference):
            aliases = list(reference)
        else:
            return Verdict.error(
                f"reference must be a string or a list of strings, got {reference!r}"
            )
        aliases = [a for a in aliases if normalize_answer(a)]
        if not aliases:
            return Verdict.error("the reference is empty after normalisation")
        return aliases

    def _score(self, answer: str, alias: str) -> float:
        raise NotImplementedError

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        aliases = self._aliases(reference)
        if isinstance(aliases, Verdict):
            return aliases
        extraction = extract_answer(completion, self.config)
        if extraction.kind == "conflict":
            return verdict(
                Status.INCORRECT, extraction.reason, answer=extraction.answer, reference=aliases
            )
        if not extraction.ok:
            status = Status.NO_ANSWER if extraction.kind == "no_answer" else Status.BAD_FORMAT
            return verdict(status, extraction.reason, reference=aliases)
        answer = extraction.answer or ""
        best_alias = max(aliases, key=lambda a: self._score(answer, a))
        score = self._score(answer, best_alias)
        correct = score >= self.config.correct_at
        return verdict(
            Status.CORRECT if correct else Status.INCORRECT,
            f"{self.name} {score:.3f} against {best_alias!r}",
            answer=answer,
            reference=aliases,
            score=score,
        )


class ExactMatchVerifier(_TextVerifier):
    """Normalised exact match against any alias."""

    name: ClassVar[str] = "exact_match"

    def _score(self, answer: str, alias: str) -> float:
        return float(normalize_answer(answer) == normalize_answer(alias))


class F1Verifier(_TextVerifier):
    """Token F1 against the best alias; the score is the F1."""

    name: ClassVar[str] = "f1"

    def _score(self, answer: str, alias: str) -> float:
        return token_f1(answer, alias)
