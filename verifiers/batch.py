"""Batch verification: cheap stages in-process, heavy stages in killable workers.

Each item first runs the verifier's in-process stage (extraction, caps, fast paths). Items that
need heavy work go to the worker pool, one job per worker at a time, each with a hard wall-clock
limit that starts when a worker takes the job; the item's budget is what the in-process stage
left of `timeout_s`. An item's `elapsed_s` is its own service time (in-process stage plus time
in a worker), not the time it spent queued behind other items.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from palaestra.verdict import Verdict

if TYPE_CHECKING:
    from palaestra.verifiers.base import Verifier


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


def run_batch(
    verifier: Verifier,
    items: Iterable[Any],
    *,
    timeout_s: float | None = None,
    workers: int | None = None,
) -> list[Verdict]:
    """Verifies items in order with a hard per-item limit (see the module docstring)."""
    from palaestra.verifiers.base import Deferred
    from palaestra.verifiers.pool import default_pool, resolve_deferred

    triples = normalize_items(items)
    for _, _, context in triples:
        verifier.check_context(context)
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")

    results: list[Verdict | None] = [None] * len(triples)
    pending: queue.SimpleQueue = queue.SimpleQueue()
    n_pending = 0
    for index, (completion, reference, context) in enumerate(triples):
        start = time.perf_counter()
        limit = verifier._timeout(context) if timeout_s is None else float(timeout_s)
        try:
            out = verifier._verify(completion, reference, context)
        except Exception as e:  # noqa: BLE001 - never raise on content
            out = Verdict.error(f"verifier crashed: {type(e).__name__}: {e}")
        if isinstance(out, Deferred):
            pending.put((index, out, limit, time.perf_counter() - start))
            n_pending += 1
        else:
            results[index] = verifier.finish(out, start)

    if n_pending:
        pool = default_pool(min_size=workers)
        n_threads = min(workers or pool.size, n_pending)

        def drain() -> None:
            while True:
                try:
                    index, deferred, limit, spent = pending.get_nowait()
                except queue.Empty:
                    return
                remaining = max(limit - spent, 0.05)
                try:
                    outcome = pool.call(deferred.target, deferred.args, remaining)
                    verdict = resolve_deferred(deferred, outcome, limit)
                    elapsed = spent + outcome.elapsed_s
                except Exception as e:  # noqa: BLE001 - never raise on content
                    verdict, elapsed = Verdict.error(f"batch worker failed: {e}"), spent
                stamped = verifier.finish(verdict, time.perf_counter())
                results[index] = stamped.replace(elapsed_s=elapsed)

        threads = [threading.Thread(target=drain, daemon=True) for _ in range(n_threads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return [r if r is not None else Verdict.error("item was not verified") for r in results]
