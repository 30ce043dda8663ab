"""A run's folder: the checks made before any work, and the files a run writes.

    output_dir/
        config.json          the run's `TrainConfig`
        versions.json        Python's and the numerical packages' versions (results depend on them)
        metrics.jsonl        one record per warm-start step, RL step and evaluation
        episodes.jsonl       every RL episode, with its step and verdict (``save_episodes``)
        checkpoints/step-N   model, tokenizer and trainer state
        tensorboard/         TensorBoard events (``report_to`` names tensorboard)
        wandb/               the wandb run (``report_to`` names wandb)
        reward_curve.png     the curves (``plot``)
        report.html          the summary page (``palaestra report``)

A folder that holds anything is left alone unless the run says what to do with it:
``resume`` continues from its newest checkpoint, ``overwrite`` deletes the files above
(and nothing else) first. Importing this module imports neither torch nor transformers.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from palaestra.errors import require
from palaestra.trainers.config import TrainConfig
from palaestra.trainers.trackers import (
    Tracker,
    make_tracker,
    require_tracker,
    sample_table,
    tracker_metrics,
)

CHECKPOINTS = "checkpoints"

RUN_FILES = (
    "config.json",
    "versions.json",
    "metrics.jsonl",
    "episodes.jsonl",
    CHECKPOINTS,
    "tensorboard",
    "wandb",
    "reward_curve.png",
    "report.html",
    "vllm-init",
)
"""What a run writes into its folder: what ``overwrite`` deletes."""


def check_run(config: TrainConfig) -> None:
    """Checks everything a run needs before it loads a model or touches a file.

    The env is made once with the run's arguments (unknown or out-of-range arguments fail
    here, not as masked episodes later), the output folder is checked against ``resume``
    and ``overwrite``, a local model folder must exist, the device must be one torch has,
    and the optional packages the run asks for must be installed.

    Raises:
        ValueError, TypeError, LookupError: A bad option or env argument, or an output
            folder that holds a run the options do not say what to do with.
        MissingDependencyError: A package the run needs is not installed.
    """
    import palaestra

    env = palaestra.make(config.env_id, **config.env_kwargs)
    env.close()
    check_output(config)
    # A hub name is "name" or "org/name"; anything else is a folder that must exist.
    local = config.model.startswith((".", "/", "~")) or config.model.count("/") > 1
    if local and not os.path.isdir(os.path.expanduser(config.model)):
        raise ValueError(f"model {config.model!r}: no such folder")
    torch = require("torch", "torch", "the trainer")
    if config.device:
        try:
            device = torch.device(config.device)
        except RuntimeError as e:
            raise ValueError(f"device {config.device!r} is not a torch device: {e}") from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device {config.device!r}: torch sees no CUDA device here")
    if config.rollout_backend == "vllm":
        require("vllm", "vllm", "rollout_backend='vllm'")
    for tracker in config.trackers:
        require_tracker(tracker)


def check_output(config: TrainConfig) -> None:
    """Refuses an output folder that holds something, unless resume or overwrite is set.

    Raises:
        ValueError: The folder is a file, or holds files and neither option is set, or
            ``resume`` finds no checkpoint to continue from.
    """
    output = Path(config.output_dir)
    if output.exists() and not output.is_dir():
        raise ValueError(f"output_dir {str(output)!r} is a file, not a folder")
    if config.overwrite or not output.is_dir() or not any(output.iterdir()):
        return
    if not config.resume:
        raise ValueError(
            f"output_dir {str(output)!r} is not empty; pass --resume to continue its run, "
            "--overwrite to replace it, or --output-dir to start a new one elsewhere"
        )
    if not checkpoints(output):
        raise ValueError(
            f"--resume: {str(output)!r} has no checkpoint to continue from "
            "(checkpoint_every=0 saves only at the end); pass --overwrite to start over"
        )


def start_run(config: TrainConfig) -> Path:
    """Creates the output folder (emptied of a previous run's files with ``overwrite``).

    Call `check_run` first: this deletes what ``overwrite`` says to.
    """
    output = Path(config.output_dir)
    if config.overwrite:
        for name in RUN_FILES:
            path = output / name
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
    output.mkdir(parents=True, exist_ok=True)
    return output


def checkpoints(output: str | Path) -> list[Path]:
    """The run's complete checkpoints, oldest first."""
    folder = Path(output) / CHECKPOINTS
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_dir() and p.name.startswith("step-") and not p.name.endswith(".partial")
    )


VERSIONED = ("palaestra", "torch", "transformers", "tokenizers", "numpy", "gymnasium")
"""The packages whose versions a run records (the same seed gives other numbers on others)."""


def versions() -> dict[str, str | None]:
    """Python's version and each of `VERSIONED`'s (None where it is not installed)."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


class RunLog:
    """A run's records: ``config.json``, ``metrics.jsonl``, episodes, and the trackers.

    Opening it writes ``config.json`` and starts the trackers ``report_to`` names
    (`palaestra.trainers.trackers`); records and episodes are appended as they come.

    Args:
        output: The run's folder.
        config: The run (``report_to``, ``save_episodes``).
        on_step: Also called with every record, e.g. a progress bar.
    """

    def __init__(
        self,
        output: Path,
        config: TrainConfig,
        on_step: Callable[[dict[str, Any]], None] | None = None,
    ):
        self.output = output
        self.save_episodes = config.save_episodes
        self.on_step = on_step
        (output / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
        (output / "versions.json").write_text(json.dumps(versions(), indent=2))
        self._metrics = open(output / "metrics.jsonl", "a", encoding="utf-8")
        self.trackers: list[Tracker] = [
            make_tracker(name, output, config.to_dict()) for name in config.trackers
        ]

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def write(self, record: dict[str, Any]) -> None:
        """Appends one record (a warm-start step, an RL step or an evaluation)."""
        self._metrics.write(json.dumps(record, default=float) + "\n")
        self._metrics.flush()
        for tracker in self.trackers:
            tracker.log(tracker_metrics(record), record.get("step", 0))
        if self.on_step is not None:
            self.on_step(record)

    def episodes(self, episodes: Sequence[Any]) -> None:
        """Appends a step's episodes to ``episodes.jsonl`` (with ``save_episodes``)."""
        if not self.save_episodes or not episodes:
            return
        with open(self.output / "episodes.jsonl", "a", encoding="utf-8") as handle:
            for episode in episodes:
                handle.write(json.dumps(episode.to_dict(), ensure_ascii=False, default=repr))
                handle.write("\n")

    def samples(self, step: int, episodes: Sequence[Any]) -> None:
        """Sends an evaluation's sample episodes to the trackers as a table (``eval/samples``)."""
        if not self.trackers or not episodes:
            return
        rows = sample_table(episodes, step)
        for tracker in self.trackers:
            tracker.table("eval/samples", rows, step)

    def close(self) -> None:
        """Closes the files and ends the trackers' runs."""
        self._metrics.close()
        for tracker in self.trackers:
            tracker.close()
