"""Program synthesis envs: write code, scored by hidden tests in a fresh sandbox.

Two envs share the problem sources and the judge (`palaestra.envs.code.judge`):

* `CodeSynthesisEnv` (``CodeSynthesis-v1``): single turn. The prompt states the problem and
  its public tests; the answer is scored by the hidden tests.
* `CodeFeedbackEnv` (``CodeFeedback-v1``): several turns. Each submission runs against
  every test (public and hidden tests in separate sandboxes, so that what the model is told
  never comes from a run that saw a hidden input); the model is told which public tests
  failed and why, and may revise until the public tests pass or its attempts run out; the
  hidden tests decide the reward.
* `StringTransformEnv`, `ExpressionEvalEnv`, `RegisterMachineEnv`
  (``CodeStringTransform-v0``, ``CodeExpression-v0``, ``CodeMachine-v0``): single turn, on
  problems generated per seed by `palaestra.envs.code.generators`, with ``level`` 1-10.

The task:
    A problem from the shipped set (150 problems, `palaestra.envs.code.problems`), from a
    JSON Lines file in any format `palaestra.envs.code.loaders` reads (APPS, TACO,
    CodeContests, LiveCodeBench, Palaestra rows), or from a procedural generator
    (`palaestra.envs.code.generators`). Function problems ask for a function, stdio
    problems for a program reading standard input.

Observation:
    The problem statement, the function's signature or the I/O format, the public tests,
    the time limit and the answer format; in ``CodeFeedback``, then the results of each
    submission on the public tests.

Action:
    Text whose last fenced code block (```` ```python ... ``` ````, after any
    ``</think>``) is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: for ``reward="all_pass"``, `CORRECT_REWARD` when every hidden test passes,
    else 0; for ``reward="fraction"``, the fraction of hidden tests passed, counted only when
    a passed test expects some output (tests that an empty output passes, such as a command
    that prints nothing, earn nothing alone: a program that does nothing scores 0).
    ``progress`` (``CodeFeedback`` with ``reward="improvement"``): each submission earns
    the change in that fraction since the previous one, so the episode's return is the last
    submission's fraction.
    ``invalid``: `INVALID_ACTION_PENALTY` for a turn without a code block
    (``CodeFeedback``; in ``CodeSynthesis`` such an answer scores 0).

Episode end:
    ``CodeSynthesis``: after one step. ``CodeFeedback``: terminated when a submission
    passes every public test or the attempts run out; truncated by the turn limit. A
    sandbox failure truncates the episode with ``info["status"] = "error"`` and
    ``info["mask"] = True``, never a zero reward.

Arguments:
    level: Keep shipped problems of these levels (1-3; an int or a list; None: all); for
        the generated families, the difficulty (1-10).
    category: Keep these categories (see `palaestra.envs.code.problems.CATEGORIES`).
    style: Keep ``"function"`` or ``"stdio"`` problems.
    problems: A path to a JSON Lines file of problems instead of the shipped set.
    format: The file's format (``"auto"``, ``"palaestra"``, ``"apps"``, ``"taco"``,
        ``"code_contests"``, ``"livecodebench"``).
    reward: ``"all_pass"`` or ``"fraction"`` (and ``"improvement"`` for ``CodeFeedback``).
    max_attempts: Submissions allowed (``CodeFeedback``).
    sandbox_backend: The `palaestra.sandbox` backend (``"python"``: local namespaces with
        the warm-interpreter fast path; ``"local"``; ``"docker"``).
    time_scale: Multiplies every time limit (slow or loaded machines).
    version: The env's version, set by its id: 1, or 0 for the ``-v0`` ids.

Version history:
    v1 (``CodeSynthesis-v1``, ``CodeFeedback-v1``): the shipped problems' hidden tests include
    their public examples and kill every first-order mutant of the reference that is not
    equivalent to it (`palaestra.envs.code.mutation`); with ``reward="fraction"`` and
    ``"improvement"``, passing only tests that an empty output passes earns 0.
    v0: first version (version 0 of the problem set, every passed test counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, Env, Message, Step, user
from palaestra.envs.code.generators import (
    ExpressionGenerator,
    Generator,
    MachineGenerator,
    StringTransformGenerator,
)
from palaestra.envs.code.judge import Judgement, ajudge, ajudge_apart, judge, judge_apart
from palaestra.envs.code.problem import CodeProblem

CORRECT_REWARD = 1.0
ANSWER_FORMAT = (
    "Reply with your complete solution in a single ```python code block; only the last code "
    "block in your reply is run."
)
REWARD_MODES = ("all_pass", "fraction")
BACKENDS = ("python", "local", "docker")
VERSIONS = (0, 1)
MAX_SHOWN_INPUT_CHARS = 600


# --- problem sources ---------------------------------------------------------------------


class ProblemSource:
    """Where an env's problems come from: `draw` one from a generator of randomness."""

    def draw(self, rng: np.random.Generator) -> CodeProblem:
        """One problem."""
        raise NotImplementedError

    def get(self, problem_id: str) -> CodeProblem:
        """A problem by id (for ``reset(options={"problem_id": ...})``)."""
        raise KeyError(f"{type(self).__name__} cannot look problems up by id")


