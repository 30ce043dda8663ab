"""A live progress line for rollouts: episodes, turns, tokens/s and mean reward."""

from __future__ import annotations

import time
from typing import Any


class RolloutProgress:
    """Counts what the rollout engine reports and, when shown, draws it with rich.

    Args:
        total: Episodes expected.
        show: Draw a progress bar on stderr (counting happens either way).
    """

    def __init__(self, total: int, *, show: bool = False):
        self.total = total
        self.done = 0
        self.masked = 0
        self.turns = 0
        self.sampled_tokens = 0
        self.reward_sum = 0.0
        self.rewarded = 0
        self.start = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None
        if show:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bar = Progress(
                TextColumn("episodes"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[line]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._task = self._bar.add_task("rollout", total=total, line="")
            self._bar.start()

    @property
    def seconds(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.start

    @property
    def tokens_per_second(self) -> float:
        """Sampled tokens per second so far."""
        return self.sampled_tokens / max(self.seconds, 1e-9)

    @property
    def mean_reward(self) -> float | None:
        """Mean return of the finished, unmasked episodes."""
        return self.reward_sum / self.rewarded if self.rewarded else None

    def turn(self, sampled_tokens: int) -> None:
        """Counts one policy turn."""
        self.turns += 1
        self.sampled_tokens += sampled_tokens
        self._draw()

    def episode(self, episode_return: float, masked: bool) -> None:
        """Counts one finished episode."""
        self.done += 1
        if masked:
            self.masked += 1
        else:
            self.reward_sum += episode_return
            self.rewarded += 1
        self._draw(advance=1)

    def line(self) -> str:
        """The counters as one line of text."""
        reward = f"{self.mean_reward:.3f}" if self.mean_reward is not None else "-"
        return (
            f"turns {self.turns:,} | {self.tokens_per_second:,.0f} tok/s | mean reward {reward} | "
            f"masked {self.masked}"
        )

    def _draw(self, advance: int = 0) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=advance, line=self.line())

    def close(self) -> None:
        """Stops drawing."""
        if self._bar is not None:
            self._bar.update(self._task, line=self.line())
            self._bar.stop()
            self._bar = None
