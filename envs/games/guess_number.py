"""Guess the number: find a secret integer from higher/lower hints (the multi-turn exemplar).

The task:
    A secret integer lies in ``[1, N]``. Each turn the model guesses; the env answers
    "higher", "lower" or "correct".

Observation:
    The rules first, then one user message per guess with the hint.

Action:
    The last ``<guess>...</guess>`` after any ``</think>``, holding one integer in range.

Reward (``info["reward_parts"]``), dense and telescoping:
    ``progress``: `PROGRESS_REWARD` times the share of ``log N`` by which the guess shrank
        the interval of numbers still possible; over an episode that finds the number it
        sums to exactly `PROGRESS_REWARD`, whatever the path.
    ``outcome``: `WIN_REWARD` on the guess that finds the number, 0 on a loss.
    ``invalid``: `INVALID_ACTION_PENALTY` for a reply without one integer guess in range.
    The best return is 1.0.

Episode end:
    Terminated when the number is found or the guesses run out (``ceil(log2 N) + 1``).

Arguments:
    level: 1-10; ``N = 2 ** (level + 3)`` (16 to 8192).
    max_number: Overrides ``N``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, Env, Message, Step, user
from palaestra.parsers import find_tags, split_reasoning
from palaestra.verdict import Status, Verdict

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5

_INTEGER = re.compile(r"[+-]?\d{1,12}")


class GuessNumberEnv(Env):
    """Find a secret number from higher/lower hints; see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("secret", "low", "high", "guesses")
    reply_tag = "guess"

    def __init__(self, level: int = 3, max_number: int | None = None):
        if not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"level must be an integer from 1 to 10, got {level!r}")
        if max_number is not None and (not isinstance(max_number, int) or max_number < 2):
            raise ValueError(f"max_number must be an integer >= 2, got {max_number!r}")
        self.level = level
        self.max_number = max_number if max_number is not None else 2 ** (level + 3)
        self.max_guesses = math.ceil(math.log2(self.max_number)) + 1
        self.secret, self.low, self.high, self.guesses = 1, 1, self.max_number, 0

    def _reset(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"GuessNumberEnv.reset takes no options, got {sorted(options)}")
        self.secret = int(self.np_random.integers(1, self.max_number + 1))
        self.low, self.high, self.guesses = 1, self.max_number, 0
        rules = (
            f"I am thinking of an integer from 1 to {self.max_number}. Find it in at most "
            f"{self.max_guesses} guesses. After each guess I say whether the number is higher "
            "or lower. Reply with one guess per turn as <guess>NUMBER</guess>."
        )
        return [user(rules)], {"level": self.level}

    def _parse(self, content: str) -> int | str:
        _, visible, unclosed = split_reasoning(content)
        spans = [] if unclosed else find_tags(visible, "guess")
        if not spans or spans[-1].body is None:
            return "reply with one guess as <guess>NUMBER</guess> after your reasoning"
        body = unicodedata.normalize("NFKC", spans[-1].body).replace("\u2212", "-").strip()
        if not _INTEGER.fullmatch(body):
            return f"the guess {body[:40]!r} is not an integer"
        guess = int(body)
        if not 1 <= guess <= self.max_number:
            return f"the guess {guess} is outside 1..{self.max_number}"
        return guess

    def _step(self, action: Message) -> Step:
        guess = self._parse(action.get("content") or "")
        if isinstance(guess, str):
            return self.invalid(guess)
        self.guesses += 1
        before = self.high - self.low + 1
        if guess < self.secret:
            self.low, hint = max(self.low, guess + 1), "higher"
        elif guess > self.secret:
            self.high, hint = min(self.high, guess - 1), "lower"
        else:
            self.low = self.high = guess
            hint = "correct"
        after = self.high - self.low + 1
        progress = PROGRESS_REWARD * math.log(before / after) / math.log(self.max_number)
        parts = {"progress": progress}
        if hint == "correct":
            verdict = Verdict(
                1.0,
                Status.CORRECT,
                answer=guess,
                reference=self.secret,
                reason=f"found in {self.guesses} guesses",
                verifier="guess_number",
            )
            return self.finish(verdict, [user(f"{guess} is correct!")], outcome=WIN_REWARD, **parts)
        if self.guesses >= self.max_guesses:
            verdict = Verdict(
                0.0,
                Status.INCORRECT,
                answer=guess,
                reference=self.secret,
                reason=f"not found in {self.max_guesses} guesses",
                verifier="guess_number",
            )
            return self.finish(
                verdict, [user(f"Wrong. Out of guesses; the number was {self.secret}.")], **parts
            )
        left = self.max_guesses - self.guesses
        return Step([user(f"The number is {hint} than {guess}. {left} guesses left.")], parts)

    def random_action(self, rng: np.random.Generator) -> str:
        """A random guess in range, drawn from ``rng`` (not `np_random`): a baseline policy."""
        return f"<guess>{int(rng.integers(1, self.max_number + 1))}</guess>"

    def oracle_action(self) -> str:
        """Binary search: the middle of the interval still possible."""
        return f"<guess>{(self.low + self.high) // 2}</guess>"

    def state_key(self) -> tuple[int, int, int]:
        """What the agent knows: the interval still possible and the guesses used."""
        return (self.low, self.high, self.guesses)

    def render_text(self) -> str:
        """The interval still possible."""
        return (
            f"Secret in [{self.low}, {self.high}]; {self.guesses}/{self.max_guesses} guesses used."
        )
