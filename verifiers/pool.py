"""A pool of killable worker processes: hard wall-clock limits without signals.

Threat model and guarantees:

* A job runs in a separate process. The caller waits on a pipe with a deadline; when the
  deadline passes the worker is killed with SIGKILL and a fresh one takes its place, so a job
  stuck in C code (a huge integer power, a runaway `simplify`) cannot stall the caller by more
  than the time it takes to kill a process. No SIGALRM is used anywhere, so the pool works from
  any thread and from async code (`asyncio.to_thread`).
* The deadline starts when the job is handed to a ready worker; starting a worker (importing
  sympy) never eats into a job's budget.
* Workers never outlive the pool: they are killed by `shutdown`, by an `atexit` hook, by a
  finaliser when the pool is garbage-collected, and, should the parent die without running
  any of these, by `PR_SET_PDEATHSIG` (Linux) when their parent, the worker factory, exits,
  which it does as soon as the parent process is gone (its control socket closes). A worker
  also exits when its socket closes.
* Each worker caps its address space (`RLIMIT_AS`) so one job cannot take the machine's memory;
  running out of memory is reported as such, and the worker is replaced.
* This is a time and memory fence for trusted verifier code working on untrusted *data*. It is
  not a sandbox for untrusted *code*: that is `palaestra.sandbox`.

Workers are forked by a small factory process (`palaestra.verifiers._zygote`, started with
``python -m`` so that the user's ``__main__`` is never re-imported) that has already imported
the modules in `warm`, so a replacement is ready in milliseconds rather than the second it
takes to import sympy.
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from palaestra.verdict import Verdict

DEFAULT_WARM: tuple[str, ...] = (
    "sympy",
    "latex2sympy2_extended.latex2sympy2",
    "math_verify",
    "palaestra.verifiers.math:warm_up",
)
"""Modules the worker factory imports once (``module:function`` also calls a warm-up function)."""

_STARTUP_TIMEOUT_S = 180.0
_CONN: Any = None  # the worker's end of its pipe, set inside worker processes only


@dataclasses.dataclass(frozen=True)
class Deferred:
    """Work that must run in a killable worker process.

    A verifier's in-process stage returns one when a check needs heavy work (sympy, z3); the
    caller runs it with `WorkerPool.call` and turns the outcome into a verdict with
    `resolve_deferred`.

    Attributes:
        target: ``"module:function"``; the function takes `args` and returns a `Verdict`.
        args: Picklable positional arguments.
        on_timeout: Builds the verdict when the worker overruns; gets the last stage the worker
            reported (see `report_stage`) and the limit in seconds.
        on_memory: Builds the verdict when the worker runs out of memory (same arguments).
    """

    target: str
    args: tuple[Any, ...]
    on_timeout: Callable[[str | None, float], Verdict]
    on_memory: Callable[[str | None, float], Verdict] | None = None


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What became of one job.

    Attributes:
        kind: ``ok`` (value holds the result), ``timeout``, ``memory`` (the job ran out of
            memory), ``exception`` (the job raised), ``crashed`` (the worker died), ``error``
            (the pool could not run the job).
        value: The job's return value when kind is ``ok``.
        stage: The last stage the job reported with `report_stage`.
        elapsed_s: Seconds from hand-over to the worker until the outcome was known.
        message: What went wrong, for a person.
    """

    kind: str
    value: Any = None
    stage: str | None = None
    elapsed_s: float = 0.0
    message: str = ""


def report_stage(stage: str) -> None:
    """Tells the waiting caller which stage a job has reached (no-op outside a worker).

    A caller whose job overruns learns the last stage reached, e.g. to tell a reference that
    could not be parsed (an infrastructure problem) from an answer that could not (the
    answer's fault).
    """
    if _CONN is not None:
        _CONN.send(("stage", stage))


def resolve(target: str) -> Any:
    """Imports ``"module:qualname"`` and returns the object."""
    module_name, _, qualname = target.partition(":")
    if not module_name or not qualname:
        raise ValueError(f"job target must look like 'module:function', got {target!r}")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _set_parent_death_signal() -> None:
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: pipe EOF and atexit still apply
        pass


