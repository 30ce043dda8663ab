"""Grading SWE tasks in a fresh container, so that what the agent did cannot fool it.

Repository tasks (Palaestra's ``[palaestra]`` tasks):

1. The agent's repository files (without ``.git``) are carried into a **fresh** container
   from the instance image, whose ``.git`` is pristine; the diff is taken there against
   the base commit (``git add -A && git diff --cached``), so that nothing the agent did
   to its own git metadata changes what is graded.
2. The diff loses every change to test files and test directories, ``conftest.py``,
   test runner configuration (``pytest.ini``, ``tox.ini``, ``setup.cfg``,
   ``pyproject.toml``), ``.pth``, ``sitecustomize``/``usercustomize``, package metadata
   (``*.dist-info``, ``*.egg-info``) and every symbolic link; the rest is applied to a
   clean checkout.
3. The hidden test files are written in and checked against their sha256, then pytest
   runs the ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` ids with a harness-owned ini
   (``-c``, so no project configuration adds options or plugins), plugin autoloading off,
   ``python -I`` (no ``PYTHON*`` variables, no user site) and a JUnit XML report written
   outside the repository.
4. Resolved only if every id is reported **passed** (a missing, skipped or errored test
   fails), pytest's exit code is 0, and the report holds exactly the selected tests.

Generic Harbor tasks: the agent's working directory is carried into a fresh container,
``tests/`` is copied in only then, ``test.sh`` runs, and the reward file is read there,
out of reach of anything the agent left running.

An infrastructure failure (image missing, Docker down, the harness timing out) gives a
``Verdict.error`` (masked), never a zero.

What it does not catch: the code under test runs inside the pytest process, so a change
to the library that rewrites pytest's results at run time (monkeypatching ``_pytest``,
writing the report at exit) is not stopped by the steps above. Added lines that reach
for such hooks (``_pytest``, ``atexit``, ``os._exit``, ``sys.exit``, ``__eq__``,
``builtins``) are listed in ``details["audit"]`` for review.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from palaestra.envs.swe.build import REPO_DIR, WORKSPACE
from palaestra.envs.swe.task import HarborTask
from palaestra.errors import InfrastructureError
from palaestra.sandbox.api import Limits
from palaestra.verdict import Status, Verdict

VERIFIER = "swe"
HARNESS = "/work/.palaestra"
SNAPSHOT = ".palaestra-snapshot.tar"
#: Limits of a grading container (``wall_s`` is the verifier's timeout).
GRADING_LIMITS = Limits(wall_s=600, memory_mb=2048, pids=256, disk_mb=512, cpus=1.0)

_TEST_PATH = re.compile(r"(^test_.*\.py$)|(^.*_test\.py$)|(^(tests?|testing)$)")
_CONFIG_FILES = {
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    ".pytest.ini",
    "sitecustomize.py",
    "usercustomize.py",
    "noxfile.py",
}
_AUDIT = re.compile(r"_pytest|\batexit\b|os\._exit|sys\.exit|__eq__|\bbuiltins\b")


def dropped_reason(path: str) -> str | None:
    """Why a changed path is dropped from the graded diff, or None if it is kept."""
    parts = PurePosixPath(path).parts
    if any(_TEST_PATH.match(part) for part in parts):
        return "test file"
    name = parts[-1] if parts else path
    if name in _CONFIG_FILES:
        return "test configuration"
    if name.endswith(".pth"):
        return ".pth file"
    if any(p.endswith((".dist-info", ".egg-info")) for p in parts):
        return "package metadata"
    if name.endswith((".pyc", ".pyo")) or "__pycache__" in parts:
        return "compiled file"
    return None


@dataclass(frozen=True)
class FileDiff:
    """One file's section of a git diff.

    Attributes:
        path: The file's path (a rename's two paths, joined by NUL).
        text: The section, from its ``diff --git`` line.
        symlink: Whether either side is a symbolic link.
    """

    path: str
    text: str
    symlink: bool


def split_diff(diff: str) -> list[FileDiff]:
    """Splits a ``git diff`` into per-file sections."""
    sections = re.split(r"(?m)^(?=diff --git )", diff)
    files = []
    for section in sections:
        if not section.startswith("diff --git "):
            continue
        header = section.splitlines()[0]
        match = re.match(r'diff --git "?a/(.+?)"? "?b/(.+?)"?$', header)
        paths = sorted({match.group(1), match.group(2)}) if match else [header]
        symlink = bool(
            re.search(r"(?m)^(new file mode|new mode|old mode|deleted file mode) 120000", section)
        )
        # A rename names both sides, joined by NUL: the section is dropped if either is.
        files.append(FileDiff("\0".join(paths), section, symlink))
    return files


def filter_diff(diff: str) -> tuple[str, dict[str, str]]:
    """Drops what grading must ignore from an agent's diff.

    Returns:
        The kept diff and ``{path: why it was dropped}``.
    """
    kept, dropped = [], {}
    for section in split_diff(diff):
        paths = section.path.split("\0")
        reasons = [r for r in map(dropped_reason, paths) if r]
        if section.symlink:
            reasons.append("symbolic link")
        if reasons:
            for path in paths:
                dropped[path] = reasons[0]
        else:
            kept.append(section.text)
    return "".join(kept), dropped


def audit(diff: str) -> list[str]:
    """Added lines of a diff that reach for the test runner's or interpreter's hooks."""
    return [
        line[1:].strip()[:200]
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++") and _AUDIT.search(line)
    ]


def junit_key(test_id: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit XML report gives a test id."""
    path, *names = test_id.split("::")
    module = path[:-3] if path.endswith(".py") else path
    classname = ".".join([module.replace("/", "."), *names[:-1]])
    return classname, names[-1]


