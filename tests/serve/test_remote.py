"""Remote envs keep the local contract: the checker, the rollout engine and errors."""

from __future__ import annotations

import asyncio

import pytest

import palaestra
from palaestra.errors import CapacityError, ResetNeeded, UnknownArgumentError, UnknownEnvError
from palaestra.remote import RemoteEnv
from palaestra.verdict import Verdict

IDS = ["Arithmetic-v0", "GuessNumber-v0", "Calculator-v0"]


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_over_the_network(serve, env_id):
    server = serve(env_ids=(env_id,))
    env = palaestra.make(f"{server.url}/{env_id}")
    assert isinstance(env, RemoteEnv)
    report = palaestra.check_env(env, cross_process=False)
    assert report.ok, report
    assert "garbage:stream" in report.passed and "garbage:bytes" in report.passed


def test_remote_episode_equals_the_local_one(serve):
    server = serve()
    remote = palaestra.make(f"{server.url}/GuessNumber-v0", level=2, max_turns=4)
    local = palaestra.make("GuessNumber-v0", level=2, max_turns=4)
    assert remote.episode_limits == local.episode_limits == (4, 3)
    assert remote.reset(seed=5) == local.reset(seed=5)
    assert remote.best_return() == local.best_return()
    for action in ["<guess>1</guess>", "nonsense", None, 42, b"bytes", "<guess>2</guess>"]:
        ours, theirs = remote.step(action), local.step(action)
        assert ours == theirs, action
        if ours[2] or ours[3]:
            break
    assert ours[3] and ours[4]["truncation"] == "max_turns"
    remote.reset(seed=6)
    local.reset(seed=6)
    while True:
        action = local.oracle_action()
        ours, theirs = remote.step(action), local.step(action)
        assert ours == theirs
        if ours[2]:
            break
    for env in (local, remote):
        with pytest.raises(ResetNeeded, match="after the episode ended"):
            env.step("<guess>3</guess>")
    remote.close()


def test_async_twins_tools_and_verdicts(serve):
    server = serve(env_ids=("Calculator-v0",))
    env = palaestra.make(f"{server.url}/Calculator-v0")
    local = palaestra.make("Calculator-v0")
    assert env.tools == local.tools

    async def play():
        observation, _ = await env.areset(seed=2)
        while True:
            out = await env.astep(env.oracle_action())
            if out[2] or out[3]:
                return out

    *_, terminated, truncated, info = asyncio.run(play())
    assert terminated and info["success"] is True
    assert isinstance(info["verdict"], Verdict) and info["verdict"].correct
    assert "calculator" in env.render_text() or env.render_text()
    env.close()
    env.close()


def test_server_refusals_are_the_local_errors(serve):
    server = serve(env_ids=("GuessNumber-v0", "Arithmetic-v0"), max_sessions=1)
    with pytest.raises(UnknownEnvError, match="Did you mean 'GuessNumber-v0'"):
        palaestra.make(f"{server.url}/GuessNumbr-v0")
    with pytest.raises(UnknownEnvError, match="does not serve 'Sudoku-v0'"):
        palaestra.make(f"{server.url}/Sudoku-v0")
    with pytest.raises(UnknownArgumentError, match="'levl' \\(did you mean 'level'"):
        palaestra.make(f"{server.url}/GuessNumber-v0", levl=3)
    with pytest.raises(ValueError, match="GuessNumber-v0"):
        palaestra.make(f"{server.url}/GuessNumber-v0", level=-5)
    held = palaestra.make(f"{server.url}/GuessNumber-v0")
    with pytest.raises(CapacityError, match="holds 1 of 1 sessions") as caught:
        palaestra.make(f"{server.url}/Arithmetic-v0")
    assert (caught.value.active, caught.value.limit) == (1, 1)
    with pytest.raises(ResetNeeded):
        held.step("<guess>1</guess>")
    held.close()
    palaestra.make(f"{server.url}/Arithmetic-v0").close()  # the slot is free again


@pytest.fixture(scope="module")
def formatter():
    from palaestra.agents.chat import ChatFormatter
    from palaestra.agents.tiny import tiny_tokenizer

    return ChatFormatter(tiny_tokenizer())


def test_rollout_engine_runs_unchanged_over_remote_envs(serve, formatter):
    from palaestra.agents.rollout import RolloutEngine, Task
    from palaestra.agents.scripted import OraclePolicy

    server = serve()

    def run(prefix: str):
        engine = RolloutEngine(OraclePolicy(formatter), formatter, samples_per_task=2)
        tasks = [Task(f"{prefix}{env_id}", seed=seed) for env_id in IDS[:2] for seed in (0, 1)]
        return engine.run(tasks)

    local, remote = run(""), run(f"{server.url}/")
    assert len(remote) == len(local) == 8
    for ours, theirs in zip(remote, local, strict=True):
        assert ours.status == "ok" and not ours.mask and ours.success
        assert ours.messages == theirs.messages
        assert ours.completion_ids == theirs.completion_ids
        assert ours.turn_rewards == theirs.turn_rewards
        assert ours.loss_mask == theirs.loss_mask


def test_gymnasium_checker_and_wrappers_take_a_remote_env(serve):
    import warnings

    import gymnasium
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env

    server = serve(env_ids=("GuessNumber-v0",))
    env = palaestra.make(f"{server.url}/GuessNumber-v0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium_check_env(env)
    complaints = [str(w.message) for w in caught if "gymnasium" in str(w.filename)]
    # A remote env has no Gymnasium spec (it was not made by gymnasium.make); nothing else.
    assert all("not having a spec" in c for c in complaints), complaints
    limited = gymnasium.wrappers.TimeLimit(env, max_episode_steps=2)
    limited.reset(seed=0)
    limited.step("<guess>1</guess>")
    *_, terminated, truncated, _ = limited.step("<guess>2</guess>")
    assert (terminated, truncated) == (False, True)
