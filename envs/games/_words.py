"""The shipped word lists (SCOWL, see data/WORDS-LICENSE.txt), loaded on first use.

``data/words.txt`` holds one word per line with a tag, ``a`` for a common base word (a
possible secret) or ``g`` for a word accepted only as a guess, and for ``a`` words the
number of misses the Hangman reference guesser makes on it. ``data/build_words.py`` writes
it; nothing is downloaded.
"""

from __future__ import annotations

import functools
from importlib import resources


def _lines(name: str) -> list[str]:
    text = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


@functools.cache
def _tagged() -> tuple[tuple[str, str, str], ...]:
    return tuple(tuple(line.split("\t")) for line in _lines("words.txt"))  # type: ignore[misc]


@functools.cache
def answers(length: int) -> tuple[str, ...]:
    """Common base words of ``length`` letters (possible secrets), sorted."""
    return tuple(word for word, tag, _ in _tagged() if tag == "a" and len(word) == length)


@functools.cache
def guesses(length: int) -> frozenset[str]:
    """Every word of ``length`` letters accepted as a guess."""
    return frozenset(word for word, _, _ in _tagged() if len(word) == length)


@functools.cache
def hangman_words() -> tuple[tuple[str, int], ...]:
    """``(word, misses of the reference guesser)`` for the common words of 4-10 letters."""
    return tuple((word, int(misses)) for word, tag, misses in _tagged() if tag == "a")
