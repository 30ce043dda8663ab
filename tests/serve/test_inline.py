"""Where env calls run: steps and resets of pure game envs on the event loop under a budget,
everything else in threads."""

from __future__ import annotations

import asyncio
import time

import pytest
from tests_support.envs import EchoEnv

import palaestra
from palaestra.serve import ServeConfig


def _on_the_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class WhereEnv(EchoEnv):
    """Records, for every step, whether it ran on the server's event loop."""

    on_loop: list[bool] = []
    resets_on_loop: list[bool] = []

    def _reset(self, options):
        WhereEnv.resets_on_loop.append(_on_the_loop())
        return super()._reset(options)

    def _step(self, action):
        WhereEnv.on_loop.append(_on_the_loop())
        return super()._step(action)


class BurnsCpuOnce(WhereEnv):
    """Its first step computes for 20 ms of CPU time."""

    burned = False

    def _step(self, action):
        if not BurnsCpuOnce.burned:
            BurnsCpuOnce.burned = True
            start = time.thread_time()
            while time.thread_time() - start < 0.02:
                pass
        return super()._step(action)


class WaitsOnce(WhereEnv):
    """Its first step sleeps for 100 ms (as a step waiting on I/O would)."""

    waited = False

    def _step(self, action):
        if not WaitsOnce.waited:
            WaitsOnce.waited = True
            time.sleep(0.1)
        return super()._step(action)


class ResetBurnsCpuOnce(WhereEnv):
    """Its first reset computes for 20 ms of CPU time (a game building its puzzle)."""

    burned = False

    def _reset(self, options):
        if not ResetBurnsCpuOnce.burned:
            ResetBurnsCpuOnce.burned = True
            start = time.thread_time()
            while time.thread_time() - start < 0.02:
                pass
        return super()._reset(options)


@pytest.fixture(autouse=True)
def _fresh_records():
    WhereEnv.on_loop = []
    WhereEnv.resets_on_loop = []
    BurnsCpuOnce.burned = WaitsOnce.waited = ResetBurnsCpuOnce.burned = False


def _play(url: str, env_id: str, episodes: int) -> None:
    env = palaestra.make(f"{url}/{env_id}")
    try:
        for seed in range(episodes):
            env.reset(seed=seed)
            out = env.step(env.oracle_action())
            assert out[4]["status"] == "ok" and out[1] == 1.0
    finally:
        env.close()


def test_game_steps_run_on_the_loop_and_others_in_threads(serve, registered):
    game = registered("ServeGame-v0", WhereEnv, tags=("game", "single-turn"))
    task = registered("ServeTask-v0", WhereEnv, tags=("single-turn",))
    tool = registered("ServeToolGame-v0", WhereEnv, tags=("game", "tools"))
    server = serve(env_ids=(game, task, tool))
    _play(server.url, game, 2)
    assert WhereEnv.on_loop == WhereEnv.resets_on_loop == [True, True]
    WhereEnv.on_loop = []
    WhereEnv.resets_on_loop = []
    _play(server.url, task, 1)
    _play(server.url, tool, 1)  # a tag that may block wins over "game"
    assert WhereEnv.on_loop == WhereEnv.resets_on_loop == [False, False]


def test_no_budget_runs_every_step_in_a_thread(serve, registered):
    game = registered("ServeGame-v0", WhereEnv, tags=("game",))
    server = serve(env_ids=(game,), inline_budget_s=None)
    _play(server.url, game, 2)
    assert WhereEnv.on_loop == WhereEnv.resets_on_loop == [False, False]


@pytest.mark.parametrize("env", [BurnsCpuOnce, WaitsOnce], ids=["cpu", "wait"])
def test_a_step_over_the_budget_sends_its_id_to_the_thread_pool(serve, registered, env):
    game = registered("ServeSlowGame-v0", env, tags=("game",))
    other = registered("ServeGame-v0", WhereEnv, tags=("game",))
    server = serve(env_ids=(game, other), inline_budget_s=0.001)
    _play(server.url, game, 3)
    assert WhereEnv.on_loop == [True, False, False]
    assert server.store.runs_inline(game, "step") is False
    WhereEnv.on_loop = []
    _play(server.url, other, 1)  # other ids stay on the loop
    assert WhereEnv.on_loop == [True]


def test_a_reset_over_the_budget_sends_only_resets_to_the_thread_pool(serve, registered):
    game = registered("ServeSlowResetGame-v0", ResetBurnsCpuOnce, tags=("game",))
    server = serve(env_ids=(game,), inline_budget_s=0.001)
    _play(server.url, game, 3)
    assert WhereEnv.resets_on_loop == [True, False, False]
    assert WhereEnv.on_loop == [True, True, True]  # its steps stay on the loop
    assert server.store.runs_inline(game, "reset") is False
    assert server.store.runs_inline(game, "step") is True


def test_the_budget_must_be_positive():
    with pytest.raises(ValueError, match="inline_budget_s"):
        ServeConfig(inline_budget_s=0)
