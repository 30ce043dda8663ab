"""Core benchmark: import cost and env reset/step throughput, beside GEM, in one run.

    python -m bench.core [--episodes 2000]

Rows:
    * import: seconds to import the library in a fresh interpreter (best of 5).
    * guess-the-number: the same game (higher/lower hints, binary-search player) in
      Palaestra (`GuessNumber-v0`, numbers 1-64) and GEM (`game:GuessTheNumber-v0-hard`),
      resets per second and steps per second.

The anchors need the `bench` extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table


def import_seconds(module: str, repeats: int = 5) -> float | None:
    """Best-of-N import time in a fresh interpreter (None if the module is missing)."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return min(times)


def palaestra_game(episodes: int) -> tuple[float, float]:
    """Resets/s and steps/s of GuessNumber-v0 with its binary-search oracle."""
    import palaestra

    env = palaestra.make("GuessNumber-v0", level=3)
    reset_time = step_time = 0.0
    steps = 0
    for seed in range(episodes):
        start = time.perf_counter()
        env.reset(seed=seed)
        reset_time += time.perf_counter() - start
        while True:
            action = env.oracle_action()
            start = time.perf_counter()
            *_, terminated, truncated, _ = env.step(action)
            step_time += time.perf_counter() - start
            steps += 1
            if terminated or truncated:
                break
    return episodes / reset_time, steps / step_time


def gem_game(episodes: int) -> tuple[float, float] | None:
    """Resets/s and steps/s of GEM's GuessTheNumber with a binary-search player."""
    try:
        import gem
    except ImportError:
        return None
    env = gem.make("game:GuessTheNumber-v0-hard")
    reset_time = step_time = 0.0
    steps = 0
    for seed in range(episodes):
        start = time.perf_counter()
        observation, _ = env.reset(seed=seed)
        reset_time += time.perf_counter() - start
        low, high = 1, int(re.search(r"between 1 and (\d+)", observation).group(1))
        while True:
            guess = (low + high) // 2
            start = time.perf_counter()
            observation, _, terminated, truncated, _ = env.step(f"\\boxed{{{guess}}}")
            step_time += time.perf_counter() - start
            steps += 1
            if terminated or truncated:
                break
            if "higher" in observation:
                low = guess + 1
            else:
                high = guess - 1
    return episodes / reset_time, steps / step_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    args = parser.parse_args()

    table = Table(title="Core: import cost and env throughput (higher is better except import)")
    for column in ("metric", "palaestra", "GEM", "ratio (palaestra / GEM)"):
        table.add_column(column, justify="right" if column != "metric" else "left")

    ours_import, gem_import = import_seconds("palaestra"), import_seconds("gem")
    gem_cell = f"{gem_import * 1000:.0f} ms" if gem_import is not None else "not installed"
    ratio = f"{ours_import / gem_import:.2f}x time" if gem_import else "-"
    table.add_row(
        "import (fresh interpreter, best of 5)", f"{ours_import * 1000:.0f} ms", gem_cell, ratio
    )

    ours = palaestra_game(args.episodes)
    theirs = gem_game(args.episodes)
    for index, name in enumerate(("guess-the-number resets/s", "guess-the-number steps/s")):
        if theirs is None:
            table.add_row(name, f"{ours[index]:,.0f}", "not installed", "-")
        else:
            table.add_row(
                name,
                f"{ours[index]:,.0f}",
                f"{theirs[index]:,.0f}",
                f"{ours[index] / theirs[index]:.2f}x",
            )
    Console().print(table)


if __name__ == "__main__":
    main()
