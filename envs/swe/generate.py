"""Make repository tasks from any pure-Python package on PyPI by mutating its source.

    palaestra swe generate inflection==0.5.1 --count 5 --out envs/swe/data/tasks

For a package whose source distribution ships its tests:

1. The source distribution is fetched into the wheelhouse (``pip download``) and its test
   suite is run three times in a container on the local base image; the tests that pass
   every time are the stable baseline.
2. Mutations of the library's source (not its tests) are drawn with a seeded generator:
   flipped comparisons, swapped ``and``/``or`` and ``+``/``-``, off-by-one constants,
   dropped ``if`` branches, swapped call arguments, and function bodies removed (to
   re-implement); pairs of mutations in two functions make multi-location bugs.
3. A mutant is kept when some baseline tests fail with it (``FAIL_TO_PASS``) without
   breaking most of the suite; the test files holding them are hidden, and their other
   baseline tests are ``PASS_TO_PASS``.
4. The task directory is written (``task.toml``, a bug report in ``instruction.md`` with
   the function and the failing behaviour but never the test, the base patch, the gold
   patch, the hidden tests) and validated by building its image and grading, three
   times each, the gold patch (must resolve) and the empty patch (must not).
5. The bug report gets a reproducer where one is found (`palaestra.envs.swe.describe`):
   the first call of the mutated function whose result differs from the fixed code's.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import re
import shlex
import shutil
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.envs.swe import grading
from palaestra.envs.swe.build import _pip_download, env_layer, extract_source, wheelhouse
from palaestra.envs.swe.task import load_task
from palaestra.errors import InfrastructureError
from palaestra.sandbox.api import Limits

Log = Callable[[str], None]
_FLIP = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")
_SKIP_DIRS = {"docs", "doc", "examples", "benchmarks", "bench", ".git", "build"}


@dataclass(frozen=True)
class Mutation:
    """One edit of one module: replace lines/columns ``span`` of ``path`` with ``text``."""

    path: str
    function: str
    kind: str
    span: tuple[int, int, int, int]
    text: str

    def apply(self, source: str) -> str:
        """The module's source with this edit."""
        lines = source.splitlines(keepends=True)
        start_line, start_col, end_line, end_col = self.span
        before = "".join(lines[: start_line - 1]) + lines[start_line - 1][:start_col]
        after = lines[end_line - 1][end_col:] + "".join(lines[end_line:])
        return before + self.text + after


def _sites(path: str, source: str) -> Iterator[Mutation]:
    tree = ast.parse(source)

    def span(node: ast.AST) -> tuple[int, int, int, int]:
        return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def walk(node: ast.AST, function: str) -> Iterator[Mutation]:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{function}.{child.name}" if function else child.name
                body = child.body
                doc = ast.get_docstring(child) is not None
                rest = body[1:] if doc else body
                if rest and len(rest) >= 3 and not child.name.startswith("__"):
                    first, last = rest[0], rest[-1]
                    indent = " " * first.col_offset
                    yield Mutation(
                        path,
                        name,
                        "remove_body",
                        (first.lineno, 0, last.end_lineno, last.end_col_offset),
                        f"{indent}raise NotImplementedError",
                    )
            elif isinstance(child, ast.ClassDef):
                name = f"{function}.{child.name}" if function else child.name
            if function:
                yield from _node_sites(child, function, span, path)
            yield from walk(child, name)

    yield from walk(tree, "")


