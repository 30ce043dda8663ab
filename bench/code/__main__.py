"""Code scoring throughput and latency: 1,000 problems x 10 tests, beside per-test processes.

    python -m bench.code [--problems 1000] [--tests 10] [--rows fast,docker-warm,...]
                         [--fresh-sample 100] [--skip-docker] [--skip-anchor] [--json out.json]

Every row scores the same submissions: the shipped problems' reference solutions, cycled
to ``--problems`` problems of exactly ``--tests`` tests each (their non-performance tests,
repeated where a problem has fewer), so that what is measured is the harness, not the
solutions' own work. A *run* scores one problem: all its tests, one verdict.

Rows:
    * ``palaestra judge, local fast path``: `palaestra.envs.code.judge` on the ``"python"``
      backend (fresh namespaces per run, forked from a warm interpreter).
    * ``palaestra judge, local``: the same on the ``"local"`` backend (a fresh interpreter
      per run).
    * ``palaestra judge, Docker warm pool``: the Docker backend with ``fresh=False``
      (started containers, cleaned between runs).
    * ``palaestra judge, Docker fresh container``: ``fresh=True`` (the default for
      grading), on a sample of ``--fresh-sample`` problems.
    * ``code verifier (verifiers.code)``: the ``code`` verifier's own path (local backend),
      for reference.
    * ``per-test process, unsandboxed (anchor)``: what open-r1's and SandboxFusion-style
      rewards do on one machine: one fresh ``python3`` process per test, no isolation, the
      same number of tests in flight.

Runs go ``--concurrency`` at a time (default: the local backend's slots, 2 per core). The
rows take turns, ``--chunks`` times, each scoring its share of the next chunk of problems, so
that a shared machine's changing load weighs on all of them alike.
runs/s and tests/s come from the wall time of all runs; p50/p95 are the latency of one run
from the moment it gets a slot to its verdict. Every run must pass all its tests; the
``ok`` column counts those that did. The machine's load is printed: on a shared machine,
rerun when it is quiet.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from rich.console import Console
from rich.table import Table

from palaestra.envs.code.judge import ajudge, build_request
from palaestra.envs.code.problem import CodeProblem
from palaestra.envs.code.problems import load_problems

ROWS = ("fast", "local", "docker-warm", "docker-fresh", "verifier", "anchor")
"""Row keys for ``--rows``, in the order of the rows described above."""


def workload(count: int, tests: int) -> list[CodeProblem]:
    """``count`` problems of ``tests`` non-performance tests each, cycling through the set."""
    out = []
    shipped = load_problems()
    for i in range(count):
        problem = shipped[i % len(shipped)]
        pool = [t for t in problem.tests if t.label != "performance"]
        chosen = [pool[j % len(pool)] for j in range(tests)]
        out.append(
            dataclasses.replace(problem, id=f"{problem.id}#{i}", public=(), hidden=tuple(chosen))
        )
    return out


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure_async(
    score: Callable[[CodeProblem], Awaitable[bool]], problems: list[CodeProblem], concurrency: int
) -> dict:
    """Wall time, per-run latencies and passes of scoring every problem, ``concurrency`` at once."""

    async def main() -> dict:
        gate = asyncio.Semaphore(concurrency)
        latencies: list[float] = []

        async def one(problem: CodeProblem) -> bool:
            async with gate:
                start = time.perf_counter()
                ok = await score(problem)
                latencies.append(time.perf_counter() - start)
                return ok

        await asyncio.gather(*(one(p) for p in problems[:concurrency]))  # warm-up
        latencies.clear()
        start = time.perf_counter()
        passed = await asyncio.gather(*(one(p) for p in problems))
        return {"wall_s": time.perf_counter() - start, "latencies": latencies, "ok": sum(passed)}

    return asyncio.run(main())


def measure_threads(
    score: Callable[[CodeProblem], bool], problems: list[CodeProblem], concurrency: int
) -> dict:
    """As `measure_async`, with ``concurrency`` threads."""
    latencies: list[float] = []

    def one(problem: CodeProblem) -> bool:
        start = time.perf_counter()
        ok = score(problem)
        latencies.append(time.perf_counter() - start)
        return ok

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, problems[:concurrency]))
        latencies.clear()
        start = time.perf_counter()
        passed = list(pool.map(one, problems))
    return {"wall_s": time.perf_counter() - start, "latencies": latencies, "ok": sum(passed)}


def judge_row(backend, fresh: bool = True) -> Callable[[CodeProblem], Awaitable[bool]]:
    """Scores one problem with the judge on a backend."""

    async def score(problem: CodeProblem) -> bool:
        judgement = await ajudge(
            problem.reference, problem, which="hidden", backend=backend, fresh=fresh
        )
        return judgement.all_passed()

    return score


def verifier_row() -> Callable[[CodeProblem], bool]:
    """Scores one problem with the ``code`` verifier (function and stdin/stdout tests)."""
    from palaestra import verifiers

    verifier = verifiers.get("code", sandbox_backend="local")

    def score(problem: CodeProblem) -> bool:
        if problem.style == "function":
            tests = [{"call": t.input, "expected": t.output} for t in problem.hidden]
            code = (
                (problem.prelude + "\n" + problem.reference)
                if problem.prelude
                else problem.reference
            )
        else:
            tests = [{"stdin": t.input, "stdout": t.output} for t in problem.hidden]
            code = problem.reference
        completion = f"```python\n{code}```"
        return verifier.verify(completion, {"tests": tests}).score == 1.0

    return score


_CALL_SCRIPT = (
    "import json, sys\nexec(open(sys.argv[1]).read(), globals())\nprint(json.dumps({call}))\n"
)


def per_test_process_row(python: str, workdir: str) -> Callable[[CodeProblem], bool]:
    """One fresh, unsandboxed interpreter per test, outputs compared on the host (the anchor)."""

    def score(problem: CodeProblem) -> bool:
        path = os.path.join(
            workdir, f"solution-{os.getpid()}-{id(problem)}-{time.perf_counter_ns()}.py"
        )
        with open(path, "w") as f:
            f.write(problem.reference)
        try:
            for test in problem.hidden:
                if problem.style == "function":
                    done = subprocess.run(
                        [python, "-c", _CALL_SCRIPT.format(call=test.input), path],
                        capture_output=True,
                        text=True,
                        timeout=problem.time_limit_s,
                    )
                    if done.returncode != 0 or not problem.check.same_value(
                        json.loads(done.stdout), test.output
                    ):
                        return False
                else:
                    done = subprocess.run(
                        [python, path],
                        input=test.input,
                        capture_output=True,
                        text=True,
                        timeout=problem.time_limit_s,
                    )
                    if not problem.check.same_text(done.stdout, test.output):
                        return False
            return True
        except (subprocess.TimeoutExpired, ValueError):
            return False
        finally:
            os.unlink(path)

    return score


def _row(name: str, result: dict, count: int, tests: int, concurrency: int) -> dict:
    latencies = result["latencies"]
    return {
        "name": name,
        "problems": count,
        "concurrency": concurrency,
        "runs_per_s": count / result["wall_s"],
        "tests_per_s": count * tests / result["wall_s"],
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": _percentile(latencies, 0.95) * 1000,
        "ok": result["ok"],
    }


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="runs in flight (default: local backend slots)",
    )
    parser.add_argument(
        "--fresh-sample", type=int, default=100, help="problems for the Docker fresh-container row"
    )
    parser.add_argument("--chunks", type=int, default=10, help="turns the rows take")
    parser.add_argument(
        "--rows",
        default=",".join(ROWS),
        help=f"comma-separated rows to run, of {','.join(ROWS)} (default: all)",
    )
    parser.add_argument("--skip-docker", action="store_true", help="leave out the Docker rows")
    parser.add_argument("--skip-anchor", action="store_true", help="leave out the anchor row")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    rows_wanted = {r.strip() for r in args.rows.split(",") if r.strip()}
    unknown = sorted(rows_wanted - set(ROWS))
    if unknown:
        parser.error(f"unknown rows {unknown}; choose from {list(ROWS)}")
    if args.skip_docker:
        rows_wanted -= {"docker-warm", "docker-fresh"}
    if args.skip_anchor:
        rows_wanted.discard("anchor")
    if args.problems < 1 or args.tests < 1:
        parser.error("--problems and --tests must be at least 1")

    from palaestra import sandbox

    problems = workload(args.problems, args.tests)
    local = sandbox.get_backend("local")
    fast = sandbox.get_backend("python")
    concurrency = args.concurrency or fast.max_concurrency
    load_before = os.getloadavg()
    # name -> (measure, scorer, share of the workload)
    setups: dict[str, tuple[Callable, Callable, float]] = {}
    if "fast" in rows_wanted:
        setups["palaestra judge, local fast path"] = (measure_async, judge_row(fast), 1.0)
    if "local" in rows_wanted:
        setups["palaestra judge, local"] = (measure_async, judge_row(local), 1.0)
    docker = None
    if rows_wanted & {"docker-warm", "docker-fresh"}:
        try:
            from palaestra.sandbox.docker_backend import DockerBackend

            docker = DockerBackend(max_concurrency=concurrency, pool_size=concurrency)
            docker._check()
            limits = build_request(problems[0].reference, problems[0], problems[0].hidden).limits
            docker.warm(concurrency, limits)
            if "docker-warm" in rows_wanted:
                setups["palaestra judge, Docker warm pool"] = (
                    measure_async,
                    judge_row(docker, fresh=False),
                    1.0,
                )
            if "docker-fresh" in rows_wanted:
                setups["palaestra judge, Docker fresh container"] = (
                    measure_async,
                    judge_row(docker, fresh=True),
                    min(1.0, args.fresh_sample / len(problems)),
                )
        except Exception as e:  # noqa: BLE001 - no engine here: the Docker rows are left out, saying why
            print(f"  Docker rows skipped: {type(e).__name__}: {e}", file=sys.stderr)
    if "verifier" in rows_wanted:
        setups["code verifier (verifiers.code, local)"] = (measure_threads, verifier_row(), 1.0)
    workdir = os.path.join("/tmp", f"palaestra-bench-code-{os.getpid()}")
    if "anchor" in rows_wanted:
        python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "python3"
        os.makedirs(workdir, exist_ok=True)
        setups["per-test process, unsandboxed (anchor)"] = (
            measure_threads,
            per_test_process_row(python, workdir),
            1.0,
        )
    if not setups:
        print("  no row can run (see the reasons above)", file=sys.stderr)
        return []
    # The rows take turns chunk by chunk, so that the machine's load (shared machines drift)
    # weighs on every row alike.
    totals = {name: {"wall_s": 0.0, "latencies": [], "ok": 0, "count": 0} for name in setups}
    size = max(1, len(problems) // args.chunks)
    try:
        for chunk_start in range(0, len(problems), size):
            chunk = problems[chunk_start : chunk_start + size]
            for name, (measure, scorer, share) in setups.items():
                part = chunk[: max(1, round(len(chunk) * share))]
                result = measure(scorer, part, concurrency)
                total = totals[name]
                total["wall_s"] += result["wall_s"]
                total["latencies"] += result["latencies"]
                total["ok"] += result["ok"]
                total["count"] += len(part)
            print(
                f"  {min(chunk_start + size, len(problems))}/{len(problems)} problems",
                file=sys.stderr,
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if docker is not None:
            docker.close()
    rows = [_row(name, t, t["count"], args.tests, concurrency) for name, t in totals.items()]
    load_after = os.getloadavg()

    table = Table(
        title=f"Code scoring: {args.problems:,} problems x {args.tests} tests, "
        f"{concurrency} runs in flight "
        "(higher runs/s is better, lower latency is better)"
    )
    for column in ("setup", "problems", "runs/s", "tests/s", "p50 ms", "p95 ms", "ok"):
        table.add_column(column, justify="left" if column == "setup" else "right")
    for row in rows:
        table.add_row(
            row["name"],
            f"{row['problems']:,}",
            f"{row['runs_per_s']:.1f}",
            f"{row['tests_per_s']:.0f}",
            f"{row['p50_ms']:.0f}",
            f"{row['p95_ms']:.0f}",
            f"{row['ok']}/{row['problems']}",
        )
    console = Console()
    console.print(table)
    anchor = next((r for r in rows if "anchor" in r["name"]), None)
    if anchor is not None:
        for row in rows:
            if row is not anchor:
                console.print(
                    f"  {row['name']}: "
                    f"{row['runs_per_s'] / anchor['runs_per_s']:.2f}x the anchor's runs/s"
                )
    console.print(
        f"  {os.cpu_count()} cores; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "load": [load_before, load_after]}, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
