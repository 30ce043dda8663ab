"""Cryptarithms: letters stand for digits in a sum like SEND + MORE = MONEY.

The task:
    "Each letter stands for a different digit and no number starts with 0: QWE + RTQ = YUIW.
    Hint: Q = 3." The puzzle is built from random addends, their letters assigned at random,
    and revealed digits (hints) are added until exactly one assignment solves it.

Observation:
    One user message: the sum, the hints, the rules and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: every letter's digit as
    ``A=1, B=2, ...`` (commas, semicolons or spaces between pairs, any order, any case). The
    checker verifies the constraints (different digits, no leading zero, the hints, the sum)
    rather than comparing strings.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the assignment satisfies every constraint, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from two 2-digit addends with generous hints to four 5-digit addends with
        few or no hints.
    addends, digits, max_hints: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
import string

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

SOLUTION_CAP = 12
_PAIR = re.compile(r"\s*([A-Za-z])\s*=\s*(\d)\s*")


@dataclasses.dataclass(frozen=True)
class CryptarithmConfig:
    """Knobs.

    Attributes:
        addends: Words added together (2 to 4).
        digits: Most digits of an addend (2 to 6).
        max_hints: Most revealed digits; puzzles that need more are redrawn.
    """

    addends: int = 2
    digits: int = 2
    max_hints: int = 4

    def __post_init__(self) -> None:
        if not isinstance(self.addends, int) or not 2 <= self.addends <= 4:
            raise ValueError(f"addends must be an integer from 2 to 4, got {self.addends!r}")
        if not isinstance(self.digits, int) or not 2 <= self.digits <= 6:
            raise ValueError(f"digits must be an integer from 2 to 6, got {self.digits!r}")
        if not isinstance(self.max_hints, int) or not 0 <= self.max_hints <= 9:
            raise ValueError(f"max_hints must be an integer from 0 to 9, got {self.max_hints!r}")


def column_solutions(
    words: list[str], result: str, fixed: dict[str, int], cap: int
) -> list[dict[str, int]]:
    """Assignments solving ``sum(words) = result``, column by column with carries (up to ``cap``).

    Independent of `weighted_solutions`: each column's letters are assigned right to left and the
    result letter is forced by the column sum and carry.
    """
    letters = sorted(set("".join(words) + result))
    leading = {w[0] for w in [*words, result] if len(w) > 1}
    width = len(result)
    columns = [[w[-1 - i] for w in words if i < len(w)] for i in range(width)]
    found: list[dict[str, int]] = []
    assignment = dict(fixed)
    used = {v: k for k, v in fixed.items()}

    def assign(letter: str, digit: int) -> bool:
        if letter in assignment:
            return assignment[letter] == digit
        if digit in used or (digit == 0 and letter in leading):
            return False
        assignment[letter] = digit
        used[digit] = letter
        return True

    def unassign(letter: str) -> None:
        used.pop(assignment.pop(letter))

    def column(i: int, carry: int, pending: list[str]) -> None:
        if len(found) >= cap:
            return
        if i == width:
            if carry == 0 and len(assignment) == len(letters):
                found.append(dict(assignment))
            return
        if pending:
            letter, rest = pending[0], pending[1:]
            if letter in assignment:
                column(i, carry, rest)
                return
            for digit in range(10):
                if assign(letter, digit):
                    column(i, carry, rest)
                    unassign(letter)
            return
        total = carry + sum(assignment[c] for c in columns[i])
        target = result[-1 - i]
        fresh = target not in assignment
        if assign(target, total % 10):
            nxt = i + 1
            column(nxt, total // 10, columns[nxt] if nxt < width else [])
            if fresh:
                unassign(target)

    column(0, 0, columns[0])
    return found


def weighted_solutions(
    words: list[str], result: str, fixed: dict[str, int], cap: int
) -> tuple[list[dict[str, int]], int]:
    """Solutions of ``sum(weight[letter] * digit) = 0`` (up to ``cap``), and the nodes searched.

    Letters are taken by decreasing weight (their place values, negative in the result) and a
    branch is cut when the remaining letters cannot bring the weighted sum back to zero.
    """
    weight: dict[str, int] = {}
    for word, sign in [*[(w, 1) for w in words], (result, -1)]:
        for power, letter in enumerate(reversed(word)):
            weight[letter] = weight.get(letter, 0) + sign * 10**power
    order = sorted(weight, key=lambda c: (-abs(weight[c]), c))
    leading = {w[0] for w in [*words, result] if len(w) > 1}
    reach = [0] * (len(order) + 1)
    for k in range(len(order) - 1, -1, -1):
        reach[k] = reach[k + 1] + 9 * abs(weight[order[k]])
    found: list[dict[str, int]] = []
    digits_of: list[int] = []
    nodes = 0

    def search(k: int, total: int, used: int) -> None:
        nonlocal nodes
        nodes += 1
        if len(found) >= cap or abs(total) > reach[k]:
            return
        if k == len(order):
            if total == 0:
                found.append(dict(zip(order, digits_of, strict=True)))
            return
        letter = order[k]
        for digit in [fixed[letter]] if letter in fixed else range(10):
            if used >> digit & 1 or (digit == 0 and letter in leading):
                continue
            digits_of.append(digit)
            search(k + 1, total + weight[letter] * digit, used | 1 << digit)
            digits_of.pop()

    search(0, 0, 0)
    return found, nodes


def mapping_text(mapping: dict[str, int]) -> str:
    """``A=1, B=2`` in letter order."""
    return ", ".join(f"{c}={mapping[c]}" for c in sorted(mapping))


class CryptarithmTask(Task[CryptarithmConfig]):
    """Letter-digit sums."""

    name = "cryptarithm"
    Config = CryptarithmConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> CryptarithmConfig:
        """More and longer addends, fewer hints."""
        addends, digits, hints = {
            1: (2, 2, 6),
            2: (2, 3, 5),
            3: (3, 2, 4),
            4: (3, 3, 3),
            5: (2, 4, 3),
            6: (4, 3, 2),
            7: (3, 4, 2),
            8: (2, 5, 2),
            9: (3, 5, 2),
            10: (4, 5, 1),
        }[level]
        return CryptarithmConfig(addends=addends, digits=digits, max_hints=hints)

    def generate(self, rng: np.random.Generator) -> Problem:
        """Random addends, random letters per digit, then hints until the solution is unique."""
        cfg = self.config
        while True:
            numbers = []
            for _ in range(cfg.addends):
                n_digits = int(rng.integers(max(2, cfg.digits - 1), cfg.digits + 1))
                numbers.append(int(rng.integers(10 ** (n_digits - 1), 10**n_digits)))
            total = sum(numbers)
            digits_used = sorted(set("".join(map(str, [*numbers, total]))))
            letters = [
                string.ascii_uppercase[int(i)]
                for i in rng.choice(26, size=len(digits_used), replace=False)
            ]
            code = dict(zip(digits_used, letters, strict=True))
            words = ["".join(code[d] for d in str(n)) for n in numbers]
            result = "".join(code[d] for d in str(total))
            truth = {code[d]: int(d) for d in digits_used}
            hints: dict[str, int] = {}
            while True:
                found, _ = weighted_solutions(words, result, hints, SOLUTION_CAP)
                if len(found) <= 1 or len(hints) >= cfg.max_hints:
                    break
                # Reveal the letter that the fewest found solutions agree on.
                candidates = sorted(c for c in truth if c not in hints)
                reveal = min(candidates, key=lambda c: (sum(s[c] == truth[c] for s in found), c))
                hints[reveal] = truth[reveal]
            if len(found) == 1:
                break
        shown_hints = ", ".join(f"{c} = {hints[c]}" for c in sorted(hints))
        hint_line = f" Given: {shown_hints}." if hints else ""
        prompt = (
            f"Solve the cryptarithm {' + '.join(words)} = {result}. Each letter stands for a "
            "different digit (0-9), and no number with two or more digits starts with "
            f"0.{hint_line} Give the digit of every letter, like A=1, B=2, C=3. {ANSWER_FORMAT}"
        )
        data = {"words": words, "result": result, "hints": hints}
        return Problem(prompt, mapping_text(truth), data)

    def solve(self, problem: Problem) -> str:
        """The digits the letters were drawn for."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Different digits, no leading zero, the hints, and the sum must hold."""
        d = problem.data
        letters = set("".join(d["words"]) + d["result"])
        pairs = [
            p for p in re.split(r"[,;\s]+(?=[A-Za-z]\s*=)", answer.strip().rstrip(".")) if p.strip()
        ]
        if len(pairs) > 26:
            return self.malformed(answer, problem, "too many pairs")
        mapping: dict[str, int] = {}
        for pair in pairs:
            match = _PAIR.fullmatch(pair.rstrip(",;"))
            if match is None:
                return self.malformed(
                    answer, problem, f"{pair.strip()[:20]!r} is not a pair like A=1"
                )
            letter = match[1].upper()
            if letter in mapping:
                return self.malformed(answer, problem, f"{letter} is given twice")
            mapping[letter] = int(match[2])
        if set(mapping) != letters:
            return self.malformed(
                answer, problem, f"give exactly the letters {', '.join(sorted(letters))}"
            )
        if len(set(mapping.values())) != len(mapping):
            return self.wrong(answer, problem, "two letters share a digit")
        if any(mapping[w[0]] == 0 for w in [*d["words"], d["result"]] if len(w) > 1):
            return self.wrong(answer, problem, "a number starts with 0")
        if any(mapping[c] != v for c, v in d["hints"].items()):
            return self.wrong(answer, problem, "a given digit is changed")

        def value(word: str) -> int:
            return int("".join(str(mapping[c]) for c in word))

        if sum(value(w) for w in d["words"]) != value(d["result"]):
            return self.wrong(answer, problem, "the sum does not hold")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions by a column-by-column search with carries (not the generator's)."""
        d = problem.data
        return Certificate(len(column_solutions(d["words"], d["result"], d["hints"], 2)))

    def mutations(self, problem: Problem) -> list[str]:
        """Two letters' digits swapped; one letter moved to an unused digit."""
        truth = {p.split("=")[0]: int(p.split("=")[1]) for p in problem.reference.split(", ")}
        letters = sorted(truth)
        swapped = dict(truth)
        a, b = letters[0], letters[-1]
        swapped[a], swapped[b] = truth[b], truth[a]
        out = [mapping_text(swapped)]
        unused = [digit for digit in range(10) if digit not in truth.values()]
        if unused:
            moved = dict(truth)
            moved[letters[1]] = unused[0]
            out.append(mapping_text(moved))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Reverse order, semicolons, lower case."""
        pairs = problem.reference.split(", ")
        return ["; ".join(reversed(pairs)), " ".join(pairs).lower()]

    def work(self, problem: Problem) -> float:
        """Nodes of the weighted-sum search on the puzzle as posed (hints included)."""
        d = problem.data
        return float(weighted_solutions(d["words"], d["result"], d["hints"], 2)[1])


class CryptarithmEnv(TaskEnv):
    """Letter-digit sums; see the module docstring."""

    task_class = CryptarithmTask
