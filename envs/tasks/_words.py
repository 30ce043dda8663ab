"""The shipped English word data (``envs/tasks/data``): a dictionary, a word list, a lexicon.

``english.txt.gz`` is the dictionary of the word tasks: about 116,000 English words from
SCOWL (sizes 10-70, "words found in most dictionaries"; see ``ENGLISH-LICENSE.txt`` and
``build_english.py``), ranked by SCOWL's size classes so that puzzles can be drawn from
common words while every dictionary word counts as an answer. ``words.txt`` holds about
3,000 common English words of 3 to 9 letters and ``lexicon.txt`` the same kind of words
sorted by part of speech; both were written by hand for this project. Files are read once,
on first use; nothing is downloaded.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


DICTIONARY_RULE = (
    "any word found in most English dictionaries counts, plurals and verb forms included "
    "(American or British spelling), but not proper nouns, abbreviations or rare words "
    "that only word games allow"
)
"""What counts as a word for the dictionary tasks, as their prompts say it."""

COMMON_SIZE = 35
"""SCOWL size class up to which a word is common enough to be drawn for a puzzle."""


@functools.cache
def _ranked() -> dict[str, int | None]:
    """Dictionary word -> SCOWL size class, or None for a word never drawn."""
    text = gzip.decompress((DATA / "english.txt.gz").read_bytes()).decode("ascii")
    ranks: dict[str, int | None] = {}
    size: int | None = None
    for line in text.splitlines():
        if line.startswith("# size "):
            size = int(line.removeprefix("# size "))
        elif line == "# never drawn":
            size = None
        elif line and not line.startswith("#"):
            ranks[line] = size
    return ranks


@functools.cache
def dictionary() -> frozenset[str]:
    """Every word of the dictionary (lowercase): what counts as an English word."""
    return frozenset(_ranked())


@functools.cache
def dictionary_of_length(length: int) -> tuple[str, ...]:
    """The dictionary's words with ``length`` letters, sorted."""
    return tuple(sorted(w for w in _ranked() if len(w) == length))


@functools.cache
def common_words(length: int, size: int = COMMON_SIZE) -> tuple[str, ...]:
    """Dictionary words of ``length`` letters common enough to draw, sorted.

    Common means SCOWL size class ``size`` or below; only American spellings are drawn, and
    never an offensive word.
    """
    return tuple(
        sorted(w for w, s in _ranked().items() if len(w) == length and s is not None and s <= size)
    )


@functools.lru_cache(maxsize=1)
def words() -> frozenset[str]:
    """Every word of the hand-written list ``words.txt`` (lowercase)."""
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
