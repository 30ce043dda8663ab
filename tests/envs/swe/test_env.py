"""The SWE env end to end: a scripted agent through the tools, leaks, a third-party Harbor task."""

from __future__ import annotations

import gc
import re
import socket
import textwrap

import pytest

from palaestra.envs.swe import build
from palaestra.envs.swe import env as swe_env
from palaestra.envs.swe.env import SWEEnv
from palaestra.envs.swe.task import load_task, shipped_tasks

pytestmark = pytest.mark.docker


def _call(name: str, **arguments) -> dict:
    import json

    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": f"call_{name}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def _edits(patch: str) -> list[tuple[str, str, str]]:
    """(path, old, new) replacements that make a unified diff's hunks, as an agent would."""
    edits = []
    path = None
    old: list[str] = []
    new: list[str] = []

    def flush():
        if path is not None and (old or new):
            edits.append((path, "".join(old), "".join(new)))

    for line in patch.splitlines(keepends=True):
        if line.startswith("+++ b/"):
            path = line[6:].strip()
        elif line.startswith("@@"):
            flush()
            old, new = [], []
        elif line.startswith(("diff ", "--- ", "index ")):
            continue
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" "):
            old.append(line[1:])
            new.append(line[1:])
    flush()
    return edits


def _scripted_turns(task) -> list[dict]:
    edits = _edits(task.gold_patch())
    turns = [
        _call("view", path="."),
        _call("view", path=edits[0][0]),
        _call("search", pattern=re.escape(edits[0][1].strip().splitlines()[0][:30])),
    ]
    turns += [_call("str_replace", path=p, old_str=o, new_str=n) for p, o, n in edits]
    turns.append(
        _call("bash", command="python3 -m pytest -q -p no:cacheprovider -x . 2>&1 | tail -3")
    )
    turns.append(_call("submit"))
    return turns


SOLVED = [t for t in shipped_tasks() if len(_edits(t.gold_patch())) <= 2][:3]


@pytest.mark.slow
def test_a_scripted_agent_solves_three_tasks_and_its_record_masks_tool_output(swe_ready, tmp_path):
    from palaestra.agents.chat import ChatFormatter
    from palaestra.agents.policy import SamplingParams
    from palaestra.agents.rollout import RolloutEngine, Task
    from palaestra.agents.scripted import ReplayPolicy
    from palaestra.agents.tiny import tiny_tokenizer

    formatter = ChatFormatter(tiny_tokenizer(cache_dir=tmp_path))
    assert len(SOLVED) == 3
    for task in SOLVED:
        policy = ReplayPolicy(_scripted_turns(task), formatter)
        engine = RolloutEngine(policy, formatter, sampling=SamplingParams(max_tokens=1 << 16))
        (episode,) = engine.run(
            [Task("SWE-v0", seed=0, kwargs={"task": task.name, "pool_size": 0})]
        )
        assert episode.status == "ok" and episode.success, episode.error or episode.verdict
        assert episode.turn_rewards[-1] == 1.0
        tool_text = [m["content"] for m in episode.messages if m["role"] == "tool"]
        assert len(tool_text) == len(_scripted_turns(task)) - 1
        # Every token the env wrote is outside the turns' sampled spans and has mask 0.
        sampled = {i for start, end in episode.turn_spans for i in range(start, end)}
        assert all(
            (episode.loss_mask[i] == 1) == (i in sampled)
            for i in range(len(episode.completion_ids))
        )
        assert sum(episode.loss_mask) < len(episode.completion_ids)


def _ours() -> list[str]:
    import docker

    client = docker.from_env()
    try:
        owner = f"{socket.gethostname()}:"
        return [
            c["Id"]
            for c in client.api.containers(all=True, filters={"label": "palaestra.sandbox"})
            if (c.get("Labels") or {}).get("palaestra.sandbox.owner", "").startswith(owner)
            and (c.get("Labels") or {})
            .get("palaestra.sandbox.owner", "")
            .endswith(f":{__import__('os').getpid()}")
        ]
    finally:
        client.close()


def test_no_container_is_left_when_episodes_end_crash_or_are_abandoned(swe_ready):
    import docker

    task = shipped_tasks()[0].name
    swe_env._close_shared()
    # Ended: the oracle's episode.
    finished = SWEEnv(task=task, pool_size=1)
    finished.reset(seed=0)
    while True:
        *_, terminated, truncated, _ = finished.step(finished.oracle_action())
        if terminated or truncated:
            break
    # Crashed: the agent's container is killed under it; the step is masked, not scored.
    crashed = SWEEnv(task=task, pool_size=1)
    crashed.reset(seed=0)
    docker.from_env().api.kill(crashed.session._channel.id)
    _, reward, terminated, truncated, info = crashed.step(_call("bash", command="ls"))
    assert (info["status"], info["mask"], truncated, reward) == ("error", True, True, 0.0)
    # Abandoned mid-episode: dropped without close().
    abandoned = SWEEnv(task=task, pool_size=1)
    abandoned.reset(seed=0)
    abandoned.step(_call("bash", command="echo hi > x"))
    assert _ours()
    del abandoned
    gc.collect()
    finished.close()
    crashed.close()
    swe_env._close_shared()  # what process exit does: the warm pool and the backend go
    import time

    deadline = time.monotonic() + 30
    while _ours() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _ours() == []


