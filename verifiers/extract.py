r"""Shared answer extraction: one final-answer slot, found the same way by every verifier.

The rules (each configurable through `ExtractionConfig`):

1. Caps come first: a completion longer than `max_completion_chars` is not parsed at all.
2. Unicode is normalised (NFKC, so full-width digits become ASCII; the unicode minus and its
   look-alikes become ``-``; invisible characters are removed; ``≤``, ``π``, ``√`` ... become
   LaTeX).
3. Reasoning is cut: only the text after the last ``</think>`` counts. An opened ``<think>``
   that is never closed means the whole completion is reasoning: no answer.
4. The slot: the last ``<answer>...</answer>`` (a ``\boxed{}`` inside it wins), else the last
   ``\boxed{}``/``\fbox{}``, else (if enabled) the last "final answer: ..." line.
5. Hedging is not rewarded: every slot candidate after the reasoning must agree, and a
   "final answer" statement after the slot must restate it. Otherwise the verdict is
   `incorrect` with reason "conflicting final answers".
6. An answer longer than `max_answer_chars` is refused before any parsing.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any, ClassVar

from palaestra.verifiers.base import VerifierConfig, as_text

SLOT_KINDS = ("answer_tag", "boxed", "phrase")

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"), None)
_REPLACEMENTS = {
    "\u2212": "-",  # minus sign
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\ufe63": "-",
    "\u00d7": r"\times ",
    "\u22c5": r"\cdot ",
    "\u00b7": r"\cdot ",
    "\u00f7": r"\div ",
    "\u2264": r"\le ",
    "\u2265": r"\ge ",
    "\u2260": r"\ne ",
    "\u03c0": r"\pi ",
    "\u221e": r"\infty ",
    "\u221a": r"\sqrt",
    "\u222a": r"\cup ",
    "\u2229": r"\cap ",
    "\u00b0": r"^\circ",
    "\u00b1": r"\pm ",
}
_REPLACE_RE = re.compile("|".join(map(re.escape, _REPLACEMENTS)))

_PHRASE_RE = re.compile(
    r"(?:final\s+answer|the\s+answer\s+is|answer\s*:)\s*(?:is\s*)?:?\s*(?P<value>[^\n]*)",
    re.IGNORECASE,
)


@dataclasses.dataclass(frozen=True)
class ExtractionConfig(VerifierConfig):
    """Where the answer is and how much text is read.

    Attributes:
        slots: Where an answer may be, by priority: ``answer_tag``, ``boxed``, ``phrase``
            (a "final answer: ..." line, used only when no tag or box is present).
        think: ``strip`` (read after the last ``</think>``; an unclosed ``<think>`` means no
            answer), ``require`` (a ``</think>`` must be present) or ``ignore``.
        conflicts: ``incorrect`` (distinct final answers make the verdict incorrect) or
            ``last`` (take the last one).
        max_completion_chars: Longer completions are refused unread.
        max_answer_chars: Longer answers are refused before parsing.
    """

    VERSION: ClassVar[int] = 1

    slots: tuple[str, ...] = ("answer_tag", "boxed", "phrase")
    think: str = "strip"
    conflicts: str = "incorrect"
    max_completion_chars: int = 262_144
    max_answer_chars: int = 1_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.slots, str) or not self.slots:
            raise ValueError(f"slots must be a non-empty tuple drawn from {SLOT_KINDS}")
        for slot in self.slots:
            if slot not in SLOT_KINDS:
                raise ValueError(f"unknown slot {slot!r}; choose from {SLOT_KINDS}")
        object.__setattr__(self, "slots", tuple(self.slots))
        if self.think not in ("strip", "require", "ignore"):
            raise ValueError(f"think must be 'strip', 'require' or 'ignore', got {self.think!r}")
        if self.conflicts not in ("incorrect", "last"):
            raise ValueError(f"conflicts must be 'incorrect' or 'last', got {self.conflicts!r}")
        for name in ("max_completion_chars", "max_answer_chars"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Extraction:
    """The result of looking for the answer slot.

    Attributes:
        kind: ``ok``, ``no_answer``, ``conflict``, ``too_long`` or ``bad_format``.
        answer: The slot's content, stripped (None unless kind is ``ok`` or ``conflict``).
        source: Which slot it came from (``answer_tag``, ``boxed``, ``phrase``).
        candidates: Every candidate found after the reasoning, in order.
        reason: Why, for a person.
    """

    kind: str
    answer: str | None = None
    source: str = ""
    candidates: tuple[str, ...] = ()
    reason: str = ""

    @property
    def ok(self) -> bool:
        """True when a single answer was found."""
        return self.kind == "ok"


def normalize_unicode(text: str) -> str:
    """NFKC, unicode minus and friends to ``-``, invisible characters removed, symbols to LaTeX."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    return _REPLACE_RE.sub(lambda m: _REPLACEMENTS[m.group(0)], text)