def junit_outcomes(xml: bytes) -> tuple[dict[tuple[str, str], str], int]:
    """Each test's outcome in a JUnit XML report, and how many test cases it holds.

    A test reported more than once keeps its worst outcome.

    Raises:
        ValueError: The report is not JUnit XML.
    """
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as e:
        raise ValueError(f"the JUnit report is not XML: {e}") from e
    outcomes: dict[tuple[str, str], str] = {}
    count = 0
    rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    for case in root.iter("testcase"):
        count += 1
        key = (case.get("classname", ""), case.get("name", ""))
        children = {child.tag for child in case}
        if "error" in children:
            outcome = "error"
        elif "failure" in children:
            outcome = "failed"
        elif "skipped" in children:
            outcome = "skipped"
        else:
            outcome = "passed"
        if key not in outcomes or rank[outcome] > rank[outcomes[key]]:
            outcomes[key] = outcome
    return outcomes, count


def harness_ini(python_path: tuple[str, ...], root: str = REPO_DIR) -> str:
    """The ini pytest runs with at grading: no options or plugins from the project.

    ``pythonpath`` entries are made absolute: pytest reads them relative to the ini's
    directory, which is outside the repository.
    """
    paths = " ".join(f"{root}/{p}".rstrip("/.") if p != "." else root for p in python_path)
    return f"[pytest]\npythonpath = {paths}\naddopts =\n"


_RUNNER = """\
import sys
import pytest

ids = [line for line in open(sys.argv[1]).read().splitlines() if line]
sys.exit(pytest.main([
    "-c", sys.argv[2], "--rootdir", sys.argv[3], "-p", "no:cacheprovider",
    "-o", "junit_family=xunit1", "--junitxml", sys.argv[4], "-q", "-rN", *ids,
]))
"""


def _open(backend: Any, image: str, limits: Limits, copy_from: str) -> Any:
    return backend.session(
        "shell",
        image=image,
        limits=limits,
        copy_from=copy_from,
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        idle_timeout_s=limits.wall_s + 60,
    )


def _run(session: Any, command: str, timeout_s: float) -> Any:
    result = session.exec(command, timeout_s=timeout_s)
    if result.error is not None:
        raise InfrastructureError(f"the grading container failed: {result.error}")
    return result


def _restore(session: Any, snapshot: bytes, into: str, timeout_s: float) -> None:
    """Replaces the files of ``into`` (except ``.git``) with the snapshot's."""
    session.put({SNAPSHOT: snapshot})
    done = _run(
        session,
        f"cd {shlex.quote(into)} && find . -mindepth 1 -maxdepth 1 ! -name .git "
        f"! -name {SNAPSHOT} "
        f"-exec rm -rf {{}} + && tar -xmf /work/{SNAPSHOT} --no-same-permissions "
        "--no-overwrite-dir "
        f"--exclude=./.git && rm -f /work/{SNAPSHOT}",
        timeout_s,
    )
    if done.exit_code != 0:
        raise InfrastructureError(f"restoring the agent's files failed: {done.stderr_text[-500:]}")


def snapshot_command(directory: str) -> str:
    """The shell command that packs ``directory`` (without ``.git``) into /work/SNAPSHOT.

    The directory's own entry stays out of the archive: /work belongs to root, and its
    mode cannot be restored by the sandbox user.
    """
    return (
        f"cd {shlex.quote(directory)} && find . -mindepth 1 -maxdepth 1 ! -name .git "
        f"! -name '{SNAPSHOT}*' -printf '%P\\n' | tar -cf /work/{SNAPSHOT}.part -T - "
        f"&& mv /work/{SNAPSHOT}.part /work/{SNAPSHOT}"
    )


