"""Faults: each episode ends masked or resumed, none is lost or scored 0, the server serves on."""

from __future__ import annotations

import asyncio
import json
import socket
import threading

import httpx
import pytest
import websockets
from tests_support.envs import EchoEnv
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

import palaestra
from palaestra.core import Step
from palaestra.remote import _run_sync

RELEASE = threading.Event()


class HangOnEmpty(EchoEnv):
    """Hangs on an empty reply until the test releases it."""

    def _step(self, action) -> Step:
        if not (action.get("content") or "").strip():
            RELEASE.wait(60)
        return super()._step(action)


class BigReset(EchoEnv):
    """Opens every episode with a 256 KiB message."""

    def _reset(self, options):
        observation, info = super()._reset(options)
        observation[0]["content"] += " " + "x" * (256 * 1024)
        return observation, info


def _assert_masked(out):
    observation, reward, terminated, truncated, info = out
    assert truncated and not terminated
    assert info["status"] == "error" and info["mask"] is True
    assert reward == 0.0 and info["reward_parts"] == {}
    assert info["verdict"].status == "error" and info["success"] is False


def _play_oracle(env, seed: int) -> dict:
    env.reset(seed=seed)
    while True:
        out = env.step(env.oracle_action())
        if out[2] or out[3]:
            return out[4]


def test_server_killed_mid_episode_masks_the_step_and_a_restart_serves_again(process_server):
    server = process_server("GuessNumber-v0").start()
    env = palaestra.make(f"{server.url}/GuessNumber-v0", reconnect_s=1.0)
    env.reset(seed=0)
    assert env.step(env.oracle_action())[4]["status"] == "ok"
    server.kill()
    _assert_masked(env.step("<guess>3</guess>"))  # no exception, no zero score
    with pytest.raises(palaestra.errors.InfrastructureError, match="cannot reach"):
        env.reset(seed=0)
    process_server("GuessNumber-v0", port=server.port).start()
    assert _play_oracle(env, 1)["success"] is True  # a new session on the new server
    env.close()


def test_server_restarted_between_steps_masks_the_episode(process_server):
    server = process_server("GuessNumber-v0").start()
    env = palaestra.make(f"{server.url}/GuessNumber-v0", reconnect_s=20.0)
    env.reset(seed=0)
    server.kill()
    restarted = process_server("GuessNumber-v0", port=server.port)
    threading.Timer(0.5, restarted.start).start()
    out = env.step("<guess>3</guess>")  # reconnects to the new server: the session is gone
    _assert_masked(out)
    assert "no such session" in out[4]["error"]
    assert _play_oracle(env, 1)["success"] is True


def test_rollout_engine_masks_episodes_of_a_dead_server(process_server):
    from palaestra.agents.chat import ChatFormatter
    from palaestra.agents.rollout import RolloutEngine, Task
    from palaestra.agents.scripted import OraclePolicy
    from palaestra.agents.tiny import tiny_tokenizer

    server = process_server("GuessNumber-v0").start()
    formatter = ChatFormatter(tiny_tokenizer())
    url = f"{server.url}/GuessNumber-v0"
    first = RolloutEngine(OraclePolicy(formatter), formatter).run(
        [Task(url, seed=s) for s in (0, 1)]
    )
    assert all(e.status == "ok" and e.success for e in first)
    server.kill()
    episodes = RolloutEngine(OraclePolicy(formatter), formatter).run(
        [Task(url, seed=s) for s in range(4)]
    )
    assert len(episodes) == 4  # none lost
    assert all(e.mask and e.status == "error" for e in episodes)
    assert all("cannot reach" in e.error for e in episodes)


def test_a_dropped_socket_reconnects_and_the_episode_goes_on(serve):
    server = serve(env_ids=("GuessNumber-v0",))
    env = palaestra.make(f"{server.url}/GuessNumber-v0")
    local = palaestra.make("GuessNumber-v0")
    assert env.reset(seed=3) == local.reset(seed=3)
    session = env.session_id
    drops = 0
    while True:
        # Cut the connection under the client (no close handshake), then from the server.
        if drops % 2 == 0:
            _run_sync(_abort(env._socket))
        else:
            detach = server.store.sessions[session].detach()
            asyncio.run_coroutine_threadsafe(detach, server.store.loop).result(5)
        drops += 1
        action = local.oracle_action()
        ours, theirs = env.step(action), local.step(action)
        assert ours == theirs and ours[4]["status"] == "ok"
        if ours[2]:
            break
    assert drops >= 3 and env.session_id == session and ours[4]["success"] is True


