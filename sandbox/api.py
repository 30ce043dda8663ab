"""The sandbox contract: limits, a run request, its result, and the backend and session protocols.

Every backend takes a :class:`RunRequest` and returns a :class:`RunResult`. A run never
raises because of what the program did (crash, timeout, memory kill, garbage output): that
is all in the result. Infrastructure failures (the sandbox could not start, the engine is
gone) are reported in ``RunResult.error`` and must never be read as a program outcome.
Bad requests (an unsafe path, an unknown language) raise ``ValueError`` when the request is
built, before anything runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from palaestra.errors import InfrastructureError
from palaestra.sandbox._guest import check_relpath

#: Languages accepted with ``RunRequest(code=...)``: the file the code is written to and
#: the command that runs it (extra ``args`` are appended).
LANGUAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "python": ("main.py", ("python3", "main.py")),
    "bash": ("main.sh", ("bash", "main.sh")),
    "sh": ("main.sh", ("sh", "main.sh")),
}

#: The environment every program starts with; ``RunRequest.env`` is laid over it. Nothing
#: of the host's environment reaches a sandbox.
DEFAULT_ENV: dict[str, str] = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/work",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
}

_MAX_WALL_S = 24 * 3600.0


def _check_number(
    name: str, value: Any, *, minimum: float, integer: bool, optional: bool = False
) -> None:
    if value is None and optional:
        return
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        kind = "an int" if integer else "a number"
        raise TypeError(
            f"Limits.{name} must be {kind}{' or None' if optional else ''}, got {value!r}"
        )
    if not math.isfinite(value) or value < minimum:
        raise ValueError(f"Limits.{name} must be at least {minimum}, got {value!r}")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run (or of a session, per call for the time limits).

    Attributes:
        wall_s: Wall-clock deadline, enforced from outside the program; the whole process
            tree is killed when it passes.
        cpu_s: CPU seconds per process (``RLIMIT_CPU``); None leaves only the wall deadline.
        memory_mb: Memory of the whole sandbox, swap included (a cgroup where available,
            else ``RLIMIT_AS`` per process; ``RunResult.info["enforced"]`` says which; see
            :meth:`address_space_mb`).
        pids: Processes and threads of the sandbox (cgroup ``pids.max`` and, locally, an
            ``RLIMIT_NPROC`` that binds because every sandbox runs as its own uid).
        disk_mb: Size of the writable space (/work, /tmp and /dev/shm) and the largest
            file a program may write (``RLIMIT_FSIZE``).
        nofile: Open file descriptors per process (``RLIMIT_NOFILE``).
        output_bytes: Bytes of stdout and of stderr kept, each; the rest is read and dropped.
        cpus: CPU quota in cores (cgroup CPU bandwidth); None for no quota.
        network: Whether the program may use the network. Off by default: the sandbox
            has only its own loopback.
    """

    wall_s: float = 10.0
    cpu_s: float | None = None
    memory_mb: int = 512
    pids: int = 64
    disk_mb: int = 64
    nofile: int = 256
    output_bytes: int = 1 << 20
    cpus: float | None = 1.0
    network: bool = False

    def __post_init__(self) -> None:
        _check_number("wall_s", self.wall_s, minimum=0.001, integer=False)
        if self.wall_s > _MAX_WALL_S:
            raise ValueError(
                f"Limits.wall_s must be at most {_MAX_WALL_S:.0f} s, got {self.wall_s!r}"
            )
        _check_number("cpu_s", self.cpu_s, minimum=0.001, integer=False, optional=True)
        _check_number("memory_mb", self.memory_mb, minimum=16, integer=True)
        _check_number("pids", self.pids, minimum=2, integer=True)
        _check_number("disk_mb", self.disk_mb, minimum=1, integer=True)
        _check_number("nofile", self.nofile, minimum=16, integer=True)
        _check_number("output_bytes", self.output_bytes, minimum=0, integer=True)
        _check_number("cpus", self.cpus, minimum=0.01, integer=False, optional=True)
        if not isinstance(self.network, bool):
            raise TypeError(f"Limits.network must be a bool, got {self.network!r}")

    def address_space_mb(self, memory_cgroup: bool) -> int:
        """The ``RLIMIT_AS`` each process gets, in MiB.

        Without a memory cgroup it is the memory limit itself. With one, the cgroup caps
        memory and ``RLIMIT_AS`` is only a backstop against huge sparse mappings, loose
        enough for the address space that threads and runtimes reserve without using.
        """
        return max(4096, 8 * self.memory_mb) if memory_cgroup else self.memory_mb

    def to_wire(self) -> dict[str, Any]:
        """The limits as the in-sandbox agent reads them."""
        return {
            "wall_s": float(self.wall_s),
            "cpu_s": None if self.cpu_s is None else float(self.cpu_s),
            "memory_mb": self.memory_mb,
            "pids": self.pids,
            "disk_mb": self.disk_mb,
            "nofile": self.nofile,
            "output_bytes": self.output_bytes,
        }