def _node_sites(node: ast.AST, function: str, span: Callable, path: str) -> Iterator[Mutation]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIP:
        flipped = ast.Compare(node.left, [_FLIP[type(node.ops[0])]()], node.comparators)
        yield Mutation(path, function, "flip_comparison", span(node), ast.unparse(flipped))
    elif isinstance(node, ast.BoolOp):
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield Mutation(
            path,
            function,
            "swap_boolean",
            span(node),
            f"({ast.unparse(ast.BoolOp(other, node.values))})",
        )
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        other = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        yield Mutation(
            path,
            function,
            "swap_arithmetic",
            span(node),
            f"({ast.unparse(ast.BinOp(node.left, other, node.right))})",
        )
    elif isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value <= 8:
        yield Mutation(path, function, "off_by_one", span(node), str(node.value + 1))
    elif isinstance(node, ast.If) and not node.orelse and node.end_lineno > node.lineno:
        yield Mutation(path, function, "drop_branch", span(node), "pass")
    elif (
        isinstance(node, ast.Call)
        and len(node.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in node.args[:2])
        and ast.unparse(node.args[0]) != ast.unparse(node.args[1])
    ):
        a, b = node.args[0], node.args[1]
        yield Mutation(
            path,
            function,
            "swap_arguments",
            (a.lineno, a.col_offset, b.end_lineno, b.end_col_offset),
            f"{ast.unparse(b)}, {ast.unparse(a)}",
        )


def unified_diff(path: str, before: str, after: str) -> str:
    """A git-style unified diff of one file."""
    body = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )
    return f"diff --git a/{path} b/{path}\n{body}" if body else ""


@dataclass
class _Layout:
    root: Path
    python_path: tuple[str, ...]
    test_files: list[str]
    modules: list[str]


def _layout(root: Path) -> _Layout:
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if not (set(p.relative_to(root).parts[:-1]) & _SKIP_DIRS)
    )
    tests = [f for f in files if _TEST_FILE.search(f)]
    modules = [
        f
        for f in files
        if f not in tests
        and not grading.dropped_reason(f)
        and Path(f).name not in ("setup.py", "conftest.py", "__main__.py")
        and "/tests/" not in f"/{f}"
        and not f.startswith(("test/", "tests/"))
    ]
    python_path = ("src",) if (root / "src").is_dir() else (".",)
    return _Layout(root, python_path, tests, modules)