async def _abort(socket) -> None:
    socket.transport.abort()


def test_a_resent_frame_is_answered_from_memory_not_run_twice(serve):
    server = serve(env_ids=("GuessNumber-v0",))
    created = httpx.post(f"{server.url}/sessions", json={"env_id": "GuessNumber-v0"}).json()
    url = server.url.replace("http", "ws") + f"/sessions/{created['session_id']}/ws"

    async def exchange(frame):
        async with websockets.connect(url) as socket:
            await socket.send(json.dumps(frame))
            return json.loads(await socket.recv())

    async def main():
        await exchange({"type": "reset", "data": {"seed": 0}, "id": 1})
        step = {"type": "step", "data": {"action": "<guess>9</guess>"}, "id": 2}
        first = await exchange(step)
        again = await exchange(step)  # as after a reply lost with its socket
        state = await exchange({"type": "state", "id": 3})
        return first, again, state

    first, again, state = asyncio.run(main())
    assert first == again and first["id"] == 2
    assert state["data"]["step_count"] == 1


def test_a_hanging_env_gives_a_masked_step_and_the_server_serves_on(serve, registered):
    env_id = registered("ServeHang-v0", HangOnEmpty, tags=("single-turn",))
    server = serve(env_ids=(env_id, "GuessNumber-v0"), step_timeout_s=0.5)
    RELEASE.clear()
    try:
        env = palaestra.make(f"{server.url}/{env_id}")
        other = palaestra.make(f"{server.url}/GuessNumber-v0")
        env.reset(seed=0)
        out = env.step("")
        _assert_masked(out)
        assert "deadline of 0.5 s" in out[4]["error"]
        assert _play_oracle(other, 0)["success"] is True  # other sessions never noticed
        assert _play_oracle(env, 1)["success"] is True  # a fresh env for the next episode
        metrics = httpx.get(f"{server.url}/metrics").json()
        assert metrics["masked_steps"] == 1
    finally:
        RELEASE.set()


def test_a_client_that_never_reads_is_disconnected(serve, registered):
    env_id = registered("ServeBig-v0", BigReset, tags=("single-turn",))
    server = serve(env_ids=(env_id, "GuessNumber-v0"), send_timeout_s=0.5)
    url = server.url.replace("http", "ws") + f"/{env_id}/ws"

    def sessions_of(env):
        return sum(1 for s in server.store.sessions.values() if s.env_id == env)

    def flood() -> bool:
        # A raw socket with a tiny receive buffer that is never read from.
        protocol = ClientProtocol(parse_uri(url))
        with socket.create_connection(("127.0.0.1", server.config.port)) as raw:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            protocol.send_request(protocol.connect())
            raw.sendall(b"".join(protocol.data_to_send()))
            protocol.receive_data(raw.recv(4096))  # the handshake's answer, and no more
            for _ in range(200):
                protocol.send_text(json.dumps({"type": "reset"}).encode())
                raw.sendall(b"".join(protocol.data_to_send()))
            # Still connected and still not reading: the server must give up on us.
            return asyncio.run(_wait_for(lambda: sessions_of(env_id) == 0, 20))

    outcome: list[bool] = []
    flooding = threading.Thread(target=lambda: outcome.append(flood()))
    flooding.start()
    other = palaestra.make(f"{server.url}/GuessNumber-v0")
    assert _play_oracle(other, 0)["success"] is True
    flooding.join(60)
    assert outcome == [True], "the stuck client's session was not closed"
    assert httpx.get(f"{server.url}/metrics").json()["errors"] >= 1
    assert _play_oracle(other, 1)["success"] is True


async def _wait_for(condition, timeout: float) -> bool:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if condition():
            return True
        await asyncio.sleep(0.05)
    return condition()
