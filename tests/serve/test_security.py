"""Hostile clients get clear errors or are closed; the server and other sessions carry on."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import pytest
import websockets
from openenv.core.generic_client import GenericEnvClient

import palaestra
from palaestra.errors import InfrastructureError, UnknownEnvError
from palaestra.serve.app import authorized

TOKEN = "correct-horse-battery"


def _ws(server, path: str) -> str:
    return server.url.replace("http", "ws") + path


async def _first_frame(url: str, **options) -> tuple[dict, int | None]:
    """The refusal the server sends first, and the close code that follows it."""
    async with websockets.connect(url, **options) as socket_:
        frame = json.loads(await socket_.recv())
        try:
            await socket_.send(json.dumps({"type": "reset"}))
            assert json.loads(await socket_.recv()) == frame  # a request gets the refusal too
            await socket_.recv()
        except websockets.ConnectionClosed as closed:
            return frame, closed.rcvd.code if closed.rcvd else None
    raise AssertionError("the server kept the socket open")


def _assert_alive(server) -> None:
    env = palaestra.make(f"{server.url}/GuessNumber-v0", token=TOKEN)
    env.reset(seed=0)
    assert env.step(env.oracle_action())[4]["status"] == "ok"
    env.close()


@pytest.mark.parametrize("header", [None, "Bearer wrong-token-123", "Token correct-horse-battery"])
def test_missing_or_wrong_token_is_refused(serve, header):
    server = serve(env_ids=("GuessNumber-v0",), token=TOKEN)
    headers = {"Authorization": header} if header else {}
    response = httpx.post(
        f"{server.url}/sessions", json={"env_id": "GuessNumber-v0"}, headers=headers
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"
    assert "Bearer" in response.json()["error"]["message"]
    assert httpx.get(f"{server.url}/metrics", headers=headers).status_code == 401
    assert httpx.get(f"{server.url}/health").status_code == 200  # liveness stays open
    frame, code = asyncio.run(
        _first_frame(_ws(server, "/GuessNumber-v0/ws"), additional_headers=headers)
    )
    assert frame["type"] == "error" and frame["data"]["code"] == "UNAUTHORIZED"
    assert code == 1008
    assert server.store.sessions == {}  # nothing was made for the refused clients
    _assert_alive(server)


def test_the_token_travels_as_bearer_url_password_or_environment(serve, monkeypatch):
    server = serve(env_ids=("GuessNumber-v0",), token=TOKEN)
    with pytest.raises(InfrastructureError, match="requires a token"):
        palaestra.make(f"{server.url}/GuessNumber-v0")
    host = server.url.removeprefix("http://")
    palaestra.make(f"http://:{TOKEN}@{host}/GuessNumber-v0").close()
    monkeypatch.setenv("PALAESTRA_SERVE_TOKEN", TOKEN)
    palaestra.make(f"{server.url}/GuessNumber-v0").close()
    # OpenEnv's client cannot set headers: the URL's password goes as HTTP Basic.
    with GenericEnvClient(base_url=f"http://user:{TOKEN}@{host}").sync() as client:
        assert client.reset(seed=0).observation["info"]["status"] == "ok"


def test_tokens_are_compared_whole():
    assert authorized(f"Bearer {TOKEN}", TOKEN)
    assert not authorized(f"Bearer {TOKEN[:-1]}", TOKEN)
    assert not authorized(f"Bearer {TOKEN}x", TOKEN)
    assert not authorized("Basic !!!notbase64", TOKEN)
    assert authorized(None, None)


def test_a_100_mb_frame_closes_that_socket_only(serve):
    server = serve(env_ids=("GuessNumber-v0",), token=TOKEN)
    headers = {"Authorization": f"Bearer {TOKEN}"}

    async def send_huge() -> int | None:
        async with websockets.connect(
            _ws(server, "/GuessNumber-v0/ws"), additional_headers=headers
        ) as socket_:
            try:
                await socket_.send("x" * (100 * 1024 * 1024))
                await socket_.recv()
            except websockets.ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None
        raise AssertionError("the server accepted a 100 MB frame")

    assert asyncio.run(send_huge()) == 1009  # "message too big"
    body = b"{" + b" " * (100 * 1024 * 1024) + b"}"
    response = httpx.post(
        f"{server.url}/sessions",
        content=body,
        headers={**headers, "Content-Type": "application/json"},
        timeout=60,
    )
    assert response.status_code == 413 and "limit" in response.json()["error"]["message"]
    _assert_alive(server)


def test_malformed_frames_get_error_frames_and_the_socket_stays_usable(serve):
    server = serve(env_ids=("GuessNumber-v0",))

    async def main():
        async with websockets.connect(_ws(server, "/GuessNumber-v0/ws")) as socket_:
            answers = []
            for frame in [
                "{not json",
                "[1, 2]",
                json.dumps({"type": "reset", "data": {"seed": "zero"}}),
                json.dumps({"type": "reset", "extra": 1}),
                json.dumps({"type": "step", "data": "a string"}),
                json.dumps({"type": "call", "data": {"method": "__class__"}}),
                json.dumps({"type": "reset", "id": "x"}),
            ]:
                await socket_.send(frame)
                answers.append(json.loads(await socket_.recv()))
            await socket_.send(b"\x00binary")
            answers.append(json.loads(await socket_.recv()))
            await socket_.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
            return answers, json.loads(await socket_.recv())

    answers, reset = asyncio.run(main())
    codes = [a["data"]["code"] for a in answers]
    assert all(a["type"] == "error" for a in answers)
    assert codes[0] == "INVALID_JSON" and codes[-1] == "INVALID_JSON"
    assert set(codes[1:-1]) == {"VALIDATION_ERROR"}
    assert reset["type"] == "observation"


def test_unknown_ids_kwargs_and_sessions_are_clear_errors(serve):
    server = serve(env_ids=("GuessNumber-v0",))
    frame, _ = asyncio.run(_first_frame(_ws(server, "/GuessNumbr-v0/ws")))
    assert frame["data"]["code"] == "UNKNOWN_ENV"
    assert "Did you mean 'GuessNumber-v0'" in frame["data"]["message"]
    created = httpx.post(f"{server.url}/sessions", json={"env_id": "Sudoku-v0"})
    assert created.status_code == 404 and created.json()["error"]["code"] == "UNKNOWN_ENV"
    created = httpx.post(
        f"{server.url}/sessions", json={"env_id": "GuessNumber-v0", "kwargs": {"colour": 1}}
    )
    assert created.status_code == 422 and created.json()["error"]["code"] == "UNKNOWN_ARGUMENT"
    response = httpx.post(f"{server.url}/sessions/forged/step", json={"action": "x"})
    assert response.status_code == 404 and response.json()["error"]["code"] == "UNKNOWN_SESSION"
    frame, _ = asyncio.run(_first_frame(_ws(server, "/sessions/forged/ws")))
    assert frame["data"]["code"] == "UNKNOWN_SESSION"
    with pytest.raises(UnknownEnvError):
        palaestra.make(f"{server.url}/Nope-v0")
    _assert_alive(server)


def test_a_slow_http_body_gets_408(serve):
    server = serve(env_ids=("GuessNumber-v0",), body_timeout_s=1.0)
    with socket.create_connection(("127.0.0.1", server.config.port)) as raw:
        raw.sendall(
            b"POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        _assert_alive(server)  # served while the slow client dribbles
        raw.sendall(b" ")
        raw.settimeout(10)
        answer = b""
        while b"SLOW_CLIENT" not in answer and (chunk := raw.recv(4096)):
            answer += chunk
        answer = answer.decode()
    assert answer.startswith("HTTP/1.1 408") and "SLOW_CLIENT" in answer


def test_a_silent_socket_is_reaped_and_others_are_served(serve):
    server = serve(env_ids=("GuessNumber-v0",), idle_timeout_s=1.0)

    async def main() -> float:
        async with websockets.connect(_ws(server, "/GuessNumber-v0/ws")) as silent:
            started = time.monotonic()
            await asyncio.to_thread(_assert_alive, server)
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(silent.recv(), 15)
            return time.monotonic() - started

    assert asyncio.run(main()) < 15
    assert server.store.sessions == {}
    _assert_alive(server)
