"""SWE benchmark: image builds and disk, reset latency, grading beside bare pytest, leaks.

    python -m bench.swe [--tasks 4] [--resets 20] [--grades 10] [--episodes 200]

Rows (on the shipped tasks of one package, `--package`):
    * build: seconds to build each task's instance layer from scratch (the environment
      layer already there), and disk per task with layer sharing (base and environment
      layers counted once) beside without (each task a full image of its own).
    * reset: `SWEEnv.reset` latency from the warm pool beside a cold start (pool size 0).
    * grading: p50/p95 seconds of grading the gold patch in a fresh container (snapshot
      of nothing: the diff path) beside running the same tests with bare ``pytest`` in a
      container started for it (``docker run --rm``); the ratio is the anchor (goal <= 1.5).
    * leaks: containers of this process left after ``--episodes`` episodes with faults
      injected (killed containers, abandoned envs, timed-out commands, bad actions,
      submissions); goal 0.

Needs Docker, the base image and the wheelhouse (``palaestra swe fetch``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from palaestra.envs.swe import build, grading
from palaestra.envs.swe import env as swe_env
from palaestra.envs.swe.task import shipped_tasks


def _percentiles(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def bench_build(tasks, console: Console) -> dict:
    import docker

    api = docker.from_env().api
    first = [build.build_task(t, log=lambda _line: None) for t in tasks]
    for built in first:
        api.remove_image(built.image, force=True)
    seconds = []
    for task in tasks:
        start = time.perf_counter()
        build.build_task(task, log=lambda _line: None)
        seconds.append(time.perf_counter() - start)
    again = []
    for task in tasks:
        start = time.perf_counter()
        build.build_task(task, log=lambda _line: None)
        again.append(time.perf_counter() - start)
    sizes = build.layer_sizes({tag for b in first for tag in b.layers.values()})
    shared_layers = {tag for b in first for kind, tag in b.layers.items() if kind != "instance"}
    own = [sizes[b.layers["instance"]] for b in first]
    shared = sum(sizes[tag] for tag in shared_layers)
    per_task_shared = (shared + sum(own)) / len(tasks)
    per_task_alone = sum(sum(sizes[tag] for kind, tag in b.layers.items()) for b in first) / len(
        tasks
    )
    return {
        "build_s_mean": float(np.mean(seconds)),
        "rebuild_unchanged_s_mean": float(np.mean(again)),
        "disk_mib_per_task_shared": per_task_shared / 2**20,
        "disk_mib_per_task_unshared": per_task_alone / 2**20,
        "instance_layer_mib_mean": float(np.mean(own)) / 2**20,
    }


def bench_reset(task, count: int) -> dict:
    out = {}
    for name, pool_size in (("warm", 2), ("cold", 0)):
        env = swe_env.SWEEnv(task=task.name, pool_size=pool_size)
        env.reset(seed=0)
        times = []
        for index in range(count):
            time.sleep(1.0 if pool_size else 0.0)  # an episode's worth of time to refill
            start = time.perf_counter()
            env.reset(seed=index)
            times.append(time.perf_counter() - start)
        env.close()
        out[f"reset_{name}_p50_s"], out[f"reset_{name}_p95_s"] = _percentiles(times)
    out["reset_cold_over_warm"] = out["reset_cold_p50_s"] / out["reset_warm_p50_s"]
    return out


def bench_grading(task, count: int) -> dict:
    from palaestra.sandbox.docker_backend import DockerBackend

    image = build.build_task(task, log=lambda _line: None).image
    backend = DockerBackend(max_concurrency=2, pool_size=0)
    graded = []
    for _ in range(count):
        start = time.perf_counter()
        verdict = grading.grade_repo(
            task, None, backend=backend, image=image, diff=task.gold_patch()
        )
        graded.append(time.perf_counter() - start)
        assert verdict.correct, verdict.reason
    backend.close()
    ids = list(task.repo.fail_to_pass) + list(task.repo.pass_to_pass)
    bare = []
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        build.base_state(task, repo, hidden=False)
        build.apply_patch(repo, task.gold_patch())
        (Path(tmp) / "ids.txt").write_text("\n".join(ids) + "\n")
        os.chmod(tmp, 0o755)
        path = ":".join(f"/b/repo/{p}" for p in task.repo.python_path)
        for _ in range(count):
            start = time.perf_counter()
            done = subprocess.run(
                [
                    "docker",
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    "-v",
                    f"{tmp}:/b:ro",
                    "-w",
                    "/b/repo",
                    "-e",
                    "PYTHONDONTWRITEBYTECODE=1",
                    "-e",
                    f"PYTHONPATH={path}",
                    image,
                    "sh",
                    "-c",
                    "xargs -d '\\n' -a /b/ids.txt python3 -m pytest -q -p no:cacheprovider "
                    "--rootdir /b/repo "
                    ">/dev/null",
                ],
                capture_output=True,
            )
            bare.append(time.perf_counter() - start)
            assert done.returncode == 0, done.stderr[-500:]
    g50, g95 = _percentiles(graded)
    b50, b95 = _percentiles(bare)
    return {
        "grading_p50_s": g50,
        "grading_p95_s": g95,
        "bare_pytest_p50_s": b50,
        "bare_pytest_p95_s": b95,
        "grading_over_bare_p50": g50 / b50,
    }


def _ours() -> int:
    import docker

    owner = f"{socket.gethostname()}:{os.getpid()}"
    listed = docker.from_env().api.containers(all=True, filters={"label": "palaestra.sandbox"})
    return sum((c.get("Labels") or {}).get("palaestra.sandbox.owner") == owner for c in listed)


def bench_leaks(task, episodes: int, seed: int = 0) -> dict:
    import docker

    api = docker.from_env().api
    rng = np.random.default_rng(seed)
    faults = ["kill", "abandon", "timeout", "garbage", "submit", "close"]
    counts = dict.fromkeys(faults, 0)
    bash = lambda command: {"role": "assistant", "content": f"```bash\n{command}\n```"}  # noqa: E731
    for _ in range(episodes):
        fault = faults[int(rng.integers(len(faults)))]
        counts[fault] += 1
        env = swe_env.SWEEnv(task=task.name, protocol="bash", pool_size=2, step_timeout_s=1)
        env.reset(seed=0)
        env.step(bash("echo work > notes.txt"))
        if fault == "kill":
            api.kill(env.session._channel.id)
            env.step(bash("ls"))
        elif fault == "timeout":
            env.step(bash("sleep 30 & sleep 5"))
        elif fault == "garbage":
            env.step("no block \x00\udcff")
        elif fault == "submit":
            env.step(bash("submit"))
        if fault != "abandon":
            env.close()
        del env
        gc.collect()
    swe_env._close_shared()
    deadline = time.monotonic() + 60
    while _ours() and time.monotonic() < deadline:
        time.sleep(0.5)
    return {"episodes": episodes, "faults": counts, "containers_left": _ours()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", default="inflection")
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--resets", type=int, default=20)
    parser.add_argument("--grades", type=int, default=10)
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args()
    console = Console()
    tasks = shipped_tasks(args.package)[: args.tasks]
    results = {"package": args.package, "tasks": len(tasks)}
    results.update(bench_build(tasks, console))
    results.update(bench_reset(tasks[0], args.resets))
    results.update(bench_grading(tasks[0], args.grades))
    results.update(bench_leaks(tasks[0], args.episodes))
    table = Table("measure", "value")
    for key, value in results.items():
        table.add_row(key, f"{value:.3f}" if isinstance(value, float) else json.dumps(value))
    console.print(table)
    console.print(json.dumps(results))


if __name__ == "__main__":
    main()
