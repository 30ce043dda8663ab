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
from palaestra.trainers.plot import plot_run, render_panels, run_panels, write_png


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
    options = ("--env-id", "--estimator", "--group-size", "--arg", "--dynamic-sampling")
    for option in (*options, "--report-to"):
        assert option in out.stdout


RECORDS = [
    {"phase": "warmup", "step": 1, "sft_loss": 2.0},
    {"phase": "eval", "step": 0, "eval_success": 0.2, "eval_greedy_success": 0.0},
    {"phase": "rl", "step": 1, "reward": 0.1, "success": 0.3, "reward/format": -0.2},
    {"phase": "rl", "step": 2, "reward": 0.4, "success": 0.5, "reward/outcome": 0.5},
    {"phase": "rl", "step": 3, "reward": 0.6, "success": 0.7, "eval_success": 0.6},
    {"phase": "eval", "step": 3, "eval_success": 0.6, "eval_greedy_success": 0.75},
]


def test_run_panels_hold_reward_parts_and_held_out_success():
    assert run_panels(RECORDS) == [
        (
            "reward and success",
            [
                ("train reward", [1, 2, 3], [0.1, 0.4, 0.6]),
                ("train success", [1, 2, 3], [0.3, 0.5, 0.7]),
            ],
        ),
        (
            "reward parts",
            [("format", [1, 2, 3], [-0.2, 0.0, 0.0]), ("outcome", [1, 2, 3], [0.0, 0.5, 0.0])],
        ),
        (
            "held-out success",
            [
                ("held-out success (sampled)", [0, 3, 3], [0.2, 0.6, 0.6]),
                ("held-out success (greedy)", [0, 3], [0.0, 0.75]),
            ],
        ),
    ]
    # A run without reward parts or evaluations draws only what it has.
    assert [heading for heading, _ in run_panels(RECORDS[2:4])] == [
        "reward and success",
        "reward parts",
    ]


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("with_matplotlib", [True, False])
def test_the_plot_has_one_panel_per_kind_of_curve(tmp_path, monkeypatch, with_matplotlib):
    if not with_matplotlib:
        monkeypatch.setitem(sys.modules, "matplotlib", None)  # the built-in writer
    metrics = tmp_path / "metrics.jsonl"
    sizes = []
    training_only = [{"phase": "rl", "step": 1, "reward": 0.1, "success": 0.3}]
    for records in (training_only, RECORDS):  # one panel, then three
        metrics.write_text("".join(json.dumps(r) + "\n" for r in records))
        sizes.append(png_size(plot_run(metrics, tmp_path / "curve.png", title="a run")))
    (width_one, one), (width_three, three) = sizes
    assert width_one == width_three
    assert three > 2 * one  # three stacked panels
    if not with_matplotlib:
        assert sizes == [(640, 220), (640, 660)]


def test_png_writer_makes_a_valid_png(tmp_path):
    width, height, pixels = render_panels(run_panels(RECORDS), 64, 40)
    path = tmp_path / "curve.png"
    write_png(path, width, height, pixels)
    data = path.read_bytes()
    assert png_size(path) == (64, 120)
    length = struct.unpack(">I", data[33:37])[0]
    raw = zlib.decompress(data[41 : 41 + length])
    assert len(raw) == 120 * (1 + 64 * 3)
    for panel in range(3):  # each panel drew something besides white
        rows = raw[panel * 40 * (1 + 64 * 3) : (panel + 1) * 40 * (1 + 64 * 3)]
        assert rows.count(b"\xff") < len(rows) - 40


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