class ShippedSource(ProblemSource):
    """The shipped problem set, filtered (tests are built only for the problems drawn)."""

    def __init__(
        self, levels: Any = None, categories: Any = None, styles: Any = None, version: int = 1
    ):
        from palaestra.envs.code import problems

        self._problems = problems
        self.version = version
        self.ids = problems.select(categories=categories, levels=levels, styles=styles)
        if not self.ids:
            raise ValueError(
                f"no shipped problem matches level={levels!r}, category={categories!r}, "
                f"style={styles!r}"
            )

    def draw(self, rng: np.random.Generator) -> CodeProblem:
        """A uniformly drawn problem of the selection."""
        return self.get(self.ids[int(rng.integers(len(self.ids)))])

    def get(self, problem_id: str) -> CodeProblem:
        """A shipped problem by id."""
        return self._problems.get_problem(problem_id, version=self.version)


class ListSource(ProblemSource):
    """A fixed list of problems (loaded from a file or given directly)."""

    def __init__(self, problems: Sequence[CodeProblem]):
        self.problems = list(problems)
        if not self.problems:
            raise ValueError("the problem list is empty")
        self._by_id = {p.id: p for p in self.problems}

    def draw(self, rng: np.random.Generator) -> CodeProblem:
        """A uniformly drawn problem."""
        return self.problems[int(rng.integers(len(self.problems)))]

    def get(self, problem_id: str) -> CodeProblem:
        """A problem by id."""
        if problem_id not in self._by_id:
            raise KeyError(f"no problem {problem_id!r} among the {len(self.problems)} loaded")
        return self._by_id[problem_id]


def _listed(name: str, value: Any) -> Any:
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TypeError(f"{name} must be a value, a list of values or None, got {type(value).__name__}")


def make_source(
    level: Any = None,
    category: Any = None,
    style: Any = None,
    problems: str | None = None,
    format: str = "auto",
    version: int = 1,
) -> ProblemSource:
    """The problem source an env's arguments describe (see the module docstring)."""
    if problems is None:
        if format != "auto":
            raise ValueError("format= only applies with problems= (a path to a JSON Lines file)")
        return ShippedSource(
            _listed("level", level), _listed("category", category), _listed("style", style), version
        )
    if not isinstance(problems, str):
        raise TypeError(
            f"problems must be a path to a JSON Lines file, got {type(problems).__name__}"
        )
    if any(v is not None for v in (level, category, style)):
        raise ValueError(
            "level, category and style filter the shipped set; they do not apply with problems="
        )
    from palaestra.envs.code.loaders import load_jsonl

    return ListSource(load_jsonl(problems, format=format))


# --- prompts -------------------------------------------------------------------------------


def _shown(text: str) -> str:
    if len(text) <= MAX_SHOWN_INPUT_CHARS:
        return text
    return (
        text[:MAX_SHOWN_INPUT_CHARS]
        + f"\n[... {len(text) - MAX_SHOWN_INPUT_CHARS:,} more characters]"
    )


def render_prompt(problem: CodeProblem) -> str:
    """The opening message: statement, interface, public tests, limits and answer format."""
    parts = [f"# {problem.title}" if problem.title else "", problem.statement.strip()]
    signature = problem.signature()
    if problem.style == "function":
        if signature:
            parts.append(f"Write it in Python, starting from:\n```python\n{signature}\n```")
        else:
            parts.append(f"Write it in Python as a function named `{problem.entry}`.")
        if problem.public:
            examples = "\n".join(
                f">>> {_shown(t.input)}\n{_shown(repr(t.output))}" for t in problem.public
            )
            parts.append(f"Examples:\n```\n{examples}\n```")
    else:
        parts.append("Write a Python program that reads standard input and writes standard output.")
        for i, test in enumerate(problem.public, 1):
            parts.append(
                f"Example {i} input:\n```\n{_shown(test.input)}\n```\n"
                f"Example {i} output:\n```\n{_shown(test.output)}\n```"
            )
    parts.append(
        f"Your code is run against hidden tests, {problem.time_limit_s:g} s per test. "
        + ANSWER_FORMAT
    )
    return "\n\n".join(p for p in parts if p)


