"""Batch verification's building blocks: item normalisation and heavy jobs in parallel.

`Verifier.verify_batch` runs each item's in-process stage (extraction, caps, fast paths) itself,
then hands the items that need heavy work to `run_jobs`, one `Job` each. Jobs go to the worker
pool, one per worker at a time, each with a hard wall-clock limit that starts when a worker
takes it; a job's budget is what the in-process stage left of the item's limit. The service
time returned per job is the in-process stage plus time in a worker, not the time the job spent
queued behind others.

This module knows jobs and the pool, not verifiers: `palaestra.verifiers.base` imports it, never
the other way round.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from palaestra.verdict import Verdict
from palaestra.verifiers.pool import Deferred, default_pool, resolve_deferred

_MIN_BUDGET_S = 0.05
"""A job whose item spent its whole limit in-process still gets this long in a worker."""


def normalize_items(items: Iterable[Any]) -> list[tuple[Any, Any, dict[str, Any]]]:
    """Turns batch items into ``(completion, reference, context)`` triples.

    Raises:
        TypeError: An item is neither a mapping with ``completion`` nor a 2- or 3-tuple.
    """
    out = []
    for index, item in enumerate(items):
        if isinstance(item, Mapping):
            if "completion" not in item:
                raise TypeError(
                    f"batch item {index} is a mapping without a 'completion' key; "
                    "give {'completion': ..., 'reference': ..., **context}"
                )
            context = {k: v for k, v in item.items() if k not in ("completion", "reference")}
            out.append((item["completion"], item.get("reference"), context))
        elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) in (2, 3):
            context = dict(item[2]) if len(item) == 3 else {}
            out.append((item[0], item[1], context))
        else:
            raise TypeError(
                f"batch item {index} must be a mapping or a (completion, reference[, context]) "
                f"tuple, got {type(item).__name__}"
            )
    return out


@dataclasses.dataclass(frozen=True)
class Job:
    """One item's heavy stage, waiting for a worker.

    Attributes:
        deferred: The work.
        limit_s: The item's whole time limit, in seconds.
        spent_s: What the in-process stage already used of it.
    """

    deferred: Deferred
    limit_s: float
    spent_s: float


def run_jobs(jobs: Sequence[Job], workers: int | None = None) -> list[tuple[Verdict, float]]:
    """Runs jobs in the shared worker pool, at most `workers` at a time.

    Args:
        jobs: The jobs, each with its own limit.
        workers: Jobs in flight at once (default: the pool's size; the pool grows to it).

    Returns:
        ``(verdict, service seconds)`` per job, in the order given; never raises for what a job
        does.
    """
    if not jobs:
        return []
    pool = default_pool(min_size=workers)
    results: list[tuple[Verdict, float] | None] = [None] * len(jobs)
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(jobs)):
        pending.put(index)

    def drain() -> None:
        while True:
            try:
                index = pending.get_nowait()
            except queue.Empty:
                return
            job = jobs[index]
            budget = max(job.limit_s - job.spent_s, _MIN_BUDGET_S)
            try:
                outcome = pool.call(job.deferred.target, job.deferred.args, budget)
                verdict = resolve_deferred(job.deferred, outcome, job.limit_s)
                results[index] = (verdict, job.spent_s + outcome.elapsed_s)
            except Exception as e:  # noqa: BLE001 - never raise on content
                results[index] = (Verdict.error(f"batch worker failed: {e}"), job.spent_s)

    threads = [
        threading.Thread(target=drain, daemon=True)
        for _ in range(min(workers or pool.size, len(jobs)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r if r is not None else (Verdict.error("item was not verified"), 0.0) for r in results]
