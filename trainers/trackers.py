"""Experiment trackers: TensorBoard, Weights & Biases and Trackio receive a run's records.

``report_to="tensorboard,wandb,trackio"`` (``--report-to``) names the trackers; the run log
(`palaestra.trainers.run.RunLog`) makes one `Tracker` each and hands it every record
(`tracker_metrics` names the values) and, at each evaluation, a table of sample held-out
episodes (`sample_table`). Each tracker's package is imported only when that tracker is
used; a missing one is an error naming the extra that installs it.

Where each one writes, with no network needed:

* tensorboard: event files in ``output_dir/tensorboard``;
* wandb: ``output_dir/wandb``, in whatever mode wandb is set to (``WANDB_MODE=offline``
  keeps the run on disk for a later ``wandb sync``); project ``WANDB_PROJECT`` or
  ``palaestra``;
* trackio: trackio's local database (``TRACKIO_DIR``, by default
  ``~/.cache/huggingface/trackio``), project ``palaestra``; ``trackio show`` opens it.

Each run gets a tracker run named after its output folder; a resumed run starts a new one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from palaestra.errors import require

TRACKERS = ("tensorboard", "wandb", "trackio")
"""What ``report_to`` may name; each is also the extra (and the module) that provides it."""

PROJECT = "palaestra"
"""The wandb and trackio project runs are logged under (``WANDB_PROJECT`` overrides wandb's)."""

SAMPLE_EPISODES = 8
"""Held-out episodes in each evaluation's table."""

TABLE_COLUMNS = (
    "step",
    "seed",
    "return",
    "success",
    "status",
    "verdict",
    "turns",
    "transcript",
)
"""The sample table's columns; ``verdict`` is the final verdict's status and reason."""

MAX_TRANSCRIPT = 4_000
"""Characters of an episode's transcript kept in a table cell."""


class Tracker(Protocol):
    """Where a run's metrics also go: log scalars per step, log a table, close."""

    def log(self, metrics: dict[str, float], step: int) -> None:
        """Records ``metrics`` (``namespace/name`` keys, see `tracker_metrics`) at ``step``."""

    def table(self, key: str, rows: Sequence[Sequence[Any]], step: int) -> None:
        """Records a table with `TABLE_COLUMNS` under ``key`` at ``step``."""

    def close(self) -> None:
        """Writes what is buffered and ends the tracker's run."""


def parse_report_to(value: str | Sequence[str]) -> list[str]:
    """The trackers a ``report_to`` value names, in order, without repeats.

    Args:
        value: ``"tensorboard,wandb"``, a list of names, or empty for none. ``"none"``
            (as in Hugging Face's ``report_to``) also means none.

    Raises:
        ValueError: A name that is not one of `TRACKERS`.
        TypeError: Neither a string nor a sequence of strings.
    """
    if isinstance(value, str):
        names = value.split(",")
    elif isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        names = list(value)
    else:
        raise TypeError(f"report_to must be a comma-separated string or a list, got {value!r}")
    out: list[str] = []
    for name in (n.strip().lower() for n in names):
        if name in ("", "none") or name in out:
            continue
        if name not in TRACKERS:
            raise ValueError(
                f"report_to: unknown tracker {name!r}; choose from {', '.join(TRACKERS)} "
                "(comma-separated, e.g. --report-to tensorboard,wandb)"
            )
        out.append(name)
    return out


def require_tracker(name: str) -> Any:
    """Imports a tracker's package, or raises the error naming its extra."""
    return require(name, name, f"--report-to {name}")


def make_tracker(name: str, output: Path, config: dict[str, Any]) -> Tracker:
    """The tracker ``name`` for the run in ``output`` (``config``: the run's `TrainConfig`).

    Raises:
        MissingDependencyError: The tracker's package is not installed.
    """
    require_tracker(name)
    if name == "tensorboard":
        return TensorBoardTracker(output / "tensorboard")
    if name == "wandb":
        return WandbTracker(output, config)
    if name == "trackio":
        return TrackioTracker(output.name, config)
    raise ValueError(f"unknown tracker {name!r}; choose from {', '.join(TRACKERS)}")


def tracker_metrics(record: dict[str, Any]) -> dict[str, float]:
    """A run record's numbers under ``namespace/name`` keys, as every tracker shows them.

    Warm-start steps go under ``warmup/``, RL steps under ``rl/``, and evaluations (their
    own records, or the ``eval_*`` values of the RL step they ran after) under ``eval/``
    with the ``eval_`` prefix dropped: ``eval/success`` at RL step 0 is the warm start's.
    """
    phase = record.get("phase", "run")
    out: dict[str, float] = {}
    for key, value in record.items():
        if key in ("phase", "step") or isinstance(value, bool):
            continue
        if not isinstance(value, (int, float)):
            continue
        if key.startswith("eval_"):
            out[f"eval/{key.removeprefix('eval_')}"] = float(value)
        else:
            out[f"{phase}/{key}"] = float(value)
    return out


def sample_table(episodes: Sequence[Any], step: int) -> list[list[Any]]:
    """The first `SAMPLE_EPISODES` episodes as rows of `TABLE_COLUMNS`."""
    rows = []
    for episode in episodes[:SAMPLE_EPISODES]:
        rows.append(
            [
                step,
                episode.seed,
                round(episode.total_reward, 6),
                bool(episode.success),
                episode.status,
                verdict_text(episode.verdict),
                episode.num_turns,
                transcript(episode.messages),
            ]
        )
    return rows


def verdict_text(verdict: dict[str, Any] | None) -> str:
    """A recorded verdict as ``status: reason`` ("" for an episode that ended without one)."""
    if not verdict:
        return ""
    status, reason = verdict.get("status"), verdict.get("reason")
    return ": ".join(str(part) for part in (status, reason) if part)


def transcript(messages: Sequence[dict[str, Any]], limit: int = MAX_TRANSCRIPT) -> str:
    """A conversation as ``role: content`` lines, cut to ``limit`` characters."""
    lines = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False, default=repr)
        calls = message.get("tool_calls")
        if calls:
            content += " " + json.dumps(calls, ensure_ascii=False, default=repr)
        lines.append(f"{message.get('role', '?')}: {content}")
    text = "\n".join(lines)
    if len(text) > limit:
        text = text[:limit] + f" [... {len(text) - limit:,} more characters]"
    return text


