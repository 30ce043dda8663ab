"""Sandbox latency and throughput, side by side with the floor and the anchor.

    python -m bench.sandbox [--runs 200] [--throughput-runs 400] [--skip-docker] [--json out.json]

Every row runs the same Python hello-world (``python3 -c "print('hello')"``):

* ``subprocess (floor)``: bare ``python3 -c`` in a subprocess, no isolation at all;
* ``local``: the local backend (namespaces, cgroups, rlimits), a fresh sandbox per run;
* ``local fast path``: the local backend forking its warm interpreter per run;
* ``docker run --rm (anchor)``: what most harnesses do;
* ``docker warm pool``: the Docker backend with its pool of started containers.

Latency is the median and p95 of sequential runs after a warm-up; throughput is runs per
second with 2 and 16 runs in flight. The acceptance ratios are printed under the table.
The machine's load is printed too: on a shared machine, rerun when it is quiet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from palaestra.sandbox import RunRequest

HELLO = ["python3", "-c", "print('hello')"]
CONCURRENCY = (2, 16)


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def throughput_threads(run_once: Callable[[], None], concurrency: int, runs: int) -> float:
    """Runs per second with ``concurrency`` threads calling ``run_once``."""
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda _: run_once(), range(concurrency)))
        start = time.perf_counter()
        list(pool.map(lambda _: run_once(), range(runs)))
        return runs / (time.perf_counter() - start)


def throughput_async(backend, request: RunRequest, concurrency: int, runs: int) -> float:
    """Runs per second with ``concurrency`` asyncio tasks calling ``backend.arun``."""

    async def main() -> float:
        gate = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with gate:
                result = await backend.arun(request)
                _check(result)

        await asyncio.gather(*(one() for _ in range(concurrency)))
        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(runs)))
        return runs / (time.perf_counter() - start)

    return asyncio.run(main())


def _check(result) -> None:
    if result.error is not None or result.stdout != b"hello\n":
        raise RuntimeError(f"benchmark run failed: {result}")


def _subprocess(argv: list[str]) -> Callable[[], None]:
    def run_once() -> None:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if done.stdout != b"hello\n":
            raise RuntimeError(f"{argv[0]} failed: {done}")

    return run_once


def _backend_call(backend, request: RunRequest) -> Callable[[], None]:
    def run_once() -> None:
        _check(backend.run(request))

    return run_once


def interleaved_latency(
    calls: dict[str, Callable[[], None]], runs: int, every: dict[str, int] | None = None
) -> dict[str, tuple[float, float]]:
    """Median and p95 (ms) per row, sampling the rows in turn so that load hits them alike.

    ``every`` names slow rows sampled only every n-th round (still in turn with the others).
    """
    every = every or {}
    for name, call in calls.items():
        for _ in range(2 if name in every else 5):
            call()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for round_ in range(runs):
        for name, call in calls.items():
            if round_ % every.get(name, 1):
                continue
            start = time.perf_counter()
            call()
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: (statistics.median(xs), _percentile(xs, 0.95)) for name, xs in samples.items()}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="sequential runs per latency measure")
    parser.add_argument(
        "--throughput-runs", type=int, default=400, help="runs per throughput measure"
    )
    parser.add_argument("--skip-docker", action="store_true", help="leave out the two Docker rows")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)

    from palaestra.errors import PalaestraError
    from palaestra.sandbox.local import LocalBackend

    request = RunRequest(argv=HELLO)
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "python3"
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()
    local = LocalBackend(max_concurrency=max(CONCURRENCY))
    fast = LocalBackend(fast_python=True, max_concurrency=max(CONCURRENCY))
    calls = {
        "subprocess python3 -c (floor)": _subprocess([python, *HELLO[1:]]),
        "local": _backend_call(local, request),
        "local fast path": _backend_call(fast, request),
    }
    tputs: dict[str, Callable[[int], float]] = {
        "subprocess python3 -c (floor)": lambda c: throughput_threads(
            calls["subprocess python3 -c (floor)"], c, args.throughput_runs
        ),
        "local": lambda c: throughput_async(local, request, c, args.throughput_runs),
        "local fast path": lambda c: throughput_async(fast, request, c, args.throughput_runs),
    }
    docker = None
    anchor = None
    if not args.skip_docker:
        try:
            from palaestra.sandbox.docker_backend import DockerBackend

            docker = DockerBackend(max_concurrency=max(CONCURRENCY), pool_size=max(CONCURRENCY))
            docker._check()
            docker.warm(max(CONCURRENCY))
            pool_call = _backend_call(docker, request)
            calls["docker warm pool"] = pool_call
            tputs["docker warm pool"] = lambda c: throughput_threads(
                pool_call, c, max(args.throughput_runs // 2, c * 4)
            )
            docker_cli = shutil.which("docker")
            if docker_cli is not None:
                anchor = _subprocess(
                    [docker_cli, "run", "--rm", "--network", "none", docker.image, *HELLO]
                )
                calls["docker run --rm (anchor)"] = anchor
        except PalaestraError as e:
            print(f"  docker rows skipped: {e}", file=sys.stderr)
            docker = None
    try:
        # The anchor takes a second or so a run: sampled every 10th round, in turn.
        latencies = interleaved_latency(calls, args.runs, every={"docker run --rm (anchor)": 10})
        if anchor is not None:
            tputs["docker run --rm (anchor)"] = lambda c: throughput_threads(
                anchor, c, max(c * 2, args.runs // 10)
            )
        order = [
            "subprocess python3 -c (floor)",
            "local",
            "local fast path",
            "docker run --rm (anchor)",
            "docker warm pool",
        ]
        rows = []
        for name in order:
            if name not in latencies:
                continue
            median, p95 = latencies[name]
            row = {"name": name, "median_ms": median, "p95_ms": p95}
            for concurrency in CONCURRENCY:
                row[f"tput_{concurrency}"] = tputs[name](concurrency)
            print(f"  measured {name}: median {median:.1f} ms", file=sys.stderr)
            rows.append(row)
    finally:
        local.close()
        fast.close()
        if docker is not None:
            docker.close()
    report = {
        "cores": cores,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "rows": rows,
        "checks": checks(rows, cores),
    }
    print(table(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return report


def checks(rows: list[dict], cores: int) -> list[tuple[str, float, str, bool]]:
    """The acceptance ratios: (what, value, target, met)."""
    by = {row["name"]: row for row in rows}
    out = []
    floor, local, fast = (
        by.get("subprocess python3 -c (floor)"),
        by.get("local"),
        by.get("local fast path"),
    )
    if floor and local:
        ratio = local["median_ms"] / floor["median_ms"]
        out.append(("local median / floor median", ratio, "<= 1.5", ratio <= 1.5))
        need = 0.8 * cores / (local["median_ms"] / 1000)
        out.append(
            (
                "local runs/s at 16 / (0.8 x cores / median)",
                local["tput_16"] / need,
                ">= 1.0",
                local["tput_16"] >= need,
            )
        )
    if fast:
        out.append(("fast path median (ms)", fast["median_ms"], "<= 5", fast["median_ms"] <= 5))
    anchor, pool = by.get("docker run --rm (anchor)"), by.get("docker warm pool")
    if anchor and pool:
        ratio = pool["median_ms"] / anchor["median_ms"]
        out.append(("docker pool median / docker run --rm median", ratio, "<= 0.35", ratio <= 0.35))
    return out


def table(report: dict) -> str:
    """The results as a Markdown table, then the acceptance checks."""
    lines = [
        f"cores: {report['cores']}, load average before: {report['load_before'][0]:.2f}, "
        f"after: {report['load_after'][0]:.2f}",
        "",
        "| hello-world in Python | median ms | p95 ms | runs/s at 2 | runs/s at 16 |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in report["rows"]:
        lines.append(
            f"| {row['name']} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | "
            f"{row['tput_2']:.0f} | {row['tput_16']:.0f} |"
        )
    lines += ["", "| check | value | target | met |", "|---|---:|---|---|"]
    for what, value, target, met in report["checks"]:
        lines.append(f"| {what} | {value:.2f} | {target} | {'yes' if met else 'no'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
