"""A pool of worker threads for blocking env code, one that survives hung calls.

Sync envs (and `palaestra.make`, `close`) run here so that they never block the rollout
engine's event loop. A call that runs past its timeout cannot be killed (Python threads
cannot be), so the pool *abandons* its thread: the caller gets a timeout at once, a fresh
thread takes the abandoned one's place, and the stuck one is left to finish (or not) on
its own. Threads are daemons, so a call that never returns cannot keep the interpreter
from exiting.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_STOP = object()
_JOB = object()


class _Job:
    """One call: where its result goes, and whether it is queued, running or given up."""

    __slots__ = ("fn", "args", "kwargs", "deliver", "state", "abandoned")

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        deliver: Callable[[Any, BaseException | None], None],
    ):
        self.fn, self.args, self.kwargs, self.deliver = fn, args, kwargs, deliver
        self.state = "queued"
        self.abandoned = False


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class WorkerPool(concurrent.futures.ThreadPoolExecutor):
    """An executor of daemon threads that can abandon stuck calls.

    It subclasses `ThreadPoolExecutor` only so that asyncio accepts it as a loop's default
    executor (``asyncio.to_thread`` then runs here too); it replaces ``submit`` and
    ``shutdown`` and none of the parent's threads is ever started.

    Args:
        max_workers: Threads serving calls at once (abandoned threads not counted).
        name: Prefix of the threads' names.
    """

    def __init__(self, max_workers: int = 32, name: str = "palaestra-worker"):
        if not isinstance(max_workers, int) or max_workers < 1:
            raise ValueError(f"max_workers must be a positive integer, got {max_workers!r}")
        super().__init__(max_workers=1, thread_name_prefix=name)
        self.max_workers = max_workers
        self.name = name
        # One token per queued call (or a stop sign) in ``_queue``; the calls themselves
        # wait in two deques, so that a worker taking a token takes the most urgent call.
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._urgent: collections.deque[_Job] = collections.deque()
        self._background: collections.deque[_Job] = collections.deque()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._stuck = 0
        self._shutdown = False
        self.abandoned_total = 0

    @property
    def threads(self) -> int:
        """Threads alive (serving or stuck)."""
        return self._threads

    @property
    def stuck(self) -> int:
        """Threads still running an abandoned call."""
        return self._stuck

    def _put(self, job: _Job, background: bool = False) -> None:
        # The hot path takes no lock: a lock that a descheduled worker holds would make the
        # event loop wait for that worker to get the GIL back. Reading the counters without
        # the lock only makes the decision to add a thread approximate.
        if self._shutdown:
            raise RuntimeError("cannot submit to a WorkerPool after shutdown()")
        (self._background if background else self._urgent).append(job)
        self._queue.put(_JOB)
        if self._threads - self._stuck < self.max_workers and (
            self._idle == 0 or self._queue.qsize() > self._idle
        ):
            with self._lock:
                if self._threads - self._stuck < self.max_workers:
                    self._start_thread()

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        """Schedules ``fn(*args, **kwargs)``; returns its future (the `Executor` interface)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def deliver(result: Any, error: BaseException | None) -> None:
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        def call() -> Any:
            if not future.set_running_or_notify_cancel():
                return None
            return fn(*args, **kwargs)

        self._put(
            _Job(
                call,
                (),
                {},
                lambda result, error: None if future.done() else deliver(result, error),
            )
        )
        return future

    def _start_thread(self) -> None:
        self._threads += 1
        thread = threading.Thread(
            target=self._work, name=f"{self.name}-{self._threads}", daemon=True
        )
        thread.start()

    def _work(self) -> None:
        while True:
            self._idle += 1  # approximate (no lock): it only guides adding threads
            token = self._queue.get()
            self._idle -= 1
            if token is _STOP:
                with self._lock:
                    self._threads -= 1
                return
            job = self._next_job()
            if job is None:
                continue
            with self._lock:
                if job.state != "queued":
                    continue
                job.state = "running"
            result, error = None, None
            try:
                result = job.fn(*job.args, **job.kwargs)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                error = e
            with self._lock:
                job.state = "done"
                leave = job.abandoned
                if leave:
                    # A replacement took this thread's place while it was stuck: leave.
                    self._stuck -= 1
                    self._threads -= 1
            if leave:
                return
            job.deliver(result, error)

    def _next_job(self) -> _Job | None:
        """The oldest urgent call, else the oldest background call (deques are thread-safe)."""
        for jobs in (self._urgent, self._background):
            try:
                return jobs.popleft()
            except IndexError:
                continue
        return None

    def _abandon(self, job: _Job) -> None:
        with self._lock:
            if job.state == "queued":
                job.state = "cancelled"
            elif job.state == "running" and not job.abandoned:
                job.abandoned = True
                self._stuck += 1
                self.abandoned_total += 1
                if not self._shutdown and self._threads - self._stuck < self.max_workers:
                    self._start_thread()

    async def run(
        self,
        fn: Callable[..., T],
        *args: Any,
        timeout: float | None = None,
        background: bool = False,
    ) -> T:
        """Awaits ``fn(*args)`` on the pool.

        ``background`` calls (work that nothing waits for yet, such as setting up an
        episode ahead of demand) are served only when no other call is queued; the
        timeout counts from the submission either way.

        Raises:
            TimeoutError: The call ran past ``timeout`` seconds (its thread is abandoned).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        job = _Job(
            fn,
            args,
            {},
            lambda result, error: loop.call_soon_threadsafe(_settle, future, result, error),
        )
        self._put(job, background)
        try:
            if timeout is None:
                return await future
            async with asyncio.timeout(timeout):
                return await future
        except (TimeoutError, asyncio.CancelledError):
            self._abandon(job)
            raise

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stops the threads once the queued calls are done (stuck ones are not waited for)."""
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
            serving = self._threads - self._stuck
        if cancel_futures:
            while True:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    break
                job = self._next_job()
                if job is not None:
                    self._abandon(job)
        for _ in range(serving):
            self._queue.put(_STOP)
        if wait:
            while self._threads - self._stuck > 0:
                time.sleep(0.005)
