"""Procedural reasoning tasks: a frozen config, a generator, an oracle, a checker, a prompt.

A family is one file in its room, ``envs/tasks/<room>/``, that reads top to bottom (copy
`envs/tasks/arithmetic/base_conversion.py`):

1. the module docstring in the env template (task, observation, action, reward, episode
   end, arguments, version history);
2. a frozen ``Config`` dataclass of knobs, and `Task.level_config` mapping a level (1-10)
   to knobs, monotone in the oracle's work; explicit knobs override the level;
3. `Task.generate(rng) -> Problem`: everything drawn from ``rng``;
4. `Task.solve(problem) -> str`: the oracle's answer, as it goes in the answer slot;
5. `Task.check(answer, problem) -> Verdict`: checks constraints, not strings, wherever
   more than one answer is right; strict parsers only (`palaestra.envs.tasks.answers`),
   never `eval` of model text;
6. `Task.certify(problem)`: an independent solver's count of solutions (solvability,
   and uniqueness where ``unique`` is claimed);
7. `Task.mutations(problem)`: one-step changes of the reference that must score below 1
   (never empty: the first also builds the hedged answers the quality bar tries),
   `Task.alternatives(problem)`: other correct answers that must score 1, and
   `Task.work(problem)`: the oracle's work, which must grow with the level;
8. ``class FamilyEnv(TaskEnv): task_class = FamilyTask`` for the registry.

Instances are derived with ``SeedSequence([seed, index])`` (`Task.problem`), never
``seed + index``. The answer is read from one slot, by the shared extraction of
`palaestra.verifiers` (the last ``<answer>...</answer>`` after any ``</think>``; hedged
or conflicting answers score 0), which folds Unicode look-alikes to ASCII before `check`
sees the text (`Task.verify`). ``tests/envs/tasks/test_quality.py`` holds every family to
this contract.
"""

from __future__ import annotations

import abc
import dataclasses
import difflib
import json
import time
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from palaestra.core import Env, Message, Step, user
from palaestra.errors import UnknownArgumentError
from palaestra.verdict import Status, Verdict

ANSWER_FORMAT = "Put your final answer inside <answer></answer> tags."
CORRECT_REWARD = 1.0

ConfigT = TypeVar("ConfigT")


@dataclasses.dataclass(frozen=True)
class Problem:
    """One generated instance.

    Attributes:
        prompt: The full question, ending with the exact answer format.
        reference: The oracle's answer in structured form (JSON-serialisable).
        data: Everything the checker needs (givens, constraints), JSON-serialisable.
    """

    prompt: str
    reference: Any
    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"prompt": self.prompt, "reference": self.reference, "data": dict(self.data)}

    @classmethod
    def from_json(cls, payload: Mapping[str, Any]) -> Problem:
        """The inverse of `to_json`."""
        return cls(payload["prompt"], payload["reference"], dict(payload.get("data", {})))

    def round_trip(self) -> Problem:
        """This problem after a trip through JSON text (what a dataset row would hold)."""
        return Problem.from_json(json.loads(json.dumps(self.to_json())))


@dataclasses.dataclass(frozen=True)
class Certificate:
    """What an independent solver found.

    Attributes:
        solutions: How many solutions it found, counting up to ``cap`` (2 suffices to
            refute uniqueness).
        cap: The count at which the solver stopped.
    """

    solutions: int
    cap: int = 2

    @property
    def solvable(self) -> bool:
        """At least one solution exists."""
        return self.solutions >= 1

    @property
    def unique(self) -> bool:
        """Exactly one solution exists."""
        return self.solutions == 1


def item_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of item ``index`` under ``seed`` (independent streams per item)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))


def check_knobs(owner: str, given: Mapping[str, Any], accepted: list[str]) -> None:
    """Rejects unknown knobs with a close-match suggestion and the accepted list."""
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        hints = [
            f"{u!r} (did you mean {m[0]!r}?)"
            if (m := difflib.get_close_matches(u, accepted, n=1))
            else repr(u)
            for u in unknown
        ]
        raise UnknownArgumentError(
            f"{owner} does not accept {', '.join(hints)}. It accepts: {', '.join(accepted)}."
        )


