"""The train command's options, the config checks, the PNG writer and the slow demo."""

from __future__ import annotations

import dataclasses
import json
import struct
import subprocess
import sys
import zlib

import pytest

from palaestra.trainers.config import TrainConfig, field_help
from palaestra.trainers.plot import render_lines, run_series, write_png


def test_every_config_field_has_help():
    helps = field_help(TrainConfig)
    assert {f.name for f in dataclasses.fields(TrainConfig)} <= set(helps)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"estimator": "ppo2"}, "estimator must be one of"),
        ({"estimator": "gae"}, "needs a critic"),
        ({"group_size": 0}, "group_size"),
        ({"temperature": 0.0}, "temperature"),
        ({"overlong_buffer": 99, "max_tokens": 16}, "overlong_buffer"),
        ({"dual_clip": 0.5}, "dual_clip"),
    ],
)
def test_config_rejects_bad_values(changes, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**changes)


def test_ppo_implies_gae_and_round_trip():
    config = TrainConfig(algorithm="ppo")
    assert config.estimator == "gae"
    assert TrainConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown"):
        TrainConfig.from_dict({"stepz": 3})


def test_cli_maps_options_to_the_config_without_importing_torch():
    code = (
        "import sys; from palaestra.trainers.cli import config_from_options;"
        "c = config_from_options({'env_id': 'Wordle-v0', 'env_kwargs': ['level=2', 'mode=x'],"
        " 'estimator': 'gigpo'});"
        "print(c.env_kwargs, c.estimator, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "{'level': 2, 'mode': 'x'} gigpo False"


def test_train_help_lists_the_config_options():
    out = subprocess.run(
        [sys.executable, "-m", "palaestra.cli", "train", "--help"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert out.returncode == 0, out.stderr
    for option in ("--env-id", "--estimator", "--group-size", "--arg", "--dynamic-sampling"):
        assert option in out.stdout


def test_png_writer_makes_a_valid_png(tmp_path):
    records = [
        {"phase": "eval", "step": 0, "eval_success": 0.2},
        {"phase": "rl", "step": 1, "reward": 0.1, "success": 0.3},
        {"phase": "rl", "step": 2, "reward": 0.4, "success": 0.5},
        {"phase": "eval", "step": 2, "eval_success": 0.6},
    ]
    series = run_series(records)
    assert [name for name, _, _ in series] == ["train reward", "train success", "held-out success"]
    width, height, pixels = render_lines(series, 64, 40, 4)
    path = tmp_path / "curve.png"
    write_png(path, width, height, pixels)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (64, 40)
    length = struct.unpack(">I", data[33:37])[0]
    raw = zlib.decompress(data[41 : 41 + length])
    assert len(raw) == 40 * (1 + 64 * 3)
    assert raw.count(b"\xff") < len(raw) - 40  # something besides white was drawn


@pytest.mark.slow
def test_palaestra_train_improves_held_out_success(tmp_path):
    """The CPU demo as shipped (`palaestra train` with its defaults): RL must raise held-out
    success above where the warm start left it, and the training reward must climb."""
    out = subprocess.run(
        [sys.executable, "-m", "palaestra.cli", "train", "--output-dir", str(tmp_path),
         "--no-progress", "--no-plot", "--no-save-episodes"],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    records = [json.loads(line) for line in open(tmp_path / "metrics.jsonl")]
    evals = [r for r in records if r["phase"] == "eval"]
    rewards = [r["reward"] for r in records if r["phase"] == "rl"]
    warm, final = evals[0]["eval_success"], evals[-1]["eval_success"]
    assert evals[0]["step"] == 0 and evals[-1]["step"] == len(rewards) > 0
    assert final >= warm + 0.1, (warm, final)
    assert sum(rewards[-5:]) / 5 >= sum(rewards[:5]) / 5 + 0.2, rewards
