r"""Scoring code against tests: a fresh sandbox, the trusted runner, a comparison on the host.

    judgement = judge(code, problem)                    # blocking
    judgement = await ajudge(code, problem)             # async (the backend bounds concurrency)
    judgement.passed, judgement.total, judgement.fraction
    judgement.verdict(partial=False)                    # a palaestra.Verdict
    judgement.feedback(problem)                         # failing public tests, for the model
    judgement = judge_apart(code, problem)              # public and hidden tests in separate runs

Threat model
============

The candidate's code is hostile: it may exit early, return objects that claim equality,
patch the harness, print fake results, read files, loop forever or kill its parent.

* **A fresh sandbox per scoring** (`palaestra.sandbox`; on the ``"python"`` backend a fork
  of a warm interpreter in fresh namespaces, on Docker a new container unless
  ``fresh=False``). It receives only the trusted runner, the candidate's code and the test
  *inputs*; expected outputs never leave the host, so reading every file in the sandbox
  reveals no answer.
* **Results come from the trusted runner** of the ``code`` verifier
  (`palaestra.verifiers._code_runner`): each test runs in its own child holding no
  descriptor of the runner; the runner alone writes the result channel, one JSON line per
  test. The program's own standard output is data (the value compared), never a verdict.
  A malformed or duplicated result line makes the whole submission ``suspect`` (score 0).
* **The host compares.** Function results are serialised by exact type inside the sandbox
  (an object whose ``__eq__`` always returns True cannot be serialised) and compared here
  with `OutputCheck`; stdout is compared line by line or token by token, every expected
  line included.
* **A test without a result fails.** Early exit, a crash, a killed runner: the missing
  tests count as failed; the exit code counts for nothing.
* **Time is enforced from outside the program**: per test by the runner (which kills the
  child), for the whole run by the sandbox (which kills everything).

Not covered: whatever the sandbox backend does not isolate (see its threat model). In
particular the problem files must not be visible inside the sandbox: the local backend
binds the host's ``/usr``, so a system-wide install of Palaestra under ``/usr`` would
expose the shipped hidden tests; install into a virtual environment elsewhere, or give the
backend ``root=`` a built root file system.

Workarounds of the runner's current behaviour (kept here, in code we ship with the
program, so that the runner stays unchanged): stdin/stdout programs run through
``_stdio_main.py``, which puts the input on descriptor 0, discards standard error and
treats ``sys.exit(0)`` as a normal end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from palaestra.envs.code.problem import CodeProblem, Test
from palaestra.verdict import Status, Verdict

VERIFIER_NAME = "code"
DEFAULT_MEMORY_MB = 1024
MAX_CODE_CHARS = 100_000
"""Longer submissions are refused unread (BAD_FORMAT)."""
STARTUP_SLACK_S = 10.0
"""Seconds added to the sum of per-test limits for the sandbox's whole-run deadline."""
_MIN_OUTPUT_CAP = 64 * 1024
_DETAIL_CHARS = 300
_STDIO_MAIN = Path(__file__).with_name("_stdio_main.py")

OUTCOMES = ("passed", "wrong", "error", "timeout", "missing")
"""Per-test outcomes: right; a wrong result; an exception (or unserialisable value); the
per-test time limit passed; no result at all (early exit, crash, killed runner)."""


@dataclasses.dataclass(frozen=True)
class TestResult:
    """The outcome of one test.

    Attributes:
        index: Position in the tests that were run.
        hidden: Whether the test is hidden.
        label: The test's label (``"performance"``, ``"edge"``, ...).
        outcome: One of `OUTCOMES`.
        detail: What happened, for a person (the exception, what was returned).
        trivial: An empty output passes this test too (the program printed nothing, or the
            function returned None): passing it shows nothing on its own.
    """

    # Not a pytest test class, whatever test module imports it.
    __test__: ClassVar[bool] = False

    index: int
    hidden: bool
    label: str
    outcome: str
    detail: str = ""
    trivial: bool = False

    @property
    def passed(self) -> bool:
        """Whether the test passed."""
        return self.outcome == "passed"


