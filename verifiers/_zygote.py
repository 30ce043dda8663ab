"""The worker factory behind `palaestra.verifiers.pool`, run as ``python -m``.

It imports the heavy modules once, then forks a worker for each request on its control socket
and hands the worker's end of a fresh socket pair back over SCM_RIGHTS. Being started with
``python -m`` (not through multiprocessing), neither it nor its workers ever import the user's
``__main__``. It exits, killing its workers, as soon as the control socket closes, which the
kernel does when the parent process dies for any reason.
"""

from __future__ import annotations

import importlib
import os
import signal
import socket
import sys


def _serve_worker(sock: socket.socket, memory_mb: int) -> None:
    from multiprocessing.connection import Connection

    from palaestra.verifiers import pool

    pool._set_parent_death_signal()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if memory_mb > 0:
        import resource

        limit = memory_mb << 20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    pool.serve(Connection(sock.detach()))


def main() -> None:
    """Entry point: ``python -m palaestra.verifiers._zygote FD MEMORY_MB MODULE,...``."""
    control = socket.socket(fileno=int(sys.argv[1]))
    memory_mb = int(sys.argv[2])
    for name in filter(None, sys.argv[3].split(",")):
        module, _, function = name.partition(":")
        try:
            loaded = importlib.import_module(module)
            if function:
                # A warm-up function: its caches are inherited by every forked worker.
                getattr(loaded, function)()
        except Exception:  # noqa: BLE001 - warming is an optimisation, never a failure
            pass
    children: set[int] = set()

    def reap(signum: int, frame: object) -> None:
        # Reap promptly so a killed worker leaves no zombie, and so that every pid still in
        # `children` is one of ours (an unreaped pid can not be reused by another process).
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)

    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    control.sendall(b"R")
    while True:
        try:
            request = control.recv(1)
        except OSError:
            request = b""
        if request != b"S":
            break
        parent_end, child_end = socket.socketpair()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            control.close()
            parent_end.close()
            try:
                _serve_worker(child_end, memory_mb)
            finally:
                os._exit(0)
        child_end.close()
        children.add(pid)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        socket.send_fds(control, [pid.to_bytes(8, "little")], [parent_end.fileno()])
        parent_end.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for pid in list(children):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


if __name__ == "__main__":
    main()
