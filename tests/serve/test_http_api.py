"""The HTTP session API: a full episode, its errors, the schema, health and metrics."""

from __future__ import annotations

import time

import httpx

import palaestra


def test_an_episode_over_http_equals_the_local_one(serve):
    server = serve(env_ids=("Calculator-v0",))
    local = palaestra.make("Calculator-v0", max_turns=5)
    with httpx.Client(base_url=server.url) as client:
        created = client.post(
            "/sessions", json={"env_id": "Calculator-v0", "kwargs": {"max_turns": 5}}
        )
        assert created.status_code == 201
        session = created.json()
        assert session["tools"] == local.tools and session["max_turns"] == 5
        sid = session["session_id"]
        reset = client.post(f"/sessions/{sid}/reset", json={"seed": 1, "episode_id": "e-1"})
        assert reset.json()["observation"]["messages"] == local.reset(seed=1)[0]
        while True:
            oracle = client.post(f"/sessions/{sid}/call", json={"method": "oracle_action"})
            action = oracle.json()["value"]
            assert action == local.oracle_action()
            step = client.post(f"/sessions/{sid}/step", json={"action": action}).json()
            observation, reward, terminated, truncated, info = local.step(action)
            assert step["observation"]["messages"] == observation and step["reward"] == reward
            if step["done"]:
                break
        assert step["observation"]["info"]["verdict"]["$verdict"]["status"] == "correct"
        state = client.get(f"/sessions/{sid}/state").json()
        assert state["episode_id"] == "e-1" and state["step_count"] == info["turn"]
        assert client.post(f"/sessions/{sid}/step", json={"action": "x"}).status_code == 409
        assert client.delete(f"/sessions/{sid}").status_code == 204
        assert client.get(f"/sessions/{sid}/state").status_code == 404
        metrics = client.get("/metrics").json()
        assert metrics["steps"] == info["turn"] and metrics["sessions"] == 0
        assert metrics["step_latency_s"]["p50"] > 0
        assert client.get("/envs").json() == {"env_ids": ["Calculator-v0"]}


def test_the_openapi_schema_documents_the_session_routes(serve):
    server = serve(env_ids=("GuessNumber-v0",))
    assert httpx.get(f"{server.url}/docs").status_code == 200
    paths = httpx.get(f"{server.url}/openapi.json").json()["paths"]
    for route in (
        "/sessions",
        "/sessions/{session_id}/reset",
        "/sessions/{session_id}/step",
        "/sessions/{session_id}/state",
        "/sessions/{session_id}/call",
        "/sessions/{session_id}",
        "/health",
        "/metrics",
    ):
        assert route in paths, route


def test_idle_sessions_are_reaped(serve):
    server = serve(env_ids=("GuessNumber-v0",), idle_timeout_s=0.5)
    sid = httpx.post(f"{server.url}/sessions", json={"env_id": "GuessNumber-v0"}).json()[
        "session_id"
    ]
    assert httpx.get(f"{server.url}/sessions/{sid}/state").status_code == 200
    for _ in range(100):
        if httpx.get(f"{server.url}/health").json()["sessions"] == 0:
            break
        time.sleep(0.1)
    response = httpx.get(f"{server.url}/sessions/{sid}/state")
    assert response.status_code == 404 and "reaped" in response.json()["error"]["message"]


def test_the_cli_refuses_unknown_ids_and_bad_options(palaestra_script, subprocess_env):
    import subprocess

    for args, expected in (
        (["GuessNumbr-v0"], "Did you mean 'GuessNumber-v0'"),
        (["--max-sessions", "0"], "max_sessions must be a positive integer"),
        (["--token", "short"], "at least 8 characters"),
    ):
        done = subprocess.run(
            [palaestra_script, "serve", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=subprocess_env(),
        )
        assert done.returncode == 2, done.stderr
        assert expected in done.stderr
