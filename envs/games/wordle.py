"""Wordle: find a hidden English word from coloured letter feedback.

The task:
    The secret is a common English word of 4, 5 or 6 letters (shipped SCOWL list, no
    download). Each guess must be a word from the accepted list; the reply marks each
    letter ``G`` (right letter, right place), ``Y`` (in the word elsewhere) or ``-``
    (not in the word, or no further copies), with the usual rules for repeated letters.

Observation:
    The rules, then after each guess every guess so far with its marks, e.g.
    ``crane  - Y - - G``.

Action:
    The last ``<move>...</move>`` after any ``</think>``: one word of the secret's length.
    A word outside the accepted list is an invalid move (it costs no guess).

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in ``log`` of the number of possible
        secrets still consistent with the feedback (as a share of ``log`` of all of them),
        so a won game's progress sums to exactly `PROGRESS_REWARD`.
    ``outcome``: `WIN_REWARD` for finding the word; 0 when the guesses run out.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or unknown word.
    The best return is 1.0.

Episode end:
    Terminated when the word is found (success), the guesses run out, or the turn
    budget (guesses + `EXTRA_TURNS`, every turn counts) is spent.

Oracle:
    The information-optimal guesser: the common word whose feedback splits the
    remaining candidates with the most entropy (candidates first on ties); with two or
    fewer candidates left, a candidate. It finds every secret of every level within that
    level's guesses (checked by the tests over all secrets).

Arguments:
    level: 1-10; 5 letters with 10 guesses, classic 5 letters with 6 guesses at level 4,
        down to 4 letters with 7 guesses, only common words accepted, at level 10.
    length: Overrides the word length (4-6).
    max_guesses: Overrides the guesses allowed (1-20).
    common_only: Overrides whether guesses must be common words (the possible secrets)
        rather than any accepted word.

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from . import _words
from ._common import GameEnv, check_int, check_level, level_value, no_options, parse_move

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 6

LEVELS = (
    (5, 10, False),
    (5, 8, False),
    (6, 7, False),
    (5, 6, False),
    (6, 6, False),
    (4, 8, False),
    (6, 5, False),
    (4, 7, False),
    (5, 6, True),
    (4, 7, True),
)
"""Per level: word length, guesses allowed, whether guesses must be common words.

The oracle needs at most 7 guesses for 4 letters, 6 for 5 and 5 for 6 (over every secret).
"""

OPENINGS = {4: "tale", 5: "slate", 6: "satire"}
"""The oracle's first guess per length: `best_opening`, precomputed (a test checks them)."""


def feedback(guess: str, secret: str) -> str:
    """The marks of ``guess`` against ``secret`` (``G``, ``Y``, ``-`` per letter)."""
    marks = ["-"] * len(guess)
    spare: dict[str, int] = {}
    for i, (g, s) in enumerate(zip(guess, secret, strict=True)):
        if g == s:
            marks[i] = "G"
        else:
            spare[s] = spare.get(s, 0) + 1
    for i, g in enumerate(guess):
        if marks[i] != "G" and spare.get(g, 0):
            marks[i] = "Y"
            spare[g] -= 1
    return "".join(marks)


def encode(words: tuple[str, ...] | list[str]) -> np.ndarray:
    """Words as an ``(n, length)`` array of letter indices."""
    return (
        np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).reshape(len(words), -1) - 97
    ).astype(np.int8)


