"""The worker pool: daemon threads, and stuck calls abandoned and replaced."""

from __future__ import annotations

import asyncio
import threading

import pytest

from palaestra.agents.workers import WorkerPool


def test_calls_run_and_errors_come_back():
    pool = WorkerPool(2)
    assert pool.submit(lambda x: x * 2, 21).result(timeout=5) == 42
    with pytest.raises(ZeroDivisionError):
        pool.submit(lambda: 1 / 0).result(timeout=5)
    pool.shutdown(wait=True)
    with pytest.raises(RuntimeError, match="shutdown"):
        pool.submit(print)


def test_a_stuck_call_is_abandoned_and_its_thread_replaced():
    pool = WorkerPool(1)
    release = threading.Event()

    async def main():
        with pytest.raises(TimeoutError):
            await pool.run(release.wait, 30, timeout=0.1)
        # The only serving thread is stuck; a replacement serves the next call.
        return await pool.run(lambda: threading.current_thread().daemon, timeout=5)

    assert asyncio.run(main()) is True
    assert pool.stuck == 1 and pool.abandoned_total == 1 and pool.threads == 2
    release.set()
    for _ in range(200):
        if pool.stuck == 0:
            break
        threading.Event().wait(0.01)
    assert pool.stuck == 0 and pool.threads == 1
    pool.shutdown(wait=True)
    assert pool.threads == 0


def test_queued_calls_are_dropped_when_they_time_out():
    pool = WorkerPool(1)
    gate = threading.Event()
    ran = []

    async def main():
        blocker = asyncio.ensure_future(pool.run(gate.wait, 5))
        await asyncio.sleep(0.05)
        with pytest.raises(TimeoutError):
            await pool.run(ran.append, "queued", timeout=0.05)  # still queued behind the blocker
        gate.set()
        assert await blocker is True
        assert await pool.run(ran.append, "later") is None

    asyncio.run(main())
    assert ran == ["later"]
    assert pool.abandoned_total == 0  # a call that never started leaves no thread behind
    executor_future = pool.submit(str, 5)
    assert executor_future.result(timeout=5) == "5"
    pool.shutdown(wait=True)


def test_max_workers_is_validated():
    with pytest.raises(ValueError, match="max_workers"):
        WorkerPool(0)
