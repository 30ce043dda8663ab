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
from palaestra.verdict import Status, Verdict

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
def code_texts(pegs: int, colors: int, repeats: bool) -> list[str]:
    """Each code as the board writes it (``1 2 3 4``), in `all_codes` order."""
    return [" ".join(map(str, code)) for code in code_index(pegs, colors, repeats)]


def board_line(code: str, black: int, white: int) -> str:
    """A guess's line on the board: ``1 2 3 4  black 1 white 2``."""
    return f"{code}  black {black} white {white}"


Outcome = tuple[int, int, int, str]
"""What a score means for a guess: ``(bits, black, white, line)``, see `ScoreMasks.of`."""


class ScoreMasks:
    """Per guess, every code's score and what each score means, built on first use.

    The codes still consistent with the scores are a bit set (bit ``i``: code ``i`` of
    `all_codes`), so narrowing them after a guess is one ``&`` of two integers, not a pass
    over every candidate. A guess's scores and outcomes are built from `score_table` the
    first time it is played, so a configuration pays only for the guesses that are played.
    """

    def __init__(self, table: np.ndarray, texts: list[str]):
        self.table = table
        self.texts = texts
        self.everything = (1 << len(table)) - 1
        self.guesses: dict[int, tuple[bytes, dict[int, Outcome]]] = {}

    def of(self, guess: int) -> tuple[bytes, dict[int, Outcome]]:
        """``(scores, outcomes)``: every code's score against ``guess``, and per score its outcome.

        A score is ``black * 10 + white`` (one byte per code); its outcome is ``(bits, black,
        white, line)``: the bit set of the codes that get that score, its pegs, and the guess's
        line on the board.
        """
        found = self.guesses.get(guess)
        if found is None:
            row = self.table[guess]
            outcomes = {}
            for score in np.unique(row).tolist():
                black, white = divmod(score, 10)
                line = board_line(self.texts[guess], black, white)
                outcomes[score] = (bits_of(np.flatnonzero(row == score)), black, white, line)
            found = self.guesses[guess] = (row.tobytes(), outcomes)
        return found


def bits_of(indices: np.ndarray) -> int:
    """The bit set of some code indices."""
    if not len(indices):
        return 0
    flags = np.zeros(int(indices.max()) + 1, dtype=np.uint8)
    flags[indices] = 1
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