def _oracle_text(problem: CodeProblem) -> str:
    if not problem.reference:
        raise NotImplementedError(
            f"problem {problem.id!r} has no reference solution, so the env has no oracle"
        )
    return f"```python\n{problem.reference.rstrip()}\n```"


# --- the envs --------------------------------------------------------------------------------


class _CodeEnv(Env):
    """What both synthesis envs share: the problem source, the judge and its settings."""

    reward_modes: ClassVar[tuple[str, ...]] = REWARD_MODES
    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(
        self,
        *,
        source: ProblemSource,
        reward: str = "all_pass",
        sandbox_backend: str = "python",
        time_scale: float = 1.0,
        version: int = 1,
    ):
        if isinstance(version, bool) or version not in VERSIONS:
            raise ValueError(f"version must be one of {list(VERSIONS)}, got {version!r}")
        if reward not in self.reward_modes:
            raise ValueError(f"reward must be one of {list(self.reward_modes)}, got {reward!r}")
        if sandbox_backend not in BACKENDS:
            raise ValueError(
                f"sandbox_backend must be one of {list(BACKENDS)}, got {sandbox_backend!r}"
            )
        if (
            isinstance(time_scale, bool)
            or not isinstance(time_scale, (int, float))
            or not 0 < time_scale <= 20
        ):
            raise ValueError(f"time_scale must be a number in (0, 20], got {time_scale!r}")
        self.source = source
        self.reward = reward
        self.sandbox_backend = sandbox_backend
        self.time_scale = float(time_scale)
        self.version = version
        # Version 0 counted every passed test, even one an empty output passes.
        self.count_trivial = version == 0
        self.problem: CodeProblem | None = None

    def _pick(self, options: dict[str, Any]) -> CodeProblem:
        unknown = sorted(set(options) - {"problem_id"})
        if unknown:
            raise ValueError(
                f"{type(self).__name__}.reset accepts the option 'problem_id' only, got {unknown}"
            )
        if "problem_id" in options:
            return self.source.get(options["problem_id"])
        return self.source.draw(self.np_random)

    def _reset(self, options: dict[str, Any]):
        self.problem = self._pick(options)
        self._start_episode()
        info = {
            "problem_id": self.problem.id,
            "category": self.problem.category,
            "level": self.problem.level,
            "style": self.problem.style,
        }
        return [user(render_prompt(self.problem))], info

    def _start_episode(self) -> None:
        """Resets per-episode state (subclasses)."""

    def _code(self, action: Message) -> str | None:
        from palaestra.verifiers.code import extract_code

        return extract_code(action.get("content") or "")

    def _judge(self, code: str) -> Judgement:
        return judge(code, self.problem, backend=self.sandbox_backend, time_scale=self.time_scale)

    async def _ajudge(self, code: str) -> Judgement:
        return await ajudge(
            code, self.problem, backend=self.sandbox_backend, time_scale=self.time_scale
        )

    def oracle_action(self) -> str:
        """The problem's reference solution in a code block."""
        return _oracle_text(self.problem)

    def render_text(self) -> str:
        """The problem's prompt."""
        return render_prompt(self.problem) if self.problem else ""


class _SingleTurnCodeEnv(_CodeEnv):
    """One step: the answer's code is judged and the hidden tests give the reward."""

    def _score(self, judgement: Judgement) -> Step:
        if judgement.status == "error":
            return self.infrastructure_error(judgement.reason)
        verdict = judgement.verdict(
            partial=self.reward == "fraction", hidden=True, count_trivial=self.count_trivial
        )
        step = self.finish(verdict)
        step.info["tests"] = _summary(judgement)
        return step

    def _step(self, action: Message) -> Step:
        return self._score(self._judge(self._code(action)))

    async def _astep(self, action: Message) -> Step:
        return self._score(await self._ajudge(self._code(action)))


class CodeSynthesisEnv(_SingleTurnCodeEnv):
    """Single-turn program synthesis scored by hidden tests; see the module docstring."""

    def __init__(
        self,
        level: Any = None,
        category: Any = None,
        style: Any = None,
        problems: str | None = None,
        format: str = "auto",
        reward: str = "all_pass",
        sandbox_backend: str = "python",
        time_scale: float = 1.0,
        version: int = 1,
    ):
        super().__init__(
            source=make_source(level, category, style, problems, format, version),
            reward=reward,
            sandbox_backend=sandbox_backend,
            time_scale=time_scale,
            version=version,
        )


class GeneratedSource(ProblemSource):
    """Problems drawn by a procedural generator."""

    def __init__(self, generator: Generator):
        self.generator = generator

    def draw(self, rng: np.random.Generator) -> CodeProblem:
        """A freshly generated problem."""
        return self.generator.generate(rng)


