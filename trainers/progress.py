"""A progress bar for ``palaestra train``: warm-start and RL steps, with the latest numbers."""

from __future__ import annotations

from typing import Any

from palaestra.trainers.config import TrainConfig


class TrainProgress:
    """A rich progress bar fed by the loop's ``on_step`` records.

    Args:
        config: The run (gives the number of steps).
        console: The rich console to draw on.
        show: Draw the bar; when False, `update` does nothing.
    """

    def __init__(self, config: TrainConfig, console: Any, show: bool = True):
        self.config = config
        self.console = console
        self.show = show
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> TrainProgress:
        if self.show:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[info]}"),
                console=self.console,
            )
            self._progress.__enter__()
            total = self.config.warmup_steps + self.config.steps
            self._task = self._progress.add_task("warm start", total=total, info="")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def update(self, record: dict[str, Any]) -> None:
        """Advances the bar on a warm-start or RL step; prints evaluations."""
        if self._progress is None:
            return
        phase = record.get("phase")
        if phase == "warmup":
            info = f"loss {record['sft_loss']:.3f}"
            self._progress.update(self._task, advance=1, info=info)
        elif phase == "rl":
            info = (
                f"reward {record.get('reward', float('nan')):+.3f}  "
                f"success {record.get('success', float('nan')):.2f}  "
                f"{record.get('tokens_per_second', 0.0):.0f} tok/s"
            )
            self._progress.update(self._task, description="GRPO/PPO", advance=1, info=info)
        elif phase == "eval":
            self._progress.console.print(
                f"held-out eval at RL step {record['step']}: success "
                f"{record.get('eval_success', float('nan')):.3f}, return "
                f"{record.get('eval_return', float('nan')):+.3f}, greedy success "
                f"{record.get('eval_greedy_success', float('nan')):.3f}",
                highlight=False,
            )
