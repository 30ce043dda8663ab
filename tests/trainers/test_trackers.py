"""Trackers: TensorBoard, wandb (offline) and trackio (local) receive a run's metrics.

Each tracker writes only under ``tmp_path``: wandb's run into the run folder and its caches
and settings under the ``WANDB_*`` folders set below, trackio into ``TRACKIO_DIR``, and
``HOME`` points at ``tmp_path`` for anything else. wandb runs in offline mode.
"""

from __future__ import annotations

import json
import math
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from palaestra.errors import MissingDependencyError
from palaestra.trainers.config import TrainConfig
from palaestra.trainers.run import check_run
from palaestra.trainers.trackers import (
    TABLE_COLUMNS,
    TRACKERS,
    parse_report_to,
    sample_table,
    tracker_metrics,
    transcript,
)

ROOT = Path(__file__).resolve().parents[2]


def offline_env(base: Path) -> dict[str, str]:
    """Environment variables that keep every tracker's files under ``base``, offline."""
    return {
        "HOME": str(base / "home"),
        "WANDB_MODE": "offline",
        "WANDB_DIR": str(base / "wandb-dir"),
        "WANDB_CONFIG_DIR": str(base / "wandb-config"),
        "WANDB_CACHE_DIR": str(base / "wandb-cache"),
        "WANDB_DATA_DIR": str(base / "wandb-data"),
        "WANDB_ARTIFACT_DIR": str(base / "wandb-artifacts"),
        "WANDB_SILENT": "true",
        "TRACKIO_DIR": str(base / "trackio"),
        "HF_HUB_OFFLINE": "1",
        "MPLCONFIGDIR": str(base / "matplotlib"),
    }


# --- reading back what each tracker stored ------------------------------------------------