THIRD_PARTY = {
    "task.toml": textwrap.dedent("""\
        version = "1.0"

        [metadata]
        author_name = "Someone Else"
        difficulty = "easy"
        category = "data-processing"
        tags = ["csv"]

        [verifier]
        timeout_sec = 60.0

        [agent]
        timeout_sec = 300.0

        [environment]
        build_timeout_sec = 300.0
        """),
    "instruction.md": "Sum the `amount` column of /app/sales.csv and write the total to "
    "/app/total.txt.\n",
    "environment/Dockerfile": textwrap.dedent("""\
        FROM python:3.11-slim
        WORKDIR /app
        COPY sales.csv /app/sales.csv
        RUN python3 -c "print(open('/app/sales.csv').read().count(chr(10)))" > /app/rows.txt
        """),
    "environment/sales.csv": "item,amount\napple,3\npear,4\nplum,5\n",
    "tests/test.sh": textwrap.dedent("""\
        #!/bin/bash
        if [ "$(cat /app/total.txt 2>/dev/null)" = "12" ] && [ -f /tests/test.sh ]; then
          echo 1 > /logs/verifier/reward.txt
        else
          echo 0 > /logs/verifier/reward.txt
        fi
        """),
    "solution/solve.sh": textwrap.dedent("""\
        #!/bin/bash
        python3 - > /app/total.txt <<'EOF'
        import csv
        print(sum(int(row["amount"]) for row in csv.DictReader(open("/app/sales.csv"))))
        EOF
        """),
}


@pytest.fixture
def third_party(tmp_path):
    root = tmp_path / "dataset" / "sum-sales"
    for path, text in THIRD_PARTY.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_third_party_harbor_task_needs_a_base_map_then_builds_runs_and_grades(
    swe_ready, third_party
):
    from palaestra.errors import InfrastructureError
    from palaestra.sandbox.images import base_tag

    unmapped = SWEEnv(tasks=str(third_party), pool_size=0)
    _, info = unmapped.reset(seed=0)
    assert (info["status"], info["mask"]) == ("error", True)
    assert re.search(r"FROM python:3.11-slim .*--base-map python:3.11-slim=", info["error"])
    with pytest.raises(InfrastructureError, match="FROM python:3.11-slim"):
        build.build_task(load_task(third_party), log=lambda _line: None)
    env = SWEEnv(
        tasks=str(third_party.parent), pool_size=0, base_map={"python:3.11-slim": base_tag()}
    )
    observation, info = env.reset(seed=0)
    assert info["task"] == "sum-sales" and "sales.csv" in observation[-1]["content"]
    listing = env.step(_call("bash", command="ls /app /tests/ 2>&1; cat rows.txt"))[0][-1][
        "content"
    ]
    assert "sales.csv" in listing and "No such file" in listing  # no tests before the end
    *_, terminated, _, info = env.step(_call("submit"))
    assert terminated and not info["success"] and not info["mask"], info["verdict"]
    env.reset(seed=0)
    *_, info = env.step(env.oracle_action())
    _, reward, terminated, _, info = env.step(env.oracle_action())
    assert terminated and reward == 1.0 and info["success"], info["verdict"].reason
    env.close()


def test_the_public_tests_reward_follows_the_visible_tests(swe_ready):
    task = next(t for t in shipped_tasks() if t.repo.package == "toolz")
    env = SWEEnv(task=task.name, pool_size=0, public_tests_reward=1.0)
    env.reset(seed=0)
    assert env._public and env._passing > 0
    _, broken, *_ = env.step(_call("bash", command="echo 'raise ImportError' >> toolz/__init__.py"))
    _, restored, *_ = env.step(_call("bash", command="git checkout -q -- toolz/__init__.py"))
    assert broken < 0 < restored
    assert broken + restored == pytest.approx(0.0)
    env.close()


def test_swe_build_reports_layers_and_is_a_no_op_the_second_time(swe_ready):
    from typer.testing import CliRunner

    from palaestra.envs.swe.cli import app

    task = str(shipped_tasks()[0].path)
    CliRunner().invoke(app, ["build", task])
    result = CliRunner().invoke(app, ["build", task])
    assert result.exit_code == 0, result.output
    assert "(unchanged)" in result.output and "shared palaestra-sandbox:base-" in result.output
    missing = CliRunner().invoke(app, ["build", "/nonexistent/task"])
    assert missing.exit_code == 1 and "neither a task directory" in missing.output


def test_step_and_episode_budgets_and_long_output(swe_ready):
    task = shipped_tasks()[0].name
    env = SWEEnv(task=task, pool_size=0, step_timeout_s=1.0, max_output_chars=1000)
    env.reset(seed=0)
    observation, *_ = env.step(_call("bash", command="sleep 5; echo never"))
    assert "[timed out after 1 s]" in observation[0]["content"]
    assert "never" not in observation[0]["content"]
    observation, *_ = env.step(_call("bash", command="echo START; seq 1 20000; echo END"))
    text = observation[0]["content"]
    assert text.startswith("START") and text.rstrip().endswith("END") and "characters cut" in text
    assert len(text) < 1200
    env.close()
    short = SWEEnv(task=task, pool_size=0, episode_timeout_s=0.5)
    short.reset(seed=0)
    import time

    time.sleep(0.6)
    _, reward, terminated, truncated, info = short.step(_call("bash", command="ls"))
    assert (terminated, truncated, info["truncation"], reward) == (False, True, "time", 0.0)
    assert short.session is None  # the container went with the episode