def strip_reasoning(text: str, mode: str) -> tuple[str | None, str]:
    """The text after the reasoning, or None with a reason when there is none."""
    if mode == "ignore":
        return text, ""
    lower = text.lower()
    close = lower.rfind("</think>")
    if close >= 0:
        return text[close + len("</think>") :], ""
    if mode == "require":
        return None, "no closing </think>: the required reasoning block is missing or unclosed"
    if "<think>" in lower:
        return None, "the <think> block is never closed, so everything is reasoning"
    return text, ""


_BRACE_TOKEN = re.compile(r"\\(?:boxed|fbox)\s*\{|\\[{}\\]|[{}]")
_TAG_TOKEN = {}


def find_boxes(text: str) -> list[tuple[int, int, str | None]]:
    r"""Every ``\boxed{...}``/``\fbox{...}`` as (start, end, content); content None if unclosed.

    One pass over the braces (linear time, whatever the input): nested boxes are dropped in
    favour of the outer one.
    """
    stack: list[tuple[bool, int, int]] = []
    boxes: list[tuple[int, int, str | None]] = []
    for match in _BRACE_TOKEN.finditer(text):
        token = match.group()
        if token[0] == "\\" and token[1] in "bf":
            stack.append((True, match.start(), match.end()))
        elif token == "{":
            stack.append((False, match.start(), match.end()))
        elif token == "}" and stack:
            is_box, start, content_start = stack.pop()
            if is_box:
                boxes.append((start, match.end(), text[content_start : match.start()]))
    boxes += [(start, len(text), None) for is_box, start, _ in stack if is_box]
    boxes.sort()
    out: list[tuple[int, int, str | None]] = []
    for box in boxes:
        if out and box[0] < out[-1][1]:
            continue
        out.append(box)
    return out


def tag_contents(text: str, tag: str) -> tuple[list[tuple[int, int, str]], bool]:
    """Contents of every closed ``<tag>...</tag>`` (linear time) and whether one is left open.

    A close pairs with the latest open before it; returns ``[(start, end, content)]``.
    """
    pattern = _TAG_TOKEN.get(tag)
    if pattern is None:
        pattern = _TAG_TOKEN[tag] = re.compile(rf"<(/?){re.escape(tag)}\s*>", re.IGNORECASE)
    out = []
    open_at: tuple[int, int] | None = None
    for match in pattern.finditer(text):
        if not match.group(1):
            open_at = (match.start(), match.end())
        elif open_at is not None:
            out.append((open_at[0], match.end(), text[open_at[1] : match.start()]))
            open_at = None
    return out, open_at is not None


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Every closed ```` ``` ```` block as (language, body), in linear time."""
    parts = text.split("```")
    blocks = []
    for i in range(1, len(parts) - 1, 2):
        head, _, body = parts[i].partition("\n")
        blocks.append((head.strip().lower(), body))
    return blocks


def canonical(answer: str) -> str:
    """A light canonical form used to tell whether two answer strings differ."""
    s = re.sub(r"\\(?:left|right|displaystyle|mathrm|text|textbf|mathbf)\b", "", answer)
    s = s.replace(r"\dfrac", r"\frac").replace(r"\tfrac", r"\frac")
    s = re.sub(r"\\[,;:! ]|~|\s+|\$", "", s)
    s = s.strip(".。")
    return s.lower()


def _clean_phrase(value: str) -> str:
    # "$42$." or "\(42\)" or "**42**."
    value = value.strip().rstrip(".。").strip()
    value = re.sub(r"^\*\*|\*\*$", "", value).strip()
    math = re.match(r"^\$\$?((?:\\\$|[^$])+)\$", value)
    if math:
        value = math.group(1)
    value = re.sub(r"^\\\(|\\\)$|^\\\[|\\\]$", "", value).strip()
    return value.rstrip(".。").strip()


_RESTATEMENT_PREFIX = re.compile(
    r"^(?:(?:so|thus|hence),?\s*)?(?:the\s+answer\s+is|it\s+is|is)\s*:?\s*", re.IGNORECASE
)
_BOXED_WHOLE = re.compile(r"^\\(?:boxed|fbox)\{(.*)\}$", re.S)
_ASSIGNMENT = re.compile(r"^[A-Za-z]\w*\s*=\s*")


