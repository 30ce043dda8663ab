"""String rewriting: apply ordered rules to a string until none applies or a step limit is hit.

The task:
    "Rules, in order: ab -> ba, ca -> (nothing), bb -> c. Start from abcab." At each step the
    first rule (in the listed order) whose left side occurs in the string is applied at its
    leftmost occurrence. Stop when no rule applies or after the stated number of rewrites.

Observation:
    One user message: the rules, the starting string, the step limit and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the final string (letters of the
    alphabet only; case and spaces are ignored).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the final string is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from two rules over ``ab`` and a few rewrites to six rules over ``abcd``,
        strings of 16 letters and up to forty rewrites.
    alphabet_size, num_rules, length, max_steps: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

MAX_LENGTH = 60
_WORD = re.compile(r"[A-Za-z\s]+")


@dataclasses.dataclass(frozen=True)
class StringRewritingConfig:
    """Knobs.

    Attributes:
        alphabet_size: Letters used, from ``a`` (2 to 4).
        num_rules: Rules in the list (1 to 8).
        length: Length of the starting string (2 to 30).
        max_steps: The rewrite limit (1 to 100); at least half of it is used by every instance
            unless the rules stop earlier after at least a few rewrites.
    """

    alphabet_size: int = 2
    num_rules: int = 2
    length: int = 5
    max_steps: int = 4

    def __post_init__(self) -> None:
        checks = (
            ("alphabet_size", 2, 4),
            ("num_rules", 1, 8),
            ("length", 2, 30),
            ("max_steps", 1, 100),
        )
        for name, low, high in checks:
            value = getattr(self, name)
            if not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def rewrite(text: str, rules: list[list[str]], max_steps: int) -> list[str]:
    """Every string visited, starting with ``text`` (uses ``str.find``)."""
    trace = [text]
    for _ in range(max_steps):
        for lhs, rhs in rules:
            at = text.find(lhs)
            if at >= 0:
                text = text[:at] + rhs + text[at + len(lhs) :]
                break
        else:
            break
        trace.append(text)
        if len(text) > MAX_LENGTH:
            break
    return trace


def _rewrite_by_scanning(text: str, rules: list[list[str]], max_steps: int) -> str:
    """The same process, matching character by character (independent of `rewrite`)."""
    chars = list(text)
    for _ in range(max_steps):
        applied = False
        for lhs, rhs in rules:
            width = len(lhs)
            for i in range(len(chars) - width + 1):
                if all(chars[i + j] == lhs[j] for j in range(width)):
                    chars[i : i + width] = list(rhs)
                    applied = True
                    break
            if applied:
                break
        if not applied:
            break
    return "".join(chars)


class StringRewritingTask(Task[StringRewritingConfig]):
    """Ordered string rewriting."""

    name = "string_rewriting"
    Config = StringRewritingConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> StringRewritingConfig:
        """Bigger alphabets, more rules, longer strings, more rewrites."""
        size, rules, length, steps = {
            1: (2, 2, 5, 4),
            2: (2, 3, 6, 6),
            3: (3, 3, 7, 8),
            4: (3, 4, 8, 10),
            5: (3, 4, 10, 14),
            6: (3, 5, 11, 18),
            7: (4, 5, 12, 22),
            8: (4, 5, 13, 28),
            9: (4, 6, 14, 34),
            10: (4, 6, 16, 40),
        }[level]
        return StringRewritingConfig(
            alphabet_size=size, num_rules=rules, length=length, max_steps=steps
        )

    def _rules(self, rng: np.random.Generator, alphabet: str) -> list[list[str]]:
        rules: list[list[str]] = []
        while len(rules) < self.config.num_rules:
            lhs = "".join(
                alphabet[int(i)]
                for i in rng.integers(
                    len(alphabet), size=int(rng.integers(1, 3)) + (len(rules) % 2)
                )
            )
            rhs_length = (
                int(rng.choice([0, 1, 1, 2, 2, 3])) if len(lhs) > 1 else int(rng.choice([0, 2]))
            )
            rhs = "".join(alphabet[int(i)] for i in rng.integers(len(alphabet), size=rhs_length))
            if lhs != rhs and all(lhs != r[0] for r in rules):
                rules.append([lhs, rhs])
        return rules

    def generate(self, rng: np.random.Generator) -> Problem:
        """Draws rules and a start until enough rewrites apply and the result is non-empty."""
        cfg = self.config
        alphabet = "abcd"[: cfg.alphabet_size]
        enough = max(1, min(cfg.max_steps // 2, 3 + cfg.max_steps // 4))
        while True:
            rules = self._rules(rng, alphabet)
            start = "".join(alphabet[int(i)] for i in rng.integers(len(alphabet), size=cfg.length))
            trace = rewrite(start, rules, cfg.max_steps)
            final = trace[-1]
            if len(trace) - 1 >= enough and 0 < len(final) <= MAX_LENGTH and final != start:
                break
        shown = "\n".join(
            f"{i + 1}. {lhs} -> {rhs if rhs else '(nothing: delete it)'}"
            for i, (lhs, rhs) in enumerate(rules)
        )
        prompt = (
            f"Rewrite the string {start} with these rules, in order of priority:\n\n"
            f"{shown}\n\n"
            "At each step, take the first rule in the list whose left side occurs in the string "
            "and replace the leftmost occurrence of that left side with the right side. Stop when "
            f"no rule applies or after {cfg.max_steps} rewrites, whichever comes first. Answer "
            f"with the final string (for example {alphabet[::-1]}). {ANSWER_FORMAT}"
        )
        data = {
            "start": start,
            "rules": rules,
            "max_steps": cfg.max_steps,
            "steps": len(trace) - 1,
            "previous": trace[-2],
        }
        return Problem(prompt, final, data)

    def solve(self, problem: Problem) -> str:
        """The simulated rewriting."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Letters only (case and spaces ignored) must equal the final string."""
        if not _WORD.fullmatch(answer) or len(answer) > 4 * MAX_LENGTH:
            return self.malformed(answer, problem, "the answer must be a string of letters")
        if "".join(answer.split()).lower() != problem.reference:
            return self.wrong(answer, problem, "not the final string")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Re-run by character-by-character matching."""
        d = problem.data
        return Certificate(
            1
            if _rewrite_by_scanning(d["start"], d["rules"], d["max_steps"]) == problem.reference
            else 0
        )

    def mutations(self, problem: Problem) -> list[str]:
        """The string one rewrite earlier, one letter changed, the last letter dropped."""
        reference = problem.reference
        alphabet = "abcd"
        changed = alphabet[(alphabet.index(reference[0]) + 1) % 4] + reference[1:]
        out = [changed, reference[:-1] if len(reference) > 1 else reference + reference]
        if problem.data["previous"] != reference:
            out.append(problem.data["previous"])
        return [m for m in out if m and m != reference]

    def alternatives(self, problem: Problem) -> list[str]:
        """Upper case, and letters separated by spaces."""
        return [problem.reference.upper(), " ".join(problem.reference)]

    def work(self, problem: Problem) -> float:
        """Rewrites times the rules scanned per rewrite."""
        return float(
            problem.data["steps"] * len(problem.data["rules"]) + len(problem.data["start"])
        )


class StringRewritingEnv(TaskEnv):
    """Ordered string rewriting; see the module docstring."""

    task_class = StringRewritingTask