class GeneratedCodeEnv(_SingleTurnCodeEnv):
    """Single-turn synthesis on generated problems; subclasses set ``generator_class``."""

    generator_class: ClassVar[type[Generator]]

    def __init__(
        self,
        level: int = 3,
        reward: str = "all_pass",
        sandbox_backend: str = "python",
        time_scale: float = 1.0,
    ):
        super().__init__(
            source=GeneratedSource(self.generator_class(level)),
            reward=reward,
            sandbox_backend=sandbox_backend,
            time_scale=time_scale,
        )
        self.level = level


class StringTransformEnv(GeneratedCodeEnv):
    """Implement a generated pipeline of string operations; see the module docstring."""

    generator_class = StringTransformGenerator


class ExpressionEvalEnv(GeneratedCodeEnv):
    """Evaluate expressions of a generated operator language; see the module docstring."""

    generator_class = ExpressionGenerator


class RegisterMachineEnv(GeneratedCodeEnv):
    """Simulate a generated register machine; see the module docstring."""

    generator_class = MachineGenerator


def _summary(judgement: Judgement) -> dict[str, Any]:
    return {
        "public": f"{judgement.passed(False)}/{judgement.total(False)}",
        "hidden": f"{judgement.passed(True)}/{judgement.total(True)}",
        "status": judgement.status,
    }


class CodeFeedbackEnv(_CodeEnv):
    """Multi-turn program synthesis with public-test feedback; see the module docstring."""

    reward_modes = ("all_pass", "fraction", "improvement")

    def __init__(
        self,
        level: Any = None,
        category: Any = None,
        style: Any = None,
        problems: str | None = None,
        format: str = "auto",
        reward: str = "all_pass",
        max_attempts: int = 4,
        sandbox_backend: str = "python",
        time_scale: float = 1.0,
        version: int = 1,
    ):
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"max_attempts must be a positive integer, got {max_attempts!r}")
        super().__init__(
            source=make_source(level, category, style, problems, format, version),
            reward=reward,
            sandbox_backend=sandbox_backend,
            time_scale=time_scale,
            version=version,
        )
        self.max_attempts = max_attempts
        self.attempts = 0
        self.fraction = 0.0

    def _start_episode(self) -> None:
        self.attempts = 0
        self.fraction = 0.0

    def _reset(self, options: dict[str, Any]):
        observation, info = super()._reset(options)
        observation[0]["content"] += (
            f"\n\nYou have {self.max_attempts} attempts: after each one you see which public tests "
            "failed, and may submit a corrected solution."
        )
        return observation, info

    def _after(self, judgement: Judgement) -> Step:
        if judgement.status == "error":
            return self.infrastructure_error(judgement.reason)
        self.attempts += 1
        fraction = judgement.fraction(hidden=True, count_trivial=self.count_trivial)
        delta, self.fraction = fraction - self.fraction, fraction
        public_ok = (
            judgement.all_passed(hidden=False)
            if judgement.total(hidden=False)
            else judgement.status == "ok"
        )
        left = self.max_attempts - self.attempts
        info = {"tests": _summary(judgement), "attempt": self.attempts}
        if public_ok or left == 0:
            verdict = judgement.verdict(
                partial=self.reward != "all_pass", hidden=True, count_trivial=self.count_trivial
            )
            why = (
                "Every public test passed; the solution was submitted."
                if public_ok
                else "No attempts left."
            )
            parts = {"outcome": 0.0, "progress": delta} if self.reward == "improvement" else {}
            step = self.finish(
                verdict, [user(f"{judgement.feedback(self.problem)}\n{why}")], **parts
            )
            step.info.update(info)
            return step
        parts = {"progress": delta} if self.reward == "improvement" else {"outcome": 0.0}
        attempts = f"{left} attempt{'s' * (left != 1)} left"
        message = f"{judgement.feedback(self.problem)}\nRevise your solution ({attempts})."
        return Step([user(message)], parts, info=info)

    # Feedback must come from a run that never saw a hidden input (see `judge_apart`).
    def _judge(self, code: str) -> Judgement:
        return judge_apart(
            code, self.problem, backend=self.sandbox_backend, time_scale=self.time_scale
        )

    async def _ajudge(self, code: str) -> Judgement:
        return await ajudge_apart(
            code, self.problem, backend=self.sandbox_backend, time_scale=self.time_scale
        )

    def _no_code(self) -> Step:
        return self.invalid("no ```python code block found; " + ANSWER_FORMAT)

    def _step(self, action: Message) -> Step:
        code = self._code(action)
        if code is None or not code.strip():
            return self._no_code()
        return self._after(self._judge(code))

    async def _astep(self, action: Message) -> Step:
        code = self._code(action)
        if code is None or not code.strip():
            return self._no_code()
        return self._after(await self._ajudge(code))
