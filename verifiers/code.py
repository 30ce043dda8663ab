r"""Code answers: hidden tests run in the sandbox by a trusted runner; the host compares.

Threat model. The candidate's code is hostile. It may exit early (``sys.exit(0)``,
``os._exit(0)``), return objects whose ``__eq__`` is always true, print fake "passed" lines,
write ``conftest.py`` or other runner configuration, patch builtins or the runner, loop forever
or kill its parent. The defences:

* Isolation is the sandbox's job (`palaestra.sandbox`: namespaces, rlimits, no network). The
  ``subprocess`` backend is a plain child process with rlimits, for tests and trusted code only.
* The trusted runner (`palaestra.verifiers._code_runner`) runs every test in a fresh child that
  holds no descriptor of the runner; the runner alone writes the result channel (its stdout),
  one JSON line per test, and makes itself non-dumpable so that children can not reach it
  through /proc or ptrace. No pytest, so no conftest or plugin is ever loaded.
* Expected values never enter the sandbox: the runner gets only the calls (or stdin), and the
  host compares the returned values, serialised by exact type, with the expected ones. Forging
  the channel therefore means knowing the answers. A duplicated or malformed result line is
  `suspect`.
* A test without a result is a failure; the process exit code counts for nothing.
* Each test has a deadline enforced by the runner (the child is killed), and the whole run has
  one enforced by the sandbox.

Reference format::

    {"tests": [{"call": "add(1, 2)", "expected": 3}, ...]}                 # function tests
    {"tests": [{"stdin": "1 2\n", "stdout": "3\n"}, ...]}                # program tests

The solution is the last fenced code block after the reasoning.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, VerifierConfig, as_text, verdict
from palaestra.verifiers.extract import fenced_blocks, strip_reasoning

_RUNNER = Path(__file__).with_name("_code_runner.py")


@dataclasses.dataclass(frozen=True)
class CodeConfig(VerifierConfig):
    """Config of the `code` verifier.

    Attributes:
        backend: ``sandbox`` (`palaestra.sandbox`) or ``subprocess`` (no isolation: trusted
            code and tests only).
        sandbox_backend: The `palaestra.sandbox` backend name (``local``, ``python``, ``docker``).
        per_test_s: Wall-clock limit of one test.
        memory_mb: Address-space limit of each test process.
        max_output_bytes: Output kept per test.
        partial_credit: Score the fraction of tests passed instead of all-or-nothing.
        float_rel_tol: Relative tolerance for float results.
        think: As in `ExtractionConfig.think`.
        max_code_chars: Longer solutions are refused unread.
    """

    VERSION: ClassVar[int] = 1

    timeout_s: float = 60.0
    backend: str = "sandbox"
    sandbox_backend: str = "local"
    per_test_s: float = 5.0
    memory_mb: int = 1024
    max_output_bytes: int = 1 << 20
    partial_credit: bool = False
    float_rel_tol: float = 1e-9
    think: str = "strip"
    max_code_chars: int = 100_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.backend not in ("sandbox", "subprocess"):
            raise ValueError(f"backend must be 'sandbox' or 'subprocess', got {self.backend!r}")
        if not self.per_test_s > 0 or self.memory_mb < 16:
            raise ValueError("per_test_s must be positive and memory_mb at least 16")


@dataclasses.dataclass(frozen=True)
class Execution:
    """What running the runner produced (backend-neutral)."""

    stdout: bytes
    stderr: bytes
    exit_code: int | None
    timed_out: bool
    error: str | None = None
    truncated: bool = False


def extract_code(completion: Any, think: str = "strip") -> str | None:
    """The last fenced code block after the reasoning, or None."""
    text = as_text(completion)
    if text is None:
        return None
    region, _ = strip_reasoning(text, think)
    if region is None:
        return None
    blocks = [
        body for lang, body in fenced_blocks(region) if lang in ("", "python", "python3", "py")
    ]
    return blocks[-1] if blocks else None


def _same(value: Any, expected: Any, rel_tol: float) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return type(value) is type(expected) and value == expected
    if isinstance(expected, (int, float)) and isinstance(value, (int, float)):
        if isinstance(expected, float) or isinstance(value, float):
            return math.isclose(value, expected, rel_tol=rel_tol, abs_tol=rel_tol)
        return value == expected
    if isinstance(expected, list) and isinstance(value, list):
        return len(value) == len(expected) and all(
            _same(v, e, rel_tol) for v, e in zip(value, expected, strict=False)
        )
    if isinstance(expected, dict) and isinstance(value, dict):
        return value.keys() == expected.keys() and all(
            _same(value[k], expected[k], rel_tol) for k in expected
        )
    return type(value) is type(expected) and value == expected


def _same_output(actual: str, expected: str) -> bool:
    def lines(text: str) -> list[str]:
        out = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
        while out and not out[-1]:
            out.pop()
        return out

    return lines(actual) == lines(expected)


def read_channel(stdout: bytes, n_tests: int) -> tuple[dict[int, dict], str | None]:
    """Parses the runner's result lines; returns (results by test index, problem or None)."""
    results: dict[int, dict] = {}
    for raw in stdout.decode("utf-8", "replace").splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            return results, "the result channel holds a line that is not JSON"
        if not isinstance(line, dict):
            return results, "the result channel holds a malformed line"
        if "done" in line:
            continue
        index = line.get("test")
        if not isinstance(index, int) or not 0 <= index < n_tests:
            return results, "the result channel names a test that does not exist"
        if index in results:
            return results, f"test {index} was reported twice"
        results[index] = line
    return results, None


