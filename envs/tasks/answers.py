r"""Strict parsers for the text of an answer slot, for a family's `Task.check`.

Every parser reads the whole slot as one answer of a documented form and returns None when it
is anything else, so that hedges ("3 or 4"), candidate lists and appended remarks are malformed
rather than half-read: a family answers None with `Task.malformed`. Sizes are capped before
any parsing. The text they get has been through the shared extraction, which folds Unicode
look-alikes to ASCII first (see `Task.verify`).

    parse_int(text)          an optionally signed integer -> int | None
    parse_number(text)       an integer, ``p/q``, ``\frac{p}{q}`` or a decimal -> Fraction | None
    same_number(text, ref)   exact equality, decided by the ``numeric`` verifier -> bool
    number_text(value)       the canonical text of an exact number (``-7``, ``3/2``)
    decimal_text(value)      the exact decimal text of a terminating value (``0.125``), or None
    terminating(value)       whether the decimal expansion of a fraction terminates
    parse_yes_no(text)       ``yes``/``no`` (also ``true``/``false``) -> bool | None
    split_items(text)        comma-separated items, optionally in brackets -> list[str] | None

Numeric equality goes through the `numeric` verifier of `palaestra.verifiers` with exact rules
(no decimal rounding). The logic, graph and induction families read structured answers
(``name = value`` assignments, sequences of names, integer lists) with the parsers of
`palaestra.envs.tasks._logic`.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

MAX_NUMBER_CHARS = 120
"""Longest number text parsed (longer numbers are malformed, never converted)."""

_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)")
_FRACTION = re.compile(r"(?P<sign>[+-]?)\(?\s*(?P<num>[+-]?\d+)\s*/\s*(?P<den>[+-]?\d+)\s*\)?")
_LATEX_FRACTION = re.compile(
    r"(?P<sign>[+-]?)\\[dt]?frac\s*\{\s*(?P<num>[+-]?\d+)\s*\}\s*\{\s*(?P<den>[+-]?\d+)\s*\}"
)
_YES = {"yes", "y", "true"}
_NO = {"no", "n", "false"}


def parse_int(text: str) -> int | None:
    """An optionally signed integer (whitespace around it allowed), or None."""
    text = text.strip()
    if len(text) > MAX_NUMBER_CHARS or not _INTEGER.fullmatch(text):
        return None
    return int(text)


def parse_number(text: str) -> Fraction | None:
    r"""An exact number: an integer, a fraction ``p/q`` or ``\\frac{p}{q}``, or a decimal.

    A trailing full stop is tolerated. Anything else (expressions, lists, words) is None.
    """
    text = text.strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    if not text or len(text) > MAX_NUMBER_CHARS:
        return None
    if _INTEGER.fullmatch(text):
        return Fraction(int(text))
    if _DECIMAL.fullmatch(text):
        return Fraction(text)
    match = _FRACTION.fullmatch(text) or _LATEX_FRACTION.fullmatch(text)
    if match is None or (text.startswith("(") != text.endswith(")")):
        return None
    denominator = int(match["den"])
    if denominator == 0:
        return None
    value = Fraction(int(match["num"]), denominator)
    return -value if match["sign"] == "-" else value


def number_text(value: Fraction | int) -> str:
    """The canonical text of an exact number: ``-7``, ``3/2``."""
    value = Fraction(value)
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def terminating(value: Fraction) -> bool:
    """Whether the decimal expansion of ``value`` terminates."""
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def decimal_text(value: Fraction) -> str | None:
    """The exact decimal text of a terminating value (``0.125``), or None."""
    if not terminating(value):
        return None
    sign = "-" if value < 0 else ""
    value = abs(value)
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    scaled = value.numerator * 10**places // value.denominator
    if places == 0:
        return f"{sign}{scaled}"
    whole, frac = divmod(scaled, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}"


@functools.lru_cache(maxsize=1)
def _exact_numeric():
    from palaestra.verifiers import get

    # A decimal answer must equal the reference exactly: no rounding to a stated precision.
    return get("numeric", min_answer_sig=10**6)


def same_number(text: str, reference: Fraction | int) -> bool:
    """Whether an answer text already accepted by `parse_number` equals ``reference`` exactly.

    Decided by the `numeric` verifier with exact rules (no rounding, no tolerance).
    """
    verdict = _exact_numeric().verify(f"<answer>{text}</answer>", number_text(reference))
    return verdict.correct


def parse_yes_no(text: str) -> bool | None:
    """``yes``/``no`` (also ``true``/``false``), any case, an optional full stop; else None."""
    word = text.strip().rstrip(".!").strip().lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    return None


def split_items(text: str, max_items: int = 64) -> list[str] | None:
    r"""Comma-separated items (optionally in ``{}``/``[]``/``()``), stripped; None if too many.

    ``\\{`` ``\\}`` (LaTeX set braces) count as braces.
    """
    text = text.strip().replace("\\{", "{").replace("\\}", "}")
    if len(text) >= 2 and (text[0], text[-1]) in {("{", "}"), ("[", "]"), ("(", ")")}:
        text = text[1:-1]
    items = [item.strip() for item in text.split(",")]
    if len(items) > max_items:
        return None
    return items