def serve(conn: Any) -> None:
    """The worker loop: run jobs from `conn` until it closes (called inside a worker)."""
    global _CONN
    _CONN = conn
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job_id, target, args = message
        try:
            value = resolve(target)(*args)
            conn.send(("ok", job_id, value))
        except MemoryError:
            conn.send(("exc", job_id, "MemoryError", "out of memory"))
        except BaseException as e:  # noqa: BLE001 - report everything to the caller
            conn.send(("exc", job_id, type(e).__name__, str(e)[:2000]))


class _Zygote:
    """The worker factory process (`palaestra.verifiers._zygote`)."""

    def __init__(self, memory_mb: int | None, warm: Sequence[str]) -> None:
        parent_end, child_end = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        command = [
            sys.executable,
            "-m",
            "palaestra.verifiers._zygote",
            str(child_end.fileno()),
            str(memory_mb or 0),
            ",".join(warm),
        ]
        self.process = subprocess.Popen(
            command,
            pass_fds=[child_end.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        child_end.close()
        self.sock = parent_end
        self.lock = threading.Lock()
        self.sock.settimeout(_STARTUP_TIMEOUT_S)
        try:
            ready = self.sock.recv(1)
        except OSError:
            ready = b""
        if ready != b"R":
            self.close()
            raise RuntimeError("the verifier worker factory did not start")
        self.sock.settimeout(None)

    def alive(self) -> bool:
        return self.process.poll() is None

    def spawn(self) -> tuple[int, Any]:
        from multiprocessing.connection import Connection

        with self.lock:
            self.sock.sendall(b"S")
            message, fds, _, _ = socket.recv_fds(self.sock, 8, 1)
        if len(message) != 8 or len(fds) != 1:
            raise RuntimeError("the verifier worker factory did not hand over a worker")
        return int.from_bytes(message, "little"), Connection(fds[0])

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


class _Worker:
    def __init__(self, zygote: _Zygote) -> None:
        self.pid, self.conn = zygote.spawn()

    def wait_ready(self, timeout_s: float) -> bool:
        if not self.conn.poll(timeout_s):
            return False
        try:
            kind, _ = self.conn.recv()
        except (EOFError, OSError):
            return False
        return kind == "ready"

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.conn.close()
        except OSError:
            pass


def _kill_all(workers: set[_Worker], zygotes: list[_Zygote]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()
    for zygote in zygotes:
        zygote.close()
    zygotes.clear()


class WorkerPool:
    """Killable worker processes shared by every thread of the process.

    Args:
        size: The most workers alive at once (default: the usable CPUs).
        memory_mb: Address-space cap per worker in MiB (None: no cap).
        warm: Modules each worker imports before it takes jobs.
    """

    def __init__(
        self,
        size: int | None = None,
        *,
        memory_mb: int | None = 4096,
        warm: Sequence[str] = DEFAULT_WARM,
    ) -> None:
        if size is None:
            size = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive integer, got {size!r}")
        self.size = size
        self.memory_mb = memory_mb
        self.warm = tuple(warm)
        self._zygotes: list[_Zygote] = []
        self._cond = threading.Condition()
        self._factory_lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._workers: set[_Worker] = set()
        self._starting = 0
        self._closed = False
        self._owner_pid = os.getpid()
        self._ids = itertools.count()
        self._finalizer = weakref.finalize(self, _kill_all, self._workers, self._zygotes)

    @property
    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        with self._cond:
            return [w.pid for w in self._workers]

    @property
    def factory_pid(self) -> int | None:
        """The process id of the worker factory, if one is running."""
        with self._cond:
            return self._zygotes[0].process.pid if self._zygotes else None

    def resize(self, size: int) -> None:
        """Allows up to `size` workers (never shrinks below the current size)."""
        with self._cond:
            self.size = max(self.size, int(size))
            self._cond.notify_all()

    def call(self, target: str, args: tuple[Any, ...], timeout_s: float) -> Outcome:
        """Runs ``target(*args)`` in a worker with a hard wall-clock limit.

        Thread-safe: each caller holds one worker for the duration of its job.

        Args:
            target: ``"module:function"``, importable in the worker.
            args: Picklable arguments.
            timeout_s: Seconds from hand-over until the worker is killed.

        Returns:
            The outcome; never raises for what the job does.
        """
        worker = self._acquire()
        if isinstance(worker, Outcome):
            return worker
        job_id = next(self._ids)
        start = time.perf_counter()
        try:
            worker.conn.send((job_id, target, args))
        except Exception as e:  # noqa: BLE001 - unpicklable args or a dead pipe
            self._discard(worker)
            return Outcome("error", message=f"could not hand the job to a worker: {e}")
        deadline = start + timeout_s
        stage = None
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or not worker.conn.poll(remaining):
                self._discard(worker)
                return Outcome("timeout", stage=stage, elapsed_s=time.perf_counter() - start)
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                self._discard(worker)
                return Outcome(
                    "crashed",
                    stage=stage,
                    elapsed_s=time.perf_counter() - start,
                    message="the worker process died",
                )
            if message[0] == "stage":
                stage = message[1]
                continue
            elapsed = time.perf_counter() - start
            if message[0] == "ok":
                self._release(worker)
                return Outcome("ok", value=message[2], stage=stage, elapsed_s=elapsed)
            _, _, exc_type, text = message
            # A job that failed may have left the worker in a bad state: replace it.
            self._discard(worker)
            kind = "memory" if exc_type == "MemoryError" else "exception"
            return Outcome(kind, stage=stage, elapsed_s=elapsed, message=f"{exc_type}: {text}")

    def shutdown(self) -> None:
        """Kills every worker and the worker factory; the pool can not be used afterwards."""
        with self._cond:
            self._closed = True
            self._idle.clear()
            self._cond.notify_all()
        _kill_all(self._workers, self._zygotes)

    def _factory(self) -> _Zygote:
        with self._factory_lock:
            if self._zygotes and not self._zygotes[0].alive():
                self._zygotes.pop().close()
            if not self._zygotes:
                self._zygotes.append(_Zygote(self.memory_mb, self.warm))
            return self._zygotes[0]

    def _acquire(self) -> _Worker | Outcome:
        with self._cond:
            if os.getpid() != self._owner_pid:
                # A forked child must not talk to its parent's workers.
                self._workers = set()
                self._zygotes = []
                self._idle = []
                self._starting = 0
                self._owner_pid = os.getpid()
            while True:
                if self._closed:
                    return Outcome("error", message="the worker pool has been shut down")
                if self._idle:
                    return self._idle.pop()
                if len(self._workers) + self._starting < self.size:
                    self._starting += 1
                    break
                self._cond.wait()
        try:
            worker = _Worker(self._factory())
        except Exception as e:  # noqa: BLE001 - report, never raise
            with self._cond:
                self._starting -= 1
                self._cond.notify()
            return Outcome("error", message=f"could not start a worker: {e}")
        with self._cond:
            self._starting -= 1
            self._workers.add(worker)
        if worker.wait_ready(_STARTUP_TIMEOUT_S):
            return worker
        self._discard(worker)
        return Outcome("error", message="a worker did not start in time")

    def _release(self, worker: _Worker) -> None:
        with self._cond:
            if self._closed:
                worker.kill()
                self._workers.discard(worker)
                return
            self._idle.append(worker)
            self._cond.notify()

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        with self._cond:
            self._workers.discard(worker)
            self._cond.notify()


_default: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool(min_size: int | None = None) -> WorkerPool:
    """The process-wide pool used by `Verifier.verify` and `verify_batch`, created lazily."""
    global _default
    with _default_lock:
        if _default is None or _default._closed or _default._owner_pid != os.getpid():
            _default = WorkerPool()
        if min_size is not None and min_size > _default.size:
            _default.resize(min_size)
        return _default


def shutdown_default_pool() -> None:
    """Kills the shared pool's workers (a new pool is created on next use)."""
    global _default
    with _default_lock:
        pool, _default = _default, None
    if pool is not None:
        pool.shutdown()


atexit.register(shutdown_default_pool)


def resolve_deferred(deferred: Deferred, outcome: Outcome, timeout_s: float) -> Verdict:
    """Turns the outcome of a `Deferred` job into a verdict."""
    if outcome.kind == "ok":
        if isinstance(outcome.value, Verdict):
            return outcome.value
        return Verdict.error(f"worker returned {type(outcome.value).__name__}, not a Verdict")
    if outcome.kind == "timeout":
        return deferred.on_timeout(outcome.stage, timeout_s)
    if outcome.kind == "memory":
        handler = deferred.on_memory or deferred.on_timeout
        return handler(outcome.stage, timeout_s)
    return Verdict.error(f"verification failed ({outcome.kind}): {outcome.message}")