class Task(abc.ABC, Generic[ConfigT]):
    """A family of procedurally generated single-turn problems.

    Class attributes:
        name: The family's short name (``"base_conversion"``).
        Config: The frozen dataclass of knobs.
        unique: Whether every instance has exactly one correct answer (certified in tests).
        answer_slots: Where the answer is read (``("answer_tag",)``, or with ``"boxed"``).
        levels: The difficulty range.
        duplicate_allowance: Level -> the share of repeated prompts tolerated among 150 items
            of one seed, for levels whose instance space is small (the quality bar allows
            1% elsewhere); say in a comment why the space is small.
    """

    name: ClassVar[str]
    Config: ClassVar[type]
    unique: ClassVar[bool] = True
    answer_slots: ClassVar[tuple[str, ...]] = ("answer_tag",)
    levels: ClassVar[tuple[int, int]] = (1, 10)
    duplicate_allowance: ClassVar[Mapping[int, float]] = {}

    def __init__(self, config: ConfigT):
        if not isinstance(config, self.Config):
            raise TypeError(
                f"{type(self).__name__} needs a {self.Config.__name__}, got {type(config).__name__}"
            )
        self.config = config
        self._extraction = None

    # --- to implement -------------------------------------------------------------------

    @classmethod
    @abc.abstractmethod
    def level_config(cls, level: int) -> ConfigT:
        """The knobs of a difficulty level."""

    @abc.abstractmethod
    def generate(self, rng: np.random.Generator) -> Problem:
        """Draws one problem from ``rng``."""

    @abc.abstractmethod
    def solve(self, problem: Problem) -> str:
        """The oracle's answer, as it goes inside the answer slot."""

    @abc.abstractmethod
    def check(self, answer: str, problem: Problem) -> Verdict:
        """Scores the answer slot's text; build the verdict with `correct`/`wrong`/`malformed`."""

    @abc.abstractmethod
    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions with a solver independent of the generator and of `solve`.

        A different method reaching the answer on its own (brute force, an exact-cover or
        z3 search, Python's own parser), never a replay of the generator's construction or a
        call of `solve`: a bug shared by the two would otherwise certify itself. Count up to
        ``Certificate.cap`` (2 tells a unique solution from several).
        """

    @abc.abstractmethod
    def mutations(self, problem: Problem) -> list[str]:
        """One-step changes of the reference answer (one cell, digit, move) that are wrong.

        Never empty: each must score below 1, and the first is the wrong half of the hedged
        answers the quality bar tries ("A or B", two tags, "A; B"), which must score 0.
        """

    @abc.abstractmethod
    def work(self, problem: Problem) -> float:
        """The oracle's work on this problem (search nodes, steps, digits...)."""

    def alternatives(self, problem: Problem) -> list[str]:
        """Other correct answers (other solutions, other spellings); each must score 1."""
        return []

    # --- provided -----------------------------------------------------------------------

    @classmethod
    def knob_names(cls) -> list[str]:
        """The config's fields."""
        return [f.name for f in dataclasses.fields(cls.Config)]

    @classmethod
    def from_level(cls, level: int = 1, **knobs: Any):
        """The task at a level, with knobs overriding what the level sets."""
        low, high = cls.levels
        if not isinstance(level, int) or isinstance(level, bool) or not low <= level <= high:
            raise ValueError(
                f"{cls.name}: level must be an integer from {low} to {high}, got {level!r}"
            )
        check_knobs(cls.name, knobs, ["level", *cls.knob_names()])
        return cls(dataclasses.replace(cls.level_config(level), **knobs))

    def problem(self, seed: int, index: int = 0) -> Problem:
        """Item ``index`` of the stream under ``seed``."""
        return self.generate(item_rng(seed, index))

    def slot(self, answer: str) -> str:
        """The oracle's answer wrapped in the answer slot."""
        return f"<answer>{answer}</answer>"

    def correct(self, parsed: Any, problem: Problem, reason: str = "correct") -> Verdict:
        """A correct verdict."""
        return Verdict(
            CORRECT_REWARD,
            Status.CORRECT,
            answer=parsed,
            reference=problem.reference,
            reason=reason,
            verifier=self.name,
        )

    def wrong(self, parsed: Any, problem: Problem, reason: str) -> Verdict:
        """An incorrect verdict."""
        return Verdict(
            0.0,
            Status.INCORRECT,
            answer=parsed,
            reference=problem.reference,
            reason=reason,
            verifier=self.name,
        )

    def malformed(self, answer: str, problem: Problem, reason: str) -> Verdict:
        """The slot holds something that is not an answer of the required form."""
        return Verdict(
            0.0,
            Status.BAD_FORMAT,
            answer=answer[:200],
            reference=problem.reference,
            reason=reason,
            verifier=self.name,
        )

    def verify(self, completion: Any, problem: Problem) -> Verdict:
        r"""Scores a whole completion: finds its one answer slot, then calls `check`. Never raises.

        The shared extraction (`palaestra.verifiers.extract.extract_answer`) first folds
        Unicode look-alikes to ASCII: NFKC (full-width letters and digits become ASCII), the
        minus sign and dashes become ``-``, invisible characters are dropped, and ``×``,
        ``≤``, ``π`` ... become LaTeX (``\times``). It then reads the slot after any
        ``</think>`` (the last ``<answer>``, or ``\boxed{}`` where `answer_slots` allows it)
        and refuses conflicting or hedged slots. So `check` gets the folded slot text,
        stripped, and needs no Unicode handling of its own.
        """
        from palaestra.verifiers.extract import ExtractionConfig, extract_answer

        start = time.perf_counter()
        if self._extraction is None:
            self._extraction = ExtractionConfig(slots=self.answer_slots)
        try:
            found = extract_answer(completion, self._extraction)
            if found.kind == "conflict":
                verdict = self.wrong(found.answer, problem, found.reason)
            elif found.kind == "too_long":
                verdict = Verdict(
                    0.0,
                    Status.BAD_FORMAT,
                    reference=problem.reference,
                    reason=found.reason,
                    verifier=self.name,
                )
            elif not found.ok:
                verdict = Verdict(
                    0.0,
                    Status.NO_ANSWER,
                    reference=problem.reference,
                    reason=found.reason,
                    verifier=self.name,
                )
            else:
                verdict = self.check(found.answer, problem)
        except Exception as e:  # a scorer bug must never crash training: masked, and visible
            verdict = Verdict.error(
                f"{self.name} checker failed: {type(e).__name__}: {e}", verifier=self.name
            )
        return verdict.replace(elapsed_s=time.perf_counter() - start)

    def verify_json(self, completion: Any, problem: Mapping[str, Any]) -> Verdict:
        """`verify` against a problem stored as JSON (`Problem.to_json`), as in a dataset row."""
        return self.verify(completion, Problem.from_json(problem))


class TaskEnv(Env):
    """A single-turn env over a `Task`: reset poses a problem, one step scores the answer.

    Subclasses set ``task_class``. Arguments: ``level`` and any of the task's knobs.
    """

    task_class: ClassVar[type[Task]]
    reply_tag: ClassVar[str | None] = "answer"

    def __init__(self, level: int = 1, **knobs: Any):
        self.task = self.task_class.from_level(level, **knobs)
        self.level = level
        self.problem_: Problem | None = None

    @classmethod
    def argument_names(cls) -> list[str]:
        """The arguments `palaestra.make` accepts: the level and the task's knobs."""
        return ["level", *cls.task_class.knob_names()]

    def _reset(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"{type(self).__name__}.reset takes no options, got {sorted(options)}")
        self.problem_ = self.task.generate(self.np_random)
        return [user(self.problem_.prompt)], {"task": self.task.name, "level": self.level}

    def _step(self, action: Message) -> Step:
        return self.finish(self.task.verify(action.get("content") or "", self.problem_))

    def oracle_action(self) -> str:
        """The reference answer in the answer slot."""
        return self.task.slot(self.task.solve(self.problem_))

    def render_text(self) -> str:
        """The problem."""
        return self.problem_.prompt if self.problem_ else ""
