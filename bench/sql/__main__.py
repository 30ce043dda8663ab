"""SQL benchmark: episode resets per backend, query round trips direct and over MCP, scoring.

    python -m bench.sql [--resets 30] [--calls 200] [--scores 200] [--dsn postgresql://...]

Rows, for SQLite and for PostgreSQL (the DSN given, else ``$PALAESTRA_POSTGRES_DSN``, else
`palaestra db start`'s server; skipped with a note when none runs):
    * reset latency, p50 and p99, at levels 1, 5 and 10 (3, 7 and 12 tables): drawing the
      database and question, creating the database, running the gold query;
    * query round trip, p50 and p99: `SQL-v0` stepping a ``query`` tool call in process
      (direct tools, the anchor) and `SQLMCP-v0` stepping the same call through the MCP
      server over stdio (the `mcp` SDK's server and client); the ratio MCP / direct;
    * scoring throughput: submissions scored per second (the gold query on a fresh
      read-only copy, rows compared).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import palaestra
from palaestra.envs.sql.backends import resolve_dsn

QUERY = "SELECT COUNT(*) FROM {table}"


def percentiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 in milliseconds."""
    return float(np.percentile(samples, 50)) * 1e3, float(np.percentile(samples, 99)) * 1e3


def time_resets(backend: dict, level: int, count: int) -> list[float]:
    env = palaestra.make("SQL-v0", level=level, **backend)
    env.reset(seed=0)  # connections and the first temporary directory are not timed
    samples = []
    for seed in range(1, count + 1):
        start = time.perf_counter()
        env.reset(seed=seed)
        samples.append(time.perf_counter() - start)
    env.close()
    return samples


def time_queries(env_id: str, backend: dict, count: int) -> list[float]:
    env = palaestra.make(env_id, max_tool_calls=10**6, max_calls_per_turn=1, **backend)
    env.unwrapped.set_limits(max_turns=None, max_invalid=None)
    env.reset(seed=0)
    sql = QUERY.format(table=env.unwrapped.database.tables[0].name)
    action = f"<tool_call>{json.dumps({'name': 'query', 'arguments': {'sql': sql}})}</tool_call>"
    env.step(action)  # the MCP server starts on first use: not timed
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        obs, *_ = env.step(action)
        samples.append(time.perf_counter() - start)
        if not obs[0]["content"].endswith("(1 row)"):
            raise RuntimeError(f"the query failed: {obs[0]['content']}")
    env.close()
    return samples


def scores_per_second(backend: dict, count: int) -> float:
    env = palaestra.make("SQL-v0", level=5, **backend)
    env.reset(seed=0)
    gold = env.unwrapped.question.sql
    start = time.perf_counter()
    for _ in range(count):
        verdict = env.unwrapped.score(gold)
        if not verdict.correct:
            raise RuntimeError(f"the gold query did not score: {verdict.reason}")
    elapsed = time.perf_counter() - start
    env.close()
    return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sql")
    parser.add_argument("--resets", type=int, default=30)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--scores", type=int, default=200)
    parser.add_argument("--dsn", default=None)
    args = parser.parse_args()

    backends = {"sqlite": {"backend": "sqlite"}}
    try:
        backends["postgres"] = {"backend": "postgres", "dsn": resolve_dsn(args.dsn)}
    except ValueError as e:
        print(f"PostgreSQL skipped: {e}")

    print("| row | " + " | ".join(backends) + " |")
    print("| --- |" + " ---: |" * len(backends))
    for level in (1, 5, 10):
        cells = []
        for backend in backends.values():
            p50, p99 = percentiles(time_resets(backend, level, args.resets))
            cells.append(f"{p50:.1f} / {p99:.1f} ms")
        print(f"| reset, level {level}, p50 / p99 | " + " | ".join(cells) + " |")
    direct_cells, mcp_cells, ratio_cells = [], [], []
    for backend in backends.values():
        direct = percentiles(time_queries("SQL-v0", backend, args.calls))
        mcp = percentiles(time_queries("SQLMCP-v0", backend, args.calls))
        direct_cells.append(f"{direct[0]:.2f} / {direct[1]:.2f} ms")
        mcp_cells.append(f"{mcp[0]:.2f} / {mcp[1]:.2f} ms")
        ratio_cells.append(f"{mcp[0] / direct[0]:.1f}x")
    print("| query round trip, direct tools (anchor), p50 / p99 | " + " | ".join(direct_cells)
          + " |")
    print("| query round trip, MCP over stdio, p50 / p99 | " + " | ".join(mcp_cells) + " |")
    print("| MCP / direct, p50 | " + " | ".join(ratio_cells) + " |")
    cells = [f"{scores_per_second(b, args.scores):,.0f}/s" for b in backends.values()]
    print("| scoring throughput (level 5) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
