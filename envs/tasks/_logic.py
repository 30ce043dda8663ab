"""Shared pieces of the logic, graph and induction families.

Strict answer parsers, node labels, the shipped first names, and a z3 model counter for the
independent certificates.

The parsers read the whole answer slot as one answer of a documented form and return None (or
None and a reason) for anything else, so that hedges ("A or B"), candidate lists, duplicated
keys and appended remarks are malformed rather than half-read. They are lenient only about
spelling that cannot change the meaning: letter case, whitespace, the separators each family
documents, and one trailing full stop.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

MAX_ANSWER_CHARS = 1_000
"""Answers longer than this are refused before parsing (the shared extraction caps at 1,000)."""

MAX_ITEMS = 200
"""Most items a list answer may hold."""

NAMES_FILE = Path(__file__).with_name("data") / "first_names.tsv"

_SPACES = re.compile(r"\s+")
_INTEGER = re.compile(r"[+-]?\d{1,30}")
_PAIR = re.compile(r"^([^=:]+?)\s*[=:]\s*(.+?)$")


def clean(text: str) -> str:
    """``text`` stripped, inner whitespace collapsed to one space, a trailing full stop dropped."""
    text = _SPACES.sub(" ", text.strip())
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def parse_label(text: str, labels: Mapping[str, str]) -> str | None:
    """The canonical label when the whole slot is one of ``labels`` (keys lower case), else None."""
    if len(text) > MAX_ANSWER_CHARS:
        return None
    return labels.get(clean(text).lower())


def split_items(text: str, separators: str = r"[,;\n]") -> list[str] | None:
    """The items of ``text`` split at ``separators``; None if one is empty or there are too many.

    A single trailing separator is tolerated ("A, B,"); an empty item elsewhere ("A,,B") is not.
    """
    if len(text) > MAX_ANSWER_CHARS:
        return None
    items = [_SPACES.sub(" ", item.strip()) for item in re.split(separators, text.strip())]
    if items and items[-1] == "" and len(items) > 1:
        items.pop()
    if not items or any(not item for item in items) or len(items) > MAX_ITEMS:
        return None
    return items


def parse_assignment(
    text: str,
    keys: Mapping[str, str],
    values: Mapping[str, Any],
    separators: str = r"[,;\n]",
) -> tuple[dict[str, Any] | None, str]:
    """Reads ``key = value`` (or ``key: value``) items, every key exactly once.

    Args:
        text: The answer slot.
        keys: Accepted keys, lower case, mapped to their canonical spelling.
        values: Accepted values, lower case, mapped to what they mean.
        separators: A regex of the separators between items.

    Returns:
        The assignment (canonical key -> meaning) and ``""``, or None and the reason.
    """
    items = split_items(text.strip().removesuffix("."), separators)
    if items is None:
        return None, "expected items like 'name = value' separated by commas"
    out: dict[str, Any] = {}
    for item in items:
        match = _PAIR.match(item)
        if not match:
            return None, f"{item[:40]!r} is not of the form 'name = value'"
        key, value = match.group(1).strip().lower(), clean(match.group(2)).lower()
        if key not in keys:
            return None, f"{match.group(1)[:20]!r} is not one of the names asked about"
        if value not in values:
            return None, f"{match.group(2)[:20]!r} is not an allowed value for {keys[key]}"
        if keys[key] in out:
            return None, f"{keys[key]} is given more than once"
        out[keys[key]] = values[value]
    missing = [k for k in keys.values() if k not in out]
    if missing:
        return None, f"no value given for {', '.join(missing[:5])}"
    return out, ""


def parse_names(
    text: str, names: Mapping[str, str], separators: str = r"\s*(?:->|→|,|\s)\s*"
) -> list[str] | None:
    """A sequence of names (keys lower case -> canonical) separated by ``separators``, or None."""
    if len(text) > MAX_ANSWER_CHARS:
        return None
    body = clean(text)
    if not body:
        return None
    tokens = re.split(separators, body)
    if any(not t for t in tokens) or len(tokens) > MAX_ITEMS:
        return None
    out = []
    for token in tokens:
        name = names.get(token.lower())
        if name is None:
            return None
        out.append(name)
    return out


def parse_int_list(
    text: str, brackets: str = "optional", max_items: int = MAX_ITEMS
) -> list[int] | None:
    """Integers separated by commas (or spaces), optionally in square brackets; None otherwise.

    Args:
        text: The answer slot.
        brackets: ``"optional"``, ``"required"`` or ``"none"``.
        max_items: Most integers accepted.
    """
    if len(text) > MAX_ANSWER_CHARS:
        return None
    body = clean(text)
    bracketed = body.startswith("[") and body.endswith("]")
    if (brackets == "required" and not bracketed) or (brackets == "none" and "[" in body):
        return None
    if bracketed:
        body = body[1:-1].strip()
    if not body:
        return [] if bracketed else None
    tokens = [t for t in re.split(r"\s*,\s*|\s+", body)]
    if any(not _INTEGER.fullmatch(t) for t in tokens) or len(tokens) > max_items:
        return None
    return [int(t) for t in tokens]


@functools.lru_cache(maxsize=1)
def first_names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The shipped first names: (female, male), in file order."""
    female, male = [], []
    for line in NAMES_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, gender = line.split("\t")
        (female if gender.strip() == "f" else male).append(name.strip())
    return tuple(female), tuple(male)


def draw_names(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct first names of either gender."""
    female, male = first_names()
    pool = female + male
    if n > len(pool):
        raise ValueError(f"asked for {n} distinct names; the shipped list has {len(pool)}")
    return [pool[int(i)] for i in rng.choice(len(pool), size=n, replace=False)]


def letter_labels(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct capital letters drawn at random, in alphabetical order (node names).

    Random letters (rather than always ``A..``) keep instances apart: an answer written for one
    graph names nodes another graph of the same size mostly lacks.
    """
    if not 1 <= n <= 26:
        raise ValueError(f"letter labels name 1 to 26 nodes, got {n}")
    return sorted(chr(65 + int(i)) for i in rng.choice(26, size=n, replace=False))


def name_index(names: Sequence[str]) -> dict[str, str]:
    """Lower-case spelling -> canonical name, for the parsers."""
    return {name.lower(): name for name in names}


def z3_count(build: Callable[[Any], tuple[Any, Sequence[Any]]], cap: int = 2) -> int:
    """Counts models of a z3 encoding up to ``cap``, blocking each model found.

    Args:
        build: Called with the ``z3`` module; returns (solver, the variables that make up a
            solution).
        cap: Stop counting here.

    Raises:
        ImportError: z3-solver is missing (it ships with the ``dev`` extra; only certificates
            use it).
    """
    z3 = z3_module()
    solver, variables = build(z3)
    count = 0
    while count < cap and solver.check() == z3.sat:
        count += 1
        model = solver.model()
        solver.add(z3.Or([v != model.eval(v, model_completion=True) for v in variables]))
    return count


def z3_module():
    """The ``z3`` module, imported on first use (it is optional and slow to import)."""
    try:
        import z3  # noqa: PLC0415
    except ImportError as e:
        raise ImportError(
            'certifying this family needs z3-solver: pip install "palaestra[dev]" (or z3-solver)'
        ) from e
    return z3
