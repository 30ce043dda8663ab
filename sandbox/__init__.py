r"""Isolated execution of untrusted code: one API, a local and a Docker backend.

    from palaestra import sandbox

    result = sandbox.run(sandbox.RunRequest(code="print(input()[::-1])", stdin="abc"))
    result.stdout            # b"cba\n"
    result.ok                # exited 0 within its limits, no infrastructure error

    fast = sandbox.get_backend("python")           # warm interpreter, forked per run
    results = await asyncio.gather(*(fast.arun(r) for r in requests))

    with sandbox.open_session("python") as s:      # state persists across calls
        s.exec("x = 41")
        s.exec("x + 1").stdout                     # b"42\n"

Backends (``get_backend(name)``):

* ``"local"``: Linux namespaces, cgroups and rlimits on this machine; a sandbox is renewed
  after a clean run (every process killed, fresh /work, /tmp, /dev/shm and IPC namespace)
  for the next with the same limits, and ``RunRequest(fresh=True)`` gets a new one
  (``palaestra.sandbox.local``; its docstring holds the threat model).
* ``"python"``: the local backend with its fast path: Python runs in a fork of a warm
  interpreter inside the sandbox instead of starting one (as PID 1 of the sandbox; see
  the local backend's docstring for what that changes).
* ``"docker"``: containers from a locally built image, with a warm pool for short runs and
  a fresh container for ``RunRequest(fresh=True)`` (``palaestra.sandbox.docker_backend``).

A run never raises because of what the program did; ``RunResult.error`` reports
infrastructure failures, which must never be scored. Each limit in :class:`Limits` has a
hostile test in ``tests/sandbox`` that fails if the limit is ignored.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Mapping
from typing import Any

from palaestra.sandbox.api import (
    DEFAULT_ENV,
    LANGUAGES,
    Backend,
    Limits,
    RunRequest,
    RunResult,
    Session,
)

__all__ = [
    "DEFAULT_ENV",
    "LANGUAGES",
    "Backend",
    "Limits",
    "RunRequest",
    "RunResult",
    "Session",
    "arun",
    "docker_available",
    "get_backend",
    "open_session",
    "run",
]

BACKENDS = ("local", "python", "docker")
_shared: dict[str, Any] = {}
_shared_lock = threading.Lock()


def get_backend(name: str = "local", **options: Any) -> Backend:
    """Returns a backend by name.

    Without options, the backend is shared per process (created on first use, closed at
    exit). With options, a new backend is returned and the caller closes it.

    Args:
        name: ``"local"``, ``"python"`` (local with the warm-interpreter fast path) or ``"docker"``.
        **options: Passed to the backend's constructor (``LocalBackend`` or ``DockerBackend``).

    Raises:
        ValueError: Unknown name.
        MissingDependencyError: ``"docker"`` without the ``docker`` package.
    """
    if name not in BACKENDS:
        raise ValueError(f"unknown sandbox backend {name!r}; choose one of {list(BACKENDS)}")
    if options:
        return _create(name, options)
    with _shared_lock:
        if name not in _shared:
            _shared[name] = _create(name, {})
        return _shared[name]


def _create(name: str, options: dict[str, Any]) -> Backend:
    if name == "docker":
        from palaestra.sandbox.docker_backend import DockerBackend

        return DockerBackend(**options)
    from palaestra.sandbox.local import LocalBackend

    if name == "python":
        if options.get("fast_python") is False:
            raise ValueError(
                "the 'python' backend is the local backend with fast_python=True; "
                "use 'local' instead"
            )
        options = {**options, "fast_python": True}
    return LocalBackend(**options)


@atexit.register
def _close_shared() -> None:
    with _shared_lock:
        for backend in _shared.values():
            backend.close()
        _shared.clear()


def docker_available(image: str | None = None) -> bool:
    """Whether the Docker backend can run here now.

    True when the ``docker`` package is installed, an engine answers, and ``image`` (by
    default the base image, see :func:`palaestra.sandbox.images.base_tag`) is built.
    Never raises; it starts nothing and builds nothing.
    """
    try:
        import docker

        from palaestra.sandbox.images import base_tag

        client = docker.from_env(timeout=5)
        try:
            client.ping()
            client.api.inspect_image(image or base_tag())
        finally:
            client.close()
        return True
    except Exception:  # any failure means "not usable here", which is the answer
        return False


def run(request: RunRequest, backend: str | Backend = "local") -> RunResult:
    """Runs one request on a backend (a name for the shared instance, or a backend)."""
    return (get_backend(backend) if isinstance(backend, str) else backend).run(request)


async def arun(request: RunRequest, backend: str | Backend = "local") -> RunResult:
    """Async twin of :func:`run`; the backend's ``max_concurrency`` bounds runs in flight."""
    return await (get_backend(backend) if isinstance(backend, str) else backend).arun(request)


def open_session(
    kind: str = "python",
    *,
    backend: str | Backend = "local",
    limits: Limits | None = None,
    files: Mapping[str, bytes | str] | None = None,
    env: Mapping[str, str] | None = None,
    idle_timeout_s: float = 300.0,
) -> Session:
    """Opens a stateful sandbox: ``kind="python"`` (a REPL) or ``"shell"`` (bash in /work).

    The session is closed by ``close()``, by leaving its ``with`` block, when it is garbage
    collected, when it sits idle for ``idle_timeout_s``, or when this process exits.
    """
    chosen = get_backend(backend) if isinstance(backend, str) else backend
    return chosen.session(kind, limits=limits, files=files, env=env, idle_timeout_s=idle_timeout_s)
