"""What the games share: levels, the move tag, telescoping progress, snapshots, grids.

Every game reads its move from the last ``<move>...</move>`` after any ``</think>``
(`parse_move`), maps ``level`` 1-10 to its knobs (`level_value`), pays dense progress as
the change of a potential that is 0 at the start and 1 when solved (`Potential`), so that
an episode's progress always sums to `PROGRESS_REWARD` however it got there, and can be
snapshotted and restored (`GameEnv.get_state` / `set_state`) for search and tree rollouts.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np

from palaestra.core import Env, InvalidAction, Step, user
from palaestra.parsers import find_tags, split_reasoning
from palaestra.verdict import Status, Verdict

MAX_MOVE_CHARS = 200
"""A move longer than this (inside its tag) is invalid: moves are a few words."""

T = TypeVar("T")


def check_level(level: Any) -> int:
    """Validates a difficulty level (an integer from 1 to 10)."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
        raise ValueError(f"level must be an integer from 1 to 10, got {level!r}")
    return level


def level_value(level: int, table: Sequence[T]) -> T:
    """The knob value of ``level`` from a 10-entry table (index 0 is level 1)."""
    if len(table) != 10:
        raise ValueError(f"a level table needs 10 entries, got {len(table)}")
    return table[level - 1]


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Validates an integer knob in ``[low, high]`` (no upper bound when ``high`` is None)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    return value


def no_options(env: Env, options: dict[str, Any]) -> None:
    """Rejects reset options in envs that take none."""
    if options:
        raise ValueError(f"{type(env).__name__}.reset takes no options, got {sorted(options)}")


def parse_move(content: str | None, tag: str = "move", example: str = "...") -> str:
    """The normalised body of the last ``<tag>...</tag>`` after any ``</think>``.

    Raises:
        InvalidAction: No closed tag, an unclosed ``<think>``, or an overlong move.
    """
    _, visible, unclosed = split_reasoning(content or "")
    if unclosed:
        raise InvalidAction(
            "the <think> block is never closed; think, close it, "
            f"then give <{tag}>{example}</{tag}>"
        )
    spans = find_tags(visible, tag)
    if not spans:
        raise InvalidAction(
            f"reply with your move as <{tag}>{example}</{tag}> after your reasoning"
        )
    body = spans[-1].body
    if body is None:
        raise InvalidAction(f"the last <{tag}> is never closed with </{tag}>")
    if len(body) > MAX_MOVE_CHARS:
        raise InvalidAction(f"the move is {len(body):,} characters long; a move is a few words")
    return " ".join(unicodedata.normalize("NFKC", body).lower().split())


