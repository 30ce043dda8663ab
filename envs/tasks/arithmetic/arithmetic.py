"""Arithmetic: evaluate an integer expression (the single-turn exemplar).

The task:
    The model reads an expression such as ``(7 - 3) * 12 + 5`` and answers its value.

Observation:
    One user message: the expression and the answer format.

Action:
    The model's reply; the answer is the last ``<answer>...</answer>`` after any
    ``</think>``, holding one integer.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` if the integer is right, else 0. Replies with no answer,
    several different answers, or anything but one integer in the slot score 0.

Episode end:
    After one step (terminated).

Arguments:
    level: 1-10. Sets the number of operands (2 + level // 2) and their size (up to 10 *
        level); parentheses appear from level 3.
    num_operands, max_operand: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any

import numpy as np

from palaestra.core import Env, Message, Step, user
from palaestra.parsers import find_tags, split_reasoning
from palaestra.verdict import Status, Verdict

CORRECT_REWARD = 1.0
ANSWER_FORMAT = (
    "Give your final answer as one integer inside <answer></answer> tags, e.g. "
    "<answer>-12</answer>."
)
MAX_ANSWER_CHARS = 64

_INTEGER = re.compile(r"[+-]?\d+")


@dataclasses.dataclass(frozen=True)
class ArithmeticConfig:
    """The knobs of one difficulty level.

    Attributes:
        num_operands: How many numbers the expression has.
        max_operand: The largest number that appears.
        parentheses: Whether sub-expressions are grouped.
    """

    num_operands: int
    max_operand: int
    parentheses: bool

    def __post_init__(self) -> None:
        if self.num_operands < 2:
            raise ValueError(f"num_operands must be at least 2, got {self.num_operands}")
        if self.max_operand < 1:
            raise ValueError(f"max_operand must be at least 1, got {self.max_operand}")

    @classmethod
    def for_level(cls, level: int) -> ArithmeticConfig:
        """The config of a difficulty level (1-10)."""
        if not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"level must be an integer from 1 to 10, got {level!r}")
        return cls(num_operands=2 + level // 2, max_operand=10 * level, parentheses=level >= 3)


def generate(config: ArithmeticConfig, rng: np.random.Generator) -> tuple[str, int]:
    """Draws an expression and its value."""
    numbers = [int(x) for x in rng.integers(1, config.max_operand + 1, size=config.num_operands)]
    text, value = str(numbers[0]), numbers[0]
    for number in numbers[1:]:
        operator = "+-*"[int(rng.integers(0, 3))]
        # The value is computed left to right, so a product after a sum needs parentheses
        # (or, below level 3, becomes a sum) for the written expression to mean it.
        if operator == "*" and ("+" in text or " - " in text):
            if config.parentheses:
                text = f"({text})"
            else:
                operator = "+"
        text = f"{text} {operator} {number}"
        value = {"+": value + number, "-": value - number, "*": value * number}[operator]
    return text, value


def extract_integer(content: str) -> tuple[int | None, Status, str]:
    """The integer in the answer slot, or why there is none."""
    _, visible, unclosed = split_reasoning(content)
    if unclosed:
        return None, Status.NO_ANSWER, "the reply ends inside <think>"
    spans = find_tags(visible, "answer")
    if not spans:
        return None, Status.NO_ANSWER, "no <answer> tag after the reasoning"
    if spans[-1].body is None:
        return None, Status.BAD_FORMAT, "the last <answer> tag is never closed"
    values = set()
    for span in spans:
        if span.body is None:
            continue
        body = unicodedata.normalize("NFKC", span.body).replace("\u2212", "-").strip()
        if len(body) > MAX_ANSWER_CHARS or not _INTEGER.fullmatch(body):
            return (
                None,
                Status.BAD_FORMAT,
                f"the answer {body[:MAX_ANSWER_CHARS]!r} is not one integer",
            )
        values.add(int(body))
    if len(values) > 1:
        return None, Status.INCORRECT, f"conflicting answers {sorted(values)}"
    return values.pop(), Status.CORRECT, ""


class ArithmeticEnv(Env):
    """Evaluate an integer expression; see the module docstring."""

    reply_tag = "answer"

    def __init__(
        self, level: int = 1, num_operands: int | None = None, max_operand: int | None = None
    ):
        base = ArithmeticConfig.for_level(level)
        overrides = {
            k: v
            for k, v in {"num_operands": num_operands, "max_operand": max_operand}.items()
            if v is not None
        }
        self.level = level
        self.config = dataclasses.replace(base, **overrides)
        self.expression, self.value = "", 0

    def _reset(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"ArithmeticEnv.reset takes no options, got {sorted(options)}")
        self.expression, self.value = generate(self.config, self.np_random)
        prompt = f"Compute the value of this expression:\n\n{self.expression}\n\n{ANSWER_FORMAT}"
        return [user(prompt)], {"level": self.level, "reference": self.value}

    def _step(self, action: Message) -> Step:
        answer, status, reason = extract_integer(action.get("content") or "")
        if status is Status.CORRECT and answer != self.value:
            status, reason = Status.INCORRECT, f"{answer} is not {self.expression}"
        score = CORRECT_REWARD if status is Status.CORRECT else 0.0
        verdict = Verdict(
            score,
            status,
            answer=answer,
            reference=self.value,
            reason=reason or "correct",
            verifier="integer",
        )
        return self.finish(verdict)

    def oracle_action(self) -> str:
        """The reference answer."""
        return f"<answer>{self.value}</answer>"

    def render_text(self) -> str:
        """The expression."""
        return self.expression
