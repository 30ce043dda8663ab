r"""Multiple choice: the answer slot must name exactly one option.

Accepted forms: ``B``, ``(B)``, ``B)``, ``B.``, ``\text{B}``, ``Option B``, ``B. <option text>``
(the text must then be that option's text when the options are given), or the exact text of one
option. Lists (``A B C D``, ``A or B``, ``A, C``) are incorrect whatever they contain.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer

_TEXT_WRAP = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textrm)\s*\{([^{}]*)\}")


@dataclasses.dataclass(frozen=True)
class ChoiceConfig(ExtractionConfig):
    """Config of the `choice` verifier.

    Attributes:
        letters: The option letters in use.
    """

    VERSION: ClassVar[int] = 1

    letters: str = "ABCDEFGHIJ"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.letters or not self.letters.isalpha() or not self.letters.isupper():
            raise ValueError(
                f"letters must be upper-case letters like 'ABCD', got {self.letters!r}"
            )


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


class ChoiceVerifier(Verifier):
    """Checks a multiple-choice answer against the correct letter.

    Context:
        choices: The options, as a list (first is A) or a mapping from letter to text.
    """

    name: ClassVar[str] = "choice"
    config_class = ChoiceConfig
    context_keys = frozenset({"choices"})
    config: ChoiceConfig

    def _options(self, choices: Any) -> dict[str, str] | Verdict:
        if choices is None:
            return {}
        if isinstance(choices, Mapping):
            return {str(k).strip().upper(): str(v) for k, v in choices.items()}
        if isinstance(choices, Sequence) and not isinstance(choices, str):
            if len(choices) > len(self.config.letters):
                return Verdict.error(
                    f"{len(choices)} choices but only letters {self.config.letters}"
                )
            return {self.config.letters[i]: str(c) for i, c in enumerate(choices)}
        return Verdict.error(f"choices must be a list or a mapping, got {type(choices).__name__}")

    def pick(self, answer: str, options: dict[str, str]) -> tuple[str | None, str]:
        """The single option an answer names, or None with the reason."""
        letters = re.escape(self.config.letters)
        text = _TEXT_WRAP.sub(r"\1", answer).replace("$", "").strip()
        text = re.sub(
            r"^(?:the\s+)?(?:answer|option|choice)\s*(?:is)?\s*[:\-]?\s*", "", text, flags=re.I
        )
        match = re.match(rf"^[\(\[]?([{letters}])[\)\]]?(?=$|[\s.:)\-,])[\s.:)\-,]*(.*)$", text)
        if match:
            letter, rest = match.group(1), match.group(2).strip()
            if re.search(rf"(?<![A-Za-z])[{letters}](?![A-Za-z])", rest):
                return None, "the answer names several options"
            if rest and options and letter in options and _norm(rest) != _norm(options[letter]):
                return None, f"the answer says {letter} but quotes another option's text"
            return letter, ""
        if options:
            matches = [k for k, v in options.items() if _norm(v) and _norm(v) == _norm(text)]
            if len(matches) == 1:
                return matches[0], ""
        found = set(re.findall(rf"(?<![A-Za-z])([{letters}])(?![A-Za-z])", text))
        if len(found) > 1:
            return None, "the answer names several options"
        return None, "the answer does not name exactly one option"

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        if not isinstance(reference, str) or reference.strip().upper() not in self.config.letters:
            return Verdict.error(
                f"choice reference must be one of {self.config.letters}, got {reference!r}"
            )
        ref = reference.strip().upper()
        options = self._options(context.get("choices"))
        if isinstance(options, Verdict):
            return options
        extraction = extract_answer(completion, self.config)
        if extraction.kind == "conflict":
            return verdict(
                Status.INCORRECT, extraction.reason, answer=extraction.answer, reference=ref
            )
        if not extraction.ok:
            status = Status.NO_ANSWER if extraction.kind == "no_answer" else Status.BAD_FORMAT
            return verdict(status, extraction.reason, reference=ref)
        letter, why = self.pick(extraction.answer or "", options)
        if letter is None:
            return verdict(Status.INCORRECT, why, answer=extraction.answer, reference=ref)
        same = letter == ref
        return verdict(
            Status.CORRECT if same else Status.INCORRECT,
            f"chose {letter}, the answer is {ref}",
            answer=letter,
            reference=ref,
        )
