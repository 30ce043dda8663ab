"""Oracle against a random policy on every game, at levels 1, 5 and 10.

    python -m bench.games.oracle_vs_random [--seeds 5] [--only Sokoban,Nim] [--markdown]

For each game and level: the oracle's mean return and success rate, the best return
(mean of `best_return()`), and the same for a seeded random policy that plays well-formed
random moves (`random_action`; legal moves in the two-player games), on the same seeds.
"""

from __future__ import annotations

import argparse

import numpy as np
from rich.console import Console
from rich.table import Table

import palaestra


def episode(env, seed: int, policy) -> tuple[float, bool, float]:
    """(return, success, best return) of one episode."""
    env.reset(seed=seed)
    best = env.best_return()
    total = 0.0
    while True:
        _, reward, terminated, truncated, info = env.step(policy())
        total += reward
        if terminated or truncated:
            return total, bool(info.get("success")), best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--only", default="")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    wanted = [w.strip().lower() for w in args.only.split(",") if w.strip()]
    ids = [s.id for s in palaestra.list_envs("game") if s.id != "GuessNumber-v0"]
    columns = [
        "game",
        "level",
        "best",
        "oracle return",
        "oracle success",
        "random return",
        "random success",
    ]
    table = Table(title=f"Oracle vs random policy ({args.seeds} seeds per cell)")
    for column in columns:
        table.add_column(column, justify="left" if column == "game" else "right")
    markdown = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for env_id in ids:
        if wanted and not any(w in env_id.lower() for w in wanted):
            continue
        for level in (1, 5, 10):
            env = palaestra.make(env_id, level=level, max_turns=None)
            rng = np.random.default_rng(level)
            oracle = [episode(env, seed, env.oracle_action) for seed in range(args.seeds)]
            randoms = [
                episode(env, seed, lambda e=env, r=rng: e.unwrapped.random_action(r))
                for seed in range(args.seeds)
            ]
            row = [
                env_id,
                str(level),
                f"{np.mean([o[2] for o in oracle]):.3f}",
                f"{np.mean([o[0] for o in oracle]):.3f}",
                f"{np.mean([o[1] for o in oracle]):.0%}",
                f"{np.mean([r[0] for r in randoms]):.3f}",
                f"{np.mean([r[1] for r in randoms]):.0%}",
            ]
            table.add_row(*row)
            markdown.append("| " + " | ".join(row) + " |")
    Console(width=160).print(table)
    if args.markdown:
        print("\n".join(markdown))


if __name__ == "__main__":
    main()