def pattern_codes(guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Feedback of every guess against every secret, as base-3 codes ``(guesses, secrets)``.

    A non-green letter is yellow when fewer of its earlier non-green copies in the guess
    were counted than the secret has spare (non-green) copies of it.
    """
    length = guesses.shape[1]
    green = guesses[:, None, :] == secrets[None, :, :]
    spare = ~green
    codes = np.zeros(green.shape[:2], dtype=np.int16)
    for i in range(length):
        letter = guesses[:, i][:, None]
        available = np.zeros(codes.shape, dtype=np.int8)
        for j in range(length):
            available += (secrets[None, :, j] == letter) & spare[:, :, j]
        earlier = np.zeros(codes.shape, dtype=np.int8)
        for k in range(i):
            earlier += (guesses[:, k] == guesses[:, i])[:, None] & spare[:, :, k]
        mark = np.where(green[:, :, i], 2, (earlier < available).astype(np.int16))
        codes += mark * 3**i
    return codes


@functools.lru_cache(maxsize=8)
def _answer_array(length: int) -> np.ndarray:
    return encode(_words.answers(length))


@functools.lru_cache(maxsize=8)
def _facts(length: int) -> np.ndarray:
    """Yes/no facts about each answer of ``length``: an ``(answers, 2 * length * 26)`` array.

    Column ``i * 26 + x`` says whether the answer has letter ``x`` (0 for ``a``) at position
    ``i``; column ``(length + c - 1) * 26 + x`` whether it holds at least ``c`` copies of it.
    """
    words = _answer_array(length)
    placed = words[:, :, None] == np.arange(26)
    copies = placed.sum(axis=1)[:, None, :] >= np.arange(1, length + 1)[:, None]
    return np.concatenate([placed, copies], axis=1).reshape(len(words), -1)


def matching(guess: str, marks: str, candidates: np.ndarray, length: int) -> np.ndarray:
    """Which ``candidates`` (answer indices) give ``guess`` the feedback ``marks``.

    The same as comparing each candidate's `feedback` with ``marks``, without scoring them:
    the marks fix some of the `_facts` of the secret. It has the guessed letter at each
    ``G`` and not at any other position, and holds each guessed letter at least as many
    times as it was marked ``G`` or ``Y``, and no more when a copy of it was marked ``-``.
    """
    facts = {
        i * 26 + ord(g) - 97: m == "G" for i, (g, m) in enumerate(zip(guess, marks, strict=True))
    }
    marked = Counter(g for g, m in zip(guess, marks, strict=True) if m != "-")
    crossed = {g for g, m in zip(guess, marks, strict=True) if m == "-"}
    for letter in set(guess):
        x, n = ord(letter) - 97, marked[letter]
        if n:  # at least n copies
            facts[(length + n - 1) * 26 + x] = True
        if letter in crossed:  # not n + 1 copies
            facts[(length + n) * 26 + x] = False
    columns = _facts(length)[candidates[:, None], list(facts)]
    return (columns == list(facts.values())).all(axis=1)


def best_opening(length: int) -> str:
    """The oracle's first guess for ``length``, computed (slow: seconds); see `OPENINGS`."""
    return _words.answers(length)[_best_guess(length, np.arange(len(_answer_array(length))))]


# The oracle scores every answer as a guess against the candidates left, several times an
# episode: the feedback of every answer against every answer is worked out once per length
# (about a second for 6 letters, 16 MB) instead of at every guess.
@functools.lru_cache(maxsize=4)
def _pattern_table(length: int) -> np.ndarray:
    """`pattern_codes` of every answer (rows) against every answer (columns) of ``length``."""
    answers = _answer_array(length)
    rows = 256  # a block of guesses at a time bounds the temporary arrays
    return np.concatenate(
        [pattern_codes(answers[i : i + rows], answers) for i in range(0, len(answers), rows)]
    )


def _entropies(counts: np.ndarray, total: int) -> np.ndarray:
    """The entropy of each row of outcome ``counts`` (rows summing to ``total``)."""
    shares = counts / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(shares > 0, shares * np.log(shares), 0.0).sum(axis=1)


def _best_guess(length: int, candidates: np.ndarray) -> int:
    """The answer index whose feedback has the most entropy over ``candidates``.

    Candidates win ties: a candidate guess may be the secret itself. Of guesses still tied,
    the first wins. Working out `_entropies` of every guess was most of the oracle's time:
    guesses are ranked by ``log(n) - sum(c log c) / n`` over their outcome counts ``c`` (the
    same entropy, read from a table of ``c log c``), and only those that come within
    `_NEAR` of the best get the exact `_entropies`, so the choice is the same to the last
    bit of rounding.
    """
    codes = _pattern_table(length)[:, candidates].astype(np.int64)
    guesses, outcomes, n = len(codes), 3**length, len(candidates)
    counts = np.bincount(
        (np.arange(guesses)[:, None] * outcomes + codes).ravel(), minlength=guesses * outcomes
    ).reshape(guesses, outcomes)
    sizes = np.arange(n + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        c_log_c = np.where(sizes > 0, sizes * np.log(sizes), 0.0)
    rough = math.log(n) - c_log_c[counts].sum(axis=1) / n
    rough[candidates] += _CANDIDATE_BONUS
    near = np.flatnonzero(rough >= rough.max() - _NEAR)
    exact = _entropies(counts[near], n)
    exact[np.isin(near, candidates)] += _CANDIDATE_BONUS
    return int(near[np.argmax(exact)])


_CANDIDATE_BONUS = 1e-9
"""Added to a candidate guess's entropy, so that candidates win ties."""
_NEAR = 1e-11
"""Far above the rounding error of the rough entropies (about 1e-14) and below the bonus."""


# The opening is fixed, so the candidates its feedback leaves recur from episode to episode
# (a few hundred feedbacks per length): the oracle's second guess is looked up, not searched.
@functools.lru_cache(maxsize=4096)
def _best_next_guess(length: int, candidates: tuple[int, ...]) -> int:
    """`_best_guess` over the answers of ``length`` for these candidates (answer indices)."""
    return _best_guess(length, np.array(candidates))


class WordleEnv(GameEnv):
    """Wordle over a shipped word list; see the module docstring."""

    game_name = "wordle"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("secret", "history", "candidates")

    def __init__(
        self,
        level: int = 4,
        length: int | None = None,
        max_guesses: int | None = None,
        common_only: bool | None = None,
    ):
        self.level = check_level(level)
        default_length, default_guesses, default_common = level_value(level, LEVELS)
        if common_only is not None and not isinstance(common_only, bool):
            raise ValueError(f"common_only must be True or False, got {common_only!r}")
        self.common_only = default_common if common_only is None else common_only
        self.length = check_int("length", length, 4, 6) if length is not None else default_length
        self.max_guesses = (
            check_int("max_guesses", max_guesses, 1, 20)
            if max_guesses is not None
            else default_guesses
        )
        self.max_moves = self.max_guesses + EXTRA_TURNS
        self.answers = _words.answers(self.length)
        self.accepted = frozenset(self.answers) if self.common_only else _words.guesses(self.length)
        self.secret = self.answers[0]
        self.history: list[tuple[str, str]] = []
        self.candidates = np.arange(len(self.answers))

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self.secret = self.answers[int(self.np_random.integers(len(self.answers)))]
        self.history = []
        self.candidates = np.arange(len(self.answers))
        rules = (
            f"Wordle. Find the hidden English word of {self.length} letters "
            f"in {self.max_guesses} guesses. "
            f"Each guess must be {'a common' if self.common_only else 'an'} English word. "
            "After each guess every letter is marked: G right letter in the right place, "
            "Y in the word but elsewhere, - not in the word (or no more copies of it).\n"
            "Reply with one guess per turn as <move>WORD</move>."
        )
        return [user(rules)], {"level": self.level, "length": self.length}

    def _parse(self, content: str | None) -> str:
        guess = parse_move(content, example="crane").replace(" ", "")
        if len(guess) != self.length or not guess.isascii() or not guess.isalpha():
            raise InvalidAction(f"{guess[:40]!r} is not a {self.length}-letter word")
        if guess not in self.accepted:
            kind = "common English word" if self.common_only else "English word"
            raise InvalidAction(f"{guess!r} is not in the word list; guess a {kind}")
        return guess

    def _step(self, action: Message) -> Step:
        try:
            guess = self._parse(action.get("content"))
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        marks = feedback(guess, self.secret)
        self.history.append((guess, marks))
        before = len(self.candidates)
        self.candidates = self.candidates[matching(guess, marks, self.candidates, self.length)]
        total = math.log(len(self.answers))
        progress = PROGRESS_REWARD * math.log(before / max(len(self.candidates), 1)) / total
        if guess == self.secret:
            return self.won(
                f"{self.board()}\nYou found {self.secret!r}!",
                reason=f"found in {len(self.history)} guesses",
                outcome=WIN_REWARD,
                answer=guess,
                reference=self.secret,
                progress=progress,
            )
        if len(self.history) >= self.max_guesses:
            return self.lost(
                f"{self.board()}\nOut of guesses; the word was {self.secret!r}.",
                reason="out of guesses",
                answer=guess,
                reference=self.secret,
                progress=progress,
            )
        left = self.max_guesses - len(self.history)
        return self.budgeted(
            Step([user(f"{self.board()}\nGuesses left: {left}.")], {"progress": progress})
        )

    def board(self) -> str:
        """Every guess so far with its marks."""
        return "\n".join(f"{guess}  {' '.join(marks)}" for guess, marks in self.history)

    def random_action(self, rng: np.random.Generator) -> str:
        """A random common word."""
        return f"<move>{self.answers[int(rng.integers(len(self.answers)))]}</move>"

    def oracle_action(self) -> str:
        """The information-optimal guesser (see the module docstring)."""
        if len(self.candidates) <= 2:
            index = int(self.candidates[0])
        elif not self.history:
            return f"<move>{OPENINGS[self.length]}</move>"
        else:
            index = _best_next_guess(self.length, tuple(self.candidates.tolist()))
        return f"<move>{self.answers[index]}</move>"

    def state_key(self) -> tuple[tuple[str, str], ...]:
        """The guesses and their marks."""
        return tuple(self.history)

    def render_text(self) -> str:
        """The guesses so far."""
        return (
            self.board() or "(no guesses yet)"
        ) + f"\nguesses {len(self.history)}/{self.max_guesses}"
