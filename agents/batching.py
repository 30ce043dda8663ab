"""Gathering concurrent requests into batches for engines that generate a batch at a time.

Each episode of a rollout asks the policy for its own turn. A `RowBatcher` queues those
requests' rows and one worker per event loop runs whatever is queued (up to a batch size)
on a dedicated thread, so the loop keeps serving envs while the model works, and requests
that arrive during a batch form the next one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import weakref
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from palaestra.agents.policy import Completion, PolicyError

R = TypeVar("R")


class _LoopState(Generic[R]):
    def __init__(self) -> None:
        self.queue: list[tuple[R, asyncio.Future[Completion]]] = []
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class RowBatcher(Generic[R]):
    """Runs rows from concurrent callers in batches, one batch at a time, on one thread.

    Args:
        run: Generates a batch: takes rows, returns one `Completion` per row, in order.
        max_batch_size: Rows per batch at most.
        wait_s: How long to wait for more rows after the first (0: one loop turn).
        thread_name: Name of the worker thread.
    """

    def __init__(
        self,
        run: Callable[[list[R]], list[Completion]],
        max_batch_size: int,
        wait_s: float = 0.0,
        thread_name: str = "palaestra-batch",
    ):
        if not isinstance(max_batch_size, int) or max_batch_size < 1:
            raise ValueError(f"max_batch_size must be a positive integer, got {max_batch_size!r}")
        if wait_s < 0:
            raise ValueError(f"wait_s must be >= 0, got {wait_s!r}")
        self.run = run
        self.max_batch_size = max_batch_size
        self.wait_s = float(wait_s)
        self.thread_name = thread_name
        self.batches = 0
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState[R]] = (
            weakref.WeakKeyDictionary()
        )

    async def submit(self, rows: Sequence[R]) -> list[Completion]:
        """Queues rows and waits for their completions (in order)."""
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None or state.task is None or state.task.done():
            state = _LoopState()
            self._loops[loop] = state
            state.task = loop.create_task(self._worker(state))
        futures = []
        for row in rows:
            future: asyncio.Future[Completion] = loop.create_future()
            state.queue.append((row, future))
            futures.append(future)
        state.wake.set()
        return list(await asyncio.gather(*futures))

    async def _worker(self, state: _LoopState[R]) -> None:
        loop = asyncio.get_running_loop()
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix=self.thread_name
            )
        while True:
            await state.wake.wait()
            state.wake.clear()
            # Let every episode that is ready this turn of the loop add its request.
            await asyncio.sleep(self.wait_s)
            while state.queue:
                batch, state.queue = (
                    state.queue[: self.max_batch_size],
                    state.queue[self.max_batch_size :],
                )
                live = [(row, future) for row, future in batch if not future.done()]
                if not live:
                    continue
                self.batches += 1
                try:
                    completions = await loop.run_in_executor(
                        self._executor, self.run, [row for row, _ in live]
                    )
                    if len(completions) != len(live):
                        raise ValueError(f"{len(completions)} completions for {len(live)} rows")
                except Exception as e:  # noqa: BLE001 - every waiting caller learns why
                    error = PolicyError(f"generation failed: {type(e).__name__}: {e}")
                    for _, future in live:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for (_, future), completion in zip(live, completions, strict=True):
                    if not future.done():
                        future.set_result(completion)

    async def aclose(self) -> None:
        """Stops the running loop's worker (a later `submit` starts a new one)."""
        state = self._loops.pop(asyncio.get_running_loop(), None)
        if state is not None and state.task is not None:
            state.task.cancel()
            try:
                await state.task
            except asyncio.CancelledError:
                pass
            for _, future in state.queue:
                if not future.done():
                    future.cancel()

    def close(self) -> None:
        """Stops the worker thread."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
