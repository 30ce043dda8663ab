"""What a game's reset spends: the part fixed by its seeding and draws, and the rest.

    python -m bench.games.reset_cost                    # every registered game
    python -m bench.games.reset_cost --only sokoban,maze --seeds 1500

Per id, the median call over ``--passes`` passes of ``--seeds`` seeds, in one process; no seed
is reset twice (half of a pass's seeds are reset back to back, half after an episode):
    * reset, back to back: ``env.reset(seed=s)`` for each seed in turn;
    * reset after an episode: each reset timed after a random policy's episode, as
      `python -m bench.games` and training runs time it (the episode's code has taken the
      processor's caches);
    * seeding + draws: Gymnasium's seeding of the same seeds plus the numpy calls the id's
      reset made (recorded once, replayed alone on a freshly seeded generator). No change
      to an id's code removes this part without changing its episodes: the golden digests
      fix the draws, and item 1 of the simplicity pass fixes the seeding.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import gymnasium.utils.seeding as seeding
import numpy as np

import palaestra


class _Recorder:
    """A generator that notes every call made through it."""

    def __init__(self, generator: np.random.Generator, calls: list):
        self._generator, self._calls = generator, calls

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._generator, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            self._calls.append((name, args, kwargs))
            return attribute(*args, **kwargs)

        return call


def recorded_draws(env: Any, seeds: range) -> list[list]:
    """The numpy calls each seed's reset makes, in order."""
    real = seeding.np_random
    draws: list[list] = []

    def recording(seed: int | None = None):
        generator, used = real(seed)
        draws.append([])
        return _Recorder(generator, draws[-1]), used

    seeding.np_random = recording
    try:
        for seed in seeds:
            env.reset(seed=seed)
    finally:
        seeding.np_random = real
    return draws


def measure(env_id: str, count: int, passes: int) -> dict[str, float]:
    """Median microseconds per call of each column, over ``passes`` passes of ``count`` seeds.

    Every reset has a seed of its own, and a pass records its seeds' draws only after it has
    timed their resets, so caches keyed by an instance (such as Negotiation's best line, which
    a group of episodes on one seed shares) never make a column look cheaper than fresh
    episodes are.
    """
    env = palaestra.make(env_id)
    env.reset(seed=0)
    policy = np.random.default_rng(0)
    times: dict[str, list[float]] = {"reset": [], "after an episode": [], "seeding + draws": []}

    def timed(column: str, run: Any, *args: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        run(*args, **kwargs)
        times[column].append(time.perf_counter() - start)

    def replay(seed: int, calls: list) -> None:
        generator = seeding.np_random(seed)[0]
        for name, args, kwargs in calls:
            getattr(generator, name)(*args, **kwargs)

    first = 1_000_000  # seeds the warm-up above did not use
    calls_per_reset = []
    for index in range(passes):  # the columns interleave: the machine's speed drifts
        seeds = range(first + index * count, first + (index + 1) * count)
        for seed in seeds[: count // 2]:
            timed("reset", env.reset, seed=seed)
        for seed in seeds[count // 2 :]:
            timed("after an episode", env.reset, seed=seed)
            for _ in range(400):
                _, _, terminated, truncated, _ = env.step(env.unwrapped.random_action(policy))
                if terminated or truncated:
                    break
        for seed, calls in zip(seeds, recorded_draws(env, seeds), strict=True):
            timed("seeding + draws", replay, seed, calls)
            calls_per_reset.append(len(calls))
    result = {column: statistics.median(values) * 1e6 for column, values in times.items()}
    result["draw calls"] = statistics.mean(calls_per_reset)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="Comma-separated parts of ids to keep.")
    parser.add_argument("--seeds", type=int, default=1000, help="Seeds per pass.")
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    wanted = [w.strip().lower() for w in args.only.split(",") if w.strip()]
    print(
        f"{'id':18}{'reset us':>10}{'after an episode':>18}{'seeding + draws':>17}"
        f"{'draw calls':>12}"
    )
    for spec in palaestra.list_envs("game"):
        if wanted and not any(w in spec.id.lower() for w in wanted):
            continue
        row = measure(spec.id, args.seeds, args.passes)
        print(
            f"{spec.id:18}{row['reset']:10.1f}{row['after an episode']:18.1f}"
            f"{row['seeding + draws']:17.1f}{row['draw calls']:12.1f}"
        )


if __name__ == "__main__":
    main()
