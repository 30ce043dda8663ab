"""Anagrams: unscramble letters into an English word.

The task:
    "Unscramble D L O C into an English word using every letter exactly once." Any word of
    the shipped English dictionary that uses exactly those letters scores (COLD or CLOD; for
    the letters of TEENAGER also GENERATE); at the lower levels of each word length the
    first letter is given. The scrambled word is drawn from the commonest words, and the
    scramble itself is never a word; the prompt says what counts as a word.

Observation:
    One user message: the scrambled letters, the hint if any, what counts as a word, and the
    answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one word (any case).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the word uses exactly the given letters, is in the
    dictionary and (with a hint) starts with the given letter; else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; words of 4 letters (level 1, with the first letter given) up to 8 letters
        (level 10, no hint).
    length, hint: Override what the level sets.

Data:
    ``data/english.txt.gz`` (about 116,000 English words from SCOWL, ranked by commonness;
    see ``data/ENGLISH-LICENSE.txt``): every word counts, and words of SCOWL size 20 and
    below (the commonest, American spelling) are drawn. v0 used ``data/words.txt`` (about
    3,100 common words written for this project) for both.

Version history:
    v0: first version; only the hand-written list of about 3,100 words counted (GENERATE
        for TEENAGER, FOSTER for FOREST, THEATRE for THEATER scored 0).
    v1: every word of the English dictionary with exactly the letters counts; words are
        drawn from the commonest dictionary words; the prompt says what counts as a word.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from typing import ClassVar

import numpy as np

from palaestra.envs.tasks._words import (
    DICTIONARY_RULE,
    common_words,
    dictionary,
    words,
    words_of_length,
)
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict


@dataclasses.dataclass(frozen=True)
class AnagramConfig:
    """Knobs.

    Attributes:
        length: Letters of the word (3 to 8).
        hint: Whether the first letter is given.
    """

    length: int = 4
    hint: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or not 3 <= self.length <= 8:
            raise ValueError(f"length must be an integer from 3 to 8, got {self.length!r}")
        if not isinstance(self.hint, bool):
            raise ValueError(f"hint must be True or False, got {self.hint!r}")


DRAWN_SIZE = 20
"""SCOWL size class up to which a word may be drawn (10 and 20: the commonest words)."""


def anagrams(
    letters: str, first: str | None = None, counted: frozenset[str] | None = None
) -> list[str]:
    """Every word with exactly these letters (and this first letter), by scanning ``counted``.

    ``counted`` defaults to the English dictionary.
    """
    target = Counter(letters.lower())
    return sorted(
        w
        for w in (dictionary() if counted is None else counted)
        if len(w) == len(letters) and Counter(w) == target and (first is None or w[0] == first)
    )


class AnagramTask(Task[AnagramConfig]):
    """Unscramble a word."""

    name = "anagram"
    Config = AnagramConfig
    unique = False
    source: ClassVar[str] = "the dictionary"
    """How a rejection names the counted words."""

    @classmethod
    def level_config(cls, level: int) -> AnagramConfig:
        """Longer words; at each length first with the first letter given, then without."""
        length, hint = {
            1: (4, True),
            2: (4, False),
            3: (5, True),
            4: (5, False),
            5: (6, True),
            6: (6, False),
            7: (7, True),
            8: (7, False),
            9: (8, True),
            10: (8, False),
        }[level]
        return AnagramConfig(length=length, hint=hint)

    def counted(self) -> frozenset[str]:
        """The words that count as answers: the English dictionary."""
        return dictionary()

    def drawn(self, length: int) -> tuple[str, ...]:
        """The words of ``length`` letters that may be scrambled (the commonest), sorted."""
        return common_words(length, DRAWN_SIZE)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A drawn word, shuffled until the shuffle is not itself a counted word."""
        pool = self.drawn(self.config.length)
        counted = self.counted()
        while True:
            word = pool[int(rng.integers(len(pool)))]
            if len(set(word)) == 1:
                continue
            for _ in range(20):
                scrambled = "".join(word[int(i)] for i in rng.permutation(len(word)))
                if scrambled not in counted:
                    break
            else:
                continue
            break
        return Problem(
            self.prompt(scrambled, word[0] if self.config.hint else None),
            word.upper(),
            {"letters": scrambled, "first": word[0] if self.config.hint else None},
        )

    def prompt(self, scrambled: str, first: str | None) -> str:
        """The question, with what counts as a word."""
        shown = " ".join(scrambled.upper())
        hint = f" The word starts with {first.upper()}." if first else ""
        return (
            f"Unscramble the letters {shown} into an English word that uses each letter exactly "
            f"once.{hint} Any such word scores: {DICTIONARY_RULE}. Answer with the word only "
            f"(for example PLANET). {ANSWER_FORMAT}"
        )

    def solve(self, problem: Problem) -> str:
        """The word that was scrambled."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Exactly the given letters, a counted word, and the hinted first letter."""
        word = answer.strip().rstrip(".").lower()
        if not word.isalpha() or not word.isascii() or len(word) > 40:
            return self.malformed(answer, problem, "the answer must be one word")
        d = problem.data
        if Counter(word) != Counter(d["letters"]):
            return self.wrong(answer, problem, "does not use exactly the given letters")
        if d["first"] is not None and word[0] != d["first"]:
            return self.wrong(answer, problem, f"does not start with {d['first'].upper()}")
        if word not in self.counted():
            return self.wrong(answer, problem, f"{word} is not in {self.source}")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts counted words with the same letters (and first letter) by scanning them all."""
        d = problem.data
        return Certificate(min(2, len(anagrams(d["letters"], d["first"], self.counted()))))

    def mutations(self, problem: Problem) -> list[str]:
        """Two letters swapped into a non-word, a letter replaced, the scramble itself."""
        word = problem.reference.lower()
        counted = self.counted()
        out = [problem.data["letters"].upper()]
        for i in range(1, len(word) - 1):
            swapped = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
            if swapped not in counted and swapped != word:
                out.append(swapped.upper())
                break
        out.append(word[:-1].upper() + ("Q" if word[-1] != "q" else "Z"))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other counted words with the same letters, and lower case."""
        d = problem.data
        others = [
            w.upper()
            for w in anagrams(d["letters"], d["first"], self.counted())
            if w != problem.reference.lower()
        ]
        return [problem.reference.lower(), *others]

    def work(self, problem: Problem) -> float:
        """Orderings a brute-force search would try (fewer with the first letter given)."""
        n = len(problem.reference)
        return float(math.factorial(n - 1) if problem.data["first"] else math.factorial(n))


class AnagramEnv(TaskEnv):
    """Unscramble a word; see the module docstring."""

    task_class = AnagramTask


class AnagramV0Task(AnagramTask):
    """Version 0, kept so that ``Anagram-v0`` generates and scores as recorded.

    Only the hand-written list of about 3,100 words counts, and words are drawn from it.
    """

    source = "the word list"

    def counted(self) -> frozenset[str]:
        """The hand-written list."""
        return words()

    def drawn(self, length: int) -> tuple[str, ...]:
        """The hand-written list's words of ``length`` letters."""
        return words_of_length(length)

    def prompt(self, scrambled: str, first: str | None) -> str:
        """The v0 question."""
        shown = " ".join(scrambled.upper())
        hint = f" The word starts with {first.upper()}." if first else ""
        return (
            f"Unscramble the letters {shown} into an English word that uses each letter exactly "
            f"once.{hint} Answer with the word only (for example PLANET). {ANSWER_FORMAT}"
        )


class AnagramV0Env(TaskEnv):
    """``Anagram-v0``: words of the hand-written list only."""

    task_class = AnagramV0Task
