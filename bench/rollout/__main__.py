"""Rollout benchmark: the engine against the policy-bound ideal, in one run.

    python -m bench.rollout [--latency 1.0 0.25] [--episodes 2048] [--concurrency 256]
                            [--tasks single-turn multi-turn tools] [--skip-model] [--markdown]

Rows:
    * single-turn / multi-turn / tool use: a simulated policy (the env's oracle through the
      tiny tokenizer, behind a fixed latency per call) plays ``--episodes`` episodes of
      Arithmetic-v0, GuessNumber-v0 and Calculator-v0 with ``--concurrency`` in flight.
      The anchor is the policy-bound ideal: the makespan of the same episodes (their
      actual turn counts) scheduled on the same number of slots, each turn costing
      exactly the latency and nothing else costing anything. ratio = measured / ideal.
      Beside it, measured: "bare asyncio", a loop that only sleeps the latency per turn
      with the same turn counts and concurrency (what asyncio alone costs).
      Each task runs twice: sync env code in worker threads (the default, hang-safe) and
      on the event loop (``env_threads=False``). Two more columns tell a slow engine from
      a busy machine: the engine's CPU time per episode (all threads), and how long the
      event loop's thread waited, ready to run, for a CPU (Linux schedstat).
    * 1,000 concurrent episodes with an instant oracle policy: wall time and the growth of
      peak resident memory (in a fresh interpreter).
    * tiny model: the tiny transformers model on CPU sampling GuessNumber-v0 episodes
      (tokens/s), for scale (skip with --skip-model).

The tiny tokenizer and model are built into the cache on first use (see
palaestra.agents.tiny).
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import os
import resource
import subprocess
import sys
import threading
import time

from rich.console import Console
from rich.table import Table

from palaestra.agents import (
    ChatFormatter,
    HFPolicy,
    LatencyPolicy,
    OraclePolicy,
    RolloutEngine,
    Task,
    load_tiny,
    tiny_tokenizer,
)
from palaestra.agents.policy import SamplingParams

TASKS = (
    ("single-turn", "single-turn (Arithmetic-v0)", "Arithmetic-v0"),
    ("multi-turn", "multi-turn game (GuessNumber-v0)", "GuessNumber-v0"),
    ("tools", "tool use (Calculator-v0)", "Calculator-v0"),
)
"""Rows of the simulated-policy table: key (for --tasks), label, env id."""

TARGET_RATIO = 0.9
"""The acceptance target: measured episodes/s over the policy-bound ideal."""


def markdown(table: Table) -> str:
    """A rich table as a GitHub Markdown table (title in bold above it)."""
    columns = [str(column.header) for column in table.columns]
    cells = [list(column.cells) for column in table.columns]
    lines = [f"**{table.title}**", "", "| " + " | ".join(columns) + " |"]
    lines.append("|" + "|".join("---" if i == 0 else "--:" for i in range(len(columns))) + "|")
    for row in zip(*cells, strict=True):
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return "\n".join(lines) + "\n"


def ideal_makespan(turns: list[int], slots: int, latency: float) -> float:
    """Seconds to play episodes of the given turn counts on ``slots`` slots, in order,
    when each turn costs exactly ``latency`` and everything else is free."""
    free = [0.0] * min(slots, len(turns))
    heapq.heapify(free)
    end = 0.0
    for count in turns:
        start = heapq.heappop(free)
        finish = start + count * latency
        end = max(end, finish)
        heapq.heappush(free, finish)
    return end


def bare_asyncio(turns: list[int], slots: int, latency: float) -> float:
    """Measured anchor: episodes/s of a loop that only sleeps ``latency`` per turn, with the
    same turn counts and the same concurrency (no env, no tokenizer, no engine)."""

    async def main() -> None:
        semaphore = asyncio.Semaphore(slots)

        async def episode(count: int) -> None:
            async with semaphore:
                for _ in range(count):
                    await asyncio.sleep(latency)

        await asyncio.gather(*(episode(count) for count in turns))

    start = time.perf_counter()
    asyncio.run(main())
    return len(turns) / (time.perf_counter() - start)


def simulated(
    formatter: ChatFormatter,
    env_id: str,
    episodes: int,
    concurrency: int,
    latency: float,
    env_threads: bool = True,
) -> dict:
    policy = LatencyPolicy(OraclePolicy(formatter), latency)
    engine = RolloutEngine(policy, formatter, max_concurrency=concurrency, env_threads=env_threads)
    # Warm up outside the clock: the env family's first import and the template's first
    # compilation are paid once per process, not per rollout.
    RolloutEngine(OraclePolicy(formatter), formatter).run([Task(env_id, seed=episodes)])
    tasks = [Task(env_id, seed=seed) for seed in range(episodes)]
    cpu, waited = time.process_time(), loop_thread_waited_s()
    start = time.perf_counter()
    played = engine.run(tasks)
    wall = time.perf_counter() - start
    cpu, waited = time.process_time() - cpu, loop_thread_waited_s() - waited
    masked = sum(e.mask for e in played)
    turns = [e.num_turns for e in played]
    ideal = ideal_makespan(turns, concurrency, latency)
    return {
        "turn_counts": turns,
        "turns": sum(e.num_turns for e in played) / len(played),
        "measured": len(played) / wall,
        "ideal": len(played) / ideal,
        "masked": masked,
        "cpu_ms_per_episode": 1000 * cpu / len(played),
        "waited_s": waited,
        "wall_s": wall,
    }


def loop_thread_waited_s() -> float:
    """Seconds this (the event loop's) thread has spent ready to run but waiting for a CPU.

    Linux schedstat's run-queue wait: it tells a slow engine from a machine whose cores
    are busy with other work.
    """
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def rss_mib() -> float:
    """Resident memory now (Linux), in MiB."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 2**20


class PeakRss:
    """Samples resident memory every few milliseconds in a thread and keeps the peak."""

    def __enter__(self) -> PeakRss:
        self.start = self.peak = rss_mib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss_mib())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mib())


