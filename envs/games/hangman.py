"""Hangman: find a hidden English word letter by letter before the misses run out.

The task:
    The secret is a common English word (shipped SCOWL list, no download). Each turn the
    player guesses a letter, which reveals every position holding it, or the whole word.
    A letter not in the word, or a wrong word, is a miss; ``lives`` misses lose.

Observation:
    The rules, then after each guess the pattern (``_`` for hidden letters, e.g.
    ``_ a _ _ e``), the letters tried and the misses left.

Action:
    The last ``<move>...</move>`` after any ``</think>``: one letter (``<move>e</move>``)
    or a whole word of the secret's length. A letter tried before or anything else is
    an invalid move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the share of the word's letters the guess
        revealed (a won game's progress sums to exactly `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when the word is complete; 0 when the misses run out.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or repeated guess.
    The best return is 1.0.

Episode end:
    Terminated when the word is found (success), the misses run out, or the turn budget
    (`TURN_BUDGET`, every turn counts) is spent.

Oracle:
    The reference guesser: of the untried letters, the one found in the most dictionary
    words that still fit the pattern (ties: English letter frequency), and the word
    itself once it is the only fit. Each level draws secrets that this guesser finds
    within its lives (the build script records its misses on every word), so every
    episode is winnable by a player who knows the word list.

Arguments:
    level: 1-10; long words with 8 lives down to 4-letter words with 4 lives.
    min_length, max_length: Override the word lengths (4-10).
    lives: Overrides the misses allowed (1-12).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from . import _words
from ._common import GameEnv, check_int, check_level, level_value, no_options, parse_move

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
TURN_BUDGET = 40

LEVELS = (
    (8, 10, 8),
    (7, 9, 8),
    (6, 8, 7),
    (6, 7, 6),
    (5, 7, 6),
    (5, 6, 5),
    (5, 5, 5),
    (4, 5, 5),
    (4, 5, 4),
    (4, 4, 4),
)
"""Per level: shortest and longest word, misses allowed."""

LETTER_ORDER = "etaoinshrdlcumwfgypbvkjxqz"
_RANK = {letter: index for index, letter in enumerate(LETTER_ORDER)}


def fits(word: str, pattern: str, tried: frozenset[str] | set[str]) -> bool:
    """Whether ``word`` agrees with a pattern (``_`` hidden) given the letters tried."""
    for ch, shown in zip(word, pattern, strict=True):
        if shown == "_":
            if ch in tried:
                return False
        elif ch != shown:
            return False
    return True


def best_letter(candidates: Sequence[str], tried: Iterable[str]) -> str:
    """The untried letter found in the most candidates (ties: English frequency)."""
    tried = set(tried)
    counts: dict[str, int] = {}
    for word in candidates:
        for ch in set(word):
            if ch not in tried:
                counts[ch] = counts.get(ch, 0) + 1
    if not counts:
        return next(ch for ch in LETTER_ORDER if ch not in tried)
    return min(counts, key=lambda ch: (-counts[ch], _RANK[ch]))


# The guess depends only on what the player sees, and the same patterns come back in many
# episodes (every episode of a length opens on the same one): each is worked out once.
@functools.lru_cache(maxsize=1 << 14)
def reference_guess(length: int, pattern: str, tried: frozenset[str]) -> str:
    """The reference guesser's move: the word once it is the only fit, else `best_letter`.

    The same as filtering the words with `fits` and counting with `best_letter`, on arrays:
    word by word in Python it was most of the oracle's time.
    """
    words = _words.answers(length)
    letters, holds = _letter_arrays(length)
    excluded = np.zeros(26, dtype=bool)
    excluded[[ord(ch) - 97 for ch in tried]] = True
    fit = np.ones(len(words), dtype=bool)
    for i, shown in enumerate(pattern):
        if shown == "_":
            fit &= ~excluded[letters[:, i]]
        else:
            fit &= letters[:, i] == ord(shown) - 97
    found = np.flatnonzero(fit)
    if len(found) == 1:
        return words[int(found[0])]
    counts = holds[found].sum(axis=0) if len(found) else holds.sum(axis=0)
    # In `LETTER_ORDER`, tried letters below any untried one: the first of the most found
    # untried letters, or the first untried letter when no word holds one.
    return LETTER_ORDER[int(np.argmax(np.where(excluded, -1, counts)[_BY_RANK]))]


_BY_RANK = np.array([ord(ch) - 97 for ch in LETTER_ORDER])


@functools.lru_cache(maxsize=16)
def _letter_arrays(length: int) -> tuple[np.ndarray, np.ndarray]:
    """The answers of ``length`` as letters and which letters each holds.

    Returns:
        Letter indices ``(words, length)`` (0 for ``a``) and a ``(words, 26)`` yes/no array.
    """
    words = _words.answers(length)
    letters = (
        np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).reshape(len(words), length)
        - 97
    )
    holds = np.zeros((len(words), 26), dtype=bool)
    holds[np.arange(len(words))[:, None], letters] = True
    return letters, holds


def reference_misses(word: str, words: Sequence[str]) -> int:
    """Misses the reference guesser makes on ``word`` among ``words`` (same length)."""
    return _misses_table(tuple(words))[word]


@functools.lru_cache(maxsize=16)
def _misses_table(words: tuple[str, ...]) -> dict[str, int]:
    """The reference guesser's misses on every word, by walking its decision tree once."""
    table: dict[str, int] = {}
    stack: list[tuple[list[str], frozenset[str], int]] = [(list(words), frozenset(), 0)]
    while stack:
        candidates, tried, misses = stack.pop()
        if len(candidates) == 1:
            table[candidates[0]] = misses  # the next guess is the word itself
            continue
        letter = best_letter(candidates, tried)
        groups: dict[tuple[int, ...], list[str]] = {}
        for w in candidates:
            groups.setdefault(tuple(i for i, ch in enumerate(w) if ch == letter), []).append(w)
        for positions, group in groups.items():
            stack.append((group, tried | {letter}, misses + (not positions)))
    return table


