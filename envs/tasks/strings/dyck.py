"""Dyck languages: complete a bracket sequence, or decide whether one is balanced.

The task (one of two kinds, drawn per instance from the level's kinds):
    ``complete``: "Close every open bracket of ( [ { } ( with the shortest sequence."
        -> ``) ] )``. The shortest completion is unique: the open brackets, closed in reverse.
    ``validate``: "Is ( [ ) ] balanced?" -> ``no``. Half of the sequences are balanced; the
        others are balanced sequences with one bracket changed, removed or moved.

Observation:
    One user message: the sequence (brackets separated by spaces) and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the closing brackets (spaces
    optional) for ``complete``; ``yes`` or ``no`` for ``validate``.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the answer is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from twelve brackets of two kinds to sequences of 48 brackets of four kinds.
    length, types, kinds: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks.answers import parse_yes_no
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

PAIRS = ("()", "[]", "{}", "<>")
KINDS = ("complete", "validate")
CLOSER = {p[0]: p[1] for p in PAIRS}


@dataclasses.dataclass(frozen=True)
class DyckConfig:
    """Knobs.

    Attributes:
        length: Brackets in the shown sequence (4 to 200).
        types: Kinds of bracket used (1 to 4).
        kinds: The question kinds drawn from (a tuple drawn from `KINDS`).
    """

    length: int = 6
    types: int = 1
    kinds: tuple[str, ...] = ("complete",)

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or not 4 <= self.length <= 200:
            raise ValueError(f"length must be an integer from 4 to 200, got {self.length!r}")
        if not isinstance(self.types, int) or not 1 <= self.types <= 4:
            raise ValueError(f"types must be an integer from 1 to 4, got {self.types!r}")
        kinds = tuple(self.kinds) if isinstance(self.kinds, (list, tuple)) else None
        if not kinds or any(k not in KINDS for k in kinds):
            raise ValueError(
                f"kinds must be a non-empty tuple drawn from {KINDS}, got {self.kinds!r}"
            )
        object.__setattr__(self, "kinds", kinds)


def stack_scan(sequence: str) -> tuple[bool, str]:
    """(balanced, closers that complete it or '' if it cannot be completed) by a stack."""
    stack: list[str] = []
    for c in sequence:
        if c in CLOSER:
            stack.append(c)
        elif not stack or CLOSER[stack.pop()] != c:
            return False, ""
    return not stack, "".join(CLOSER[c] for c in reversed(stack))


def reduce_pairs(sequence: str) -> str:
    """Deletes adjacent matched pairs until none is left (independent of `stack_scan`)."""
    previous = None
    while previous != sequence:
        previous = sequence
        for pair in PAIRS:
            sequence = sequence.replace(pair, "")
    return sequence


def _balanced(rng: np.random.Generator, length: int, types: int) -> str:
    """A random balanced sequence of ``length`` (even) brackets."""
    out: list[str] = []
    stack: list[str] = []
    opens_left = length // 2
    while opens_left or stack:
        if opens_left and (not stack or rng.random() < 0.55):
            c = PAIRS[int(rng.integers(types))][0]
            out.append(c)
            stack.append(c)
            opens_left -= 1
        else:
            out.append(CLOSER[stack.pop()])
    return "".join(out)


def _prefix(rng: np.random.Generator, length: int, types: int) -> str:
    """A random prefix of a balanced sequence with at least two brackets left open."""
    while True:
        full = _balanced(rng, length + 2 * int(rng.integers(2, 2 + length // 3)), types)
        prefix = full[:length]
        if len(stack_scan(prefix)[1]) >= 2:
            return prefix


def _corrupt(rng: np.random.Generator, sequence: str, types: int) -> str:
    """One bracket changed, removed or swapped with a neighbour."""
    i = int(rng.integers(len(sequence)))
    how = int(rng.integers(3))
    if how == 0 and types > 1:
        pair = next(p for p in PAIRS if sequence[i] in p)
        other = PAIRS[(PAIRS.index(pair) + 1 + int(rng.integers(types - 1))) % types]
        return sequence[:i] + other[pair.index(sequence[i])] + sequence[i + 1 :]
    if how == 1 or i == len(sequence) - 1:
        return sequence[:i] + sequence[i + 1 :]
    return sequence[:i] + sequence[i + 1] + sequence[i] + sequence[i + 2 :]


class DyckTask(Task[DyckConfig]):
    """Complete or validate bracket sequences."""

    name = "dyck"
    Config = DyckConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> DyckConfig:
        """Longer sequences, more bracket kinds, then validation questions."""
        length, types, kinds = {
            1: (12, 2, ("complete",)),
            2: (12, 3, ("complete",)),
            3: (16, 3, KINDS),
            4: (18, 3, KINDS),
            5: (20, 4, KINDS),
            6: (24, 4, KINDS),
            7: (28, 4, KINDS),
            8: (34, 4, KINDS),
            9: (40, 4, KINDS),
            10: (48, 4, KINDS),
        }[level]
        return DyckConfig(length=length, types=types, kinds=kinds)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A prefix to complete, or a balanced (possibly corrupted) sequence to judge."""
        cfg = self.config
        kind = cfg.kinds[int(rng.integers(len(cfg.kinds)))]
        if kind == "complete":
            sequence = _prefix(rng, cfg.length, cfg.types)
            reference = " ".join(stack_scan(sequence)[1])
            ask = (
                "Give the shortest sequence of closing brackets that, appended to it, closes every "
                "open bracket correctly (brackets separated by spaces, for example ] ) }). "
                f"{ANSWER_FORMAT}"
            )
            intro = "Here is the start of a bracket sequence"
        else:
            sequence = _balanced(rng, cfg.length - cfg.length % 2, cfg.types)
            if rng.random() < 0.5:
                while stack_scan(sequence)[0]:
                    sequence = _corrupt(rng, sequence, cfg.types)
            reference = "yes" if stack_scan(sequence)[0] else "no"
            ask = (
                "Is it balanced, with every bracket closed by the matching kind in the right "
                f"order? Answer yes or no. {ANSWER_FORMAT}"
            )
            intro = "Here is a bracket sequence"
        prompt = f"{intro}:\n\n{' '.join(sequence)}\n\n{ask}"
        return Problem(prompt, reference, {"kind": kind, "sequence": sequence})

    def solve(self, problem: Problem) -> str:
        """A stack scan of the sequence."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Closers (spaces ignored) for ``complete``; yes/no for ``validate``."""
        if problem.data["kind"] == "validate":
            said = parse_yes_no(answer)
            if said is None:
                return self.malformed(answer, problem, "answer yes or no")
            ok = said == (problem.reference == "yes")
        else:
            closers = "".join(answer.split())
            if not closers or len(closers) > 400 or any(c not in ")]}>" for c in closers):
                return self.malformed(answer, problem, "the answer must be closing brackets only")
            ok = closers == problem.reference.replace(" ", "")
        return self.correct(answer, problem) if ok else self.wrong(answer, problem, "wrong")

    def certify(self, problem: Problem) -> Certificate:
        """Deleting matched pairs until none is left decides balance and what stays open."""
        d = problem.data
        left = reduce_pairs(d["sequence"])
        if d["kind"] == "validate":
            return Certificate(1 if (left == "") == (problem.reference == "yes") else 0)
        if any(c not in CLOSER for c in left):
            return Certificate(0)
        closing = "".join(CLOSER[c] for c in reversed(left))
        done = reduce_pairs(d["sequence"] + closing) == ""
        return Certificate(1 if done and closing == problem.reference.replace(" ", "") else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The other verdict; or the completion with one bracket changed, dropped or added."""
        if problem.data["kind"] == "validate":
            return ["no" if problem.reference == "yes" else "yes"]
        closers = problem.reference.split()
        other = next(p[1] for p in PAIRS if p[1] != closers[-1])
        return [
            " ".join([*closers[:-1], other]),
            " ".join(closers[:-1]),
            " ".join([*closers, closers[-1]]),
        ]

    def alternatives(self, problem: Problem) -> list[str]:
        """Without spaces; or the verdict capitalised."""
        if problem.data["kind"] == "validate":
            return [problem.reference.capitalize(), problem.reference.upper() + "."]
        return [problem.reference.replace(" ", "")]

    def work(self, problem: Problem) -> float:
        """Stack operations: one per bracket, plus one per closing bracket written."""
        return float(len(problem.data["sequence"]) + len(problem.reference.split()))


class DyckEnv(TaskEnv):
    """Complete or validate bracket sequences; see the module docstring."""

    task_class = DyckTask
