"""A grammar for tag protocols such as ``<think>...</think><answer>...</answer>``.

The completion must be exactly the configured tags, in order, each once, none nested in another,
with only whitespace between and around them (unless `allow_text_outside`), and the tags named in
`nonempty` must hold more than whitespace. Score 1.0 (`correct`) when the format holds, else 0.0
(`bad_format`) with the first violation as the reason. Use it as its own term in a composite
reward, never folded into correctness.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, VerifierConfig, as_text, verdict


@dataclasses.dataclass(frozen=True)
class FormatConfig(VerifierConfig):
    """Config of the `format` verifier.

    Attributes:
        tags: The protocol's tags, in the order they must appear.
        nonempty: Tags whose content must not be blank.
        prefilled: The first tag was opened by the prompt (the completion starts inside it).
        allow_text_outside: Accept text between and around the tags.
        max_chars: Longer completions are refused unread.
    """

    VERSION: ClassVar[int] = 1

    tags: tuple[str, ...] = ("think", "answer")
    nonempty: tuple[str, ...] = ("think", "answer")
    prefilled: bool = False
    allow_text_outside: bool = False
    max_chars: int = 262_144

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "tags", tuple(self.tags))
        object.__setattr__(self, "nonempty", tuple(self.nonempty))
        if not self.tags or len(set(self.tags)) != len(self.tags):
            raise ValueError(f"tags must be distinct and non-empty, got {self.tags!r}")
        for tag in self.tags:
            if not re.fullmatch(r"[A-Za-z_][\w\-]*", tag):
                raise ValueError(f"tag names are identifiers like 'think', got {tag!r}")
        unknown = set(self.nonempty) - set(self.tags)
        if unknown:
            raise ValueError(f"nonempty names tags that are not in tags: {sorted(unknown)}")


def check_format(text: str, config: FormatConfig) -> str | None:
    """The first violation of the tag grammar, or None when the text conforms."""
    if config.prefilled:
        text = f"<{config.tags[0]}>" + text
    names = "|".join(map(re.escape, config.tags))
    tokens = list(re.finditer(rf"<(/?)({names})\s*>", text))
    expected = [(closing, tag) for tag in config.tags for closing in ("", "/")]
    found = [(m.group(1), m.group(2)) for m in tokens]
    if found != expected:
        for i, (want, got) in enumerate(zip(expected, found, strict=False)):
            if want != got:
                return f"expected <{want[0]}{want[1]}> but found <{got[0]}{got[1]}> (tag {i + 1})"
        if len(found) < len(expected):
            missing = expected[len(found)]
            return f"missing <{missing[0]}{missing[1]}>"
        extra = found[len(expected)]
        return f"unexpected extra <{extra[0]}{extra[1]}>"
    for i, tag in enumerate(config.tags):
        inner = text[tokens[2 * i].end() : tokens[2 * i + 1].start()]
        if tag in config.nonempty and not inner.strip():
            return f"<{tag}> is empty"
    if not config.allow_text_outside:
        outside = [text[: tokens[0].start()], text[tokens[-1].end() :]]
        outside += [
            text[tokens[j].end() : tokens[j + 1].start()] for j in range(1, len(tokens) - 1, 2)
        ]
        if any(part.strip() for part in outside):
            return "text outside the tags"
    return None


class FormatVerifier(Verifier):
    """Checks a completion against a tag protocol (no reference needed)."""

    name: ClassVar[str] = "format"
    config_class = FormatConfig
    config: FormatConfig

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        text = as_text(completion)
        if text is None:
            return verdict(Status.BAD_FORMAT, "the completion has no text")
        if len(text) > self.config.max_chars:
            return verdict(
                Status.BAD_FORMAT, f"the completion is over {self.config.max_chars} characters"
            )
        problem = check_format(text, self.config)
        if problem:
            return verdict(Status.BAD_FORMAT, problem)
        return verdict(Status.CORRECT, "the format holds")
