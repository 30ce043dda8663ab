"""The shipped English word data (``envs/tasks/data``): a word list and a lexicon for sentences.

``words.txt`` holds about 3,000 common English words of 3 to 9 letters and ``lexicon.txt``
the same kind of words sorted by part of speech; both were written by hand for this project.
Files are read once, on first use; nothing is downloaded.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@functools.lru_cache(maxsize=1)
def words() -> frozenset[str]:
    """Every word of the shipped list (lowercase)."""
    return frozenset(_lines("words.txt"))


@functools.cache
def words_of_length(length: int) -> tuple[str, ...]:
    """The words with ``length`` letters, sorted (a stable order for seeded draws)."""
    return tuple(sorted(w for w in words() if len(w) == length))


@functools.lru_cache(maxsize=1)
def lexicon() -> dict[str, tuple[str, ...]]:
    """Words by part of speech: agent, object, place, adjective, verb, preposition, adverb, time."""
    out = {}
    for line in _lines("lexicon.txt"):
        kind, _, rest = line.partition(":")
        out[kind.strip()] = tuple(rest.split())
    return out


_CLAUSES = (
    ("the", "adjective", "agent", "verb", "the", "object", "preposition", "the", "place"),
    ("the", "agent", "verb", "the", "adjective", "object"),
    ("the", "agent", "adverb", "verb", "the", "object", "time"),
    ("the", "adjective", "agent", "verb", "the", "agent"),
    ("the", "agent", "verb", "the", "object", "preposition", "the", "adjective", "place"),
)


def sentence(rng: np.random.Generator, clauses: int = 1) -> str:
    """A lowercase sentence of ``clauses`` generated clauses joined by "and" / "then"."""
    lex = lexicon()
    parts = []
    for i in range(clauses):
        if i:
            parts.append(("and", "then")[int(rng.integers(2))])
        shape = _CLAUSES[int(rng.integers(len(_CLAUSES)))]
        for slot in shape:
            parts.append(slot if slot == "the" else lex[slot][int(rng.integers(len(lex[slot])))])
    return " ".join(parts)
