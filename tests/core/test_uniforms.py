"""`Env.uniforms`: the seeded stream drawn without building `np_random`, bit for bit."""

from __future__ import annotations

import random

import numpy as np
import pytest

from palaestra.core import Env


class Draws(Env):
    """An env whose episodes draw nothing at reset (the test draws)."""

    state_attrs = ("_turn",)

    def _reset(self, options):
        return [], {}


def gymnasium_generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


@pytest.mark.parametrize("seed", [0, 1, 2**31, 2**32 - 1, 2**32, 2**64 + 3, 10**40, 2**127 - 1])
@pytest.mark.parametrize("sizes", [(1,), (2, 3), (4, 4, 1), (5,), (104, 2), (1, 30, 1, 7)])
def test_uniforms_are_np_random_draws(seed: int, sizes: tuple[int, ...]) -> None:
    env, reference = Draws(), gymnasium_generator(seed)
    env.reset(seed=seed)
    for size in sizes:
        assert env.uniforms(size) == reference.random(size).tolist()
    # The generator built afterwards goes on from where the draws left the stream.
    assert env.np_random.random(6).tolist() == reference.random(6).tolist()
    assert env.uniforms(3) == reference.random(3).tolist()


def test_many_seeds_and_mixed_draws() -> None:
    rng = random.Random(7)
    env = Draws()
    for trial in range(400):
        seed = rng.choice([trial, rng.getrandbits(32), rng.getrandbits(rng.randint(33, 200))])
        env.reset(seed=seed)
        reference = gymnasium_generator(seed)
        for _ in range(rng.randint(1, 4)):
            size = rng.choice([1, 2, 4, 5, 9, 60])
            if rng.random() < 0.25:
                assert env.np_random.random(size).tolist() == reference.random(size).tolist()
            else:
                assert env.uniforms(size) == reference.random(size).tolist()
        env.reset()  # no seed: the stream goes on
        assert env.uniforms(2) == reference.random(2).tolist()


def test_envs_reset_with_one_seed_draw_the_same_stream_independently() -> None:
    # As a GRPO group does: the seed's start is shared (cached), the streams are not.
    envs = [Draws() for _ in range(4)]
    for seed in (11, 11, 12, 11):
        references = [gymnasium_generator(seed) for _ in envs]
        for env in envs:
            env.reset(seed=seed)
        for round_ in range(3):
            for index, (env, reference) in enumerate(zip(envs, references, strict=True)):
                size = 1 + (index + round_) % 4
                assert env.uniforms(size) == reference.random(size).tolist()


def test_snapshots_and_hand_set_generators_see_the_stream() -> None:
    env = Draws()
    env.reset(seed=9)
    reference = gymnasium_generator(9)
    assert env.uniforms(3) == reference.random(3).tolist()
    snapshot = env.get_state()  # builds np_random at the stream's current point
    assert snapshot["rng"] == reference.bit_generator.state
    assert env.uniforms(2) == reference.random(2).tolist()
    env.set_state(snapshot)
    again = gymnasium_generator(9)
    again.random(3)
    assert env.uniforms(2) == again.random(2).tolist()
    mine = np.random.default_rng(5)
    expected = np.random.default_rng(5).random(4).tolist()
    env.reset(seed=10)
    env.uniforms(20)
    env.np_random = mine  # a generator set by hand replaces the seeded stream
    assert env.uniforms(4) == expected


def test_unseeded_env_draws_from_its_own_generator() -> None:
    env = Draws()
    env.reset()
    generator = env.np_random
    state = generator.bit_generator.state
    draws = env.uniforms(3)
    generator.bit_generator.state = state
    assert draws == generator.random(3).tolist()


@pytest.mark.parametrize("seed", [0, 3, 2**40])
@pytest.mark.parametrize(("count", "skip"), [(1, 0), (2, 3), (2, 60), (4, 64), (3, 65), (6, 2)])
def test_skip_passes_over_the_stream(seed: int, count: int, skip: int) -> None:
    env, reference = Draws(), gymnasium_generator(seed)
    env.reset(seed=seed)
    assert env.uniforms(count, skip) == reference.random(count + skip).tolist()[:count]
    assert env.uniforms(2, skip) == reference.random(2 + skip).tolist()[:2]
    assert env.np_random.random(3).tolist() == reference.random(3).tolist()
    env.reset()
    assert env.uniforms(count, skip) == reference.random(count + skip).tolist()[:count]
