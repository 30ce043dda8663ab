"""A run's folder and options: checked before any work, existing runs left alone, the curve."""

from __future__ import annotations

import json
import platform
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from palaestra.errors import MissingDependencyError
from palaestra.trainers.cli import config_from_options
from palaestra.trainers.config import TrainConfig
from palaestra.trainers.run import RunLog, check_output, check_run, start_run

ROOT = Path(__file__).resolve().parents[2]


def _old_run(folder: Path) -> dict[str, bytes]:
    """A previous run's files in ``folder``; returns their contents."""
    (folder / "checkpoints" / "step-000002").mkdir(parents=True)
    files = {
        "metrics.jsonl": b'{"phase": "rl", "step": 1}\n',
        "episodes.jsonl": b'{"env_id": "GuessNumber-v0"}\n',
        "checkpoints/step-000002/trainer_state.pt": b"state",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def _train(folder: Path, *options: str, subprocess_env) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "palaestra.cli", "train", "--output-dir", str(folder)]
    return subprocess.run(
        [*command, "--no-progress", *options],
        capture_output=True,
        text=True,
        timeout=300,
        env=subprocess_env(COLUMNS="200"),
    )


@pytest.mark.parametrize(
    "option, named",
    [
        (["--arg", "foo=1"], "foo"),
        (["--arg", "level=99"], "level"),
        (["--arg", "level"], "name=value"),
        (["--device", "cpux"], "cpux"),
        (["--estimator", "ppo2"], "estimator"),
    ],
)
def test_a_bad_option_is_a_one_line_error_before_any_work(tmp_path, subprocess_env, option, named):
    files = _old_run(tmp_path)
    # Even --overwrite deletes nothing while an option is bad: every check comes first.
    out = _train(tmp_path, *option, "--overwrite", subprocess_env=subprocess_env)
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0], out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    assert {name: (tmp_path / name).read_bytes() for name in files} == files
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkpoints",
        "episodes.jsonl",
        "metrics.jsonl",
    ]


def test_an_existing_run_is_refused_without_resume_or_overwrite(tmp_path, subprocess_env):
    files = _old_run(tmp_path)
    out = _train(tmp_path, "--steps", "0", "--warmup-steps", "0", subprocess_env=subprocess_env)
    assert out.returncode == 2, out.stdout + out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("error: ") and "--resume" in line and "--overwrite" in line
    assert {name: (tmp_path / name).read_bytes() for name in files} == files


def test_overwrite_deletes_the_run_files_only(tmp_path):
    _old_run(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    config = TrainConfig(output_dir=str(tmp_path), overwrite=True)
    check_output(config)
    start_run(config)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_resume_needs_a_checkpoint_in_a_folder_that_holds_a_run(tmp_path):
    (tmp_path / "metrics.jsonl").write_text("{}\n")
    with pytest.raises(ValueError, match="no checkpoint"):
        check_output(TrainConfig(output_dir=str(tmp_path), resume=True))
    _old_run(tmp_path / "run")
    check_output(TrainConfig(output_dir=str(tmp_path / "run"), resume=True))
    check_output(TrainConfig(output_dir=str(tmp_path / "new"), resume=True))
    with pytest.raises(ValueError, match="choose one"):
        TrainConfig(resume=True, overwrite=True)


def test_env_arguments_add_to_the_defaults():
    assert config_from_options({"env_kwargs": ["level=3"]}).env_kwargs == {
        "max_number": 8,
        "level": 3,
    }
    assert config_from_options({"env_kwargs": ["max_number=16"]}).env_kwargs == {"max_number": 16}
    # The demo's arguments belong to the demo's env; another env starts from its own.
    assert config_from_options({"env_id": "Wordle-v0", "env_kwargs": None}).env_kwargs == {}
    assert TrainConfig(env_id="Wordle-v0").env_kwargs == {}
    assert TrainConfig().env_kwargs == {"max_number": 8}


def test_the_tensorboard_hint_names_an_extra_that_installs_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # as if not installed
    with pytest.raises(MissingDependencyError) as raised:
        check_run(TrainConfig(output_dir=str(tmp_path), tensorboard=True))
    (extra,) = re.findall(r"palaestra\[(\w+)\]", str(raised.value))
    pyproject = (ROOT / "pyproject.toml").read_text()
    extras = pyproject.partition("[project.optional-dependencies]")[2].partition("\n[")[0]
    found = re.search(rf"^{extra} = \[(.*)\]$", extras, re.MULTILINE)
    assert found, f"the hint names palaestra[{extra}], which pyproject.toml does not define"
    assert re.search(r"[\"']tensorboard\b", found.group(1))


def png_text(path: Path) -> dict[str, str]:
    """The tEXt and iTXt entries of a PNG file."""
    data, position, out = path.read_bytes(), 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\x00")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\x00")
            compressed, rest = rest[0], rest[2:]
            _language, _, rest = rest.partition(b"\x00")
            _translated, _, value = rest.partition(b"\x00")
            out[key.decode("latin-1")] = (zlib.decompress(value) if compressed else value).decode()
        position += 12 + length
    return out


def test_the_reward_curve_names_env_algorithm_and_estimator(tokenizer, small_model, make_config):
    from palaestra.trainers.loop import train

    config = make_config(plot=True, estimator="rloo", steps=1, warmup_steps=0, eval_tasks=2)
    result = train(config, model=small_model, tokenizer=tokenizer)
    title = png_text(Path(result.curve))["Title"]
    assert title == "GuessNumber-v0 (max_number=8): grpo, rloo advantages"


def test_the_fallback_png_carries_the_title(tmp_path):
    from palaestra.trainers.plot import write_png

    write_png(tmp_path / "curve.png", 2, 1, b"\x00" * 6, title="Wordle-v0: ppo, gae advantages")
    assert png_text(tmp_path / "curve.png") == {"Title": "Wordle-v0: ppo, gae advantages"}


def test_a_run_records_the_versions_its_numbers_depend_on(tmp_path):
    config = TrainConfig(output_dir=str(tmp_path), tensorboard=False)
    with RunLog(tmp_path, config):
        pass
    recorded = json.loads((tmp_path / "versions.json").read_text())
    assert recorded["python"] == platform.python_version()
    assert recorded["numpy"] == np.__version__ and set(recorded) >= {"torch", "transformers"}
