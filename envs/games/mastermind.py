"""Mastermind: find a hidden code of coloured pegs from black and white scores.

The task:
    The secret is a code of ``pegs`` digits from 1 to ``colors`` (repeats allowed or not,
    by level). Each guess is scored with black pegs (right digit in the right place) and
    white pegs (right digit in the wrong place).

Observation:
    The rules, then after each guess every guess so far with its score, e.g.
    ``1 1 2 2  black 1 white 1``.

Action:
    The last ``<move>...</move>`` after any ``</think>``: the code's digits separated by
    spaces or not (``<move>1 1 2 2</move>``, ``<move>1122</move>``). A code of the wrong
    length, with digits out of range, or with repeats where they are not allowed, is an
    invalid move (it costs no guess).

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in ``log`` of the number of codes still
        consistent with the scores (as a share of ``log`` of all codes), so a won game's
        progress sums to exactly `PROGRESS_REWARD`.
    ``outcome``: `WIN_REWARD` for finding the code; 0 when the guesses run out.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or malformed code.
    The best return is 1.0.

Episode end:
    Terminated when the code is found (success), the guesses run out, or the turn budget
    (guesses + `EXTRA_TURNS`, every turn counts) is spent.

Oracle:
    Knuth's minimax guesser: the code whose worst-case score leaves the fewest candidates
    (consistent codes first on ties), searched over every code when there are at most
    `FULL_SEARCH_CODES` of them and over the consistent codes otherwise (thinned evenly
    to `MAX_PAIRS` scored pairs per move).

Arguments:
    level: 1-10; from 3 pegs of 4 colours to 5 pegs of 8 colours.
    pegs: Overrides the code length (2-6).
    colors: Overrides the digits (2-9).
    repeats: Overrides whether a digit may repeat.
    max_guesses: Overrides the guesses allowed (1-30).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import GameEnv, check_int, check_level, level_value, no_options, parse_move

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 6
FULL_SEARCH_CODES = 1296
"""Largest code space in which the oracle considers every code as a guess."""

LEVELS = (
    (3, 4, False, 8),
    (3, 5, False, 8),
    (4, 6, False, 8),
    (4, 6, True, 8),
    (4, 7, True, 9),
    (4, 8, True, 9),
    (5, 6, True, 9),
    (5, 7, True, 10),
    (5, 8, False, 10),
    (5, 8, True, 10),
)
"""Per level: pegs, colours, repeats allowed, guesses allowed."""


@functools.lru_cache(maxsize=16)
def all_codes(pegs: int, colors: int, repeats: bool) -> np.ndarray:
    """Every code as an ``(n, pegs)`` array of digits 1..colors, in lexicographic order."""
    digits = range(1, colors + 1)
    codes = (
        itertools.product(digits, repeat=pegs) if repeats else itertools.permutations(digits, pegs)
    )
    return np.array(list(codes), dtype=np.int8).reshape(-1, pegs)


TABLE_CODES = 1296
"""Largest code space whose every guess-secret score is tabulated once per process."""


@functools.lru_cache(maxsize=16)
def code_index(pegs: int, colors: int, repeats: bool) -> dict[tuple[int, ...], int]:
    """Each code's row in `all_codes`."""
    return {
        tuple(int(d) for d in code): i for i, code in enumerate(all_codes(pegs, colors, repeats))
    }


@functools.lru_cache(maxsize=16)
def score_table(pegs: int, colors: int, repeats: bool) -> np.ndarray | None:
    """``scores`` of every code against every code (None above `TABLE_CODES` codes)."""
    codes = all_codes(pegs, colors, repeats)
    if len(codes) > TABLE_CODES:
        return None
    return scores(codes, codes, colors).astype(np.uint8)


def _counts(codes: np.ndarray, colors: int) -> np.ndarray:
    return np.stack([(codes == c).sum(axis=1) for c in range(1, colors + 1)], axis=1)


def scores(guesses: np.ndarray, secrets: np.ndarray, colors: int) -> np.ndarray:
    """``black * 10 + white`` of every guess against every secret ``(guesses, secrets)``."""
    black = (guesses[:, None, :] == secrets[None, :, :]).sum(axis=2)
    common = np.minimum(
        _counts(guesses, colors)[:, None, :], _counts(secrets, colors)[None, :, :]
    ).sum(axis=2)
    return black * 10 + (common - black)