@dataclasses.dataclass(frozen=True)
class Judgement:
    """The result of scoring one submission.

    Attributes:
        results: One `TestResult` per test run (public tests first).
        status: ``"ok"`` when the tests ran; otherwise why not: ``"no_code"``,
            ``"too_long"``, ``"suspect"`` (the result channel was forged) or ``"error"``
            (infrastructure: never a zero, always masked).
        reason: A sentence on the status.
        code: The code that was judged.
    """

    results: tuple[TestResult, ...] = ()
    status: str = "ok"
    reason: str = ""
    code: str | None = None

    def _subset(self, hidden: bool | None) -> list[TestResult]:
        return [r for r in self.results if hidden is None or r.hidden == hidden]

    def passed(self, hidden: bool | None = True) -> int:
        """Tests passed (hidden ones by default; None: all)."""
        return sum(r.passed for r in self._subset(hidden))

    def total(self, hidden: bool | None = True) -> int:
        """Tests run (hidden ones by default; None: all)."""
        return len(self._subset(hidden))

    def fraction(self, hidden: bool | None = True, *, count_trivial: bool = False) -> float:
        """Fraction passed: 0 when nothing ran, and 0 when every test passed is trivial.

        A program that does nothing passes the tests whose expected output is empty (or
        None); they count only beside a passed test that expects something, so doing nothing
        earns nothing.

        Args:
            hidden: Which tests count (hidden ones by default; None: all).
            count_trivial: Count trivial tests even alone (version 0 of the code envs did).
        """
        chosen = self._subset(hidden)
        if not chosen or self.status != "ok":
            return 0.0
        if not (count_trivial or any(r.passed and not r.trivial for r in chosen)):
            return 1.0 if self.all_passed(hidden) else 0.0
        return self.passed(hidden) / len(chosen)

    def all_passed(self, hidden: bool | None = True) -> bool:
        """Whether the tests ran and every one passed."""
        return (
            self.status == "ok"
            and self.total(hidden) > 0
            and self.passed(hidden) == self.total(hidden)
        )

    def verdict(
        self,
        *,
        partial: bool = False,
        hidden: bool | None = True,
        reference: Any = None,
        count_trivial: bool = False,
    ) -> Verdict:
        """The `Verdict`: score 1 when every test passed, else 0 (or the fraction if ``partial``).

        Args:
            partial: Score the `fraction` of tests passed instead of all-or-nothing.
            hidden: Which tests count (hidden ones by default; None: all).
            reference: What to record as the verdict's reference.
            count_trivial: As for `fraction`.
        """
        if self.status == "error":
            return Verdict.error(self.reason, verifier=VERIFIER_NAME)
        if self.status != "ok":
            status = {
                "no_code": Status.NO_ANSWER,
                "too_long": Status.BAD_FORMAT,
                "suspect": Status.SUSPECT,
            }[self.status]
            return Verdict(
                0.0,
                status,
                answer=self.code,
                reference=reference,
                reason=self.reason,
                verifier=VERIFIER_NAME,
            )
        chosen = self._subset(hidden)
        outcomes = [r.outcome for r in chosen]
        details = {"tests": outcomes, "passed": outcomes.count("passed"), "total": len(outcomes)}
        if self.all_passed(hidden):
            return Verdict(
                1.0,
                Status.CORRECT,
                answer=self.code,
                reference=reference,
                reason=f"all {len(outcomes)} tests passed",
                verifier=VERIFIER_NAME,
                details=details,
            )
        score = self.fraction(hidden, count_trivial=count_trivial) if partial else 0.0
        failures = [r for r in chosen if not r.passed]
        status = (
            Status.TIMEOUT
            if all(r.outcome == "timeout" for r in failures) and not details["passed"]
            else Status.INCORRECT
        )
        first = failures[0]
        reason = (
            f"{details['passed']}/{details['total']} tests passed; "
            f"first failure: test {first.index} {first.outcome}"
        )
        return Verdict(
            score,
            status,
            answer=self.code,
            reference=reference,
            reason=reason,
            verifier=VERIFIER_NAME,
            details=details,
        )

    def feedback(self, problem: CodeProblem, *, limit: int = 5) -> str:
        """The failing public tests, described for the model (hidden tests are never shown)."""
        if self.status != "ok":
            return self.reason
        failing = [r for r in self.results if not r.hidden and not r.passed]
        public = self.total(hidden=False)
        if not failing:
            return f"All {public} public tests passed."
        lines = [f"{public - len(failing)} of {public} public tests passed. Failing tests:"]
        for result in failing[:limit]:
            test = problem.tests[result.index]
            lines.append(describe_failure(problem, test, result))
        if len(failing) > limit:
            lines.append(f"... and {len(failing) - limit} more.")
        return "\n".join(lines)


