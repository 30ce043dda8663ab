"""Base conversion: write a number given in one base in another (the reference task family).

The task:
    "Convert the base-7 number 1625 to base 12." Digits above 9 are letters (a = 10, ...).

Observation:
    One user message: the number, both bases, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the number in the target
    base. Letter case, leading zeros and the standard prefix of bases 2, 8 and 16
    (``0b``, ``0o``, ``0x``) are accepted; anything else in the slot is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the value is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; the value has up to ``2 * level + 1`` decimal digits and the bases range
        up to ``4 + 3 * level`` (at most 36).
    max_digits, max_base: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import string

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

DIGITS = string.digits + string.ascii_lowercase
PREFIXES = {2: "0b", 8: "0o", 16: "0x"}


@dataclasses.dataclass(frozen=True)
class BaseConversionConfig:
    """Knobs.

    Attributes:
        max_digits: Most decimal digits of the value.
        max_base: Largest base drawn (2 to 36).
    """

    max_digits: int = 3
    max_base: int = 7

    def __post_init__(self) -> None:
        if not isinstance(self.max_digits, int) or self.max_digits < 1:
            raise ValueError(f"max_digits must be a positive integer, got {self.max_digits!r}")
        if not isinstance(self.max_base, int) or not 3 <= self.max_base <= 36:
            raise ValueError(f"max_base must be an integer from 3 to 36, got {self.max_base!r}")


def to_base(value: int, base: int) -> str:
    """``value`` (non-negative) written in ``base``, lowercase letters for digits above 9."""
    if value == 0:
        return "0"
    digits = []
    while value:
        value, remainder = divmod(value, base)
        digits.append(DIGITS[remainder])
    return "".join(reversed(digits))


def from_base(text: str, base: int) -> int | None:
    """Parses ``text`` in ``base`` (case-insensitive, optional standard prefix); None if invalid."""
    text = text.strip().lower().replace("_", "")
    prefix = PREFIXES.get(base)
    if prefix and text.startswith(prefix):
        text = text[len(prefix) :]
    if not text or len(text) > 400 or any(c not in DIGITS[:base] for c in text):
        return None
    value = 0
    for c in text:
        value = value * base + DIGITS.index(c)
    return value


class BaseConversionTask(Task[BaseConversionConfig]):
    """Convert a number between bases."""

    name = "base_conversion"
    Config = BaseConversionConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> BaseConversionConfig:
        """More digits and larger bases with the level."""
        return BaseConversionConfig(max_digits=2 * level + 1, max_base=min(36, 4 + 3 * level))

    def generate(self, rng: np.random.Generator) -> Problem:
        """A value and two different bases."""
        digits = int(rng.integers(max(1, self.config.max_digits - 2), self.config.max_digits + 1))
        # Digit by digit: values past 19 digits do not fit numpy's integers.
        value = int(rng.integers(1, 10))
        for digit in rng.integers(0, 10, size=digits - 1):
            value = value * 10 + int(digit)
        source, target = (
            int(b)
            for b in rng.choice(np.arange(2, self.config.max_base + 1), size=2, replace=False)
        )
        shown = to_base(value, source)
        prompt = (
            f"Convert the base-{source} number {shown} to base {target}. Digits above 9 are the "
            f"letters a, b, c, ... (a = 10). {ANSWER_FORMAT}"
        )
        return Problem(
            prompt, to_base(value, target), {"number": shown, "source": source, "target": target}
        )

    def solve(self, problem: Problem) -> str:
        """Parse in the source base, write in the target base."""
        return to_base(
            from_base(problem.data["number"], problem.data["source"]), problem.data["target"]
        )

    def check(self, answer: str, problem: Problem) -> Verdict:
        """The value must be the same; any valid spelling of it in the target base counts."""
        target = problem.data["target"]
        value = from_base(answer, target)
        if value is None:
            return self.malformed(answer, problem, f"{answer[:40]!r} is not a base-{target} number")
        expected = int(problem.data["number"], problem.data["source"])
        if value != expected:
            return self.wrong(
                answer, problem, f"{answer} in base {target} is {value}, not {expected}"
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Python's own parser and formatter, independent of `to_base`/`from_base`."""
        value = int(problem.data["number"], problem.data["source"])
        return Certificate(1 if int(problem.reference, problem.data["target"]) == value else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """Each digit of the reference bumped by one (within the base)."""
        reference, base = problem.reference, problem.data["target"]
        out = []
        for i, c in enumerate(reference):
            bumped = DIGITS[(DIGITS.index(c) + 1) % base]
            mutant = reference[:i] + bumped + reference[i + 1 :]
            if mutant.lstrip("0") != reference.lstrip("0"):
                out.append(mutant)
        return out + [reference + "0"]

    def alternatives(self, problem: Problem) -> list[str]:
        """Upper case, a leading zero, and the standard prefix where there is one."""
        reference, base = problem.reference, problem.data["target"]
        out = [reference.upper(), "0" + reference]
        if base in PREFIXES:
            out.append(PREFIXES[base] + reference)
        return out

    def work(self, problem: Problem) -> float:
        """Digit operations: digits in times digits out."""
        return float(len(problem.data["number"]) * len(problem.reference))


class BaseConversionEnv(TaskEnv):
    """Convert a number between bases; see the module docstring."""

    task_class = BaseConversionTask