def indices_of(bits: int) -> np.ndarray:
    """The code indices in a bit set, ascending."""
    raw = np.frombuffer(bits.to_bytes((bits.bit_length() + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little"))


@functools.lru_cache(maxsize=16)
def score_masks(pegs: int, colors: int, repeats: bool) -> ScoreMasks | None:
    """The `ScoreMasks` of a code space that has a `score_table` (None above `TABLE_CODES`)."""
    table = score_table(pegs, colors, repeats)
    if table is None:
        return None
    return ScoreMasks(table, code_texts(pegs, colors, repeats))


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


class MastermindEnv(GameEnv):
    """Mastermind; see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("secret", "secret_index", "history", "shown", "candidates")

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
        # Per configuration, computed once: the usual spelling of each code (a move in
        # that spelling needs no validation), each code's text, and the opening message.
        self.code_texts = code_texts(self.pegs, self.colors, self.repeats)
        self.spelled = {text: i for i, text in enumerate(self.code_texts)}
        self.example = " ".join("1" * self.pegs)
        self.masks = score_masks(self.pegs, self.colors, self.repeats)
        self.log_codes = math.log(max(len(self.codes), 2))
        repeats_rule = "Digits may repeat." if self.repeats else "No digit repeats."
        self.rules = (
            f"Mastermind. Find the secret code of {self.pegs} digits, "
            f"each from 1 to {self.colors}. {repeats_rule} "
            f"You have {self.max_guesses} guesses. "
            "Each guess is scored with black pegs (right digit, right "
            "place) and white pegs (right digit, wrong place).\n"
            f"Reply with one guess per turn as <move>{' '.join(map(str, range(1, self.pegs + 1)))}"
            "</move>."
        )
        self.secret: tuple[int, ...] = self.code_list[0]
        self.secret_index = 0  # the secret's row in `all_codes`
        self.history: list[tuple[tuple[int, ...], int, int]] = []
        self.shown = ""  # the board so far, one line per guess (grown, never redrawn)
        # The codes still consistent with the scores: a bit set where there are `masks`
        # (see `ScoreMasks`), else an array of indices.
        self.candidates: int | np.ndarray = self._all_candidates()

    def _all_candidates(self) -> int | np.ndarray:
        """Every code: a full bit set, or every index where there are no `masks`."""
        if self.masks is not None:
            return self.masks.everything
        return np.arange(len(self.code_list))

    def candidate_indices(self) -> np.ndarray:
        """The indices (in `all_codes`) of the codes still consistent with the scores."""
        if isinstance(self.candidates, int):
            return indices_of(self.candidates)
        return self.candidates

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self.secret_index = int(self.np_random.random() * len(self.code_list))
        self.secret = self.code_list[self.secret_index]
        self.history, self.shown = [], ""
        self.candidates = self._all_candidates()
        return [{"role": "user", "content": self.rules}], {"level": self.level}

    def _parse(self, text: str) -> int:
        """The index of the code a move's text (see `parse_move`) spells (see `code_index`)."""
        text = text.replace(",", " ")
        digits = text.split() if " " in text else list(text)
        if len(digits) != self.pegs or not all(d.isdigit() and len(d) == 1 for d in digits):
            raise InvalidAction(f"{text[:40]!r} is not a code of {self.pegs} digits")
        code = tuple(int(d) for d in digits)
        if not all(1 <= d <= self.colors for d in code):
            raise InvalidAction(f"every digit must be from 1 to {self.colors}")
        if not self.repeats and len(set(code)) < len(code):
            raise InvalidAction("no digit may repeat in this game")
        return self.index[code]

    def _step(self, action: Message) -> Step:
        try:
            text = parse_move(action.get("content"), example=self.example)
            # The usual spelling ("1 2 3 4") without validating it.
            index = self.spelled.get(text)
            if index is None:
                index = self._parse(text)
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        guess = self.code_list[index]
        masks = self.masks
        if masks is not None:  # one `&` narrows the candidates (see `ScoreMasks`)
            found, outcomes = masks.guesses.get(index) or masks.of(index)
            bits, black, white, line = outcomes[found[self.secret_index]]
            before = self.candidates.bit_count()
            self.candidates &= bits
            after = self.candidates.bit_count()
        else:
            black = sum(g == s for g, s in zip(guess, self.secret, strict=True))
            white = sum(min(guess.count(c), self.secret.count(c)) for c in set(guess)) - black
            candidates = self.candidates
            before = len(candidates)
            found = scores(self.codes[index : index + 1], self.codes[candidates], self.colors)[0]
            self.candidates = candidates[found == black * 10 + white]
            after = len(self.candidates)
            line = board_line(self.code_texts[index], black, white)
        self.history.append((guess, black, white))
        self.shown = f"{self.shown}\n{line}" if self.shown else line
        progress = PROGRESS_REWARD * math.log(before / max(after, 1)) / self.log_codes
        if black == self.pegs:
            verdict = Verdict(
                1.0,
                Status.CORRECT,
                answer=guess,
                reference=self.secret,
                reason=f"found in {len(self.history)} guesses",
                verifier="mastermind",
            )
            return self.finish(
                verdict,
                [user(f"{self.board()}\nYou cracked the code!")],
                outcome=WIN_REWARD,
                progress=progress,
            )
        guesses = len(self.history)
        if guesses >= self.max_guesses:
            secret = self.code_texts[self.secret_index]
            verdict = Verdict(
                0.0,
                Status.INCORRECT,
                answer=guess,
                reference=self.secret,
                reason="out of guesses",
                verifier="mastermind",
            )
            return self.finish(
                verdict,
                [user(f"{self.board()}\nOut of guesses; the code was {secret}.")],
                progress=progress,
            )
        step = Step(
            [
                {
                    "role": "user",
                    "content": f"{self.shown}\nGuesses left: {self.max_guesses - guesses}.",
                }
            ],
            {"progress": progress},
        )
        return step if self._turn < self.max_moves else self.budgeted(step)

    def board(self) -> str:
        """Every guess so far with its score."""
        return self.shown

    def random_action(self, rng: np.random.Generator) -> str:
        """A random code."""
        code = self.codes[int(rng.integers(len(self.codes)))]
        return f"<move>{' '.join(str(int(d)) for d in code)}</move>"

    def oracle_action(self) -> str:
        """Knuth's minimax guesser (see the module docstring)."""
        candidates = self.candidate_indices()
        if len(candidates) <= 2:
            index = int(candidates[0])
        elif not self.history:
            index = _opening(self.pegs, self.colors, self.repeats)
        else:
            pool = (
                np.arange(len(self.codes)) if len(self.codes) <= FULL_SEARCH_CODES else candidates
            )
            index = _minimax(self.codes, pool, candidates, self.colors)
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
    table = score_table(codes.shape[1], colors, _has_repeats(codes))
    if table is not None:
        found = table[np.ix_(pool, candidates)].astype(np.int64)
    else:
        found = scores(codes[pool], codes[candidates], colors).astype(np.int64)
    buckets = 100
    counts = np.bincount(
        (np.arange(len(pool))[:, None] * buckets + found).ravel(), minlength=len(pool) * buckets
    )
    worst = counts.reshape(len(pool), buckets).max(axis=1) * 2 - np.isin(
        pool, candidates
    )  # consistent codes win ties
    return int(pool[int(np.argmin(worst))])


def _has_repeats(codes: np.ndarray) -> bool:
    """Whether a code space allows repeated digits (its first code is 1 1 ... when it does)."""
    return bool(codes.shape[1] > 1 and codes[0, 0] == codes[0, 1])


@functools.lru_cache(maxsize=16)
def _opening(pegs: int, colors: int, repeats: bool) -> int:
    """The oracle's first guess (the same for every episode of a configuration)."""
    codes = all_codes(pegs, colors, repeats)
    everything = np.arange(len(codes))
    return _minimax(codes, everything, everything, colors)
