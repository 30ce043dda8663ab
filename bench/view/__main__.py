"""Viewer benchmark: how fast ``palaestra view`` answers filtered pages of a large run.

    python -m bench.view [--episodes 100000] [--requests 200] [--folder DIR] [--markdown]

Writes a synthetic run folder (``--episodes`` episodes of about 3 KB each, the size the
trainer writes for a three-turn game: token ids, loss mask, log-probs, turn rewards and
parts, messages; spread over 8 envs, 500 steps, three statuses and both outcomes), serves
it in this process with the viewer's own server (uvicorn in a thread), and times real HTTP
requests for one page of 50 rows, the kinds of request cycling through each filter, pairs of
them and deep pages. The first request after start-up pays for indexing the file, and is
timed on its own; the medians (p50) and p99 are over the requests after it. A text search
reads the candidate lines until its page is full, so its cost depends on how rare the text
is: a common word and a word in 1 episode of 1,000 are timed as their own rows.

The target: a filtered page in under 200 ms at the median on 100,000 episodes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_MS = 200.0
"""The most milliseconds a filtered page may take at the median."""

ENVS = [f"Family{i}-v0" for i in range(8)]
STEPS = 500


def write_run(folder: Path, count: int, seed: int = 0) -> int:
    """Writes ``count`` synthetic episodes (and a config and metrics); returns the bytes."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"env_id": ENVS[0], "steps": STEPS}))
    with open(folder / "metrics.jsonl", "w") as handle:
        for step in range(1, STEPS + 1):
            record = {"phase": "rl", "step": step, "reward": float(rng.random())}
            handle.write(json.dumps(record) + "\n")
    # The large arrays are shared by a few shapes; the fields the filters read vary per line.
    shapes = [_token_part(rng) for _ in range(16)]
    with open(folder / "episodes.jsonl", "w", encoding="utf-8") as handle:
        for index in range(count):
            step = index * STEPS // count
            status = "ok" if rng.random() < 0.96 else str(rng.choice(["error", "timeout"]))
            rewards = [round(float(r), 3) for r in rng.uniform(-0.2, 0.5, size=3)]
            word = "zanzibar" if index % 1000 == 7 else "guess"
            head = {
                "env_id": ENVS[index % len(ENVS)],
                "env_kwargs": {"level": int(rng.integers(1, 6))},
                "seed": index,
                "group_id": f"{step}.0.{index // 4}:{index}",
                "sample_index": index % 4,
            }
            tail = {
                "turn_rewards": rewards,
                "reward_parts": [{"outcome": r} for r in rewards],
                "finish_reasons": ["stop"] * 3,
                "messages": _messages(index, word),
                "terminated": True,
                "truncated": False,
                "status": status,
                "mask": status != "ok",
                "error": None if status == "ok" else "sandbox died",
                "success": bool(sum(rewards) > 0.5),
                "seconds": 0.5,
            }
            handle.write(
                json.dumps(head)[:-1]
                + ", "
                + shapes[index % len(shapes)]
                + ", "
                + json.dumps(tail)[1:]
                + "\n"
            )
    return (folder / "episodes.jsonl").stat().st_size


def _token_part(rng: np.random.Generator) -> str:
    prompt = rng.integers(0, 32_000, size=60).tolist()
    completion = rng.integers(0, 32_000, size=150).tolist()
    mask = ([1] * 30 + [0] * 20) * 3
    logprobs = [
        round(float(v), 4) if m else 0.0
        for v, m in zip(-rng.exponential(size=150), mask, strict=True)
    ]
    spans = [[0, 30], [50, 80], [100, 130]]
    return json.dumps(
        {
            "prompt_ids": prompt,
            "completion_ids": completion,
            "loss_mask": mask,
            "logprobs": logprobs,
            "turn_spans": spans,
        }
    )[1:-1]


def _messages(index: int, word: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": f"Task {index}: find the hidden number in three tries."},
        {"role": "assistant", "content": f"Let me {word}: <guess>{index % 97}</guess>"},
        {"role": "user", "content": "Higher."},
        {"role": "assistant", "content": f"<guess>{index % 89}</guess>"},
        {"role": "user", "content": "Lower."},
        {"role": "assistant", "content": f"<guess>{index % 83}</guess>"},
        {"role": "user", "content": "That is not it; the episode is over."},
    ]


def queries(count: int) -> list[dict[str, object]]:
    """The filtered page requests, cycling through filters, pairs of them and deep pages."""
    shapes = [
        {"env": ENVS[3]},
        {"step_min": 200, "step_max": 260},
        {"status": "error"},
        {"status": "masked"},
        {"success": "true"},
        {"reward_min": 0.6, "reward_max": 1.2},
        {"env": ENVS[5], "success": "false", "step_min": 100},
        {"env": ENVS[1], "offset": 5000},
        {"step_min": 400, "reward_max": 0.0, "offset": 200},
        {},
    ]
    return [{"limit": 50, **shapes[i % len(shapes)]} for i in range(count)]


def time_requests(
    client, url: str, requests: list[dict[str, object]], key: str = "rows"
) -> list[float]:
    """Milliseconds of each request, checked for its status and for ``key`` in the answer."""
    times = []
    for params in requests:
        start = time.perf_counter()
        response = client.get(url, params=params)
        times.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
        if key not in response.json():
            raise RuntimeError(f"no {key!r} in the answer to {url} {params}")
    return times


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) of values."""
    return float(np.percentile(values, q))


def main() -> None:
    """Runs the benchmark and prints its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--folder", help="where to write the run (default: a temporary folder)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    import httpx

    from palaestra.view.runs import open_runs
    from palaestra.view.server import background

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.folder or scratch) / "synthetic-run"
        start = time.perf_counter()
        size = write_run(folder, args.episodes)
        print(
            f"wrote {args.episodes:,} episodes ({size / 2**20:,.0f} MB) in "
            f"{time.perf_counter() - start:.1f} s to {folder}"
        )
        with background(open_runs([folder])) as url, httpx.Client(timeout=120) as client:
            api = url + "api/runs/0/episodes"
            first = time_requests(client, api, [{}])[0]
            episode_times = [
                time_requests(client, f"{api}/{i * 1999 % args.episodes}", [{}], "messages")[0]
                for i in range(50)
            ]
            rows = [
                ("first page (indexes the file)", [first]),
                ("filtered page", time_requests(client, api, queries(args.requests))),
                (
                    "text search, common word",
                    time_requests(client, api, [{"text": "guess", "limit": 50}] * 20),
                ),
                (
                    "text search, 1 in 1,000",
                    time_requests(client, api, [{"text": "zanzibar", "limit": 50}] * 10),
                ),
                ("one episode page", episode_times),
            ]
    verdict = "meets" if statistics.median(rows[1][1]) < TARGET_MS else "misses"
    if args.markdown:
        print("| request | n | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |")
        for name, times in rows:
            print(
                f"| {name} | {len(times)} | {percentile(times, 50):.1f} | "
                f"{percentile(times, 99):.1f} |"
            )
    else:
        print(f"{'request':<32}{'n':>6}{'p50 ms':>10}{'p99 ms':>10}")
        for name, times in rows:
            print(
                f"{name:<32}{len(times):>6}{percentile(times, 50):>10.1f}"
                f"{percentile(times, 99):>10.1f}"
            )
    print(
        f"filtered page p50 {percentile(rows[1][1], 50):.1f} ms: {verdict} the "
        f"{TARGET_MS:.0f} ms target on {args.episodes:,} episodes"
    )


if __name__ == "__main__":
    main()
