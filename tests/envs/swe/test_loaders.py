"""SWE-bench-style rows from a local clone become Harbor tasks that build and grade."""

from __future__ import annotations

import json
import subprocess

import pytest

from palaestra.envs.swe import build, grading
from palaestra.envs.swe.generate import unified_diff
from palaestra.envs.swe.loaders import read_rows, rows_to_tasks
from palaestra.envs.swe.task import load_task

BUGGY = "def add(a, b):\n    return a - b\n"
PATCH = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""
OLD_TESTS = "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
TEST_PATCH = unified_diff(
    "tests/test_calc.py", OLD_TESTS, OLD_TESTS + "\n\ndef test_two():\n    assert add(1, 1) == 2\n"
)


@pytest.fixture
def clone(tmp_path):
    repo = tmp_path / "calc"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text(BUGGY)
    (repo / "tests" / "test_calc.py").write_text(OLD_TESTS)
    for command in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "one"],
        ["git", "commit", "-qm", "two", "--allow-empty", "-c", "user.name=a"],
    ):
        subprocess.run(command, cwd=repo, check=False, capture_output=True)
    return repo


def _row(clone) -> dict:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    return {
        "instance_id": "calc__calc-1",
        "repo": "calc/calc",
        "base_commit": commit,
        "patch": PATCH,
        "test_patch": TEST_PATCH,
        "FAIL_TO_PASS": json.dumps(["tests/test_calc.py::test_two"]),
        "PASS_TO_PASS": ["tests/test_calc.py::test_zero"],
        "problem_statement": "add(1, 1) returns 0; it should return 2.",
    }


def test_rows_from_jsonl_become_tasks_with_the_test_patch_hidden(clone, tmp_path):
    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text(json.dumps(_row(clone)) + "\n")
    (path,) = rows_to_tasks(read_rows(rows_file), {"calc/calc": clone}, tmp_path / "tasks")
    task = load_task(path)
    assert task.repo.fail_to_pass == ("tests/test_calc.py::test_two",)
    assert b"def test_two" in task.hidden_test_files()["tests/test_calc.py"]
    assert task.instruction.startswith("add(1, 1) returns 0")
    with pytest.raises(ValueError, match="no local clone"):
        rows_to_tasks([_row(clone)], {}, tmp_path / "other")


@pytest.mark.docker
def test_a_loaded_row_builds_and_its_gold_patch_resolves(swe_ready, backend, clone, tmp_path):
    (path,) = rows_to_tasks([_row(clone)], {"calc/calc": clone}, tmp_path / "tasks")
    task = load_task(path)
    image = build.build_task(task, log=lambda _line: None).image
    gold = grading.grade_repo(task, None, backend=backend, image=image, diff=PATCH)
    assert gold.correct, gold.reason
    empty = grading.grade_repo(task, None, backend=backend, image=image, diff="")
    assert not empty.correct and not empty.mask
    assert empty.details["tests"] == {
        "tests/test_calc.py::test_two": "failed",
        "tests/test_calc.py::test_zero": "passed",
    }