class HangmanEnv(GameEnv):
    """Hangman over a shipped word list; see the module docstring."""

    game_name = "hangman"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("secret", "pattern", "tried", "misses")
    max_moves = TURN_BUDGET

    def __init__(
        self,
        level: int = 3,
        min_length: int | None = None,
        max_length: int | None = None,
        lives: int | None = None,
    ):
        self.level = check_level(level)
        low, high, default_lives = level_value(level, LEVELS)
        self.min_length = (
            check_int("min_length", min_length, 4, 10) if min_length is not None else low
        )
        self.max_length = (
            check_int("max_length", max_length, 4, 10)
            if max_length is not None
            else max(high, self.min_length)
        )
        if self.max_length < self.min_length:
            raise ValueError(f"max_length {self.max_length} is below min_length {self.min_length}")
        self.lives = check_int("lives", lives, 1, 12) if lives is not None else default_lives
        self.pool = tuple(
            w
            for w, misses in _words.hangman_words()
            if self.min_length <= len(w) <= self.max_length and misses < self.lives
        )
        if not self.pool:
            raise ValueError(
                f"no word of {self.min_length}-{self.max_length} letters can be found "
                f"with {self.lives} lives; allow more lives or longer words"
            )
        self.secret = self.pool[0]
        self.pattern, self.tried, self.misses = "", frozenset(), 0

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self.secret = self.pool[int(self.np_random.integers(len(self.pool)))]
        self.pattern, self.tried, self.misses = "_" * len(self.secret), frozenset(), 0
        rules = (
            f"Hangman. Find the hidden English word of {len(self.secret)} letters. "
            "Guess one letter per turn; every position holding it is revealed. "
            f"You may also guess the whole word. {self.lives} misses "
            "(letters not in the word, or wrong words) lose the game.\n"
            "Reply with one guess per turn as <move>e</move> or <move>WORD</move>.\n\n"
            + self.status()
        )
        return [user(rules)], {"level": self.level, "length": len(self.secret)}

    def _parse(self, content: str | None) -> str:
        guess = parse_move(content, example="e").replace(" ", "")
        if not guess.isascii() or not guess.isalpha() or len(guess) not in (1, len(self.secret)):
            raise InvalidAction(
                f"{guess[:40]!r} is neither one letter nor a {len(self.secret)}-letter word"
            )
        if len(guess) == 1 and guess in self.tried:
            raise InvalidAction(f"you already tried {guess!r}; try another letter")
        return guess

    def _step(self, action: Message) -> Step:
        try:
            guess = self._parse(action.get("content"))
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        hidden_before = self.pattern.count("_")
        if len(guess) == 1:
            self.tried = self.tried | {guess}
            if guess in self.secret:
                self.pattern = "".join(ch if ch in self.tried else "_" for ch in self.secret)
                note = f"Yes, {guess!r} is in the word."
            else:
                self.misses += 1
                note = f"No {guess!r} in the word."
        elif guess == self.secret:
            self.pattern = self.secret
            note = f"Yes, the word is {guess!r}."
        else:
            self.misses += 1
            note = f"No, the word is not {guess!r}."
        progress = PROGRESS_REWARD * (hidden_before - self.pattern.count("_")) / len(self.secret)
        if "_" not in self.pattern:
            return self.won(
                f"{note} You found {self.secret!r}!",
                reason=f"found with {self.misses} misses",
                outcome=WIN_REWARD,
                answer=self.secret,
                reference=self.secret,
                progress=progress,
            )
        if self.misses >= self.lives:
            return self.lost(
                f"{note} Out of misses; the word was {self.secret!r}.",
                reason="out of misses",
                reference=self.secret,
                progress=progress,
            )
        return self.budgeted(Step([user(f"{note}\n{self.status()}")], {"progress": progress}))

    def status(self) -> str:
        """The pattern, the letters tried and the misses left."""
        tried = " ".join(sorted(self.tried)) or "none"
        left = self.lives - self.misses
        return f"Word: {' '.join(self.pattern)}\nTried: {tried}\nMisses left: {left}"

    def random_action(self, rng: np.random.Generator) -> str:
        """A random untried letter."""
        letters = [ch for ch in LETTER_ORDER if ch not in self.tried]
        return f"<move>{letters[int(rng.integers(len(letters)))]}</move>"

    def oracle_action(self) -> str:
        """The reference guesser (see the module docstring)."""
        return f"<move>{reference_guess(len(self.secret), self.pattern, self.tried)}</move>"

    def state_key(self) -> tuple[str, tuple[str, ...], int]:
        """The pattern, the letters tried and the misses."""
        return (self.pattern, tuple(sorted(self.tried)), self.misses)

    def render_text(self) -> str:
        """The pattern and what was tried."""
        return self.status()
