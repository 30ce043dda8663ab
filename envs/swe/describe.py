"""Bug reports with a reproducer, for repository tasks made by mutation.

The failing tests run twice in a container from the task's instance image, with the bug
and with the gold patch, while a tracer records each call of the mutated function (its
arguments and what it returned or raised). The first call whose arguments read back as
Python literals and whose outcome differs becomes the report's reproducer: the call, what
it gives, and what the reporter expected. The hidden tests are never named.
"""

from __future__ import annotations

import ast
import json
import shlex
from typing import Any

from palaestra.envs.swe import grading
from palaestra.envs.swe.build import REPO_DIR, WORKSPACE
from palaestra.envs.swe.task import HarborTask
from palaestra.errors import InfrastructureError
from palaestra.sandbox.api import Limits

_TRACER = """\
import json, sys
import pytest

target_file, target_name, out, ids_file, ini, root = sys.argv[1:7]
records = []

def tracer(frame, event, arg):
    code = frame.f_code
    if event != "call" or code.co_name != target_name or not code.co_filename.endswith(target_file):
        return None
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    try:
        args = [[name, repr(frame.f_locals[name])] for name in names if name in frame.f_locals]
    except Exception:
        return None
    record = {"args": args}
    records.append(record)

    def local(frame, event, arg):
        if event == "exception":
            record["raised"] = arg[0].__name__ + ": " + str(arg[1])[:200]
        elif event == "return":
            if "raised" not in record or arg is not None:
                record.pop("raised", None)
                try:
                    record["result"] = repr(arg)[:300]
                except Exception:
                    record["result"] = "?"
        return local
    return local

ids = [line for line in open(ids_file).read().splitlines() if line]
sys.settrace(tracer)
try:
    pytest.main(["-c", ini, "--rootdir", root, "-p", "no:cacheprovider", "-q", *ids])
finally:
    sys.settrace(None)
    json.dump(records[:2000], open(out, "w"))
"""


def _outcome(record: dict[str, Any]) -> str | None:
    if "raised" in record:
        return f"raises {record['raised']}"
    return record.get("result")


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def first_difference(
    buggy: list[dict[str, Any]], fixed: list[dict[str, Any]]
) -> tuple[list[list[str]], str, str] | None:
    """The first call (in the buggy run) whose outcome differs from the fixed run's.

    Returns:
        ``(args, got, expected)``, or None when no call with literal arguments differs.
    """
    expected: dict[str, str] = {}
    for record in fixed:
        key = json.dumps(record["args"])
        outcome = _outcome(record)
        if outcome is not None:
            expected.setdefault(key, outcome)
    for record in buggy:
        key = json.dumps(record["args"])
        got = _outcome(record)
        if got is None or key not in expected or expected[key] == got:
            continue
        if all(_literal(value) for _, value in record["args"]) and (
            expected[key].startswith("raises") or _literal(expected[key])
        ):
            return record["args"], got, expected[key]
    return None


def _trace(task: HarborTask, backend: Any, image: str, target: tuple[str, str], patch: str):
    assert task.repo is not None
    session = backend.session(
        "shell",
        image=image,
        copy_from=WORKSPACE,
        limits=Limits(wall_s=300, memory_mb=2048, pids=256, disk_mb=512, cpus=1.0),
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    try:
        session.put({f"repo/{p}": d for p, d in task.hidden_test_files().items()})
        session.put(
            {
                ".palaestra/trace.py": _TRACER,
                ".palaestra/patch.diff": patch,
                ".palaestra/pytest.ini": grading.harness_ini(task.repo.python_path),
                ".palaestra/ids.txt": "\n".join(task.repo.fail_to_pass) + "\n",
            }
        )
        h = "/work/.palaestra"
        apply = f"git apply {h}/patch.diff && " if patch.strip() else ""
        result = session.exec(
            f"cd {REPO_DIR} && {apply}python3 -I {h}/trace.py {shlex.quote(target[0])} "
            f"{shlex.quote(target[1])} {h}/calls.json {h}/ids.txt {h}/pytest.ini {REPO_DIR} "
            ">/dev/null 2>&1",
            timeout_s=300,
        )
        if result.error is not None:
            raise InfrastructureError(f"tracing failed: {result.error}")
        data = session.get([".palaestra/calls.json"]).get(".palaestra/calls.json")
        return json.loads(data) if data else []
    finally:
        session.close()


def reproducer(
    task: HarborTask, backend: Any, image: str, path: str, function: str, module: str
) -> str | None:
    """A short reproducer of the task's bug, or None when none could be found.

    Args:
        task: A repository task.
        backend: A `DockerBackend`.
        image: The task's instance image.
        path: The mutated file (relative to the repository).
        function: The mutated function's qualified name (``name`` or ``Class.name``).
        module: The importable module of ``path``.
    """
    name = function.rsplit(".", 1)[-1]
    if "." in function or name.startswith("_"):
        return None  # methods and private helpers have no call a user would write
    buggy = _trace(task, backend, image, (path, name), "")
    fixed = _trace(task, backend, image, (path, name), task.gold_patch() or "")
    found = first_difference(buggy, fixed)
    if found is None:
        return None
    args, got, expected = found
    call = ", ".join(value for _, value in args)
    got_text = got if got.startswith("raises") else f"returns {got}"
    expected_text = (
        f"it to {expected.replace('raises', 'raise', 1)}"
        if expected.startswith("raises")
        else expected
    )
    return (
        f"```python\n>>> from {module} import {name}\n>>> {name}({call})\n```\n\n"
        f"This {got_text}; I expected {expected_text}."
    )


def module_of(path: str) -> str:
    """The importable module of a source file (``src/pkg/mod.py`` -> ``pkg.mod``)."""
    parts = list(path.removesuffix(".py").split("/"))
    if parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def describe_task(task: HarborTask, backend: Any, image: str) -> bool:
    """Rewrites a mutation task's ``instruction.md`` around a reproducer, if one is found.

    Returns:
        Whether the instruction was rewritten.
    """
    assert task.repo is not None
    mutations = task.config.get("palaestra", {}).get("mutations") or []
    if len(mutations) != 1 or not mutations[0].startswith(("flip_", "swap_", "off_", "drop_")):
        return False
    _, _, where = mutations[0].partition(" in ")
    path, _, function = where.partition(":")
    module = module_of(path)
    found = reproducer(task, backend, image, path, function, module)
    if found is None:
        return False
    name = f"`{module}.{function}`"
    (task.path / "instruction.md").write_text(
        f"# Wrong results from {name}\n\n"
        f"After upgrading, {name} in {task.repo.package} misbehaves:\n\n{found}\n\n"
        "The function should behave as documented; nothing else in the package should change.\n"
    )
    return True