def _as_bytes(name: str, value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{name} must be str or bytes, got {type(value).__name__}")


def _check_env(env: Any) -> dict[str, str]:
    if not isinstance(env, Mapping):
        raise TypeError(f"RunRequest.env must be a mapping of str to str, got {type(env).__name__}")
    out = {}
    for key, value in env.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise ValueError(
                f"environment variable name {key!r} must be a non-empty str without '=' or NUL"
            )
        if not isinstance(value, str) or "\0" in value:
            raise ValueError(f"environment variable {key}={value!r} must be a str without NUL")
        out[key] = value
    return out


def check_files(files: Any, what: str = "RunRequest.files") -> dict[str, bytes]:
    """Validates a ``{relative path: content}`` mapping; returns it with bytes values.

    Raises:
        ValueError: A path is absolute, contains ``..``, ``.``, empty components or NUL, or
            one path is both a file and a directory.
        TypeError: The mapping or a content has the wrong type.
    """
    if not isinstance(files, Mapping):
        raise TypeError(f"{what} must be a mapping of relative paths to str or bytes")
    out = {}
    for path, content in files.items():
        try:
            check_relpath(path)
        except ValueError as e:
            raise ValueError(f"{what}: {e}; use a path relative to the work directory") from None
        out[path] = _as_bytes(f"{what}[{path!r}]", content)
    for path in out:
        parts = path.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in out:
                raise ValueError(
                    f"{what}: {'/'.join(parts[:i])!r} is a file and also a directory of {path!r}"
                )
    return out


@dataclass(frozen=True)
class RunRequest:
    """One program to run in a fresh sandbox.

    Give either ``argv`` or ``code`` (with ``language``). The program starts in ``/work``,
    which holds ``files``; ``fetch`` names files to bring back after it ends.

    Attributes:
        argv: The command, resolved on the sandbox's PATH.
        code: Source code; written to ``main.py`` (python) or ``main.sh`` (bash, sh).
        language: The language of ``code``: one of :data:`LANGUAGES`.
        args: Extra arguments after the code's file.
        stdin: Bytes (or text, UTF-8 encoded) on the program's standard input.
        files: ``{relative path: content}`` written under /work before the run.
        fetch: Relative paths under /work returned in ``RunResult.files``. Only regular
            files are returned; symlinks and anything else are refused.
        env: Environment variables laid over :data:`DEFAULT_ENV`.
        limits: Resource limits.
        fresh: Never reuse a sandbox that ran earlier programs (Docker's warm pool, the
            local backend's renewed sandboxes); use it when grading must not see earlier
            state even in principle.
    """

    argv: Sequence[str] | None = None
    code: str | None = None
    language: str = "python"
    args: Sequence[str] = ()
    stdin: bytes | str = b""
    files: Mapping[str, bytes | str] = field(default_factory=dict)
    fetch: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    fresh: bool = False

    def __post_init__(self) -> None:
        if (self.argv is None) == (self.code is None):
            raise ValueError("RunRequest needs exactly one of argv=[...] or code='...'")
        if self.argv is not None:
            if isinstance(self.argv, (str, bytes)) or not isinstance(self.argv, Sequence):
                raise TypeError(
                    "RunRequest.argv must be a list of str, e.g. ['python3', 'main.py']"
                )
            if not self.argv or not all(isinstance(a, str) and "\0" not in a for a in self.argv):
                raise ValueError("RunRequest.argv must be a non-empty list of str without NUL")
            object.__setattr__(self, "argv", tuple(self.argv))
        if self.code is not None:
            if not isinstance(self.code, str):
                raise TypeError(f"RunRequest.code must be a str, got {type(self.code).__name__}")
            if self.language not in LANGUAGES:
                raise ValueError(
                    f"unknown language {self.language!r}; choose one of {sorted(LANGUAGES)}"
                )
        if isinstance(self.args, (str, bytes)) or not all(isinstance(a, str) for a in self.args):
            raise TypeError("RunRequest.args must be a list of str")
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "stdin", _as_bytes("RunRequest.stdin", self.stdin))
        files = check_files(self.files)
        if self.code is not None and LANGUAGES[self.language][0] in files:
            raise ValueError(
                f"RunRequest.files already has {LANGUAGES[self.language][0]!r}, "
                "where code= is written"
            )
        object.__setattr__(self, "files", files)
        if isinstance(self.fetch, (str, bytes)):
            raise TypeError("RunRequest.fetch must be a list of paths, not one string")
        for path in self.fetch:
            try:
                check_relpath(path)
            except ValueError as e:
                raise ValueError(
                    f"RunRequest.fetch: {e}; fetch paths are relative to /work"
                ) from None
        object.__setattr__(self, "fetch", tuple(self.fetch))
        object.__setattr__(self, "env", _check_env(self.env))
        if not isinstance(self.limits, Limits):
            raise TypeError(f"RunRequest.limits must be a Limits, got {type(self.limits).__name__}")
        if not isinstance(self.fresh, bool):
            raise TypeError("RunRequest.fresh must be a bool")

    def command(self) -> tuple[str, ...]:
        """The argv that runs this request inside the sandbox."""
        if self.argv is not None:
            return tuple(self.argv)
        return (*LANGUAGES[self.language][1], *self.args)

    def all_files(self) -> dict[str, bytes]:
        """The files written before the run, the code's file included."""
        files = dict(self.files)
        if self.code is not None:
            files[LANGUAGES[self.language][0]] = self.code.encode()
        return files

    def environment(self) -> dict[str, str]:
        """The program's full environment: :data:`DEFAULT_ENV` with ``env`` laid over it."""
        return {**DEFAULT_ENV, **self.env}


