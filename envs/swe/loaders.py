"""Loaders: SWE-bench-style rows (and Harbor dataset folders) into Harbor task directories.

    rows = read_rows("swe-bench-lite.jsonl")             # or read_rows("org/name", split="test")
    paths = rows_to_tasks(rows, {"psf/requests": "/src/requests"}, out="tasks/")
    env = palaestra.make("SWE-v0", tasks="tasks/")

A row has ``instance_id``, ``repo``, ``base_commit``, ``patch`` (the gold patch),
``test_patch``, ``FAIL_TO_PASS``, ``PASS_TO_PASS`` (lists, or JSON strings of lists) and
``problem_statement``. The repository must be available locally, as a git clone holding
the base commit (nothing is fetched). The task's base state is the base commit's tree, as
a repository of one fresh commit; the files the test patch touches are hidden from the
agent and injected, as the test patch leaves them, at grading. Harbor dataset folders load
directly: `palaestra.envs.swe.task.load_tasks`.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from palaestra.envs.swe.build import apply_patch, export_commit
from palaestra.envs.swe.grading import split_diff
from palaestra.envs.swe.task import sha256_file

REQUIRED = (
    "instance_id",
    "repo",
    "base_commit",
    "patch",
    "test_patch",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "problem_statement",
)


def read_rows(source: str | Path, split: str | None = None) -> list[dict[str, Any]]:
    """Rows from a JSON Lines file, or from a `datasets` split (``split`` given).

    Raises:
        ValueError: A line is not JSON.
    """
    if split is not None:
        from palaestra.errors import require

        datasets = require("datasets", "datasets", "loading SWE-bench rows from a dataset")
        return [dict(row) for row in datasets.load_dataset(str(source), split=split)]
    rows = []
    for number, line in enumerate(Path(source).read_text().splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{source}:{number}: not JSON ({e})") from e
    return rows


def _ids(row: Mapping[str, Any], key: str) -> list[str]:
    value = row[key]
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{row['instance_id']}: {key} must be a list of test ids")
    return value


def row_to_task(row: Mapping[str, Any], repository: str | Path, out: str | Path) -> Path:
    """Writes one SWE-bench-style row as a Harbor task directory; returns its path.

    Raises:
        ValueError: A field is missing or malformed, or the test patch does not apply.
        InfrastructureError: The base commit is not in the local repository.
    """
    missing = [key for key in REQUIRED if key not in row]
    if missing:
        raise ValueError(f"row {row.get('instance_id', '?')} lacks {missing}")
    name = str(row["instance_id"]).replace("/", "__")
    fail_to_pass, pass_to_pass = _ids(row, "FAIL_TO_PASS"), _ids(row, "PASS_TO_PASS")
    task = Path(out) / name
    (task / "environment").mkdir(parents=True, exist_ok=True)
    (task / "tests").mkdir(exist_ok=True)
    (task / "solution").mkdir(exist_ok=True)
    hidden_paths = sorted(
        {section.path.split("\0")[-1] for section in split_diff(row["test_patch"])}
    )
    hidden = {}
    with tempfile.TemporaryDirectory(prefix="palaestra-swebench-") as tmp:
        tree = Path(tmp)
        export_commit(str(repository), row["base_commit"], tree)
        apply_patch(tree, row["test_patch"])
        for relpath in hidden_paths:
            if (tree / relpath).is_file():
                target = task / "tests" / relpath
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes((tree / relpath).read_bytes())
                hidden[relpath] = sha256_file(target)
    graded = {t.split("::", 1)[0] for t in fail_to_pass + pass_to_pass}
    if not graded <= set(hidden):
        raise ValueError(
            f"{name}: tests in {sorted(graded - set(hidden))} are graded but the test patch "
            "does not touch them; this loader grades only the test patch's files"
        )
    (task / "environment" / "base.patch").write_text("")
    (task / "environment" / "Dockerfile").write_text(
        "# Palaestra builds this task from [palaestra] in task.toml (palaestra swe build).\n"
        "FROM python:3.11-slim\n"
    )
    (task / "solution" / "gold.patch").write_text(row["patch"])
    (task / "solution" / "solve.sh").write_text(
        "#!/bin/bash\ncd /work/repo && git apply /solution/gold.patch\n"
    )
    (task / "tests" / "test.sh").write_text(
        "#!/bin/bash\ncd /work/repo && python3 -m pytest -q "
        + " ".join(json.dumps(t) for t in fail_to_pass + pass_to_pass)
        + " && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
    )
    (task / "instruction.md").write_text(str(row["problem_statement"]).rstrip() + "\n")
    table = {
        "package": row["repo"],
        "version": row["base_commit"][:12],
        "source": "git",
        "source_sha256": row["base_commit"],
        "git_repository": str(Path(repository).resolve()),
        "base_patch": "environment/base.patch",
        "requirements": list(row.get("requirements", [])),
        "python_path": list(row.get("python_path", ["."])),
        "difficulty": row.get("difficulty", "medium"),
        "fail_to_pass": fail_to_pass,
        "pass_to_pass": pass_to_pass,
    }
    lines = [
        'version = "1.0"',
        "",
        "[metadata]",
        f"difficulty = {json.dumps(table['difficulty'])}",
        'category = "debugging"',
        "",
        "[palaestra]",
    ]
    lines += [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    lines += ["", "[palaestra.hidden_tests]"]
    lines += [f"{json.dumps(path)} = {json.dumps(digest)}" for path, digest in hidden.items()]
    (task / "task.toml").write_text("\n".join(lines) + "\n")
    return task


def rows_to_tasks(
    rows: Iterable[Mapping[str, Any]], repositories: Mapping[str, str | Path], out: str | Path
) -> list[Path]:
    """Writes every row whose repository is available locally; returns the task directories.

    Raises:
        ValueError: A row's repository is not in ``repositories`` (with the ones given).
    """
    paths = []
    for row in rows:
        if row.get("repo") not in repositories:
            raise ValueError(
                f"{row.get('instance_id')}: no local clone of {row.get('repo')!r} given "
                f"(given: {sorted(repositories)}); clone it and pass its path"
            )
        paths.append(row_to_task(row, repositories[row["repo"]], out))
    return paths
