"""The HTTP backends against `palaestra search serve` on loopback: real pages, real failures."""

from __future__ import annotations

import subprocess
import sys

import pytest

from palaestra.envs.search.env import SearchEnv, world_index
from palaestra.envs.search.http import HttpTransport, RetrievalClient, WebSearchClient
from palaestra.envs.search.server import SearchServer
from palaestra.errors import InfrastructureError


@pytest.fixture
def server():
    with SearchServer(world_index()) as running:
        yield running


def play_oracle(env, seed):
    env.reset(seed=seed)
    total, done, info = 0.0, False, {}
    while not done:
        _, reward, terminated, truncated, info = env.step(env.oracle_action())
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize(
    "backend, protocol", [("web", "tools"), ("retrieval", "tags"), ("retrieval", "tools")]
)
def test_the_oracle_succeeds_over_http(server, backend, protocol):
    env = SearchEnv(level=2, protocol=protocol, backend=backend, url=server.url, max_tool_calls=12)
    for seed in range(6):
        total, info = play_oracle(env, seed)
        assert total == 1.0 and info["status"] == "ok", (seed, info.get("verdict"))
    env.close()


def test_web_pages_are_real_html_with_links(server):
    client = WebSearchClient(f"{server.url}/api/search")
    (hit, *_) = client.search("Guild", 3)
    assert hit.doc_id.startswith(f"{server.url}/wiki/")
    page = client.open(hit.doc_id)
    assert page.title == hit.title and page.text.startswith(hit.title)
    with pytest.raises(ValueError, match="not a page a search returned"):
        client.open("http://example.invalid/secret")
    client.close()


def test_retrieve_speaks_search_r1(server):
    client = RetrievalClient(server.url)
    hits = client.search("Guild", 2)
    assert len(hits) == 2 and hits[0].score >= hits[1].score > 0
    assert client.open(hits[0].doc_id).title == hits[0].title
    client.close()


@pytest.mark.parametrize(
    "server_kwargs, expected",
    [({"latency_s": 1.0}, "timed out"), ({"error_rate": 1.0}, "HTTP 503")],
    ids=["timeout", "5xx"],
)
def test_backend_failures_mask_the_episode(server_kwargs, expected):
    with SearchServer(world_index(), **server_kwargs) as failing:
        env = SearchEnv(backend="retrieval", url=failing.url, timeout_s=0.3, retries=1)
        env.reset(seed=0)
        observation, reward, terminated, truncated, info = env.step("<search>Guild</search>")
    assert info["status"] == "error" and info["mask"] and truncated and not terminated
    assert reward == 0.0 and info["reward_parts"] == {}
    assert expected in info["error"]


def test_a_server_killed_mid_episode_masks_it_and_the_run_goes_on():
    command = [sys.executable, "-m", "palaestra.cli", "search", "serve", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().split()[1]
        env = SearchEnv(
            level=2, kinds=["chain"], protocol="tools", backend="web", url=url, retries=1
        )
        env.reset(seed=1)
        _, _, _, _, info = env.step(env.oracle_action())
        assert info["status"] == "ok"
    finally:
        process.kill()
        process.wait()
    _, reward, _, truncated, info = env.step(env.oracle_action())
    assert truncated and info["mask"] and reward == 0.0
    assert "failed 2 times" in info["error"]
    with SearchServer(world_index()) as second:
        env = SearchEnv(level=2, protocol="tools", backend="web", url=second.url)
        assert play_oracle(env, 1)[0] == 1.0


def test_retries_ride_out_intermittent_errors():
    with SearchServer(world_index(), error_rate=0.5, seed=3) as flaky:
        client = RetrievalClient(flaky.url, retries=8, backoff_s=0.0)
        assert all(client.search(f"Guild {i}", 1) for i in range(10))


def test_the_cache_answers_when_the_server_is_gone(tmp_path):
    with SearchServer(world_index()) as running:
        url = running.url
        client = RetrievalClient(url, cache_dir=tmp_path, retries=0)
        before = client.search("Siege", 3)
    after = client.search("Siege", 3)
    assert after == before
    with pytest.raises(InfrastructureError):
        client.search("Flood", 3)


def test_the_rate_limit_spaces_requests():
    import time

    with SearchServer(world_index()) as running:
        client = RetrievalClient(running.url, rate_per_s=20.0)
        start = time.monotonic()
        for i in range(6):
            client.search(f"q{i}", 1)
        # Five gaps of at least 1/20 s each.
        assert time.monotonic() - start >= 5 / 20


@pytest.mark.parametrize(
    "kwargs", [{"timeout_s": 0}, {"retries": -1}, {"rate_per_s": 0}, {"backoff_s": -1}]
)
def test_bad_transport_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        HttpTransport(**kwargs)