def _run_subprocess(files: dict[str, bytes], argv: list[str], wall_s: float) -> Execution:
    workdir = tempfile.mkdtemp(prefix="palaestra-code-")
    try:
        for name, data in files.items():
            Path(workdir, name).write_bytes(data)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": workdir,
            "PYTHONHASHSEED": "0",
        }
        process = subprocess.Popen(
            argv,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = process.communicate(timeout=wall_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            timed_out = True
        try:
            os.killpg(process.pid, signal.SIGKILL)  # anything the run left behind
        except ProcessLookupError:
            pass
        return Execution(out, err, process.returncode, timed_out)
    except OSError as e:
        return Execution(b"", b"", None, False, error=f"could not start the runner: {e}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run_sandbox(
    files: dict[str, bytes],
    argv: list[str],
    wall_s: float,
    memory_mb: int,
    output_bytes: int,
    backend: str,
) -> Execution:
    """Runs through `palaestra.sandbox`; infrastructure problems come back as `error`."""
    try:
        from palaestra import sandbox
    except ImportError as e:
        return Execution(b"", b"", None, False, error=f"palaestra.sandbox is not importable: {e}")
    try:
        limits = sandbox.Limits(wall_s=wall_s, memory_mb=memory_mb + 256, output_bytes=output_bytes)
        request = sandbox.RunRequest(argv=argv, files=files, limits=limits, fresh=True)
        result = sandbox.run(request, backend=backend)
    except Exception as e:  # noqa: BLE001 - an infrastructure failure, never a zero
        return Execution(b"", b"", None, False, error=f"sandbox failed: {type(e).__name__}: {e}")
    return Execution(
        result.stdout,
        result.stderr,
        result.exit_code,
        result.timed_out,
        error=result.error,
        truncated=result.stdout_truncated,
    )


@functools.lru_cache(maxsize=1)
def sandbox_available(backend: str = "local") -> bool:
    """True when `palaestra.sandbox` can run a program here (probed once per process)."""
    try:
        from palaestra import sandbox

        request = sandbox.RunRequest(
            argv=["python3", "-c", "print(1)"], limits=sandbox.Limits(wall_s=30)
        )
        result = sandbox.run(request, backend=backend)
    except Exception:  # noqa: BLE001 - any failure means: not available
        return False
    return result.error is None and result.stdout.strip() == b"1"


class CodeVerifier(Verifier):
    """Runs hidden tests against the candidate's code (see the module docstring)."""

    name: ClassVar[str] = "code"
    config_class = CodeConfig
    config: CodeConfig

    def _tests(self, reference: Any) -> list[Mapping[str, Any]] | Verdict:
        tests = reference.get("tests") if isinstance(reference, Mapping) else None
        if not isinstance(tests, list) or not tests:
            return Verdict.error("the code reference needs a non-empty 'tests' list")
        for i, test in enumerate(tests):
            if not isinstance(test, Mapping):
                return Verdict.error(f"test {i} is not a mapping")
            function = "call" in test and "expected" in test
            program = "stdin" in test and "stdout" in test
            if function == program:
                return Verdict.error(f"test {i} needs either call+expected or stdin+stdout")
        return tests

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        tests = self._tests(reference)
        if isinstance(tests, Verdict):
            return tests
        code = extract_code(completion, self.config.think)
        if code is None or not code.strip():
            return verdict(Status.NO_ANSWER, "no fenced code block after the reasoning")
        if len(code) > self.config.max_code_chars:
            return verdict(
                Status.BAD_FORMAT, f"the code is over {self.config.max_code_chars} characters"
            )
        # Only the calls and inputs go in; the expected values stay here.
        shipped = [
            {"call": t["call"]} if "call" in t else {"stdin": str(t["stdin"])} for t in tests
        ]
        files = {
            "runner.py": _RUNNER.read_bytes(),
            "solution.py": code.encode("utf-8"),
            "tests.json": json.dumps(shipped).encode("utf-8"),
        }
        argv = [
            "python3" if self.config.backend == "sandbox" else sys.executable,
            "-I",
            "runner.py",
            "solution.py",
            "tests.json",
            str(self.config.per_test_s),
            str(self.config.memory_mb),
            str(self.config.max_output_bytes),
        ]
        wall = min(self._timeout(context), self.config.per_test_s * len(tests) + 10.0)
        if self.config.backend == "subprocess":
            run = _run_subprocess(files, argv, wall)
        else:
            channel_bytes = min(64 << 20, len(tests) * (self.config.max_output_bytes + 256) + 4096)
            run = _run_sandbox(
                files, argv, wall, self.config.memory_mb, channel_bytes, self.config.sandbox_backend
            )
        if run.error:
            return Verdict.error(f"code execution failed: {run.error}")
        stdout = run.stdout
        if run.truncated:
            # The cap cut the channel: keep whole lines only; what is missing fails.
            stdout = stdout[: stdout.rfind(b"\n") + 1]
        results, problem = read_channel(stdout, len(tests))
        if problem:
            return verdict(Status.SUSPECT, problem, answer=code)
        outcomes = []
        for i, test in enumerate(tests):
            result = results.get(i)
            if result is None:
                outcomes.append("missing")
            elif result.get("timeout"):
                outcomes.append("timeout")
            elif "value" not in result:
                outcomes.append("exception" if "exception" in result else "missing")
            elif "call" in test:
                ok = _same(
                    result["value"],
                    json.loads(json.dumps(test["expected"])),
                    self.config.float_rel_tol,
                )
                outcomes.append("passed" if ok else "failed")
            else:
                ok = isinstance(result["value"], str) and _same_output(
                    result["value"], str(test["stdout"])
                )
                outcomes.append("passed" if ok else "failed")
        passed = outcomes.count("passed")
        total = len(tests)
        details = {"tests": outcomes, "passed": passed, "total": total}
        if passed == total:
            return verdict(Status.CORRECT, f"all {total} tests passed", answer=code, **details)
        score = passed / total if self.config.partial_credit else 0.0
        if run.timed_out and passed == 0:
            return verdict(
                Status.TIMEOUT, "the run hit its time limit", answer=code, score=score, **details
            )
        worst = next(o for o in outcomes if o != "passed")
        return verdict(
            Status.INCORRECT,
            f"{passed}/{total} tests passed (first failure: {worst})",
            answer=code,
            score=score,
            **details,
        )

    def verify_batch(
        self, items: Any, *, timeout_s: float | None = None, workers: int | None = None
    ) -> list[Verdict]:
        """Runs items concurrently in threads (each run waits on its own sandbox)."""
        import concurrent.futures

        from palaestra.verifiers.batch import normalize_items

        triples = normalize_items(items)
        for _, _, context in triples:
            self.check_context(context)
            if timeout_s is not None:
                context.setdefault("timeout_s", timeout_s)
        with concurrent.futures.ThreadPoolExecutor(workers or min(8, os.cpu_count() or 1)) as ex:
            return list(ex.map(lambda t: self.verify(t[0], t[1], **t[2]), triples))
