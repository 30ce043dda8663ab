"""Anagrams: unscramble letters into an English word.

The task:
    "Unscramble D L O C into an English word using every letter exactly once." Any word of
    the shipped word list that uses exactly those letters scores (COLD, and CLOD if it were
    listed); at the lower levels of each word length the first letter is given.

Observation:
    One user message: the scrambled letters, the hint if any, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one word (any case).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the word uses exactly the given letters, is in the word
    list and (with a hint) starts with the given letter; else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; words of 4 letters (level 1, with the first letter given) up to 8 letters
        (level 10, no hint).
    length, hint: Override what the level sets.

Data:
    ``data/words.txt`` (common English words, written for this project).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np
from palaestra.envs.tasks._words import words, words_of_length
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


def anagrams(letters: str, first: str | None = None) -> list[str]:
    """Every listed word with exactly these letters (and this first letter), by scanning the list."""
    target = Counter(letters.lower())
    return sorted(
        w
        for w in words()
        if len(w) == len(letters) and Counter(w) == target and (first is None or w[0] == first)
    )


class AnagramTask(Task[AnagramConfig]):
    """Unscramble a word."""

    name = "anagram"
    Config = AnagramConfig
    unique = False

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

    def generate(self, rng: np.random.Generator) -> Problem:
        """A listed word, shuffled until the shuffle is not itself a listed word."""
        pool = words_of_length(self.config.length)
        dictionary = words()
        while True:
            word = pool[int(rng.integers(len(pool)))]
            if len(set(word)) == 1:
                continue
            for _ in range(20):
                scrambled = "".join(word[int(i)] for i in rng.permutation(len(word)))
                if scrambled not in dictionary:
                    break
            else:
                continue
            break
        shown = " ".join(scrambled.upper())
        hint = f" The word starts with {word[0].upper()}." if self.config.hint else ""
        prompt = (
            f"Unscramble the letters {shown} into an English word that uses each letter exactly once.{hint} "
            f"Answer with the word only (for example PLANET). {ANSWER_FORMAT}"
        )
        return Problem(
            prompt,
            word.upper(),
            {"letters": scrambled, "first": word[0] if self.config.hint else None},
        )

    def solve(self, problem: Problem) -> str:
        """The word that was scrambled."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Exactly the given letters, a listed word, and the hinted first letter."""
        word = answer.strip().rstrip(".").lower()
        if not word.isalpha() or not word.isascii() or len(word) > 40:
            return self.malformed(answer, problem, "the answer must be one word")
        d = problem.data
        if Counter(word) != Counter(d["letters"]):
            return self.wrong(answer, problem, "does not use exactly the given letters")
        if d["first"] is not None and word[0] != d["first"]:
            return self.wrong(answer, problem, f"does not start with {d['first'].upper()}")
        if word not in words():
            return self.wrong(answer, problem, f"{word} is not in the word list")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts listed words with the same letters (and first letter) by scanning the list."""
        d = problem.data
        return Certificate(min(2, len(anagrams(d["letters"], d["first"]))))

    def mutations(self, problem: Problem) -> list[str]:
        """Two letters swapped into a non-word, a letter replaced, the scramble itself."""
        word = problem.reference.lower()
        dictionary = words()
        out = [problem.data["letters"].upper()]
        for i in range(1, len(word) - 1):
            swapped = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
            if swapped not in dictionary and swapped != word:
                out.append(swapped.upper())
                break
        out.append(word[:-1].upper() + ("Q" if word[-1] != "q" else "Z"))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other listed words with the same letters, and lower case."""
        d = problem.data
        others = [
            w.upper() for w in anagrams(d["letters"], d["first"]) if w != problem.reference.lower()
        ]
        return [problem.reference.lower(), *others]

    def work(self, problem: Problem) -> float:
        """Orderings a brute-force search would try (fewer with the first letter given)."""
        n = len(problem.reference)
        return float(math.factorial(n - 1) if problem.data["first"] else math.factorial(n))


class AnagramEnv(TaskEnv):
    """Unscramble a word; see the module docstring."""

    task_class = AnagramTask
