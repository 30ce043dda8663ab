"""What the classical-cipher families share: plaintexts, the letter-only checker, near misses.

Plaintexts are generated English sentences (`palaestra.envs.tasks._words.sentence`) cut to a
number of words. Answers are compared on their letters only: case and whitespace cannot
change a classical cipher's text, so both are ignored; any other character makes the answer
malformed.
"""

from __future__ import annotations

import re
import string

import numpy as np

from palaestra.envs.tasks._words import sentence
from palaestra.envs.tasks.base import Problem, Task
from palaestra.verdict import Verdict

ALPHABET = string.ascii_uppercase
_LETTERS_AND_SPACES = re.compile(r"[A-Za-z\s]+")


def plaintext(rng: np.random.Generator, words: int) -> str:
    """``words`` consecutive words of generated English (lowercase, single spaces).

    The window starts at a random word that is not "the", so short texts vary.
    """
    tokens: list[str] = []
    while len(tokens) < words + 8:
        tokens += sentence(rng, 2).split()
    starts = [i for i in range(len(tokens) - words + 1) if tokens[i] != "the"]
    start = starts[int(rng.integers(len(starts)))]
    return " ".join(tokens[start : start + words])


def letters(text: str) -> str:
    """The letters of ``text``, upper case."""
    return "".join(c for c in text.upper() if c in ALPHABET)


def shift_letter(c: str, k: int) -> str:
    """An upper-case letter moved ``k`` places along the alphabet (other characters kept)."""
    return ALPHABET[(ALPHABET.index(c) + k) % 26] if c in ALPHABET else c


class CipherTask(Task):
    """The checker, mutations and alternatives of a cipher whose answer is a text."""

    unique = True

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Letters only (case and whitespace ignored) must equal the reference's letters."""
        if not _LETTERS_AND_SPACES.fullmatch(answer):
            return self.malformed(
                answer, problem, "the answer must contain only letters and spaces"
            )
        if letters(answer) != letters(problem.reference):
            return self.wrong(answer, problem, "the text is not the right one")
        return self.correct(answer, problem)

    def mutations(self, problem: Problem) -> list[str]:
        """One letter changed, two adjacent different letters swapped, the last letter dropped."""
        reference = problem.reference
        first = next(i for i, c in enumerate(reference) if c.isalpha())
        bumped = shift_letter(reference[first].upper(), 1)
        changed = (
            reference[:first]
            + (bumped if reference[first].isupper() else bumped.lower())
            + reference[first + 1 :]
        )
        out = [changed, reference.rstrip()[:-1]]
        flat = letters(reference)
        swap = next((i for i in range(len(flat) - 1) if flat[i] != flat[i + 1]), None)
        if swap is not None:
            out.append(flat[:swap] + flat[swap + 1] + flat[swap] + flat[swap + 2 :])
        return [m for m in out if letters(m) != flat]

    def alternatives(self, problem: Problem) -> list[str]:
        """Lower case, and the letters without spaces."""
        return [problem.reference.lower(), letters(problem.reference)]