def tensorboard_scalars(folder: Path) -> tuple[dict[str, dict[int, float]], dict[int, str]]:
    """``({tag: {step: value}}, {step: text of eval/samples})`` from TensorBoard event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder), size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    scalars = {
        tag: {e.step: e.value for e in events.Scalars(tag)} for tag in events.Tags()["scalars"]
    }
    texts = {
        e.step: e.tensor_proto.string_val[0].decode()
        for e in events.Tensors("eval/samples/text_summary")
    }
    return scalars, texts


def wandb_history(run_folder: Path) -> list[dict]:
    """The history rows of the offline wandb run in ``run_folder/wandb``.

    A ``.wandb`` file is a record log: a 7-byte header, then 32 KiB blocks of chunks, each
    with a 7-byte header (CRC, little-endian length, type: 1 full, 2 first, 3 middle,
    4 last) holding a serialised ``Record`` protobuf.
    """
    from wandb.proto import wandb_internal_pb2

    (path,) = run_folder.glob("wandb/offline-run-*/run-*.wandb")
    data, block = path.read_bytes(), 32 * 1024
    assert data[:4] == b":W&B", "not a wandb record log"
    position, pending, records = 7, b"", []
    while position + 7 <= len(data):
        if block - position % block < 7:  # too little room for a header: the block's padding
            position += block - position % block
            continue
        length, kind = struct.unpack("<HB", data[position + 4 : position + 7])
        chunk = data[position + 7 : position + 7 + length]
        position += 7 + length
        if kind == 0 and length == 0:
            break
        pending += chunk
        if kind in (1, 4):
            records.append(pending)
            pending = b""
    rows = []
    for raw in records:
        record = wandb_internal_pb2.Record()
        record.ParseFromString(raw)
        if record.WhichOneof("record_type") == "history":
            rows.append(
                {
                    item.key or "/".join(item.nested_key): json.loads(item.value_json)
                    for item in record.history.item
                }
            )
    return rows


def trackio_logs(trackio_dir: Path, run_name: str, env: dict[str, str]) -> list[dict]:
    """The logs of a trackio run in the local database (read in a child: TRACKIO_DIR is read
    once, when trackio is imported)."""
    code = (
        "import json, sys; from trackio.sqlite_storage import SQLiteStorage;"
        f"print(json.dumps(SQLiteStorage.get_logs('palaestra', {run_name!r}), default=str))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "TRACKIO_DIR": str(trackio_dir)},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def rl_records(run: Path) -> list[dict]:
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in records if r["phase"] == "rl"]


def assert_rl_steps_logged(records: list[dict], logged: dict[str, dict[int, float]]) -> None:
    """Every number of every RL step in metrics.jsonl is in ``logged`` ({key: {step: v}})."""
    assert [r["step"] for r in records] == [1, 2, 3]
    for record in records:
        for key, value in tracker_metrics(record).items():
            assert key in logged, f"{key} was not logged; logged: {sorted(logged)}"
            assert logged[key].get(record["step"]) == pytest.approx(value, rel=1e-6), (
                key,
                record["step"],
            )


# --- the tests ----------------------------------------------------------------------------


def test_report_to_names_trackers_and_rejects_others():
    assert parse_report_to(" TensorBoard,wandb,,wandb ") == ["tensorboard", "wandb"]
    assert parse_report_to(["trackio", "wandb"]) == ["trackio", "wandb"]
    assert parse_report_to("none") == parse_report_to("") == []
    with pytest.raises(ValueError, match="unknown tracker 'tensorbord'.*tensorboard, wandb"):
        parse_report_to("tensorbord")
    with pytest.raises(TypeError, match="report_to"):
        parse_report_to(3)
    config = TrainConfig(report_to=["trackio", "wandb"])
    assert config.report_to == "trackio,wandb" and config.trackers == ["trackio", "wandb"]
    assert TrainConfig.from_dict(config.to_dict()) == config
    # The older flag is kept as another spelling of report_to=tensorboard.
    assert TrainConfig(tensorboard=True).trackers == ["tensorboard"]
    assert TrainConfig(tensorboard=True, report_to="tensorboard").trackers == ["tensorboard"]


def test_records_become_namespaced_tracker_metrics():
    assert tracker_metrics({"phase": "warmup", "step": 2, "sft_loss": 1.5}) == {
        "warmup/sft_loss": 1.5
    }
    rl = {"phase": "rl", "step": 4, "reward": 0.5, "reward/format": -0.1, "eval_success": 0.25}
    assert tracker_metrics(rl) == {
        "rl/reward": 0.5,
        "rl/reward/format": -0.1,
        "eval/success": 0.25,
    }
    final = {"phase": "eval", "step": 4, "eval_greedy_success": 1.0, "note": "text"}
    assert tracker_metrics(final) == {"eval/greedy_success": 1.0}


def test_transcripts_in_tables_are_cut_to_a_limit():
    messages = [{"role": "user", "content": "guess"}, {"role": "assistant", "content": "x" * 50}]
    assert transcript(messages) == "user: guess\nassistant: " + "x" * 50
    assert transcript(messages, limit=11) == "user: guess [... 62 more characters]"


def test_the_sample_table_gives_each_episodes_verdict():
    from palaestra.agents.rollout import Episode

    messages = [{"role": "user", "content": "1 + 2?"}, {"role": "assistant", "content": "4"}]
    judged = Episode(
        env_id="Arithmetic-v0",
        seed=7,
        turn_spans=[(0, 1)],
        turn_rewards=[0.0],
        messages=messages,
        success=False,
        verdict={"score": 0.0, "status": "incorrect", "reason": "4 is not 3"},
    )
    unjudged = Episode(env_id="GuessNumber-v0", seed=8, turn_spans=[(0, 1)], turn_rewards=[-0.1])
    rows = sample_table([judged, unjudged], step=5)
    assert [dict(zip(TABLE_COLUMNS, row, strict=True)) for row in rows] == [
        {
            "step": 5,
            "seed": 7,
            "return": 0.0,
            "success": False,
            "status": "ok",
            "verdict": "incorrect: 4 is not 3",
            "turns": 1,
            "transcript": "user: 1 + 2?\nassistant: 4",
        },
        {
            "step": 5,
            "seed": 8,
            "return": -0.1,
            "success": False,
            "status": "ok",
            "verdict": "",
            "turns": 1,
            "transcript": "",
        },
    ]


@pytest.mark.parametrize("name", TRACKERS)
def test_a_missing_tracker_names_the_extra_that_installs_it(tmp_path, monkeypatch, name):
    monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    with pytest.raises(MissingDependencyError) as raised:
        check_run(TrainConfig(output_dir=str(tmp_path), report_to=name))
    assert f'pip install "palaestra[{name}]"' in str(raised.value)
    assert f"--report-to {name}" in str(raised.value)
    extras = (ROOT / "pyproject.toml").read_text().partition("[project.optional-dependencies]")[2]
    found = re.search(rf"^{name} = \[(.*)\]$", extras, re.MULTILINE)
    assert found and re.search(rf"[\"']{name}\b", found.group(1)), f"no extra {name}"
    dev = re.search(r"^dev = \[\s*\"palaestra\[([\w,]+)\]\"", extras, re.MULTILINE)
    assert dev and name in dev.group(1).split(","), "CI installs the dev extra: add it there"


@pytest.mark.slow
def test_palaestra_train_reports_to_tensorboard_wandb_and_trackio(tmp_path, subprocess_env):
    run = tmp_path / "tracked-run"
    env = subprocess_env(**offline_env(tmp_path), COLUMNS="200")
    command = [
        sys.executable, "-m", "palaestra.cli", "train", "--output-dir", str(run),
        "--no-progress", "--warmup-steps", "1", "--warmup-tasks", "2", "--steps", "3",
        "--tasks-per-step", "2", "--group-size", "2", "--eval-tasks", "2", "--eval-every", "2",
        "--no-plot", "--report-to", "tensorboard,wandb,trackio",
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    records = rl_records(run)
    evaluations = [0, 2, 3]  # after the warm start, after step 2 (eval_every), final

    scalars, texts = tensorboard_scalars(run / "tensorboard")
    assert_rl_steps_logged(records, scalars)
    assert sorted(scalars["eval/success"]) == evaluations
    assert sorted(texts) == evaluations
    assert all(text.startswith("| " + " | ".join(TABLE_COLUMNS)) for text in texts.values())

    history = wandb_history(run)
    logged: dict[str, dict[int, float]] = {}
    for row in history:
        for key, value in row.items():
            namespace = key.partition("/")[0]
            if isinstance(value, (int, float)) and f"{namespace}/step" in row:
                logged.setdefault(key, {})[row[f"{namespace}/step"]] = value
    assert_rl_steps_logged(records, logged)
    tables = [row for row in history if "eval/samples/path" in row]  # a table's file
    assert [row["eval/step"] for row in tables] == evaluations
    (table_file,) = run.glob("wandb/offline-run-*/files/" + tables[-1]["eval/samples/path"])
    table = json.loads(table_file.read_text())
    assert table["columns"] == list(TABLE_COLUMNS) and len(table["data"]) == 2
    assert table["data"][0][0] == 3 and table["data"][0][-1].startswith("user: ")

    logs = trackio_logs(tmp_path / "trackio", "tracked-run", env)
    by_key: dict[str, dict[int, float]] = {}
    for row in logs:
        for key, value in row.items():
            if isinstance(value, (int, float)) and key != "step":
                by_key.setdefault(key, {})[row["step"]] = value
    assert_rl_steps_logged(records, by_key)
    samples = [row for row in logs if "eval/samples" in row]
    assert [row["step"] for row in samples] == evaluations
    assert samples[0]["eval/samples"]["_type"] == "trackio.table"
    first = samples[0]["eval/samples"]["_value"][0]
    assert first["seed"] == 1_000_000_000 and first["transcript"].startswith("user: ")
    assert not math.isnan(first["return"])


@pytest.mark.slow
def test_the_python_api_reports_to_wandb_and_the_tensorboard_flag(
    tokenizer, small_model, make_config, tmp_path, monkeypatch
):
    from palaestra.trainers.loop import train

    for name, value in offline_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    config = make_config(steps=3, eval_every=0, report_to="wandb", tensorboard=True)
    assert config.trackers == ["tensorboard", "wandb"]
    train(config, model=small_model, tokenizer=tokenizer)
    run = Path(config.output_dir)
    records = rl_records(run)

    scalars, texts = tensorboard_scalars(run / "tensorboard")
    assert_rl_steps_logged(records, scalars)
    assert sorted(texts) == [0, 3]

    rows = [r for r in wandb_history(run) if "rl/step" in r]
    logged = {k: {r["rl/step"]: r[k] for r in rows if k in r} for k in rows[0] if k != "rl/step"}
    assert_rl_steps_logged(records, logged)


def test_wandb_without_an_account_says_how_to_log_offline(tmp_path):
    # A fresh interpreter: wandb keeps the settings of an earlier run in the process.
    import os

    env = {**os.environ, **offline_env(tmp_path), "WANDB_MODE": "online"}
    env.pop("WANDB_API_KEY", None)  # and HOME holds no .netrc
    code = (
        "from pathlib import Path\n"
        "from palaestra.trainers.trackers import make_tracker\n"
        "try:\n"
        f"    make_tracker('wandb', Path({str(tmp_path)!r}), {{}})\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert re.search(r"No API key.*WANDB_MODE=offline", out.stdout, re.S), out.stdout + out.stderr