class _Runner:
    """Runs a package's tests in one container, file versions swapped in between runs."""

    def __init__(self, backend: Any, image: str, layout: _Layout) -> None:
        self.layout = layout
        self.session = backend.session(
            "shell",
            image=image,
            idle_timeout_s=3600,
            limits=Limits(wall_s=300, memory_mb=2048, pids=256, disk_mb=512, cpus=1.0),
        )
        files = {
            f"repo/{p.relative_to(layout.root).as_posix()}": p.read_bytes()
            for p in layout.root.rglob("*")
            if p.is_file()
        }
        self.session.put(files)
        self.session.put(
            {
                ".palaestra/run.py": grading._RUNNER,
                ".palaestra/pytest.ini": grading.harness_ini(layout.python_path),
                ".palaestra/ids.txt": "\n".join(layout.test_files) + "\n",
            }
        )

    def run(self, changed: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
        """``{test id: (outcome, failure message)}`` with ``changed`` files swapped in."""
        if changed:
            self.session.put({f"repo/{p}": t for p, t in changed.items()})
        result = self.session.exec(
            "cd /work/repo && rm -f /work/.palaestra/report.xml && "
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -I /work/.palaestra/run.py "
            "/work/.palaestra/ids.txt /work/.palaestra/pytest.ini /work/repo "
            "/work/.palaestra/report.xml",
            timeout_s=300,
        )
        if changed:
            self.session.put({f"repo/{p}": (self.layout.root / p).read_bytes() for p in changed})
        if result.error is not None:
            raise InfrastructureError(f"the test container failed: {result.error}")
        report = self.session.get([".palaestra/report.xml"]).get(".palaestra/report.xml")
        return _report_ids(report) if report else {}

    def close(self) -> None:
        self.session.close()


def _report_ids(xml: bytes) -> dict[str, tuple[str, str]]:
    import xml.etree.ElementTree as ElementTree

    out = {}
    for case in ElementTree.fromstring(xml).iter("testcase"):
        file = case.get("file")
        classname, name = case.get("classname", ""), case.get("name", "")
        if not file:
            continue
        module = file[:-3].replace("/", ".")
        rest = classname[len(module) :].lstrip(".") if classname.startswith(module) else ""
        test_id = "::".join([file, *([rest] if rest else []), name])
        message = ""
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                message = child.get("message") or ""
            elif child.tag == "skipped":
                outcome = "skipped"
        out[test_id] = (outcome, message)
    return out


def _bug_report(package: str, mutation: Mutation, messages: list[str], module: str) -> str:
    where = f"`{module}.{mutation.function}`" if mutation.function else f"`{module}`"
    if mutation.kind == "remove_body":
        return textwrap.dedent(f"""\
            # {where} is not implemented

            In {package}, calling {where} raises `NotImplementedError`: its body is missing.
            Implement it so that it behaves as documented (see its docstring and the
            callers in the package); the rest of the package must keep working.
            """)
    lines = []
    for message in messages:
        first = next(
            (
                line.strip()
                for line in message.splitlines()
                if line.strip() and "test_" not in line and len(line) < 300
            ),
            "",
        )
        if first and first not in lines:
            lines.append(first)
        if len(lines) == 2:
            break
    observed = "\n".join(lines) or "(a wrong result)"
    return (
        f"# Wrong results from {where}\n\n"
        f"After upgrading, code that uses {where} in {package} misbehaves. Checking its\n"
        "results against what the documentation says, I get:\n\n"
        f"```\n{observed}\n```\n\n"
        "The function should behave as documented; nothing else in the package should change.\n"
    )


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def generate(
    requirement: str,
    *,
    count: int,
    out: Path,
    seed: int = 0,
    requirements: tuple[str, ...] = (),
    max_tries: int = 200,
    log: Log = print,
) -> list[Path]:
    """Writes up to ``count`` validated tasks for ``package==version`` into ``out``.

    Returns:
        The task directories written.

    Raises:
        InfrastructureError: The source could not be fetched, or Docker failed.
        ValueError: ``requirement`` is not ``name==version``, or the package ships no tests.
    """
    from palaestra.sandbox.docker_backend import DockerBackend

    package, sep, version = requirement.partition("==")
    if not sep or not package or not version:
        raise ValueError(f"give the package as name==version, got {requirement!r}")
    wheelhouse().mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[-_.]+", "[-_.]", package)
    pattern = re.compile(rf"^{stem}-{re.escape(version)}\.(tar\.gz|zip)$", re.I)
    found = [p for p in wheelhouse().iterdir() if pattern.match(p.name)]
    if not found:
        _pip_download(["--no-deps", "--no-binary", ":all:", requirement], log)
        found = [p for p in wheelhouse().iterdir() if pattern.match(p.name)]
    if not found:
        raise InfrastructureError(f"pip did not leave a source distribution of {requirement}")
    archive = found[0]
    rng = np.random.default_rng(np.random.SeedSequence([seed, len(package)]))
    written: list[Path] = []
    backend = DockerBackend(max_concurrency=2, pool_size=0)
    with tempfile.TemporaryDirectory(prefix="palaestra-gen-") as tmp:
        root = Path(tmp) / "pristine"
        root.mkdir()
        extract_source(archive, root)
        for leftover in root.glob("*.egg-info"):
            shutil.rmtree(leftover)
        layout = _layout(root)
        if not layout.test_files:
            raise ValueError(f"{requirement}'s source distribution ships no test files")
        image, _ = env_layer(requirements, log=log)
        runner = _Runner(backend, image, layout)
        try:
            runs = [runner.run() for _ in range(3)]
            stable = {
                t
                for t, (outcome, _) in runs[0].items()
                if all(run.get(t, ("missing", ""))[0] == "passed" for run in runs)
            }
            log(f"{requirement}: {len(stable)} stable passing tests of {len(runs[0])}")
            sources = {m: (root / m).read_text() for m in layout.modules}
            sites = [s for m in layout.modules for s in _sites(m, sources[m])]
            order = rng.permutation(len(sites))
            singles: list[tuple[Mutation, set[str], dict]] = []
            tries = 0
            for index in order:
                if len(written) >= count or tries >= max_tries:
                    break
                mutation = sites[int(index)]
                if any(mutation.function == m.function for m, _, _ in singles):
                    continue
                tries += 1
                mutated = mutation.apply(sources[mutation.path])
                try:
                    ast.parse(mutated)
                except SyntaxError:
                    continue
                result = runner.run({mutation.path: mutated})
                failing = {t for t in stable if result.get(t, ("missing", ""))[0] != "passed"}
                if not failing or len(failing) > max(3, len(stable) // 3):
                    continue
                singles.append((mutation, failing, result))
                combine = len(singles) % 3 == 0 and len(singles) >= 2
                mutations = [mutation]
                if combine:
                    other = next(
                        (
                            m
                            for m, _, _ in singles[:-1]
                            if m.path == mutation.path
                            and m.kind != "remove_body"
                            and (m.span[2] < mutation.span[0] or m.span[0] > mutation.span[2])
                        ),
                        None,
                    )
                    if other is not None and mutation.kind != "remove_body":
                        mutations = sorted([mutation, other], key=lambda m: m.span, reverse=True)
                        text = sources[mutation.path] if other.path == mutation.path else None
                        if text is not None:
                            for m in mutations:
                                text = m.apply(text)
                            result = runner.run({mutation.path: text})
                            failing = {
                                t for t in stable if result.get(t, ("missing", ""))[0] != "passed"
                            }
                            if not failing:
                                mutations = [mutation]
                task_dir = _write_task(
                    out,
                    package,
                    version,
                    archive,
                    layout,
                    sources,
                    mutations,
                    stable,
                    result,
                    requirements,
                    rng,
                )
                if task_dir is None:
                    continue
                if _validate(task_dir, backend, log):
                    _describe(task_dir, backend)
                    written.append(task_dir)
                    log(f"wrote {task_dir.name}")
                else:
                    shutil.rmtree(task_dir)
        finally:
            runner.close()
            backend.close()
    return written


def _write_task(
    out: Path,
    package: str,
    version: str,
    archive: Path,
    layout: _Layout,
    sources: dict[str, str],
    mutations: list[Mutation],
    stable: set[str],
    result: dict[str, tuple[str, str]],
    requirements: tuple[str, ...],
    rng: np.random.Generator,
) -> Path | None:
    path = mutations[0].path
    text = sources[path]
    for mutation in sorted(mutations, key=lambda m: m.span, reverse=True):
        text = mutation.apply(text)
    failing = sorted(t for t in stable if result.get(t, ("missing", ""))[0] != "passed")
    hidden_files = sorted({t.split("::", 1)[0] for t in failing})
    pass_to_pass = sorted(
        t for t in stable if t.split("::", 1)[0] in hidden_files and t not in failing
    )
    if len(mutations) > 1:
        difficulty = "medium"
    elif mutations[0].kind == "remove_body":
        difficulty = "hard"
    else:
        difficulty = "easy"
    digest = hashlib.sha256(json.dumps([m.span for m in mutations] + [path]).encode()).hexdigest()
    name = f"{package}-{version}-{mutations[0].kind.replace('_', '-')}-{digest[:8]}"
    task = out / name
    if task.exists():
        return None
    base_patch = unified_diff(path, sources[path], text)
    gold_patch = unified_diff(path, text, sources[path])
    module = ".".join(Path(path).with_suffix("").parts)
    module = module[len("src.") :] if module.startswith("src.") else module
    module = module.removesuffix(".__init__")
    messages = [result[t][1] for t in failing if result.get(t)]
    (task / "environment").mkdir(parents=True)
    (task / "tests").mkdir()
    (task / "solution").mkdir()
    (task / "environment" / "bug.patch").write_text(base_patch)
    (task / "solution" / "gold.patch").write_text(gold_patch)
    (task / "solution" / "solve.sh").write_text(
        "#!/bin/bash\nset -euo pipefail\ncd /work/repo 2>/dev/null || cd /app\n"
        "git apply --whitespace=nowarn /solution/gold.patch\n"
    )
    hidden = {}
    for relpath in hidden_files:
        data = (layout.root / relpath).read_bytes()
        (task / "tests" / relpath).parent.mkdir(parents=True, exist_ok=True)
        (task / "tests" / relpath).write_bytes(data)
        hidden[relpath] = _sha(data)
    ids = failing + pass_to_pass
    (task / "tests" / "test.sh").write_text(
        "#!/bin/bash\n# Harbor entry point: runs the graded tests, writes 1 if all pass.\n"
        "cd /work/repo 2>/dev/null || cd /app\n"
        + "".join(f"cp /tests/{f} {f}\n" for f in hidden_files)
        + f"python3 -m pytest -p no:cacheprovider -q {' '.join(map(shlex.quote, ids))} "
        "&& echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
    )
    (task / "environment" / "Dockerfile").write_text(
        "# For Harbor runners with network access; Palaestra builds this task offline\n"
        "# from [palaestra] in task.toml (palaestra swe build).\n"
        "FROM python:3.11-slim\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends git "
        "&& rm -rf /var/lib/apt/lists/*\n"
        f"RUN pip install --no-cache-dir pytest {' '.join(requirements)}\n"
        "WORKDIR /app\n"
        "COPY bug.patch /tmp/bug.patch\n"
        f"RUN pip download --no-deps --no-binary :all: {package}=={version} -d /tmp/src "
        "&& tar -xzf /tmp/src/*.tar.gz --strip-components=1 "
        "&& git init -q && git apply /tmp/bug.patch "
        + "".join(f"&& rm -f {f} " for f in hidden_files)
        + "&& git add -A && git -c user.name=x -c user.email=x@x commit -qm base\n"
    )
    (task / "instruction.md").write_text(_bug_report(package, mutations[0], messages, module))
    toml = [
        'version = "1.0"',
        "",
        "[metadata]",
        'author_name = "Palaestra"',
        f'difficulty = "{difficulty}"',
        'category = "debugging"',
        f'tags = ["python", "swe", "mutation", {json.dumps(package)}]',
        "",
        "[verifier]",
        "timeout_sec = 300.0",
        "",
        "[agent]",
        "timeout_sec = 1800.0",
        "",
        "[environment]",
        "build_timeout_sec = 600.0",
        "cpus = 1",
        "memory_mb = 2048",
        "",
        "[palaestra]",
        f"package = {json.dumps(package)}",
        f"version = {json.dumps(version)}",
        f"source = {json.dumps(archive.name)}",
        f'source_sha256 = "{_sha(archive.read_bytes())}"',
        'base_patch = "environment/bug.patch"',
        f"requirements = {json.dumps(list(requirements))}",
        f"python_path = {json.dumps(list(layout.python_path))}",
        f'difficulty = "{difficulty}"',
        f"mutations = {json.dumps([f'{m.kind} in {m.path}:{m.function}' for m in mutations])}",
        "fail_to_pass = [" + "".join(f"\n    {json.dumps(t)}," for t in failing) + "\n]",
        "pass_to_pass = [" + "".join(f"\n    {json.dumps(t)}," for t in pass_to_pass) + "\n]",
        "",
        "[palaestra.hidden_tests]",
        *[f'{json.dumps(p)} = "{d}"' for p, d in hidden.items()],
        "",
    ]
    (task / "task.toml").write_text("\n".join(toml))
    return task


def _describe(task_dir: Path, backend: Any) -> None:
    """Puts a reproducer in the task's bug report when the tracer finds one."""
    from palaestra.envs.swe.build import build_repo_task
    from palaestra.envs.swe.describe import describe_task

    task = load_task(task_dir)
    describe_task(task, backend, build_repo_task(task, log=lambda _line: None).image)


def _validate(task_dir: Path, backend: Any, log: Log) -> bool:
    """Builds the task's image and grades gold and empty patches three times each."""
    from palaestra.envs.swe.build import build_repo_task

    task = load_task(task_dir)
    built = build_repo_task(task, log=lambda _line: None)
    gold = task.gold_patch() or ""
    for attempt in range(3):
        solved = grading.grade_repo(task, None, backend=backend, image=built.image, diff=gold)
        empty = grading.grade_repo(task, None, backend=backend, image=built.image, diff="")
        if not solved.correct or empty.correct or solved.mask or empty.mask:
            log(
                f"{task.name}: rejected on run {attempt + 1} "
                f"(gold: {solved.reason}; empty: {empty.reason})"
            )
            return False
    return True
