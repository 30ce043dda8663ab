"""`palaestra db start|status|stop`: a local PostgreSQL cluster in a directory of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import palaestra
from palaestra.envs.sql import local_server


@pytest.fixture
def cluster_dir():
    # Under root the server runs as `postgres`, which must be able to enter the directory.
    directory = Path(tempfile.mkdtemp(prefix="palaestra-db-", dir="/tmp"))
    directory.chmod(0o755)
    yield directory
    local_server.stop(directory)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.slow
def test_start_status_stop_and_an_env_on_the_local_server(palaestra_script, cluster_dir):
    def db(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [palaestra_script, "db", *args, "--dir", str(cluster_dir)],
            capture_output=True, text=True, timeout=180, check=False,
        )

    assert db("status").returncode == 1
    started = db("start")
    assert started.returncode == 0, started.stderr
    dsn = local_server.dsn(cluster_dir)
    assert f"running: {dsn}" in started.stdout
    assert db("start").returncode == 0  # already running: nothing to do
    assert db("status").stdout.strip() == f"running: {dsn}"

    os.environ[local_server.DIR_VARIABLE] = str(cluster_dir)
    try:
        env = palaestra.make("SQL-v0", backend="postgres")  # found without a DSN
        assert env.unwrapped.dsn == dsn
        env.reset(seed=2)
        for _ in range(3):
            *_, terminated, _, info = env.step(env.unwrapped.oracle_action())
            if terminated:
                break
        assert info["success"]

        env.reset(seed=3)
        local_server.stop(cluster_dir)  # the server goes away mid-episode
        *_, terminated, truncated, info = env.step(
            f"<tool_call>{json.dumps({'name': 'submit', 'arguments': {'sql': 'SELECT 1'}})}"
            "</tool_call>"
        )
        assert truncated and not terminated and info["mask"] and info["status"] == "error"
        assert info["reward_parts"] == {}
        env.close()
    finally:
        del os.environ[local_server.DIR_VARIABLE]

    assert db("start").returncode == 0
    assert db("stop").stdout.strip() == "stopped"
    assert db("stop").stdout.strip() == "not running"
    assert local_server.running_dsn(cluster_dir) is None


def test_postgres_without_a_server_says_how_to_start_one(monkeypatch, tmp_path):
    monkeypatch.delenv("PALAESTRA_POSTGRES_DSN", raising=False)
    monkeypatch.setenv(local_server.DIR_VARIABLE, str(tmp_path))
    with pytest.raises(ValueError, match="palaestra db start"):
        palaestra.make("SQL-v0", backend="postgres")
