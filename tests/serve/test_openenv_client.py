"""OpenEnv's own client (``openenv-core`` from PyPI, unmodified) plays Palaestra envs."""

from __future__ import annotations

import asyncio
import json

import pytest
from openenv.core.generic_client import GenericEnvClient

import palaestra

# A single-turn task, a multi-turn game and a tool env.
IDS = ["Arithmetic-v0", "GuessNumber-v0", "Calculator-v0"]


def _as_openenv_action(action):
    """What an OpenEnv user sends for a Palaestra action: the assistant message."""
    return {"content": action} if isinstance(action, str) else action


def _play_in_lockstep(client, env_id: str, seed: int) -> float:
    """Plays the oracle through ``client`` beside a local env; both must agree every turn."""
    local = palaestra.make(env_id)
    observation, info = local.reset(seed=seed)
    result = client.reset(seed=seed)
    assert result.observation["messages"] == observation
    assert result.reward is None and result.done is False
    total = 0.0
    for _ in range(100):
        action = local.oracle_action()
        observation, reward, terminated, truncated, info = local.step(action)
        result = client.step(_as_openenv_action(action))
        assert result.observation["messages"] == observation
        assert result.reward == reward
        assert result.done == (terminated or truncated)
        assert result.observation["terminated"] == terminated
        total += result.reward
        if result.done:
            break
    assert result.done and result.observation["info"]["success"] is True
    assert result.observation["info"]["verdict"]["$verdict"]["status"] == "correct"
    return total


@pytest.mark.parametrize("env_id", IDS)
def test_openenv_sync_client_plays_full_episodes(serve, env_id):
    server = serve(env_ids=(env_id,))
    with GenericEnvClient(base_url=f"{server.url}/{env_id}").sync() as client:
        for seed in (0, 1):
            assert _play_in_lockstep(client, env_id, seed) > 0
        state = client.state()
        assert state["env_id"] == env_id and state["step_count"] >= 1
        if env_id == "Calculator-v0":
            assert state["tools"][0]["function"]["name"] == "calculator"
    # the served-one-id route, as OpenEnv servers expose it
    with GenericEnvClient(base_url=server.url).sync() as client:
        assert _play_in_lockstep(client, env_id, 2) > 0


def test_openenv_native_tool_calls(serve):
    server = serve(env_ids=("Calculator-v0",))
    local = palaestra.make("Calculator-v0")
    local.reset(seed=4)
    text = local.oracle_action()
    call = json.loads(text.removeprefix("<tool_call>").removesuffix("</tool_call>"))
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
        ],
    }
    expected = local.step(message)
    with GenericEnvClient(base_url=server.url).sync() as client:
        client.reset(seed=4)
        result = client.step(message)
    assert result.observation["messages"] == expected[0]
    assert result.observation["messages"][0]["tool_call_id"] == "c1"


def test_sixteen_concurrent_sessions_for_one_prompt_group(serve):
    """TRL's num_generations > 1: one prompt, 16 generations, 16 sessions at once."""
    server = serve(env_ids=("GuessNumber-v0",), max_sessions=16)
    local = palaestra.make("GuessNumber-v0")

    async def generation(index: int) -> tuple[float, list]:
        async with GenericEnvClient(base_url=server.url) as client:
            result = await client.reset(seed=7)
            opening = result.observation["messages"]
            # Each generation guesses differently first, then plays the oracle's moves.
            shadow = palaestra.make("GuessNumber-v0")
            shadow.reset(seed=7)
            action, replies = f"<guess>{index + 1}</guess>", []
            while True:
                expected = shadow.step(action)
                result = await client.step({"content": action})
                assert result.observation["messages"] == expected[0]
                replies.append(result.observation["messages"][0]["content"])
                if result.done:
                    return replies[0], opening, result.observation["info"]["success"]
                action = shadow.oracle_action()

    async def main():
        return await asyncio.gather(*(generation(i) for i in range(16)))

    outcomes = asyncio.run(main())
    opening, _ = local.reset(seed=7)
    assert all(o[1] == opening for o in outcomes)
    assert all(o[2] is True for o in outcomes)
    assert len({o[0] for o in outcomes}) > 1  # each session answered its own first guess
    assert server.store.metrics.sessions_opened == 16


def test_capacity_gives_openenv_capacity_error(serve):
    server = serve(env_ids=("GuessNumber-v0",), max_sessions=1)

    async def main():
        async with GenericEnvClient(base_url=server.url) as first:
            await first.reset(seed=0)
            second = GenericEnvClient(base_url=server.url)
            await second.connect()
            with pytest.raises(RuntimeError, match=r"holds 1 of 1 sessions.*CAPACITY_REACHED"):
                await second.reset(seed=0)
            await second.close()
            result = await first.step({"content": "<guess>5</guess>"})  # the first plays on
            assert result.observation["info"]["status"] == "ok"

    asyncio.run(main())


def test_openenv_error_frames(serve):
    server = serve(env_ids=("GuessNumber-v0",))

    async def main():
        async with GenericEnvClient(base_url=server.url) as client:
            with pytest.raises(RuntimeError, match="RESET_NEEDED"):
                await client.step({"content": "<guess>5</guess>"})
            with pytest.raises(RuntimeError, match="unknown keys.*VALIDATION_ERROR"):
                await client.reset(seed=0, level=3)
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
                await client.reset(seed=-1)
            await client.reset(seed=0)
            with pytest.raises(RuntimeError, match="unknown keys.*VALIDATION_ERROR"):
                await client.step({"guess": 5})
            reply = await client._send_and_receive({"type": "state"})
            assert reply["type"] == "state"
            with pytest.raises(RuntimeError, match="UNKNOWN_TYPE"):
                await client._send_and_receive({"type": "teleport"})
            result = await client.step({"content": "not a guess"})  # invalid action, not error
            assert result.observation["info"]["invalid_action"] is True

    asyncio.run(main())


def test_kwargs_for_openenv_clients_through_an_http_session(serve):
    """OpenEnv clients cannot pass env arguments; a session made over HTTP carries them."""
    import httpx

    server = serve()
    created = httpx.post(
        f"{server.url}/sessions", json={"env_id": "GuessNumber-v0", "kwargs": {"level": 1}}
    ).json()
    with GenericEnvClient(base_url=f"{server.url}/sessions/{created['session_id']}").sync() as c:
        result = c.reset(seed=0)
    local = palaestra.make("GuessNumber-v0", level=1)
    assert result.observation["messages"] == local.reset(seed=0)[0]