def take_snapshot(session: Any, directory: str, timeout_s: float = 60) -> bytes:
    """Packs an agent's directory (without ``.git``) as a tar, read from its container.

    Raises:
        InfrastructureError: The container failed, or the snapshot could not be read.
    """
    done = _run(session, snapshot_command(directory), timeout_s)
    if done.exit_code != 0:
        raise InfrastructureError(f"packing the agent's files failed: {done.stderr_text[-500:]}")
    files = session.get([SNAPSHOT])
    _run(session, f"rm -f /work/{SNAPSHOT}", timeout_s)
    if SNAPSHOT not in files:
        raise InfrastructureError("the agent's files could not be read back")
    return files[SNAPSHOT]


def grade_repo(
    task: HarborTask,
    snapshot: bytes | None,
    *,
    backend: Any,
    image: str,
    diff: str | None = None,
) -> Verdict:
    """Grades a repository task in a fresh container (see the module docstring).

    Args:
        task: A repository task.
        snapshot: The agent's repository as a tar (``take_snapshot``), or None with ``diff``.
        backend: A `DockerBackend`.
        image: The task's instance image.
        diff: A patch against the base state instead of a snapshot (e.g. the gold patch).

    Returns:
        The verdict; ``details`` holds per-test outcomes, the dropped files and the audit.
    """
    if task.repo is None:
        raise ValueError(f"{task.name} is not a repository task; grade it with grade_harbor")
    started = time.monotonic()
    spec = task.repo
    timeout_s = task.timeout("verifier", 600.0)
    limits = Limits(
        wall_s=timeout_s,
        memory_mb=GRADING_LIMITS.memory_mb,
        pids=GRADING_LIMITS.pids,
        disk_mb=GRADING_LIMITS.disk_mb,
        cpus=GRADING_LIMITS.cpus,
        output_bytes=1 << 20,
    )
    try:
        hidden = task.hidden_test_files()
    except ValueError as e:
        return Verdict.error(f"{task.name}: {e}")
    ids = list(spec.fail_to_pass) + list(spec.pass_to_pass)
    try:
        session = _open(backend, image, limits, WORKSPACE)
    except InfrastructureError as e:
        return Verdict.error(f"the grading container did not start: {e}")
    try:
        if snapshot is not None:
            _restore(session, snapshot, REPO_DIR, 60)
            done = _run(session, f"cd {REPO_DIR} && git add -A && git diff --cached --binary", 60)
            if done.exit_code != 0 or done.stdout_truncated:
                raise InfrastructureError(f"taking the diff failed: {done.stderr_text[-500:]}")
            diff = done.stdout_text
            _run(session, f"cd {REPO_DIR} && git reset -q --hard && git clean -fdxq", 60)
        kept, dropped = filter_diff(diff or "")
        session.put(
            {
                ".palaestra/patch.diff": kept,
                ".palaestra/pytest.ini": harness_ini(spec.python_path),
                ".palaestra/ids.txt": "\n".join(ids) + "\n",
                ".palaestra/run.py": _RUNNER,
            }
        )
        applied = _run(
            session,
            f"cd {REPO_DIR} && if [ -s {HARNESS}/patch.diff ]; then "
            f"git apply --whitespace=nowarn {HARNESS}/patch.diff; fi",
            60,
        )
        details: dict[str, Any] = {"dropped": dropped, "audit": audit(kept), "diff": kept}
        if applied.exit_code != 0:
            return Verdict(
                0.0,
                Status.INCORRECT,
                reason=f"the patch does not apply: {applied.stderr_text.strip()[:300]}",
                verifier=VERIFIER,
                details=details,
                elapsed_s=time.monotonic() - started,
            )
        session.put({f"repo/{path}": data for path, data in hidden.items()})
        sums = "".join(
            f"{hashlib.sha256(data).hexdigest()}  {path}\n" for path, data in hidden.items()
        )
        session.put({".palaestra/hidden.sha256": sums})
        checked = _run(
            session, f"cd {REPO_DIR} && sha256sum -c --quiet {HARNESS}/hidden.sha256", 60
        )
        if checked.exit_code != 0:
            raise InfrastructureError(
                f"the hidden tests were not written intact: {checked.stdout_text}"
            )
        ran = session.exec(
            f"cd {REPO_DIR} && python3 -I {HARNESS}/run.py {HARNESS}/ids.txt "
            f"{HARNESS}/pytest.ini {REPO_DIR} {HARNESS}/report.xml",
            timeout_s=timeout_s,
        )
        if ran.error is not None:
            raise InfrastructureError(f"the grading container failed: {ran.error}")
        if ran.timed_out:
            return Verdict(
                0.0,
                Status.TIMEOUT,
                reason=f"the tests ran past the verifier's {timeout_s:g} s",
                verifier=VERIFIER,
                details=details,
                elapsed_s=time.monotonic() - started,
            )
        report = session.get([".palaestra/report.xml"]).get(".palaestra/report.xml")
    except InfrastructureError as e:
        return Verdict.error(str(e))
    finally:
        session.close()
    return _judge(ids, spec.fail_to_pass, ran.exit_code, report, details, started)


