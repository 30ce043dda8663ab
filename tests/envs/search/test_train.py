"""`palaestra train` on the single-hop search env: warm start and an RL step run end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_palaestra_train_runs_on_single_hop_search(tmp_path, user_cache):
    env = {k: v for k, v in os.environ.items() if k != "PALAESTRA_CACHE"}
    if user_cache is not None:  # the tiny model and tokenizer are shared with other tests
        env["PALAESTRA_CACHE"] = user_cache
    command = [
        sys.executable, "-m", "palaestra.cli", "train", "--env-id", "SearchQA-v0",
        "--warmup-steps", "1", "--warmup-tasks", "2", "--steps", "1", "--tasks-per-step", "1",
        "--group-size", "2", "--eval-tasks", "2", "--output-dir", str(tmp_path),
        "--no-progress", "--no-plot",
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)
    assert out.returncode == 0, out.stdout + out.stderr
    records = [json.loads(line) for line in open(tmp_path / "metrics.jsonl")]
    assert {r["phase"] for r in records} >= {"rl", "eval"}
    episodes = [json.loads(line) for line in open(tmp_path / "episodes.jsonl")]
    assert episodes and all(e["env_id"] == "SearchQA-v0" for e in episodes)
    assert all(e["status"] == "ok" for e in episodes)
