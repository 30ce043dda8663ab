"""What the oracle costs: CPU seconds per oracle episode, per id and level, and the total of the
slow test that plays 1,000 seeds at every level (tests/envs/test_oracle_seeds.py, which
picks its seed counts for CI from these numbers).

    python -m bench.oracle_cost [--seeds 20] [--levels 1,5,10] [--only Othello,Sudoku]

Each cell plays ``--seeds`` oracle episodes (``reset`` then ``oracle_action``/``step`` until
the episode ends, as the slow test does) on ``palaestra.make(id, level=level)`` and reports
the mean CPU seconds per episode (process time: the machine may be shared). Levels not
measured are interpolated linearly between measured ones, so the estimate of the slow test,
1,000 seeds x levels 1-10 per id, is printed beside the CPU budget it must fit.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import palaestra
from bench.games.oracle_vs_random import episode
from palaestra.envs import newest_game_and_task_ids

SLOW_TEST_SEEDS = 1000
LEVELS = range(1, 11)
BUDGET_CPU_S = 40 * 60  # the CI time left for the slow test: 20 min wall on 2 workers


def episode_seconds(env_id: str, level: int, seeds: int) -> float:
    """Mean CPU seconds of one oracle episode over seeds 0..seeds-1."""
    env = palaestra.make(env_id, level=level)
    episode(env, 10**6, env.oracle_action)  # untimed: lazy imports and data loading
    start = time.process_time()
    for seed in range(seeds):
        episode(env, seed, env.oracle_action)
    return (time.process_time() - start) / seeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--levels", default="1,5,10")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    levels = sorted(int(x) for x in args.levels.split(","))
    wanted = [w.strip().lower() for w in args.only.split(",") if w.strip()]
    total = 0.0
    rows = []
    for env_id in newest_game_and_task_ids():
        if wanted and not any(w in env_id.lower() for w in wanted):
            continue
        costs = [episode_seconds(env_id, level, args.seeds) for level in levels]
        estimate = SLOW_TEST_SEEDS * float(np.sum(np.interp(list(LEVELS), levels, costs)))
        total += estimate
        rows.append((estimate, env_id, costs))
        cells = "  ".join(f"L{lv}={c * 1e3:9.2f}" for lv, c in zip(levels, costs, strict=True))
        print(
            f"{env_id:28s} ms/episode {cells}   1000x10 levels: {estimate:8.1f} CPU-s", flush=True
        )
    print(
        f"\nslow test estimate: {total:.0f} CPU-s = {total / BUDGET_CPU_S:.2f} x the "
        f"{BUDGET_CPU_S} CPU-s budget"
    )
    for estimate, env_id, _ in sorted(rows, reverse=True)[:15]:
        print(f"  {env_id:28s} {estimate:8.1f} CPU-s ({estimate / total:5.1%})")


if __name__ == "__main__":
    main()
