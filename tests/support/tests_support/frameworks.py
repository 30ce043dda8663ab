"""Runs tests/integrations/frameworks_driver.py (verl's or OpenRLHF's code) once per test run.

The frameworks live outside the venv (.ci/setup-frameworks.sh), so their code runs in a
subprocess. Its JSON result is kept in the run's temp folder, shared by pytest-xdist
workers, under a file lock: the first worker to ask runs the driver, the others read it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DRIVER = ROOT / "tests" / "integrations" / "frameworks_driver.py"
FRAMEWORKS = Path(os.environ.get("PALAESTRA_FRAMEWORKS", ROOT / ".frameworks"))


def drive(framework: str, env_ids: list[str], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The driver's result for ``framework`` (``"verl"`` or ``"openrlhf"``) on ``env_ids``."""
    from filelock import FileLock

    if not (FRAMEWORKS / "site" / framework).is_dir():
        pytest.fail(f"{framework}'s code is not in {FRAMEWORKS}: run .ci/setup-frameworks.sh")
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / f"frameworks-{framework}"
    folder.mkdir(exist_ok=True)
    result_path = folder / "result.json"
    with FileLock(str(folder / "driver.lock")):
        if not result_path.exists():
            result = subprocess.run(
                [sys.executable, str(DRIVER), str(FRAMEWORKS), str(folder), framework, *env_ids],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert result.returncode == 0, result.stderr[-4000:]
            result_path.write_text(result.stdout.splitlines()[-1], encoding="utf-8")
    return json.loads(result_path.read_text(encoding="utf-8"))
