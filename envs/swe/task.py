"""Harbor task directories: load one task, or every task of a dataset folder.

A Harbor task is a directory::

    task.toml               configuration ([metadata], [verifier], [agent], [environment])
    instruction.md          what the agent is asked to do
    environment/Dockerfile  the image the agent works in (its build context is environment/)
    tests/test.sh           run after the agent finishes; writes the reward to
                            /logs/verifier/reward.txt (or reward.json)
    solution/solve.sh       a reference solution (optional)

Palaestra's repository tasks add a ``[palaestra]`` table to ``task.toml``: the package and
version whose source distribution is the repository, the sha256 of that source, the patch
that turns it into the task's base state, the ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` test
ids, the hidden test files (kept in ``tests/``) with their sha256, and the difficulty.
Such a task is built from its metadata (layers on the local base image, nothing fetched
at build time) and graded by :mod:`palaestra.envs.swe.grading`; any other task is built
from its Dockerfile and graded by its ``tests/test.sh``, as Harbor does.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palaestra.errors import require

DIFFICULTIES = ("easy", "medium", "hard")
_TEST_ID = re.compile(r"^[^\s:]+\.py(::[^\n]+)+$")


class TaskFormatError(ValueError):
    """A task directory breaks the Harbor format (the message names the file and the fix)."""


def _toml(path: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = require("tomli", "swe", "reading task.toml on Python 3.10")
    try:
        return tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise TaskFormatError(f"{path}: cannot read it as TOML ({e})") from e


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class RepoSpec:
    """The ``[palaestra]`` table of a repository task.

    Attributes:
        package: The PyPI name of the package whose source distribution is the repository.
        version: Its version.
        source: The source distribution's file name (looked up in the wheelhouse), or
            ``"git"`` for a commit of a local git repository.
        source_sha256: The sha256 of that file (for ``"git"``: the commit's full id).
        base_patch: Path (in the task directory) of the patch from the pristine source to
            the base state the agent starts from.
        requirements: Wheels installed in the environment layer (``name==version``).
        python_path: Directories of the repository put on ``sys.path`` (``"."``, ``"src"``).
        fail_to_pass: Test ids the fix must make pass.
        pass_to_pass: Test ids that pass before and must still pass after.
        hidden_tests: ``{path in the repository: sha256}`` of the test files kept out of
            the agent's image (their content is in ``tests/``).
        difficulty: ``easy``, ``medium`` or ``hard``.
        git_repository: For ``source = "git"``: the path of the local clone.
    """

    package: str
    version: str
    source: str
    source_sha256: str
    base_patch: str
    requirements: tuple[str, ...]
    python_path: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    hidden_tests: dict[str, str]
    difficulty: str
    git_repository: str | None = None

    @classmethod
    def from_table(cls, table: dict[str, Any], where: str) -> RepoSpec:
        """Reads and checks the ``[palaestra]`` table; raises `TaskFormatError` naming the key."""

        def get(key: str, kind: type, default: Any = None) -> Any:
            value = table.get(key, default)
            if value is None or not isinstance(value, kind):
                raise TaskFormatError(
                    f"{where}: [palaestra].{key} must be a {kind.__name__}, got {value!r}"
                )
            return value

        def strings(key: str) -> tuple[str, ...]:
            values = get(key, list, [])
            if not all(isinstance(v, str) and v for v in values):
                raise TaskFormatError(f"{where}: [palaestra].{key} must be a list of strings")
            return tuple(values)

        spec = cls(
            package=get("package", str),
            version=get("version", str),
            source=get("source", str),
            source_sha256=get("source_sha256", str),
            base_patch=get("base_patch", str),
            requirements=strings("requirements"),
            python_path=strings("python_path") or (".",),
            fail_to_pass=strings("fail_to_pass"),
            pass_to_pass=strings("pass_to_pass"),
            hidden_tests=dict(get("hidden_tests", dict)),
            difficulty=get("difficulty", str),
            git_repository=get("git_repository", str) if table.get("source") == "git" else None,
        )
        if spec.git_repository is not None:
            if not re.fullmatch(r"[0-9a-f]{40}", spec.source_sha256):
                raise TaskFormatError(
                    f"{where}: [palaestra].source_sha256 of a git source is the commit's 40 hex"
                )
        elif not re.fullmatch(r"[0-9a-f]{64}", spec.source_sha256):
            raise TaskFormatError(f"{where}: [palaestra].source_sha256 must be 64 hex digits")
        if spec.difficulty not in DIFFICULTIES:
            raise TaskFormatError(
                f"{where}: [palaestra].difficulty must be one of {DIFFICULTIES}, "
                f"got {spec.difficulty!r}"
            )
        if not spec.fail_to_pass:
            raise TaskFormatError(f"{where}: [palaestra].fail_to_pass lists no test")
        for test_id in spec.fail_to_pass + spec.pass_to_pass:
            if not _TEST_ID.match(test_id):
                raise TaskFormatError(
                    f"{where}: {test_id!r} is not a pytest id (path.py::name[::name])"
                )
        overlap = set(spec.fail_to_pass) & set(spec.pass_to_pass)
        if overlap:
            raise TaskFormatError(
                f"{where}: ids in both fail_to_pass and pass_to_pass: {sorted(overlap)[:3]}"
            )
        if not spec.hidden_tests:
            raise TaskFormatError(f"{where}: [palaestra].hidden_tests lists no file")
        for path in list(spec.hidden_tests) + list(spec.python_path):
            parts = Path(path).parts
            if Path(path).is_absolute() or ".." in parts:
                raise TaskFormatError(f"{where}: {path!r} must be relative, without '..'")
        files = {t.split("::", 1)[0] for t in spec.fail_to_pass + spec.pass_to_pass}
        missing = files - set(spec.hidden_tests)
        if missing:
            raise TaskFormatError(
                f"{where}: tests in {sorted(missing)} are graded but not in hidden_tests"
            )
        return spec


@dataclass(frozen=True)
class HarborTask:
    """One Harbor task directory.

    Attributes:
        path: The task directory.
        name: The directory's name (the task id).
        instruction: The text of ``instruction.md``.
        config: ``task.toml`` as a dict.
        repo: The ``[palaestra]`` table of a repository task, or None for a generic task.
    """

    path: Path
    name: str
    instruction: str
    config: dict[str, Any]
    repo: RepoSpec | None = None

    @property
    def environment_dir(self) -> Path:
        """The Docker build context (``environment/``)."""
        return self.path / "environment"

    @property
    def tests_dir(self) -> Path:
        """``tests/``: copied in only after the agent has finished."""
        return self.path / "tests"

    @property
    def solution_dir(self) -> Path:
        """``solution/``: the reference solution."""
        return self.path / "solution"

    def timeout(self, section: str, default: float) -> float:
        """``[section].timeout_sec`` of ``task.toml`` (``agent`` or ``verifier``)."""
        value = self.config.get(section, {}).get("timeout_sec", default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise TaskFormatError(
                f"{self.path}/task.toml: [{section}].timeout_sec must be a positive number"
            )
        return float(value)

    @property
    def difficulty(self) -> str | None:
        """The task's difficulty, from ``[palaestra]`` or ``[metadata]``."""
        if self.repo is not None:
            return self.repo.difficulty
        return self.config.get("metadata", {}).get("difficulty")

    def gold_patch(self) -> str | None:
        """The reference patch of a repository task (``solution/gold.patch``), or None."""
        path = self.solution_dir / "gold.patch"
        return path.read_text() if path.is_file() else None

    def hidden_test_files(self) -> dict[str, bytes]:
        """The hidden test files of a repository task, each checked against its sha256.

        Raises:
            TaskFormatError: A file is missing or its content does not match ``task.toml``.
        """
        if self.repo is None:
            raise TaskFormatError(f"{self.path} is not a repository task")
        files = {}
        for relpath, digest in self.repo.hidden_tests.items():
            path = self.tests_dir / relpath
            if not path.is_file():
                raise TaskFormatError(f"{self.path}: hidden test file tests/{relpath} is missing")
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:
                raise TaskFormatError(
                    f"{self.path}: tests/{relpath} does not match its sha256 in task.toml "
                    "(the task directory was changed; regenerate or restore it)"
                )
            files[relpath] = data
        return files


def load_task(path: str | Path) -> HarborTask:
    """Loads one Harbor task directory.

    Raises:
        TaskFormatError: A required file is missing or malformed.
    """
    root = Path(path)
    if not root.is_dir():
        raise TaskFormatError(f"{root} is not a directory (a Harbor task is a directory)")
    toml_path = root / "task.toml"
    if not toml_path.is_file():
        raise TaskFormatError(f"{root}: task.toml is missing")
    config = _toml(toml_path)
    instruction_path = root / "instruction.md"
    if not instruction_path.is_file():
        raise TaskFormatError(f"{root}: instruction.md is missing")
    repo = None
    if "palaestra" in config:
        repo = RepoSpec.from_table(config["palaestra"], f"{toml_path}")
        patch = root / repo.base_patch
        if not patch.is_file():
            raise TaskFormatError(f"{root}: the base patch {repo.base_patch} is missing")
    else:
        if not (root / "environment" / "Dockerfile").is_file():
            raise TaskFormatError(f"{root}: environment/Dockerfile is missing")
        if not (root / "tests" / "test.sh").is_file():
            raise TaskFormatError(f"{root}: tests/test.sh is missing")
    task = HarborTask(
        path=root.resolve(),
        name=root.resolve().name,
        instruction=instruction_path.read_text(),
        config=config,
        repo=repo,
    )
    task.timeout("agent", 1800.0)
    task.timeout("verifier", 600.0)
    return task


def load_tasks(path: str | Path) -> list[HarborTask]:
    """Loads a task directory, or every task directory in a dataset folder (sorted by name).

    Raises:
        TaskFormatError: The folder holds no task, or one task is malformed.
    """
    root = Path(path)
    if (root / "task.toml").is_file():
        return [load_task(root)]
    if not root.is_dir():
        raise TaskFormatError(f"{root} is neither a task directory nor a dataset folder")
    tasks = [load_task(p) for p in sorted(root.iterdir()) if (p / "task.toml").is_file()]
    if not tasks:
        raise TaskFormatError(f"{root} holds no task directory (none has a task.toml)")
    return tasks


def shipped_dir() -> Path:
    """The folder of Palaestra's shipped repository tasks."""
    return Path(__file__).parent / "data" / "tasks"


def shipped_tasks(package: str | None = None) -> list[HarborTask]:
    """The shipped repository tasks (of one package, if given)."""
    tasks = load_tasks(shipped_dir())
    if package is not None:
        tasks = [t for t in tasks if t.repo is not None and t.repo.package == package]
        if not tasks:
            raise ValueError(f"no shipped task is from the package {package!r}")
    return tasks