@dataclass(frozen=True)
class RunResult:
    """What happened to one program (or one session call).

    Attributes:
        exit_code: The exit status, or None if the program was killed by a signal or never ran.
        signal: The signal that killed it, or None.
        stdout: Standard output, at most ``Limits.output_bytes``.
        stderr: Standard error, at most ``Limits.output_bytes``.
        stdout_truncated: More stdout was written than kept.
        stderr_truncated: More stderr was written than kept.
        timed_out: The wall deadline (or the CPU limit, see ``info["timeout"]``) passed and
            the process tree was killed.
        oom_killed: The sandbox hit its memory limit and the kernel killed a process.
        wall_s: Seconds from the program's start to its end.
        files: The fetched files, ``{path: content}``; paths that could not be fetched are
            in ``info["fetch_errors"]``.
        error: An infrastructure failure, or None. When set, the other fields describe no
            program outcome and must not be scored.
        info: Backend details: ``backend``, ``mode``, ``enforced`` (the mechanism behind
            each limit), ``cpu_s``, ``fetch_errors``, ``notes``.
    """

    exit_code: int | None = None
    signal: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    oom_killed: bool = False
    wall_s: float = 0.0
    files: dict[str, bytes] = field(default_factory=dict)
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """The program ran and exited 0 within its limits."""
        return (
            self.error is None
            and self.exit_code == 0
            and not self.timed_out
            and not self.oom_killed
        )

    @property
    def stdout_text(self) -> str:
        """Stdout decoded as UTF-8, invalid bytes replaced."""
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        """Stderr decoded as UTF-8, invalid bytes replaced."""
        return self.stderr.decode("utf-8", errors="replace")

    def raise_for_error(self) -> RunResult:
        """Raises InfrastructureError if the sandbox failed; returns self otherwise."""
        if self.error is not None:
            raise InfrastructureError(f"sandbox failure: {self.error}")
        return self

    @classmethod
    def failure(cls, error: str, **info: Any) -> RunResult:
        """A result for an infrastructure failure."""
        return cls(error=error, info=info)


@runtime_checkable
class Session(Protocol):
    """A sandbox that keeps state across calls (see :meth:`Backend.session`).

    ``kind="python"``: ``exec`` runs Python source in one interpreter whose globals persist
    (the value of a final expression is printed, as in a REPL). ``kind="shell"``: ``exec``
    runs a bash command line in a fresh shell in /work; files and background processes
    persist between calls, the shell's variables and working directory do not.
    """

    def exec(
        self, source: str, *, timeout_s: float | None = None, stdin: bytes | str = b""
    ) -> RunResult:
        """Runs one call; never raises for what the code did."""
        ...

    async def aexec(
        self, source: str, *, timeout_s: float | None = None, stdin: bytes | str = b""
    ) -> RunResult:
        """Async twin of :meth:`exec`."""
        ...

    def put(self, files: Mapping[str, bytes | str]) -> None:
        """Writes files under /work."""
        ...

    def get(self, paths: Sequence[str]) -> dict[str, bytes]:
        """Reads regular files under /work; missing or unsafe ones are left out."""
        ...

    def diff(self) -> str:
        """A unified diff of /work against its state when the session opened."""
        ...

    def close(self) -> None:
        """Ends the session and kills every process in it; idempotent."""
        ...


@runtime_checkable
class Backend(Protocol):
    """Runs requests in isolation. Implementations: ``LocalBackend``, ``DockerBackend``."""

    name: str

    def run(self, request: RunRequest) -> RunResult:
        """Runs one request, blocking; never raises for what the program did."""
        ...

    async def arun(self, request: RunRequest) -> RunResult:
        """Async twin of :meth:`run`; at most ``max_concurrency`` runs go at once."""
        ...

    def session(
        self,
        kind: str = "python",
        *,
        limits: Limits | None = None,
        files: Mapping[str, bytes | str] | None = None,
        env: Mapping[str, str] | None = None,
        idle_timeout_s: float = 300.0,
    ) -> Session:
        """Opens a stateful sandbox; raises InfrastructureError if it cannot start."""
        ...

    def close(self) -> None:
        """Releases every sandbox, process and container the backend holds."""
        ...