class TensorBoardTracker:
    """Event files for TensorBoard: scalars per tag, each table as a Markdown text."""

    def __init__(self, folder: Path):
        from torch.utils.tensorboard import SummaryWriter

        self._writer = SummaryWriter(str(folder))

    def log(self, metrics: dict[str, float], step: int) -> None:
        """Adds each value as a scalar of its tag."""
        for key, value in metrics.items():
            self._writer.add_scalar(key, value, step)

    def table(self, key: str, rows: Sequence[Sequence[Any]], step: int) -> None:
        """Adds the table as Markdown (TensorBoard's text tab renders it)."""
        lines = ["| " + " | ".join(TABLE_COLUMNS) + " |", "|" + " --- |" * len(TABLE_COLUMNS)]
        for row in rows:
            cells = (str(cell).replace("|", "\\|").replace("\n", "<br>") for cell in row)
            lines.append("| " + " | ".join(cells) + " |")
        self._writer.add_text(key, "\n".join(lines), step)

    def close(self) -> None:
        """Flushes and closes the event file."""
        self._writer.close()


class WandbTracker:
    """A Weights & Biases run in ``output/wandb``.

    Each namespace (``warmup``, ``rl``, ``eval``) is plotted against its own step
    (``warmup/step``, ...): wandb's own step must only grow, and warm-start and RL steps
    both count from 1.
    """

    def __init__(self, output: Path, config: dict[str, Any]):
        import wandb

        try:
            self._run = wandb.init(
                project=os.environ.get("WANDB_PROJECT") or PROJECT,
                name=output.name,
                dir=str(output),
                config=config,
            )
        except wandb.errors.UsageError as e:  # e.g. online mode with no API key
            raise RuntimeError(
                f"wandb could not start a run: {e} Or set WANDB_MODE=offline to keep the run "
                "on disk with no account or network (wandb sync uploads it later)."
            ) from e
        self._namespaces: set[str] = set()

    def log(self, metrics: dict[str, float], step: int) -> None:
        """Logs ``metrics`` with each namespace's step beside them."""
        values: dict[str, Any] = dict(metrics)
        for key in metrics:
            namespace = key.partition("/")[0]
            if namespace not in self._namespaces:
                self._namespaces.add(namespace)
                self._run.define_metric(f"{namespace}/step")
                self._run.define_metric(f"{namespace}/*", step_metric=f"{namespace}/step")
            values[f"{namespace}/step"] = step
        self._run.log(values)

    def table(self, key: str, rows: Sequence[Sequence[Any]], step: int) -> None:
        """Logs a `wandb.Table` against the namespace's step."""
        import wandb

        table = wandb.Table(columns=list(TABLE_COLUMNS), data=[list(row) for row in rows])
        namespace = key.partition("/")[0]
        self._run.log({key: table, f"{namespace}/step": step})

    def close(self) -> None:
        """Finishes the run (offline: its files are complete on disk)."""
        self._run.finish()


class TrackioTracker:
    """A Trackio run in trackio's local database (``TRACKIO_DIR``)."""

    def __init__(self, name: str, config: dict[str, Any]):
        import trackio

        self._trackio = trackio
        self._run = trackio.init(
            project=PROJECT,
            name=name,
            config=config,
            embed=False,
            auto_log_cpu=False,
            auto_log_gpu=False,
        )

    def log(self, metrics: dict[str, float], step: int) -> None:
        """Logs ``metrics`` at ``step``."""
        self._run.log(metrics, step=step)

    def table(self, key: str, rows: Sequence[Sequence[Any]], step: int) -> None:
        """Logs a `trackio.Table` at ``step``."""
        table = self._trackio.Table(columns=list(TABLE_COLUMNS), data=[list(r) for r in rows])
        self._run.log({key: table}, step=step)

    def close(self) -> None:
        """Finishes the run (its records are written to the local database).

        Through `trackio.finish`, which also forgets the run as trackio's current one (else
        trackio finishes it a second time at exit).
        """
        self._trackio.finish()