def thousand(formatter: ChatFormatter) -> dict:
    engine = RolloutEngine(OraclePolicy(formatter), formatter, max_concurrency=1000)
    tasks = [Task("GuessNumber-v0" if i % 2 else "Arithmetic-v0", seed=i) for i in range(1000)]
    with PeakRss() as memory:
        start = time.perf_counter()
        played = engine.run(tasks)
        wall = time.perf_counter() - start
    return {
        "wall": wall,
        "episodes_per_s": len(played) / wall,
        "turns": engine.stats.turns,
        "masked": engine.stats.masked,
        "start_rss": memory.start,
        "peak_growth": memory.peak - memory.start,
    }


def tiny_model_rollout(tokenizer, model, formatter: ChatFormatter, episodes: int) -> dict:
    import torch

    # A model this small gains nothing from intra-op threads, and on a shared CPU their
    # spin-waiting costs more than the matrix products.
    torch.set_num_threads(1)
    policy = HFPolicy(model, tokenizer, seed=0, max_batch_size=32)
    engine = RolloutEngine(
        policy,
        formatter,
        samples_per_task=4,
        max_turns=4,
        sampling=SamplingParams(max_tokens=32),
        seed=0,
    )
    tasks = [Task("GuessNumber-v0", seed=seed) for seed in range(episodes // 4)]
    played = engine.run(tasks)
    stats = engine.stats
    return {
        "episodes": len(played),
        "tokens_per_s": stats.tokens_per_second,
        "episodes_per_s": stats.episodes_per_second,
        "batches": policy._batcher.batches,
        "turns": stats.turns,
    }


def thousand_in_subprocess() -> dict:
    """Runs the 1,000-episode row in a fresh interpreter, so its peak memory is its own."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.rollout", "--thousand-only"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--latency",
        type=float,
        nargs="+",
        default=[1.0, 0.25],
        help="seconds per simulated policy call (one table row group each)",
    )
    parser.add_argument("--episodes", type=int, default=2048)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument(
        "--tasks",
        nargs="*",
        choices=[key for key, _, _ in TASKS],
        default=[key for key, _, _ in TASKS],
        help="which simulated-policy rows to run (none: skip that table)",
    )
    parser.add_argument("--skip-model", action="store_true")
    parser.add_argument(
        "--markdown", action="store_true", help="print Markdown tables (for the README)"
    )
    parser.add_argument("--thousand-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.thousand_only:  # a fresh interpreter without the model: its memory is the engine's
        print(json.dumps(thousand(ChatFormatter(tiny_tokenizer()))))
        return
    tokenizer, model = load_tiny()
    formatter = ChatFormatter(tokenizer)
    console = Console(width=200)

    def show(table: Table) -> None:
        console.print(markdown(table) if args.markdown else table)

    def load_average() -> str:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())

    print(f"load average at start: {load_average()} ({os.cpu_count()} CPUs)", flush=True)

    table = Table(
        title=f"Rollout engine vs the policy-bound ideal ({args.concurrency} concurrent, "
        f"{args.episodes} episodes per row, default engine settings unless noted)"
    )
    for column in (
        "task",
        "latency",
        "env code",
        "turns/episode",
        "ideal episodes/s",
        "bare asyncio episodes/s",
        "palaestra episodes/s",
        "ratio",
        "engine CPU ms/episode",
        "loop waited for a CPU",
        "masked",
    ):
        table.add_column(column, justify="left" if column in ("task", "env code") else "right")
    ratios: dict[str, list[float]] = {}
    for latency in args.latency:
        for key, label, env_id in TASKS:
            if key not in args.tasks:
                continue
            bare = None
            for env_threads in (True, False):
                row = simulated(
                    formatter, env_id, args.episodes, args.concurrency, latency, env_threads
                )
                if bare is None:  # the oracle plays the same turn counts in both modes
                    bare = bare_asyncio(row["turn_counts"], args.concurrency, latency)
                ratios.setdefault(key, []).append(row["measured"] / row["ideal"])
                table.add_row(
                    label,
                    f"{latency * 1000:.0f} ms",
                    "threads" if env_threads else "event loop",
                    f"{row['turns']:.2f}",
                    f"{row['ideal']:.1f}",
                    f"{bare:.1f}",
                    f"{row['measured']:.1f}",
                    f"{row['measured'] / row['ideal']:.1%}",
                    f"{row['cpu_ms_per_episode']:.2f}",
                    f"{row['waited_s']:.1f} of {row['wall_s']:.1f} s",
                    str(row["masked"]),
                )
    if ratios:
        show(table)
    for key, values in ratios.items():
        verdict = "meets" if min(values) >= TARGET_RATIO else "misses"
        print(
            f"{key}: lowest ratio {min(values):.1%} ({verdict} the {TARGET_RATIO:.0%} target)",
            flush=True,
        )

    load = thousand_in_subprocess()
    table = Table(
        title="1,000 concurrent episodes, instant oracle policy "
        "(half Arithmetic-v0, half GuessNumber-v0; fresh interpreter)"
    )
    for column in (
        "episodes",
        "turns",
        "wall",
        "episodes/s",
        "RSS before",
        "peak RSS growth",
        "masked",
    ):
        table.add_column(column, justify="right")
    table.add_row(
        "1000",
        f"{load['turns']:,}",
        f"{load['wall']:.2f} s",
        f"{load['episodes_per_s']:,.0f}",
        f"{load['start_rss']:.0f} MiB",
        f"{load['peak_growth']:.0f} MiB",
        str(load["masked"]),
    )
    show(table)

    if not args.skip_model:
        row = tiny_model_rollout(tokenizer, model, formatter, 64)
        table = Table(
            title="Tiny model on CPU (HFPolicy, one torch thread, GuessNumber-v0, 16 tasks x 4 "
            "samples, <= 4 turns, 32 tokens/turn)"
        )
        for column in ("episodes", "turns", "batches", "sampled tokens/s", "episodes/s"):
            table.add_column(column, justify="right")
        table.add_row(
            str(row["episodes"]),
            str(row["turns"]),
            str(row["batches"]),
            f"{row['tokens_per_s']:,.0f}",
            f"{row['episodes_per_s']:.2f}",
        )
        show(table)
    print(f"load average at end: {load_average()}", flush=True)


if __name__ == "__main__":
    main()