def _restates(stated: str, answer: str) -> bool:
    r"""True when a "final answer" statement says exactly the slot's answer.

    Equality, not containment: "Final answer: 42, 43" after a slot of 42 is a second
    candidate, not a restatement. Wrappers that cannot change the meaning are removed
    first: "the answer is", a whole-statement \boxed{}, and ``x =`` before a plain value.
    """
    value = _RESTATEMENT_PREFIX.sub("", stated.strip())
    boxed = _BOXED_WHOLE.match(value)
    if boxed:
        value = boxed.group(1)
    if "=" not in answer:
        value = _ASSIGNMENT.sub("", value)
    return canonical(_clean_phrase(value)) == canonical(answer)


def extract_answer(completion: Any, config: ExtractionConfig) -> Extraction:
    """Finds the single final answer of a completion (see the module docstring).

    The text is folded first (`normalize_unicode`): Unicode look-alikes become ASCII (NFKC
    for full-width letters and digits, ``-`` for the minus sign and dashes, invisible
    characters dropped, ``≤``, ``×``, ``π`` ... as LaTeX), so the answer returned, and every
    checker that reads it, sees the folded text.
    """
    text = as_text(completion)
    if text is None:
        return Extraction("no_answer", reason="the completion has no text")
    if len(text) > config.max_completion_chars:
        return Extraction(
            "too_long",
            reason=f"the completion is {len(text)} characters, over the cap of "
            f"{config.max_completion_chars}; it was not read",
        )
    text = normalize_unicode(text)
    region, why = strip_reasoning(text, config.think)
    if region is None:
        kind = "bad_format" if config.think == "require" else "no_answer"
        return Extraction(kind, reason=why)

    candidates: list[tuple[str, str, int]] = []  # (content, source, end position)
    tag_spans: list[tuple[int, int]] = []
    if "answer_tag" in config.slots:
        tags, left_open = tag_contents(region, "answer")
        for start, end, inner in tags:
            inner_boxes = [b for b in find_boxes(inner) if b[2] is not None]
            content = inner_boxes[-1][2] if inner_boxes else inner
            candidates.append((content.strip(), "answer_tag", end))
            tag_spans.append((start, end))
        if left_open and not candidates:
            return Extraction("no_answer", reason="an <answer> tag is opened but never closed")
    if "boxed" in config.slots:
        boxes = [b for b in find_boxes(region) if not any(s <= b[0] < e for s, e in tag_spans)]
        if boxes and boxes[-1][2] is None:
            return Extraction("no_answer", reason="the last \\boxed{ is never closed")
        candidates += [(b[2].strip(), "boxed", b[1]) for b in boxes if b[2] is not None]
    candidates.sort(key=lambda c: c[2])

    if not candidates and "phrase" in config.slots:
        phrases = [_clean_phrase(m.group("value")) for m in _PHRASE_RE.finditer(region)]
        phrases = [p for p in phrases if p]
        if phrases:
            candidates = [(p, "phrase", 0) for p in phrases]
    if not candidates:
        where = " or ".join(s.replace("_", " ") for s in config.slots)
        return Extraction("no_answer", reason=f"no final answer found ({where})")

    answer, source, end = candidates[-1]
    found = tuple(c[0] for c in candidates)
    if len(answer) > config.max_answer_chars:
        return Extraction(
            "too_long",
            candidates=found,
            reason=f"the answer is {len(answer)} characters, over the cap of "
            f"{config.max_answer_chars}",
        )
    if not answer:
        return Extraction("no_answer", source=source, reason=f"the {source} slot is empty")
    if config.conflicts == "incorrect":
        distinct = {canonical(c) for c in found}
        if len(distinct) > 1:
            return Extraction(
                "conflict",
                answer=answer,
                source=source,
                candidates=found,
                reason=f"conflicting final answers: {', '.join(found[-4:])}",
            )
        if source != "phrase":
            for match in _PHRASE_RE.finditer(region, end):
                stated = _clean_phrase(match.group("value"))
                if stated and not _restates(stated, answer):
                    return Extraction(
                        "conflict",
                        answer=answer,
                        source=source,
                        candidates=(*found, stated),
                        reason=f"the {source} answer {answer!r} is followed by a different "
                        f"final answer {stated!r}",
                    )
    return Extraction("ok", answer=answer, source=source, candidates=found)