def _judge(
    ids: list[str],
    fail_to_pass: tuple[str, ...],
    exit_code: int | None,
    report: bytes | None,
    details: dict[str, Any],
    started: float,
) -> Verdict:
    def verdict(reason: str, resolved: bool = False) -> Verdict:
        return Verdict(
            1.0 if resolved else 0.0,
            Status.CORRECT if resolved else Status.INCORRECT,
            reason=reason,
            verifier=VERIFIER,
            details=details,
            elapsed_s=time.monotonic() - started,
        )

    details["exit_code"] = exit_code
    if report is None:
        return verdict(f"pytest wrote no report (exit status {exit_code})")
    try:
        outcomes, count = junit_outcomes(report)
    except ValueError as e:
        return verdict(str(e))
    per_test = {test_id: outcomes.get(junit_key(test_id), "missing") for test_id in ids}
    details["tests"] = per_test
    details["collected"] = count
    not_passed = [t for t, outcome in per_test.items() if outcome != "passed"]
    f2p_passed = sum(per_test[t] == "passed" for t in fail_to_pass)
    details["fail_to_pass_passed"] = f2p_passed
    if not_passed:
        first = not_passed[0]
        return verdict(
            f"{len(not_passed)} of {len(ids)} graded tests did not pass "
            f"(e.g. {first}: {per_test[first]})"
        )
    if count != len(ids):
        return verdict(f"the report holds {count} tests, but {len(ids)} were selected")
    if exit_code != 0:
        return verdict(f"every test reported passed, but pytest exited with {exit_code}")
    return verdict(f"all {len(ids)} graded tests passed", resolved=True)


def grade_harbor(task: HarborTask, snapshot: bytes, *, backend: Any, image: str) -> Verdict:
    """Grades a generic Harbor task: the agent's files, then ``tests/``, in a fresh container.

    The reward is the number in ``/logs/verifier/reward.txt`` (or ``reward`` in
    ``reward.json``); a missing or unreadable reward scores 0.
    """
    started = time.monotonic()
    timeout_s = task.timeout("verifier", 600.0)
    limits = Limits(wall_s=timeout_s, memory_mb=2048, pids=256, disk_mb=512, cpus=1.0)
    tests = {
        f".palaestra-tests/{p.relative_to(task.tests_dir).as_posix()}": p.read_bytes()
        for p in sorted(task.tests_dir.rglob("*"))
        if p.is_file()
    }
    try:
        session = _open(backend, image, limits, f"{WORKSPACE}/workdir")
    except InfrastructureError as e:
        return Verdict.error(f"the grading container did not start: {e}")
    try:
        _restore(session, snapshot, "/work", 60)
        session.put(tests)
        ran = session.exec(
            "mkdir -p /tmp/palaestra/logs/verifier && mv /work/.palaestra-tests "
            "/tmp/palaestra/tests && cd /work && bash /tests/test.sh",
            timeout_s=timeout_s,
        )
        if ran.error is not None:
            raise InfrastructureError(f"the grading container failed: {ran.error}")
        read = _run(
            session,
            "cat /tmp/palaestra/logs/verifier/reward.txt 2>/dev/null || "
            "cat /tmp/palaestra/logs/verifier/reward.json 2>/dev/null",
            30,
        )
    except InfrastructureError as e:
        return Verdict.error(str(e))
    finally:
        session.close()
    details = {"exit_code": ran.exit_code, "output": ran.stdout_text[-2000:]}
    if ran.timed_out:
        return Verdict(
            0.0,
            Status.TIMEOUT,
            reason=f"test.sh ran past {timeout_s:g} s",
            verifier=VERIFIER,
            details=details,
            elapsed_s=time.monotonic() - started,
        )
    reward = parse_reward(read.stdout_text)
    if reward is None:
        return Verdict(
            0.0,
            Status.NO_ANSWER,
            reason="test.sh wrote no readable reward",
            verifier=VERIFIER,
            details=details,
            elapsed_s=time.monotonic() - started,
        )
    return Verdict(
        reward,
        Status.CORRECT if reward >= 1.0 else Status.INCORRECT,
        reason=f"test.sh wrote reward {reward:g}",
        verifier=VERIFIER,
        details=details,
        elapsed_s=time.monotonic() - started,
    )


def parse_reward(text: str) -> float | None:
    """The reward in a ``reward.txt`` (a number) or ``reward.json`` (``{"reward": x}``)."""
    import json
    import math

    text = text.strip()
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict):
        value = value.get("reward")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