def _clip(text: str, limit: int = _DETAIL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_failure(problem: CodeProblem, test: Test, result: TestResult) -> str:
    """One failing test, as the model sees it."""
    if problem.style == "function":
        head = f"- {_clip(test.input, 200)}"
        expected = _clip(repr(test.output))
    else:
        head = f"- input:\n{_clip(test.input, 200)}"
        expected = _clip(test.output)
    if result.outcome == "wrong":
        return f"{head}\n  expected: {expected}\n  got: {result.detail}"
    if result.outcome == "timeout":
        return f"{head}\n  timed out (limit {problem.time_limit_s:g} s per test)"
    if result.outcome == "error":
        return f"{head}\n  failed: {result.detail}"
    return f"{head}\n  produced no result: {result.detail}"


# --- building the sandbox request ------------------------------------------------------------


def _runner_source() -> bytes:
    from palaestra.verifiers.code import _RUNNER

    return _RUNNER.read_bytes()


def _output_cap(test: Test, style: str) -> int:
    # Twice the expected output and then some: enough for any right answer, small enough
    # that a flood of output cannot grow the channel.
    size = len(test.output.encode()) if style == "stdio" else len(json.dumps(test.output))
    return max(_MIN_OUTPUT_CAP, 2 * size + 1024)


def build_request(
    code: str,
    problem: CodeProblem,
    tests: Sequence[Test],
    *,
    time_scale: float = 1.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    fresh: bool = True,
) -> Any:
    """The `palaestra.sandbox.RunRequest` that runs ``tests`` against ``code``.

    Only the runner, the code and the test inputs go in; the expected outputs stay here.
    """
    from palaestra import sandbox

    per_test = problem.time_limit_s * time_scale
    cap = max(_output_cap(t, problem.style) for t in tests)
    if problem.style == "function":
        shipped = [{"call": t.input} for t in tests]
        files = {"solution.py": (problem.prelude + "\n" + code) if problem.prelude else code}
    else:
        shipped = [{"stdin": t.input} for t in tests]
        files = {
            "solution.py": _STDIO_MAIN.read_bytes(),
            "program.py": (problem.prelude + "\n" + code) if problem.prelude else code,
        }
    files["runner.py"] = _runner_source()
    files["tests.json"] = json.dumps(shipped)
    argv = [
        "python3",
        "runner.py",
        "solution.py",
        "tests.json",
        repr(per_test),
        str(memory_mb),
        str(cap),
    ]
    limits = sandbox.Limits(
        wall_s=per_test * len(tests) + STARTUP_SLACK_S,
        memory_mb=memory_mb + 256,
        output_bytes=min(256 << 20, len(tests) * (cap + 512) + 4096),
    )
    return sandbox.RunRequest(argv=argv, files=files, limits=limits, fresh=fresh)


def _describe_value(value: Any) -> str:
    # Values arrive decoded from JSON: plain Python objects, shown as Python literals.
    return _clip(repr(value))


def interpret(
    stdout: bytes,
    truncated: bool,
    problem: CodeProblem,
    tests: Sequence[Test],
    hidden: Sequence[bool],
) -> Judgement:
    """Turns the runner's channel into a `Judgement` (comparisons happen here, on the host)."""
    from palaestra.verifiers.code import read_channel

    if truncated:
        # The cap cut the channel: keep whole lines; what is missing fails.
        stdout = stdout[: stdout.rfind(b"\n") + 1]
    lines, problem_text = read_channel(stdout, len(tests))
    if problem_text:
        return Judgement(
            status="suspect", reason=f"the result channel was tampered with: {problem_text}"
        )
    results = []
    for index, test in enumerate(tests):
        line = lines.get(index)
        common = {
            "index": index,
            "hidden": hidden[index],
            "label": test.label,
            "trivial": _trivial(problem, test),
        }
        if line is None or line.get("missing"):
            results.append(
                TestResult(
                    **common,
                    outcome="missing",
                    detail="the program ended before returning a result",
                )
            )
        elif line.get("timeout"):
            results.append(TestResult(**common, outcome="timeout", detail="time limit exceeded"))
        elif "exception" in line:
            name = str(line["exception"])[:100]
            detail = (
                "returned an object that is not a plain value"
                if name == "TypeError" and problem.style == "function"
                else ""
            )
            results.append(
                TestResult(
                    **common,
                    outcome="error",
                    detail=f"raised {name}" + (f" (or {detail})" if detail else ""),
                )
            )
        elif "value" not in line:
            results.append(TestResult(**common, outcome="missing", detail="no value was reported"))
        elif problem.style == "function":
            ok = problem.check.same_value(line["value"], test.output)
            results.append(
                TestResult(
                    **common,
                    outcome="passed" if ok else "wrong",
                    detail="" if ok else _describe_value(line["value"]),
                )
            )
        else:
            value = line["value"]
            ok = isinstance(value, str) and problem.check.same_text(value, test.output)
            results.append(
                TestResult(
                    **common,
                    outcome="passed" if ok else "wrong",
                    detail="" if ok else _clip(str(value)),
                )
            )
    return Judgement(tuple(results))


def _trivial(problem: CodeProblem, test: Test) -> bool:
    """Whether a program that does nothing (no output, None returned) passes ``test``."""
    if problem.style == "function":
        return problem.check.same_value(None, test.output)
    return problem.check.same_text("", test.output)


def _precheck(code: Any) -> Judgement | None:
    if not isinstance(code, str) or not code.strip():
        return Judgement(
            status="no_code", reason="no code to run (reply with a ```python code block)"
        )
    if len(code) > MAX_CODE_CHARS:
        return Judgement(
            status="too_long",
            reason=f"the code is over {MAX_CODE_CHARS:,} characters",
            code=code[:200],
        )
    return None


def _select(problem: CodeProblem, which: str) -> tuple[list[Test], list[bool]]:
    if which not in ("all", "public", "hidden"):
        raise ValueError(f"which must be 'all', 'public' or 'hidden', got {which!r}")
    public = list(problem.public) if which in ("all", "public") else []
    hidden = list(problem.hidden) if which in ("all", "hidden") else []
    return public + hidden, [False] * len(public) + [True] * len(hidden)


def _finish(
    result: Any, code: str, problem: CodeProblem, tests: list[Test], hidden: list[bool]
) -> Judgement:
    if result.error is not None:
        return Judgement(status="error", reason=f"the sandbox failed: {result.error}", code=code)
    judgement = interpret(result.stdout, result.stdout_truncated, problem, tests, hidden)
    if judgement.status == "ok" and not judgement.results and tests:
        return Judgement(status="error", reason="the runner reported nothing", code=code)
    return dataclasses.replace(judgement, code=code)


def _backend(backend: Any) -> Any:
    from palaestra import sandbox

    return sandbox.get_backend(backend) if isinstance(backend, str) else backend


def judge(
    code: Any,
    problem: CodeProblem,
    *,
    which: str = "all",
    backend: Any = "python",
    time_scale: float = 1.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    fresh: bool = True,
) -> Judgement:
    """Runs ``problem``'s tests against ``code`` in a fresh sandbox; never raises for what it does.

    Args:
        code: The candidate's source code (already extracted from the completion).
        problem: The problem.
        which: ``"all"`` (public then hidden), ``"public"`` or ``"hidden"``.
        backend: A `palaestra.sandbox` backend or its name (``"python"``: the local backend's
            warm-interpreter fast path; ``"local"``; ``"docker"``).
        time_scale: Multiplies every time limit (slow or loaded machines).
        memory_mb: Memory of each test's process.
        fresh: Never reuse a sandbox that ran earlier programs (Docker's warm pool; local runs
            are always fresh).

    Returns:
        The `Judgement`; infrastructure failures come back as ``status="error"``.
    """
    early = _precheck(code)
    if early is not None:
        return early
    tests, hidden = _select(problem, which)
    try:
        request = build_request(
            code, problem, tests, time_scale=time_scale, memory_mb=memory_mb, fresh=fresh
        )
        result = _backend(backend).run(request)
    except Exception as e:  # noqa: BLE001 - the sandbox could not run: an infrastructure failure
        return Judgement(
            status="error", reason=f"the sandbox failed: {type(e).__name__}: {e}", code=code
        )
    return _finish(result, code, problem, tests, hidden)


async def ajudge(
    code: Any,
    problem: CodeProblem,
    *,
    which: str = "all",
    backend: Any = "python",
    time_scale: float = 1.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    fresh: bool = True,
) -> Judgement:
    """The async twin of `judge` (the backend bounds how many runs go at once)."""
    early = _precheck(code)
    if early is not None:
        return early
    tests, hidden = _select(problem, which)
    try:
        request = build_request(
            code, problem, tests, time_scale=time_scale, memory_mb=memory_mb, fresh=fresh
        )
        result = await _backend(backend).arun(request)
    except Exception as e:  # noqa: BLE001 - the sandbox could not run: an infrastructure failure
        return Judgement(
            status="error", reason=f"the sandbox failed: {type(e).__name__}: {e}", code=code
        )
    return _finish(result, code, problem, tests, hidden)


async def ajudge_many(items: Iterable[tuple[Any, CodeProblem]], **options: Any) -> list[Judgement]:
    """Judges ``(code, problem)`` pairs concurrently; options as for `ajudge`."""
    return list(
        await asyncio.gather(*(ajudge(code, problem, **options) for code, problem in items))
    )


def judge_many(items: Iterable[tuple[Any, CodeProblem]], **options: Any) -> list[Judgement]:
    """Blocking `ajudge_many` (call it outside a running event loop)."""
    return asyncio.run(ajudge_many(list(items), **options))


def merge_apart(public: Judgement, hidden: Judgement) -> Judgement:
    """One `Judgement` from a public-only run and a hidden-only run (hidden indices shifted)."""
    for part in (public, hidden):
        if part.status == "error":
            return part
    for part in (hidden, public):
        if part.status != "ok":
            return part
    offset = len(public.results)
    shifted = tuple(dataclasses.replace(r, index=r.index + offset) for r in hidden.results)
    return Judgement(public.results + shifted, code=hidden.code)


def judge_apart(code: Any, problem: CodeProblem, **options: Any) -> Judgement:
    """As `judge`, but the public and hidden tests run in separate sandboxes.

    Feedback to the model then comes from a run that never saw a hidden input, so no output
    the code prints back (``got: ...``) can carry the hidden tests. Options as for `judge`.
    """
    public = (
        judge(code, problem, which="public", **options) if problem.public else Judgement(code=code)
    )
    return merge_apart(public, judge(code, problem, which="hidden", **options))


async def ajudge_apart(code: Any, problem: CodeProblem, **options: Any) -> Judgement:
    """The async twin of `judge_apart` (both runs go at once)."""
    if not problem.public:
        return merge_apart(
            Judgement(code=code), await ajudge(code, problem, which="hidden", **options)
        )
    public, hidden = await asyncio.gather(
        ajudge(code, problem, which="public", **options),
        ajudge(code, problem, which="hidden", **options),
    )
    return merge_apart(public, hidden)