# The oracle scores up to `MAX_PAIRS` pairs per guess in code spaces too large for
# `score_table`; comparing digit counts colour by colour was most of its time. Two codes
# share as many digits as their multisets of digits do, and there are few multisets (792
# for 5 pegs of 8 colours): that count is read from a table of multisets instead.
@functools.lru_cache(maxsize=16)
def _multisets(pegs: int, colors: int, repeats: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each code's multiset of digits (an index), and the digits any two multisets share."""
    base = (pegs + 1) ** np.arange(colors)  # a multiset's digit counts as one number
    keys, kind_of = np.unique(
        _counts(all_codes(pegs, colors, repeats), colors) @ base, return_inverse=True
    )
    kinds = (keys[:, None] // base % (pegs + 1)).astype(np.int8)
    shared = np.zeros((len(kinds), len(kinds)), dtype=np.int8)
    for color in range(colors):
        shared += np.minimum(kinds[:, None, color], kinds[None, :, color])
    return kind_of.ravel(), shared


def scores_at(
    pegs: int, colors: int, repeats: bool, guesses: np.ndarray, secrets: np.ndarray
) -> np.ndarray:
    """`scores` of the codes at indices ``guesses`` against those at ``secrets``."""
    codes = all_codes(pegs, colors, repeats)
    kind_of, shared = _multisets(pegs, colors, repeats)
    black = sum(
        codes[guesses, p][:, None] == codes[secrets, p][None, :] for p in range(pegs)
    ).astype(np.int64)
    return black * 9 + shared[kind_of[guesses][:, None], kind_of[secrets][None, :]]


def pegs_of(guess: tuple[int, ...], secret: tuple[int, ...]) -> tuple[int, int]:
    """``(black, white)``: digits in the right place, and the other digits the two share."""
    black = sum(g == s for g, s in zip(guess, secret, strict=True))
    common = sum(min(guess.count(digit), secret.count(digit)) for digit in set(guess))
    return black, common - black


class MastermindEnv(GameEnv):
    """Mastermind; see the module docstring."""

    game_name = "mastermind"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("secret", "history", "candidates")

    def __init__(
        self,
        level: int = 3,
        pegs: int | None = None,
        colors: int | None = None,
        repeats: bool | None = None,
        max_guesses: int | None = None,
    ):
        self.level = check_level(level)
        default_pegs, default_colors, default_repeats, default_guesses = level_value(level, LEVELS)
        self.pegs = check_int("pegs", pegs, 2, 6) if pegs is not None else default_pegs
        self.colors = check_int("colors", colors, 2, 9) if colors is not None else default_colors
        if repeats is not None and not isinstance(repeats, bool):
            raise ValueError(f"repeats must be True or False, got {repeats!r}")
        self.repeats = default_repeats if repeats is None else repeats
        if not self.repeats and self.colors < self.pegs:
            raise ValueError(
                f"{self.pegs} pegs without repeats need at least {self.pegs} colors, "
                f"got {self.colors}"
            )
        self.max_guesses = (
            check_int("max_guesses", max_guesses, 1, 30)
            if max_guesses is not None
            else default_guesses
        )
        self.max_moves = self.max_guesses + EXTRA_TURNS
        self.codes = all_codes(self.pegs, self.colors, self.repeats)
        self.index = code_index(self.pegs, self.colors, self.repeats)
        self.code_list = list(self.index)
        # Narrowing the candidates reads this table where the code space is small enough
        # to tabulate (it saves scoring every candidate on every guess).
        self.table = score_table(self.pegs, self.colors, self.repeats)
        self.secret: tuple[int, ...] = self.code_list[0]
        self.history: list[tuple[tuple[int, ...], int, int]] = []
        # The indices (in `all_codes`) of the codes still consistent with every score.
        self.candidates = np.arange(len(self.codes))

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self.secret = self.code_list[int(self.np_random.random() * len(self.code_list))]
        self.history = []
        self.candidates = np.arange(len(self.codes))
        repeats = "Digits may repeat." if self.repeats else "No digit repeats."
        rules = (
            f"Mastermind. Find the secret code of {self.pegs} digits, "
            f"each from 1 to {self.colors}. {repeats} "
            f"You have {self.max_guesses} guesses. "
            "Each guess is scored with black pegs (right digit, right "
            "place) and white pegs (right digit, wrong place).\n"
            f"Reply with one guess per turn as <move>{' '.join(map(str, range(1, self.pegs + 1)))}"
            "</move>."
        )
        return [user(rules)], {"level": self.level}

    def _parse(self, content: str | None) -> tuple[int, ...]:
        """The guessed code, or `InvalidAction`."""
        text = parse_move(content, example=" ".join("1" * self.pegs)).replace(",", " ")
        digits = text.split() if " " in text else list(text)
        if len(digits) != self.pegs or not all(d.isdigit() and len(d) == 1 for d in digits):
            raise InvalidAction(f"{text[:40]!r} is not a code of {self.pegs} digits")
        code = tuple(int(d) for d in digits)
        if not all(1 <= d <= self.colors for d in code):
            raise InvalidAction(f"every digit must be from 1 to {self.colors}")
        if not self.repeats and len(set(code)) < len(code):
            raise InvalidAction("no digit may repeat in this game")
        return code

    def _narrow(self, guess: tuple[int, ...], black: int, white: int) -> None:
        """Keeps the candidates that would have scored ``black`` and ``white`` against ``guess``."""
        index, candidates = self.index[guess], self.candidates
        if self.table is not None:
            found = self.table[index][candidates]
        else:
            found = scores_at(self.pegs, self.colors, self.repeats, np.array([index]), candidates)[
                0
            ]
        self.candidates = self.candidates[found == black * 10 + white]

    def _step(self, action: Message) -> Step:
        try:
            guess = self._parse(action.get("content"))
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        black, white = pegs_of(guess, self.secret)
        self.history.append((guess, black, white))
        before = len(self.candidates)
        self._narrow(guess, black, white)
        progress = (
            PROGRESS_REWARD
            * math.log(before / max(len(self.candidates), 1))
            / math.log(max(len(self.codes), 2))
        )
        guesses = len(self.history)
        if black == self.pegs:
            return self.won(
                f"{self.board()}\nYou cracked the code!",
                reason=f"found in {guesses} guesses",
                outcome=WIN_REWARD,
                answer=guess,
                reference=self.secret,
                progress=progress,
            )
        if guesses >= self.max_guesses:
            secret = " ".join(map(str, self.secret))
            return self.lost(
                f"{self.board()}\nOut of guesses; the code was {secret}.",
                reason="out of guesses",
                answer=guess,
                reference=self.secret,
                progress=progress,
            )
        left = self.max_guesses - guesses
        return self.budgeted(
            Step([user(f"{self.board()}\nGuesses left: {left}.")], {"progress": progress})
        )

    def board(self) -> str:
        """Every guess so far with its score."""
        return "\n".join(
            f"{' '.join(map(str, guess))}  black {black} white {white}"
            for guess, black, white in self.history
        )

    def random_action(self, rng: np.random.Generator) -> str:
        """A random code."""
        code = self.codes[int(rng.integers(len(self.codes)))]
        return f"<move>{' '.join(str(int(d)) for d in code)}</move>"

    def oracle_action(self) -> str:
        """Knuth's minimax guesser (see the module docstring)."""
        candidates = self.candidates
        if len(candidates) <= 2:
            index = int(candidates[0])
        elif not self.history:
            index = _opening(self.pegs, self.colors, self.repeats)
        else:
            index = _next_guess(self.pegs, self.colors, self.repeats, tuple(candidates.tolist()))
        return f"<move>{' '.join(str(int(d)) for d in self.codes[index])}</move>"

    def state_key(self) -> tuple[tuple[tuple[int, ...], int, int], ...]:
        """The guesses and their scores."""
        return tuple(self.history)

    def render_text(self) -> str:
        """The guesses so far."""
        return (
            self.board() or "(no guesses yet)"
        ) + f"\nguesses {len(self.history)}/{self.max_guesses}"


MAX_PAIRS = 250_000
"""Guess-secret pairs the oracle scores per move; larger pools are thinned evenly."""


def _minimax(codes: np.ndarray, pool: np.ndarray, candidates: np.ndarray, colors: int) -> int:
    """The code of ``pool`` whose worst score leaves the fewest candidates."""
    limit = max(1, MAX_PAIRS // len(candidates))
    if len(pool) > limit:
        pool = pool[np.linspace(0, len(pool) - 1, limit).astype(np.int64)]
    pegs, repeats = codes.shape[1], _has_repeats(codes)
    table = score_table(pegs, colors, repeats)
    if table is not None:
        found = table[np.ix_(pool, candidates)].astype(np.int64)
    else:
        found = scores_at(pegs, colors, repeats, pool, candidates)
    buckets = 100
    counts = np.bincount(
        (np.arange(len(pool))[:, None] * buckets + found).ravel(), minlength=len(pool) * buckets
    )
    worst = counts.reshape(len(pool), buckets).max(axis=1) * 2 - np.isin(
        pool, candidates
    )  # consistent codes win ties
    return int(pool[int(np.argmin(worst))])


# The opening is fixed, so the candidates its score leaves recur from episode to episode (a
# few dozen scores): the oracle's second guess is looked up, not searched.
@functools.lru_cache(maxsize=4096)
def _next_guess(pegs: int, colors: int, repeats: bool, candidates: tuple[int, ...]) -> int:
    """The oracle's guess (a code index) when ``candidates`` (code indices) are left."""
    codes = all_codes(pegs, colors, repeats)
    left = np.array(candidates)
    pool = np.arange(len(codes)) if len(codes) <= FULL_SEARCH_CODES else left
    return _minimax(codes, pool, left, colors)


def _has_repeats(codes: np.ndarray) -> bool:
    """Whether a code space allows repeated digits (its first code is 1 1 ... when it does)."""
    return bool(codes.shape[1] > 1 and codes[0, 0] == codes[0, 1])


@functools.lru_cache(maxsize=16)
def _opening(pegs: int, colors: int, repeats: bool) -> int:
    """The oracle's first guess (the same for every episode of a configuration)."""
    codes = all_codes(pegs, colors, repeats)
    everything = np.arange(len(codes))
    return _minimax(codes, everything, everything, colors)
