"""VecEnv: concurrent stepping, derived seeds, no autoreset."""

from __future__ import annotations

import asyncio

import gymnasium
import pytest

import palaestra
from palaestra.vector import VecEnv, derive_seeds


def test_seeds_are_derived_not_offset():
    assert derive_seeds(100, 2)[1] != derive_seeds(101, 2)[0]
    assert len(set(derive_seeds(0, 64))) == 64
    assert derive_seeds(None, 3) == [None, None, None]


def test_reset_is_deterministic_and_envs_differ():
    envs = palaestra.make_vec("Arithmetic-v0", 4)
    first, _ = envs.reset(seed=7)
    again, _ = envs.reset(seed=7)
    assert first == again
    assert len({o[0]["content"] for o in first}) > 1


def test_step_skips_finished_envs_and_checks_actions():
    envs = palaestra.make_vec("GuessNumber-v0", 3)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="expected 3 actions"):
        envs.step(["x"])
    with pytest.raises(ValueError, match="needs an action"):
        envs.step([None, "x", "x"])
    finished = [False] * 3
    for _ in range(20):
        actions = [
            None if done else env.oracle_action()
            for env, done in zip(envs.envs, finished, strict=True)
        ]
        _, rewards, terms, truncs, infos = envs.step(actions)
        finished = [f or t or u for f, t, u in zip(finished, terms, truncs, strict=True)]
        if all(finished):
            break
    assert all(finished)
    with pytest.raises(ValueError, match="finished its episode"):
        envs.step(["x", None, None])


def test_async_inside_a_loop_and_sync_outside():
    envs = VecEnv([palaestra.make("Calculator-v0") for _ in range(2)])

    async def go():
        observations, _ = await envs.areset(seed=1)
        with pytest.raises(RuntimeError, match="running event loop"):
            envs.step([None, None])
        return observations

    assert len(asyncio.run(go())) == 2


@pytest.mark.timeout(120)
def test_gymnasium_async_vector_env_says_to_pass_shared_memory_false():
    palaestra.registration.register_gymnasium()
    factories = [lambda: gymnasium.make("palaestra:palaestra/GuessNumber-v0")] * 2
    with pytest.raises(TypeError, match=r"pass shared_memory=False"):
        gymnasium.vector.AsyncVectorEnv(factories)
    envs = gymnasium.vector.AsyncVectorEnv(factories, shared_memory=False)
    try:
        observations, _ = envs.reset(seed=0)
        assert [o[0]["role"] for o in observations] == ["user", "user"]
        observations, rewards, *_ = envs.step(["<guess>3</guess>", "<guess>5</guess>"])
        assert "higher" in observations[0][0]["content"] and len(rewards) == 2
    finally:
        envs.close()
