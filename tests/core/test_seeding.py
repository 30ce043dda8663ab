"""Seeding: `reset(seed=s)` gives the generator Gymnasium gives, and envs draw from it."""

from __future__ import annotations

import asyncio

import gymnasium
import numpy as np
import pytest
from gymnasium.utils import env_checker, seeding

import palaestra
from palaestra.envs.games import mastermind
from palaestra.envs.games._common import sample


def bare(env_id: str, **kwargs):
    return palaestra.make(env_id, max_turns=None, max_invalid=None, **kwargs).unwrapped


def state(generator: np.random.Generator) -> dict:
    return generator.bit_generator.state


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**64 + 3, 10**40])
def test_reset_seeds_np_random_as_gymnasium_does(seed):
    env = bare("TowerOfHanoi-v0", start="classic")  # draws nothing
    env.reset(seed=seed)
    assert env.np_random_seed == seed
    assert state(env.np_random) == state(seeding.np_random(seed)[0])
    # `np.random.default_rng(seed)` is the same generator (a PCG64 over SeedSequence(seed)).
    assert state(env.np_random) == state(np.random.default_rng(seed))
    asyncio.run(env.areset(seed=seed + 1))
    assert env.np_random_seed == seed + 1
    assert state(env.np_random) == state(np.random.default_rng(seed + 1))


def test_the_stream_goes_on_without_a_seed_and_snapshots_restore_it():
    env = bare("TowerOfHanoi-v0", start="stacked")  # draws disks + 2 numbers per reset
    reference = np.random.default_rng(11)
    env.reset(seed=11)
    env.reset()  # no seed: the generator of seed 11 goes on
    reference.random(2 * (env.disks + 2))
    assert env.np_random_seed == 11 and state(env.np_random) == state(reference)
    snapshot = env.get_state()
    env.np_random.random(5)
    env.set_state(snapshot)
    assert state(env.np_random) == state(reference)


def test_hand_set_generators_and_bad_seeds_behave_as_in_gymnasium():
    env = bare("GuessNumber-v0")
    env.reset(seed=13)
    mine = np.random.default_rng(5)
    env.np_random = mine
    assert env.np_random is mine and env.np_random_seed == -1
    with pytest.raises(gymnasium.error.Error, match="greater or equal to zero"):
        env.reset(seed=-1)


def test_gymnasiums_seeding_checks_pass():
    env = palaestra.make("Minesweeper-v1")
    env_checker.check_reset_seed_determinism(env)
    env_checker.check_reset_options(env)


@pytest.mark.parametrize("seed", range(5))
def test_tower_of_hanoi_draws_its_start_from_np_random(seed):
    env = bare("TowerOfHanoi-v0", disks=5, start="random")
    env.reset(seed=seed)
    reference = np.random.default_rng(seed)
    while True:  # a draw whose position is already solved is drawn again
        draws = reference.random(5 + 2).tolist()
        where = [int(d * 3) for d in draws[2:]]
        target = int(draws[0] * 3)
        if any(peg != target for peg in where):
            break
    assert env.where[1:] == where and env.target == target
    assert state(env.np_random) == state(reference)


@pytest.mark.parametrize("seed", range(5))
def test_mastermind_draws_its_secret_from_np_random(seed):
    env = bare("Mastermind-v0", pegs=4, colors=6, repeats=True)
    env.reset(seed=seed)
    codes = mastermind.all_codes(4, 6, True)
    expected = codes[int(np.random.default_rng(seed).random() * len(codes))]
    assert env.secret == tuple(int(d) for d in expected)


@pytest.mark.parametrize("seed", range(5))
def test_minesweeper_draws_its_start_and_mines_from_np_random(seed):
    env = bare("Minesweeper-v1", rows=6, columns=7, mines=8)
    env.reset(seed=seed)
    draws = np.random.default_rng(seed).random(8 + 1).tolist()
    start = int(draws[0] * 42)
    assert start in env.revealed
    clear = {start, *env.neighbours[start]}
    allowed = [cell for cell in range(42) if cell not in clear]
    assert env.mines == frozenset(sample(allowed, 8, draws[1:]))


@pytest.mark.parametrize("seed", range(3))
def test_2048_draws_every_tile_from_np_random_at_reset(seed):
    env = bare("Game2048-v0", target=2048, max_moves=100)
    env.reset(seed=seed)
    assert env.draws == np.random.default_rng(seed).random(2 * (100 + 2)).tolist()