def sample(items: Sequence[T], k: int, draws: Sequence[float]) -> list[T]:
    """``k`` distinct items in random order, by a partial Fisher-Yates shuffle over ``draws``.

    ``draws`` holds at least ``k`` uniform numbers in [0, 1): the ``i``-th picks the
    ``i``-th item among those not picked yet.
    """
    pool = list(items)
    for i in range(k):
        j = i + int(draws[i] * (len(pool) - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


class Potential:
    """Telescoping progress: ``PROGRESS_REWARD * (phi(after) - phi(before))``.

    ``phi = 1 - distance / start_distance``, clipped to [0, 1], so it is 0 at the start,
    1 at the goal, and the progress of an episode sums to ``scale * phi(end)`` whatever
    the path (moving away and back nets zero).
    """

    def __init__(self, scale: float, start_distance: float):
        self.scale = scale
        self.start = max(float(start_distance), 1e-12)
        self.phi = 0.0

    def update(self, distance: float) -> float:
        """Moves to a state ``distance`` from the goal; returns the progress reward."""
        phi = min(1.0, max(0.0, 1.0 - distance / self.start))
        reward, self.phi = self.scale * (phi - self.phi), phi
        return reward


class GameEnv(Env):
    """Base of the single-player games: the shared turn budget, endings and a random baseline.

    Subclasses name the game in ``game_name`` (the ``verifier`` of its verdicts) and list
    the attributes that make up their state in ``state_attrs`` (see
    `palaestra.Env.get_state`), so that ``env.set_state(env.get_state())`` resumes the
    same episode exactly.

    A game ends with `won` or `lost`. Every turn, legal or not, spends one unit of
    ``max_moves``; `budgeted` ends the episode as a loss when the budget is spent, so an
    episode never outlasts it.
    """

    game_name: ClassVar[str] = "game"
    reply_tag: ClassVar[str | None] = "move"
    max_moves: int = 1

    def random_action(self, rng: np.random.Generator) -> str:
        """A random well-formed move (not always a legal one), drawn from ``rng``.

        A baseline policy for measurements and fuzzing; it never touches `np_random`, so
        calling it does not change the episode.
        """
        raise NotImplementedError(f"{type(self).__name__} has no random_action")

    def won(
        self,
        text: str,
        *,
        reason: str,
        outcome: float,
        answer: Any = None,
        reference: Any = None,
        **parts: float,
    ) -> Step:
        """The winning end of the episode: a correct verdict and the ``outcome`` reward.

        Args:
            text: The closing message to the agent.
            reason: Why the game is won, for the verdict (``"solved in 7 turns"``).
            outcome: The ``outcome`` reward part (the game's ``WIN_REWARD``).
            answer: The agent's winning answer, where the game has one.
            reference: The hidden solution, where the game has one.
            **parts: The other reward parts of the last turn (``progress``, ...).
        """
        verdict = Verdict(
            1.0,
            Status.CORRECT,
            answer=answer,
            reference=reference,
            reason=reason,
            verifier=self.game_name,
        )
        return self.finish(verdict, [user(text)], outcome=outcome, **parts)

    def lost(
        self,
        text: str,
        *,
        reason: str,
        answer: Any = None,
        reference: Any = None,
        **parts: float,
    ) -> Step:
        """The losing end of the episode: an incorrect verdict and an ``outcome`` of 0.

        Args are those of `won`, without ``outcome``.
        """
        verdict = Verdict(
            0.0,
            Status.INCORRECT,
            answer=answer,
            reference=reference,
            reason=reason,
            verifier=self.game_name,
        )
        return self.finish(verdict, [user(text)], **parts)

    def budgeted(self, step: Step) -> Step:
        """``step``, or a losing end of the episode when this was the last turn of the budget."""
        if self._turn < self.max_moves or step.terminated or step.truncated:
            return step
        reason = f"not solved within {self.max_moves} turns"
        final = self.lost(f"Out of turns: {reason}.", reason=reason, **step.reward_parts)
        final.observation = [*step.observation, *final.observation]
        final.info = {**step.info, **final.info}
        return final


# --- grids --------------------------------------------------------------------------------

DIRECTIONS: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
"""Row/column steps of the four moves."""

DIRECTION_ALIASES = {
    "u": "up",
    "d": "down",
    "l": "left",
    "r": "right",
    "north": "up",
    "south": "down",
    "west": "left",
    "east": "right",
    "n": "up",
    "s": "down",
    "w": "left",
    "e": "right",
}


def parse_direction(move: str) -> str:
    """``up``/``down``/``left``/``right`` (or an alias) from a move, else `InvalidAction`."""
    name = DIRECTION_ALIASES.get(move, move)
    if name not in DIRECTIONS:
        raise InvalidAction(f"{move[:40]!r} is not a direction; use up, down, left or right")
    return name


def column_label(column: int) -> str:
    """``a``, ``b``, ... for column 0, 1, ... (``aa`` after ``z``)."""
    return chr(97 + column) if column < 26 else chr(96 + column // 26) + chr(97 + column % 26)


def parse_cell(text: str, rows: int, columns: int) -> tuple[int, int]:
    """A cell written ``b3`` (column letter, row number from 1) as ``(row, column)``."""
    text = text.replace(" ", "")
    letters = "".join(ch for ch in text if ch.isalpha())
    digits = text[len(letters) :]
    if not letters or not digits.isdigit() or not text.startswith(letters) or len(digits) > 3:
        raise InvalidAction(
            f"{text[:40]!r} is not a cell; write a column letter and a row number, e.g. b3"
        )
    column = 0
    for ch in letters:
        if not "a" <= ch <= "z":
            raise InvalidAction(
                f"{text[:40]!r} is not a cell; columns are letters a-{column_label(columns - 1)}"
            )
        column = column * 26 + ord(ch) - 96
    column -= 1
    row = int(digits) - 1
    if not (0 <= row < rows and 0 <= column < columns):
        raise InvalidAction(
            f"{text[:40]!r} is off the board; columns a-{column_label(columns - 1)}, rows 1-{rows}"
        )
    return row, column


def framed(rows: Sequence[str], *, labels: bool = True, sep: str = " ") -> str:
    """A readable grid: column letters on top and row numbers on the left."""
    if not rows:
        return ""
    if not labels:
        return "\n".join([sep.join(row) for row in rows])
    pad = len(str(len(rows)))
    lines = [_column_letters(len(rows[0]), pad + 1, sep)]
    for index, row in enumerate(rows, 1):
        lines.append(f"{str(index).rjust(pad)} {sep.join(row)}")
    return "\n".join(lines)


@functools.cache
def _column_letters(columns: int, indent: int, sep: str) -> str:
    """The line of column letters above a grid (cached: each board shown repeats it)."""
    return " " * indent + sep.join(column_label(c) for c in range(columns))
