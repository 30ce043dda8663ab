"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def registered():
    """Registers ids for one test and removes them afterwards: `registered("Id-v0", entry)`."""
    import palaestra

    added: list[str] = []

    def add(env_id: str, entry_point, **fields):
        palaestra.register(env_id, entry_point, **fields)
        added.append(env_id)
        return env_id

    yield add
    for env_id in added:
        palaestra.deregister(env_id)


@pytest.fixture
def palaestra_script() -> str:
    """The `palaestra` console script of this interpreter's environment."""
    candidate = Path(sys.executable).with_name("palaestra")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("palaestra")
    if found is None:
        pytest.fail("the palaestra console script is not installed (pip install -e .)")
    return found


def child_env(**extra: str) -> dict[str, str]:
    """The environment for child interpreters (no inherited hash seed)."""
    env = dict(os.environ)
    env.pop("PYTHONHASHSEED", None)
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def subprocess_env():
    """`child_env` as a fixture: ``subprocess_env(NAME="value")``."""
    return child_env


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory) -> Path:
    """A cache folder of this test run: the tiny pair is built fresh here once.

    pytest-xdist workers share it (the parent of each worker's base temp folder is the
    run's), and a file lock lets the first worker build while the others wait, instead of
    each training the same tokenizer on the same corpus.
    """
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / "palaestra-cache"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def tokenizer(tiny_cache):
    """The tiny tokenizer, built fresh once per run (tests/trainers has its own)."""
    from filelock import FileLock

    from palaestra.agents.tiny import tiny_tokenizer

    with FileLock(str(tiny_cache / "build.lock")):
        return tiny_tokenizer(cache_dir=tiny_cache)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root."""
    return ROOT


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (``CI`` set), a skip is a failure unless the test needs a GPU.

    `.ci/run` installs everything the tests need (the extras, Docker, the sandbox's numpy
    and sympy), so a skip there means a missing install step, not a missing machine.
    """
    outcome = yield
    report = outcome.get_result()
    if (
        os.environ.get("CI")
        and report.skipped
        and not hasattr(report, "wasxfail")
        and item.get_closest_marker("gpu") is None
    ):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped in CI, where only GPU tests may skip: {reason}"
