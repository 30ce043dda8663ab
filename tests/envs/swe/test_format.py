"""The Harbor task format, the diff filter and the report parser (no Docker needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from palaestra.envs.swe import build, grading
from palaestra.envs.swe.env import SWEEnv, cut_middle
from palaestra.envs.swe.task import TaskFormatError, load_task, load_tasks, shipped_tasks
from palaestra.errors import InfrastructureError


def test_every_shipped_task_loads_with_its_hidden_tests_matching_their_sha256():
    tasks = shipped_tasks()
    packages = {t.repo.package for t in tasks}
    assert len(tasks) >= 6 and len(packages) >= 2
    for task in tasks:
        files = task.hidden_test_files()
        assert set(files) == set(task.repo.hidden_tests)
        assert task.gold_patch()
        assert task.instruction.strip()
        for test_id in task.repo.fail_to_pass:
            # A bug report never names the hidden test.
            assert test_id.split("::")[-1].split("[")[0] not in task.instruction


def _copy_task(tmp_path: Path) -> Path:
    source = shipped_tasks()[0].path
    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


def test_a_changed_hidden_test_is_refused(tmp_path):
    task_dir = _copy_task(tmp_path)
    task = load_task(task_dir)
    hidden = next(iter(task.repo.hidden_tests))
    with open(task_dir / "tests" / hidden, "a") as f:
        f.write("\ndef test_forged():\n    pass\n")
    with pytest.raises(TaskFormatError, match="does not match its sha256"):
        task.hidden_test_files()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: (d / "instruction.md").unlink(), "instruction.md is missing"),
        (lambda d: (d / "task.toml").write_text("[palaestra\n"), "cannot read it as TOML"),
        (
            lambda d: (d / "task.toml").write_text(
                (d / "task.toml").read_text().replace('difficulty = "', 'difficulty = "x', 2)
            ),
            "difficulty must be one of",
        ),
        (
            lambda d: (d / "task.toml").write_text(
                (d / "task.toml")
                .read_text()
                .replace("fail_to_pass = [", "fail_to_pass = [\n]\nx = [")
            ),
            "fail_to_pass lists no test",
        ),
    ],
)
def test_malformed_tasks_are_refused_with_the_file_named(tmp_path, edit, message):
    task_dir = _copy_task(tmp_path)
    edit(task_dir)
    with pytest.raises(TaskFormatError, match=message):
        load_task(task_dir)


def test_a_folder_without_tasks_is_refused(tmp_path):
    with pytest.raises(TaskFormatError, match="holds no task"):
        load_tasks(tmp_path)


def _section(path: str, body: str = "@@ -1 +1 @@\n-a\n+b\n", mode: str = "") -> str:
    return f"diff --git a/{path} b/{path}\n{mode}--- a/{path}\n+++ b/{path}\n{body}"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("tests/test_core.py", "test file"),
        ("pkg/tests/helpers.py", "test file"),
        ("test_inflection.py", "test file"),
        ("pkg/core_test.py", "test file"),
        ("conftest.py", "test configuration"),
        ("pkg/conftest.py", "test configuration"),
        ("setup.cfg", "test configuration"),
        ("tox.ini", "test configuration"),
        ("pytest.ini", "test configuration"),
        ("pyproject.toml", "test configuration"),
        ("sitecustomize.py", "test configuration"),
        ("usercustomize.py", "test configuration"),
        ("evil.pth", ".pth file"),
        ("forge-1.0.dist-info/entry_points.txt", "package metadata"),
    ],
)
def test_the_diff_filter_drops_what_grading_ignores(path, reason):
    kept, dropped = grading.filter_diff(_section("pkg/core.py") + _section(path))
    assert dropped == {path: reason}
    assert kept == _section("pkg/core.py")


def test_the_diff_filter_drops_symbolic_links():
    link = _section("pkg/core.py", "@@ -0,0 +1 @@\n+/etc/passwd\n", "new file mode 120000\n")
    kept, dropped = grading.filter_diff(link + _section("pkg/util.py"))
    assert dropped == {"pkg/core.py": "symbolic link"}
    assert kept == _section("pkg/util.py")


def test_junit_ids_and_the_worst_outcome_of_a_repeated_test():
    assert grading.junit_key("a/b/test_x.py::C::test_y[1-2]") == ("a.b.test_x.C", "test_y[1-2]")
    xml = b"""<testsuites><testsuite tests="3">
      <testcase classname="test_x" name="test_a"/>
      <testcase classname="test_x" name="test_a"><failure message="no"/></testcase>
      <testcase classname="test_x" name="test_b"><skipped/></testcase>
    </testsuite></testsuites>"""
    outcomes, count = grading.junit_outcomes(xml)
    assert outcomes == {("test_x", "test_a"): "failed", ("test_x", "test_b"): "skipped"}
    assert count == 3


@pytest.mark.parametrize(
    ("outcomes", "exit_code", "resolved"),
    [
        ({"a": "passed", "b": "passed"}, 0, True),
        ({"a": "passed", "b": "skipped"}, 0, False),
        ({"a": "passed"}, 0, False),  # a missing test is a failure
        ({"a": "passed", "b": "error"}, 1, False),
        ({"a": "passed", "b": "passed"}, 1, False),  # the exit code disagrees
        ({"a": "passed", "b": "passed", "c": "passed"}, 0, False),  # an extra test collected
    ],
)
def test_resolved_needs_every_id_passed_the_exit_code_and_the_count(outcomes, exit_code, resolved):
    cases = "".join(
        f'<testcase classname="test_m" name="{name}">'
        + ("<skipped/>" if o == "skipped" else "<error/>" if o == "error" else "")
        + "</testcase>"
        for name, o in outcomes.items()
    )
    report = f"<testsuite>{cases}</testsuite>".encode()
    ids = ["test_m.py::a", "test_m.py::b"]
    verdict = grading._judge(ids, ("test_m.py::a",), exit_code, report, {}, 0.0)
    assert verdict.correct is resolved
    assert not verdict.mask


def test_no_report_is_not_resolved():
    verdict = grading._judge(["test_m.py::a"], ("test_m.py::a",), 0, None, {}, 0.0)
    assert not verdict.correct and not verdict.mask


def test_a_from_naming_an_absent_image_says_which_base_to_map_it_to():
    dockerfile = "FROM python:3.11-slim AS build\nRUN true\nFROM build\n"
    with pytest.raises(InfrastructureError, match=r"--base-map python:3.11-slim=palaestra-sandbox"):
        build.map_dockerfile(dockerfile, {}, lambda image: False, "Dockerfile")
    mapped = build.map_dockerfile(
        dockerfile, {"python:3.11-slim": "local:base"}, lambda image: image == "local:base", "x"
    )
    assert mapped == "FROM local:base AS build\nRUN true\nFROM build\n"


def test_base_map_items_are_checked():
    assert build.parse_base_map(["a:1=b:2"]) == {"a:1": "b:2"}
    with pytest.raises(ValueError, match="public=local"):
        build.parse_base_map(["python:3.11"])


def test_long_output_is_cut_in_the_middle():
    text = "head" + "x" * 1000 + "tail"
    cut = cut_middle(text, 100)
    assert cut.startswith("head") and cut.endswith("tail") and "characters cut" in cut
    assert cut_middle("short", 100) == "short"


def test_tool_paths_stay_inside_the_repository():
    env = SWEEnv(task=shipped_tasks()[0].name)
    env.task = shipped_tasks()[0]
    assert env._relpath("pkg/a.py") == "repo/pkg/a.py"
    assert env._relpath("/work/repo/pkg/a.py") == "repo/pkg/a.py"
    for bad in ("../x", "/etc/passwd", "/work/other", ".git/config"):
        with pytest.raises(ValueError):
            env._relpath(bad)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="protocol"):
        SWEEnv(protocol="json")
    with pytest.raises(ValueError, match="no task named"):
        SWEEnv(task="no-such-task")


def test_the_reproducer_is_the_first_literal_call_whose_outcome_differs():
    from palaestra.envs.swe.describe import first_difference, module_of

    fixed = [
        {"args": [["x", "<object>"]], "result": "1"},
        {"args": [["x", "'a'"]], "result": "'A'"},
        {"args": [["x", "'b'"]], "result": "'B'"},
    ]
    buggy = [
        {"args": [["x", "<object>"]], "result": "2"},  # not a literal: no reproducer from it
        {"args": [["x", "'a'"]], "result": "'A'"},
        {"args": [["x", "'b'"]], "raised": "IndexError: no such group"},
    ]
    assert first_difference(buggy, fixed) == (
        [["x", "'b'"]],
        "raises IndexError: no such group",
        "'B'",
    )
    assert first_difference(fixed, fixed) is None
    assert module_of("src/cachetools/func.py") == "cachetools.func"
    assert module_of("inflection/__init__.py") == "inflection"


# The shipped tasks of SWE-v0 and SWEBash-v0: a change to any file is a new version of the ids.
SHIPPED_V0 = "e1a75bf3c64989d9664654fda4729373de57fb9d2efea6bf05db0bb43dc2a149"


def test_the_shipped_task_set_is_pinned_to_its_version():
    import hashlib

    from palaestra.envs.swe.task import shipped_dir

    digest = hashlib.sha256()
    for path in sorted(shipped_dir().rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(shipped_dir()).as_posix().encode()
            digest.update(relative + b"\0" + path.read_bytes() + b"\0")
    assert digest.hexdigest() == SHIPPED_V0, (
        "the shipped SWE tasks changed: register new ids (SWE-v1, SWEBash-v1) for the new set"
    )
