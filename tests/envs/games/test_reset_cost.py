"""`bench.games.reset_cost` replays exactly the draws a reset makes (its floor column)."""

import gymnasium.utils.seeding as seeding
import pytest

import palaestra
from bench.games.reset_cost import recorded_draws


@pytest.mark.parametrize("env_id", ["Sokoban-v0", "Battleship-v0", "Maze-v0", "GuessNumber-v0"])
def test_replayed_draws_leave_the_generator_where_the_reset_left_it(env_id):
    env = palaestra.make(env_id)
    seeds = range(5)
    recorded = recorded_draws(env, seeds)
    assert all(recorded), "every reset draws something"
    for seed, calls in zip(seeds, recorded, strict=True):
        env.reset(seed=seed)
        generator = seeding.np_random(seed)[0]
        for name, args, kwargs in calls:
            getattr(generator, name)(*args, **kwargs)
        after_reset = env.unwrapped.np_random.bit_generator.state
        assert generator.bit_generator.state == after_reset, f"seed {seed}"
