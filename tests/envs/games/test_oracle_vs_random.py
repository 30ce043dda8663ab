"""At levels 1, 5 and 10 the oracle reaches the best return on every seed; a random policy,
measured on the same seeds, does worse."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra

GAME_IDS = [spec.id for spec in palaestra.list_envs("game") if spec.id != "GuessNumber-v0"]
SEEDS = (0, 1, 2)
RANDOM_SEEDS = range(
    10
)  # random play is cheap; more seeds keep lucky streaks from tying the oracle

# Level-10 oracles that take seconds per episode run in the slow lane.
SLOW_AT_TEN = {
    "Game2048-v0",
    "Sokoban-v0",
    "Mastermind-v0",
    "SlidingPuzzle-v0",
    "Othello-v0",
    "Battleship-v0",
}


def episode(env, seed: int, policy) -> tuple[float, dict]:
    env.reset(seed=seed)
    total = 0.0
    while True:
        _, reward, terminated, truncated, info = env.step(policy())
        total += reward
        if terminated or truncated:
            return total, info


CASES = [
    pytest.param(
        env_id,
        level,
        id=f"{env_id}-level{level}",
        marks=[pytest.mark.slow] if level == 10 and env_id in SLOW_AT_TEN else [],
    )
    for env_id in GAME_IDS
    for level in (1, 5, 10)
]


@pytest.mark.parametrize(("env_id", "level"), CASES)
def test_oracle_beats_random(env_id, level):
    env = palaestra.make(env_id, level=level, max_turns=None)
    rng = np.random.default_rng(np.random.SeedSequence([level, GAME_IDS.index(env_id)]))
    oracle_returns, random_returns = [], []
    for seed in SEEDS:
        total, info = episode(env, seed, env.oracle_action)
        best = env.best_return()
        assert info["success"] is True, (seed, info.get("verdict"))
        assert total >= best - 1e-6, (seed, total, best)
        oracle_returns.append(total)
    for seed in RANDOM_SEEDS:
        random_returns.append(episode(env, seed, lambda: env.unwrapped.random_action(rng))[0])
    assert np.mean(random_returns) < np.mean(oracle_returns), (random_returns, oracle_returns)
