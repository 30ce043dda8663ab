"""Local backend: every run in fresh Linux namespaces, under cgroups and rlimits.

Threat model
============

The program is assumed hostile: it may fork, allocate, loop, write, connect, read
secrets, kill its parents and lie in its output. The kernel is trusted. The backend
needs root on the host (to map uids and manage cgroups).

How a run is isolated
---------------------
* **Identity.** The backend's zygote lives in a user namespace of its own that maps
  its root to an unprivileged host uid; each sandbox runs as a further uid, unique among
  the sandboxes alive in the backend (``1000 + slot`` inside, ``1_100_001 + slot`` on
  the host). Once set up, a sandbox keeps no capability anywhere, ``no_new_privs`` is
  set, and files owned by host users it does not map (``/etc/shadow``, keys) are
  unreadable even where visible.
* **Processes.** Each sandbox is cloned straight into fresh PID, mount, IPC and UTS
  namespaces and sees only its own processes. Its PID 1 is either the program (Python
  on the fast path) or a small init that spawns the program, reports its status and
  kills whatever it left (``kill(-1)``, then reaps until no process is left). When PID
  1 ends, the kernel kills every process of the namespace (double-forked and ``setsid``
  daemons included). The deadline is kept by the host, which kills PID 1 through a
  pidfd; nothing inside the sandbox can stop it.
* **Reuse.** With ``reuse=True`` (the default), a sandbox whose run ended cleanly serves
  later runs with the same rlimits, up to ``MAX_RUNS_PER_SANDBOX``: between two runs its
  init has killed and reaped every process of the run, and it mounts a fresh tmpfs on
  /work, /tmp and /dev/shm and enters a fresh IPC namespace (SysV objects and POSIX
  queues gone). The init then keeps the program's uid and, in its permitted set only,
  the capabilities it needs for that; programs start with none. A run that timed out,
  hit the memory limit or failed is never reused, nor are fast-path runs, and
  ``RunRequest(fresh=True)`` always gets a sandbox that never ran anything.
* **Files.** The root is a fresh tmpfs holding read-only, nosuid binds of ``/usr``,
  ``/etc``, ``/bin``, ``/sbin`` and ``/lib*`` of the source root (the host's, or a
  Debian root file system built by ``palaestra sandbox build-image --rootfs``), a few
  device nodes and a fresh ``/proc`` (``hidepid=2``). Home directories, ``/root``,
  ``/tmp``, ``/var``, ``/run`` (the Docker socket), ``/srv``, ``/mnt`` and the project
  are simply not there. ``/work``, ``/tmp`` and ``/dev/shm`` share one private tmpfs of
  ``disk_mb``. The host writes input files and reads fetched ones itself, through a
  descriptor of the sandbox's ``/work``, opening every path component with
  ``O_NOFOLLOW``; it reads them only after every process of the sandbox is dead.
* **Network.** A network namespace with its own loopback only: no route out, no host
  loopback service, no DNS. Each slot has one, made once and kept (making and tearing
  down network namespaces is the dearest part of a sandbox's start): a slot is held by
  one live sandbox at a time, so sandboxes alive at once never share a network, and the
  next holder starts after every process of the last is dead. TIME_WAIT is off there
  (``tcp_max_tw_buckets`` 0), so a port one run used is free for the next; interface
  counters carry over.
* **Keys.** The kernel keeps keyrings per uid, and slots hand their uid on: the user,
  user-session and persistent keyrings are emptied before every program.
* **Resources.** Memory, swap included (cgroup), processes and threads (cgroup
  ``pids.max`` plus ``RLIMIT_NPROC``, which binds because the uid is not root and is
  unique to the sandbox), CPU quota (cgroup), CPU time, address space (a backstop when
  a cgroup caps memory), file size, open files, no core dumps. The host reads the
  output pipes while the program runs; past ``output_bytes`` it drains them unseen, so
  a chatty program neither blocks nor fills memory.
* **Environment.** The program starts with :data:`~palaestra.sandbox.api.DEFAULT_ENV`
  plus what the request sets; the zygote and every sandbox start from an empty one.

What it does not isolate
------------------------
* The kernel is shared. A kernel bug reachable from an unprivileged user (user
  namespaces make more code reachable) is an escape. There is no seccomp filter. For
  untrusted code from outside your organisation, prefer the Docker backend in a VM.
* World-readable files under the bound directories are readable (host configuration
  in ``/etc`` for the host root); pass ``root=`` a built root file system for a clean tree.
* Side channels (timing, caches, ``/proc/cpuinfo``, the kernel version) are open, and a
  run in a reused sandbox can tell from PID numbers and loopback counters how much an
  earlier run there did (not what it did).
* Without usable cgroups (see ``RunResult.info["enforced"]``), memory is capped per
  process with ``RLIMIT_AS`` (so a process tree may use up to ``pids x memory_mb``), OOM
  is reported from ``MemoryError`` only, and there is no CPU quota.
* ``Limits(network=True)`` shares the host's network namespace, host loopback included.
* In a session, processes a call detached from its process group outlive that call's
  timeout; they die when the session closes or expires.

Behaviour of the fast path
--------------------------
With ``fast_python=True``, Python runs in a fork of the warm interpreter, as PID 1 of
its sandbox (like a container without an init). Runs share the interpreter's string
hash seed and find its preloaded modules already imported (fresh copies, not shared
state). A signal the program sends itself without installing a handler is ignored, as
for any PID 1 (``os.abort()`` then ends with SIGSEGV rather than SIGABRT), and orphaned
grandchildren are not reaped until the run ends. Use the plain backend where a program
depends on these.
"""

from __future__ import annotations

import asyncio
import os
import queue
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping
from typing import Any

from palaestra.errors import InfrastructureError
from palaestra.sandbox import _guest
from palaestra.sandbox._cgroups import Cgroups
from palaestra.sandbox._guest import (
    FrameDecoder,
    ProtocolError,
    encode_frame,
    read_files,
    write_files,
)
from palaestra.sandbox._host import (
    START_TIMEOUT_S,
    AgentSession,
    SlotPool,
    default_concurrency,
)
from palaestra.sandbox.api import (
    DEFAULT_ENV,
    Limits,
    RunRequest,
    RunResult,
    _check_env,
    check_files,
)

#: Host uid/gid of the sandboxes' root; programs run as the uids just above it.
UID_BASE = 1_100_000
#: Modules the warm interpreter imports once so that runs find them loaded. Kept to what
#: short programs (code-contest solutions, tests of small functions) import most: every
#: megabyte the zygote holds costs each run time at fork and exit.
DEFAULT_PRELOAD = (
    "bisect",
    "collections",
    "copy",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "random",
    "re",
    "string",
)
_PYTHON_NAMES = ("python3", "python")
_SEARCH = ("usr/local/bin", "usr/bin", "bin")


def _find_python(root: str, python: str) -> str:
    if "/" in python:
        if os.path.exists(os.path.join(root, python.lstrip("/"))):
            return python
    else:
        for directory in _SEARCH:
            if os.path.exists(os.path.join(root, directory, python)):
                return f"/{directory}/{python}"
    raise InfrastructureError(
        f"the sandbox root {root!r} has no {python!r}; install python3 there, pass python= "
        "the interpreter's path inside the root, or root= a built root file system"
    )


class _Zygote:
    """The warm interpreter that forks every sandbox of one backend."""

    def __init__(
        self, root: str, python: str, preload: tuple[str, ...], nslots: int, warm: bool
    ) -> None:
        self.root, self.python, self.preload, self.nslots, self.warm = (
            root,
            python,
            preload,
            nslots,
            warm,
        )
        self.proc: subprocess.Popen | None = None
        self.ctl: socket.socket | None = None
        self.stage: str | None = None
        self.ready: dict[str, Any] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        """Starts the starter, maps its ids and waits for the zygote to say it is ready."""
        self.stage = tempfile.mkdtemp(prefix="palaestra-root-")
        ctl, ctl_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        up_r, up_w = os.pipe()
        down_r, down_w = os.pipe()
        log = tempfile.TemporaryFile()
        cfg = {
            "sync_w": up_w,
            "sync_r": down_r,
            "ctl_fd": ctl_child.fileno(),
            "stage": self.stage,
            "source": self.root,
            "python": self.python,
            "preload": list(self.preload),
            "source_file": _guest.__file__,
            "warm": self.warm,
        }
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", _guest.__file__, "starter", _json(cfg)],
                pass_fds=(up_w, down_r, ctl_child.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env={},
                start_new_session=True,
            )
        finally:
            for fd in (up_w, down_r):
                os.close(fd)
            ctl_child.close()
        try:
            if not _wait_readable(up_r, START_TIMEOUT_S) or os.read(up_r, 1) != b"U":
                raise InfrastructureError(f"the sandbox starter failed: {_tail(log)}")
            mapping = f"0 {UID_BASE} 1\n{_guest.SLOT_UID_BASE} {UID_BASE + 1} {self.nslots}\n"
            for name in ("uid_map", "gid_map"):
                with open(f"/proc/{self.proc.pid}/{name}", "w") as f:
                    f.write(mapping)
            os.write(down_w, b"M")
            ctl.settimeout(START_TIMEOUT_S)
            try:
                message = ctl.recv(1 << 16)
            except OSError:
                message = b""
            frames = FrameDecoder(1 << 20).feed(message) if message else []
            if not frames or frames[0][0].get("t") != "ready":
                raise InfrastructureError(f"the sandbox zygote did not start: {_tail(log)}")
            ctl.settimeout(None)
            self.ready = frames[0][0]
            self.ctl = ctl
        except BaseException:
            ctl.close()
            self.stop()
            raise
        finally:
            os.close(up_r)
            os.close(down_w)
            log.close()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.ctl is not None

    def fork(self, sock: socket.socket, header: dict) -> None:
        """Asks the zygote for a new sandbox whose agent talks over ``sock``."""
        with self._lock:
            if self.ctl is None:
                raise OSError("the zygote is not running")
            socket.send_fds(self.ctl, [encode_frame(header)], [sock.fileno()])

    def stop(self) -> None:
        """Ends the zygote; the kernel then kills every sandbox in its PID namespace."""
        if self.ctl is not None:
            self.ctl.close()
            self.ctl = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.stage is not None:
            try:
                os.rmdir(self.stage)
            except OSError:
                pass
            self.stage = None


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def _tail(log) -> str:
    try:
        log.seek(0)
        text = log.read().decode(errors="replace").strip()
    except OSError:
        text = ""
    return text[-2000:] or "no message"


def _readable(fds: list[int], timeout: float | None) -> list[int]:
    """The descriptors of ``fds`` that are readable (or closed) within ``timeout`` seconds.

    ``poll`` rather than ``select``: the host process may hold more than 1024 descriptors
    (a trainer, a test runner), and ``select`` refuses any numbered past that.
    """
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    wait_ms = None if timeout is None else max(0, int(timeout * 1000 + 0.999))
    return [fd for fd, _ in poller.poll(wait_ms)]


def _wait_readable(fd: int, timeout: float) -> bool:
    return bool(_readable([fd], timeout))


class _LocalChannel:
    """One sandbox: the socket to its PID 1, a pidfd to kill it, a descriptor of its /work.

    Args:
        sock: The connected socket; the sandbox has said hello on it.
        pidfd: A pidfd of the sandbox's PID 1; killing it ends the whole PID namespace.
        slot: The uid and cgroup slot the sandbox holds.
        work: An open descriptor of the sandbox's /work, through which the host writes
            input files and reads fetched ones (it keeps the tmpfs alive after the end).
        disk_mb: The size of the sandbox's writable tmpfs.
    """

    def __init__(self, sock: socket.socket, pidfd: int, slot: int, work: int, disk_mb: int) -> None:
        self.sock, self.pidfd, self.slot, self.work, self.disk_mb = sock, pidfd, slot, work, disk_mb
        self.decoder = FrameDecoder(max_blob=1 << 31)
        #: Runs this sandbox has served; the rlimits it keeps for the next (None: fresh).
        self.served = 0
        self.rlimits: tuple | None = None

    @property
    def owner(self) -> tuple[int, int]:
        """The host uid and gid of the sandbox's programs (files written for them get these)."""
        uid = UID_BASE + 1 + self.slot
        return uid, uid

    def send(self, data: bytes) -> None:
        self.sock.settimeout(None)
        self.sock.sendall(data)

    def recv(self, timeout: float | None) -> bytes:
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1 << 20)
        except TimeoutError:
            raise TimeoutError from None
        except OSError:
            return b""

    def kill(self) -> None:
        if self.pidfd >= 0:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass

    def idle_and_alive(self) -> bool:
        """True for a waiting sandbox: its agent is alive and has sent nothing since hello."""
        return not _wait_readable(self.sock.fileno(), 0) and not _wait_readable(self.pidfd, 0)

    def close(self) -> None:
        """Closes the socket and /work; the sandbox then ends (see :meth:`wait_gone`)."""
        self.sock.close()
        if self.work >= 0:
            os.close(self.work)
            self.work = -1

    def wait_gone(self, timeout: float = 2.0) -> None:
        """Waits until PID 1 (hence every process of the sandbox) is gone; kills it if late."""
        if self.pidfd < 0:
            return
        if not _wait_readable(self.pidfd, timeout):
            self.kill()
            _wait_readable(self.pidfd, 10.0)
        os.close(self.pidfd)
        self.pidfd = -1


def _parse_hello(data: bytes, ancillary: list) -> tuple[int, int]:
    """The sandbox's host pid (from its credentials) and its /work descriptor."""
    pid, fds = None, []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("3i", payload[:12])[0]
        elif level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += list(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
    frames = FrameDecoder(1 << 20).feed(data) if data else []
    try:
        if not frames:
            raise InfrastructureError("the sandbox closed before it started")
        header = frames[0][0]
        if header.get("t") != "hello":
            raise InfrastructureError(header.get("error") or f"unexpected first message {header!r}")
        if pid is None or len(fds) != 1:
            raise InfrastructureError("the sandbox did not identify itself")
    except InfrastructureError:
        for fd in fds:
            os.close(fd)
        raise
    return pid, fds[0]


#: How many runs one sandbox serves at most (see ``LocalBackend(reuse=...)``).
MAX_RUNS_PER_SANDBOX = 64
#: How long the host waits, after killing a sandbox, for its pipes to close and its status.
_AFTER_KILL_S = 5.0
_HELLO_SPACE = socket.CMSG_SPACE(struct.calcsize("3i")) + socket.CMSG_SPACE(struct.calcsize("i"))


class _Capture:
    """One output pipe of a program, read by the host: kept up to ``cap``, then drained."""

    def __init__(self, fd: int, cap: int) -> None:
        self.fd, self.cap = fd, cap
        self.data = bytearray()
        self.total = 0

    def read(self) -> bool:
        """Reads what is there; returns False at end of file.

        The descriptor stays open until the run is over: closed early, its number could go
        to another run's pipe while an event loop still watches it for this one.
        """
        room = self.cap - len(self.data)
        if room > 0:
            chunk = os.read(self.fd, min(room, 1 << 16))
            self.data += chunk
            moved = len(chunk)
        else:
            try:
                moved = os.splice(self.fd, _devnull(), 1 << 20)
            except OSError:
                moved = len(os.read(self.fd, 1 << 16))
        self.total += moved
        return moved > 0


_DEVNULL = -1


def _devnull() -> int:
    global _DEVNULL
    if _DEVNULL < 0:
        _DEVNULL = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    return _DEVNULL


class _Run:
    """The host's side of one run on the lean path: pipes in, status and output out.

    The sandbox's PID 1 runs the program (or is it, for Python on the fast path); the
    host reads the output pipes and the status frames itself. ``done`` once the status
    is known and every pipe reached end of file (all writers are dead by then).
    """

    def __init__(self, channel: _LocalChannel, limits: Limits, inproc: bool) -> None:
        self.channel, self.limits, self.inproc = channel, limits, inproc
        self.status: dict | None = None
        self.socket_open = True
        self.pipes: dict[int, _Capture] = {}
        self.open_pipes: set[int] = set()
        self.host_killed = False
        self.started = 0.0
        self.ended = 0.0

    def start(self, frame: bytes, stdin: bytes) -> None:
        """Sends the request with the program's stdin, stdout and stderr."""
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        if stdin:
            in_fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
            _write_all(in_fd, stdin)
            os.lseek(in_fd, 0, os.SEEK_SET)
        else:
            in_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        cap = self.limits.output_bytes
        self.captures = (_Capture(out_r, cap), _Capture(err_r, cap))
        self.pipes = {c.fd: c for c in self.captures}
        self.open_pipes = set(self.pipes)
        try:
            self.channel.sock.setblocking(True)
            socket.send_fds(self.channel.sock, [frame], [in_fd, out_w, err_w])
        finally:
            for fd in (in_fd, out_w, err_w):
                os.close(fd)
        self.started = time.monotonic()

    def descriptors(self) -> list[int]:
        fds = list(self.open_pipes)
        if self.socket_open and self.status is None:
            fds.append(self.channel.sock.fileno())
        return fds

    @property
    def done(self) -> bool:
        return (self.status is not None or not self.socket_open) and not self.open_pipes

    def readable(self, fd: int) -> None:
        if fd in self.open_pipes:
            if not self.pipes[fd].read():
                self.open_pipes.discard(fd)
            return
        try:
            data = self.channel.sock.recv(1 << 16, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.socket_open = False
            self.ended = self.ended or time.monotonic()
            return
        try:
            frames = self.channel.decoder.feed(data)
        except ProtocolError:
            self.socket_open = False
            return
        for header, _ in frames:
            # A program that runs in PID 1 cannot report itself: the zygote does ("reaped").
            if header.get("t") == "exit" or (header.get("t") == "reaped" and self.inproc):
                self.status = header
                self.ended = time.monotonic()
                break
            if header.get("t") == "reaped":
                self.socket_open = False

    def kill(self) -> None:
        self.host_killed = True
        self.channel.kill()

    def close_pipes(self) -> None:
        """Closes the output pipes (after every event loop stopped watching them)."""
        for fd in self.pipes:
            os.close(fd)
        self.pipes.clear()
        self.open_pipes.clear()

    def result(self, info: dict[str, Any], oom: bool | None, fetch) -> RunResult:
        """The RunResult, with fetched files read through /work (every process is dead).

        ``oom`` is what the memory cgroup says, or None without one: then a
        ``MemoryError`` at the end of stderr is the only sign (``RLIMIT_AS`` refused it).
        """
        if oom is None:
            oom = b"MemoryError" in self.captures[1].data[-4096:]
        status = self.status or {}
        if status.get("error"):
            return RunResult.failure(status["error"], **info)
        if self.status is None and not self.host_killed and not oom:
            return RunResult.failure("the sandbox ended without reporting an exit status", **info)
        out, err = self.captures
        limits = self.limits
        sig = status.get("signal", signal.SIGKILL if self.status is None else None)
        cpu_s = status.get("cpu_s") or 0.0
        cpu_limit = status.get("cpu_limit")
        if cpu_limit is None:
            # Python on the fast path is PID 1: nothing inside its namespace can SIGKILL it,
            # so a SIGKILL that is neither the host's nor the memory killer's is RLIMIT_CPU.
            cpu_limit = (
                bool(limits.cpu_s) and sig == signal.SIGKILL and not oom and not self.host_killed
            )
        timeout = "wall" if self.host_killed else ("cpu" if cpu_limit else None)
        files, errors = {}, {}
        if fetch:
            files, errors = read_files(self.channel.work, fetch, limits.disk_mb << 20)
        info = {**info, "timeout": timeout, "cpu_s": cpu_s, "fetch_errors": errors}
        if self.host_killed:
            info["notes"] = [*info["notes"], "killed at the deadline, from the host"]
        wall = status.get("wall_s") or max(0.0, (self.ended or time.monotonic()) - self.started)
        return RunResult(
            exit_code=status.get("code") if not self.host_killed else None,
            signal=sig if not self.host_killed else signal.SIGKILL,
            stdout=bytes(out.data),
            stderr=bytes(err.data),
            stdout_truncated=out.total > len(out.data),
            stderr_truncated=err.total > len(err.data),
            timed_out=timeout is not None,
            oom_killed=oom,
            wall_s=float(wall),
            files=files,
            info=info,
        )


class _acting_as:
    """Creates files as the sandbox's user, in this thread only (``setfsuid``).

    The sandbox's tmpfs belongs to its user namespace, where the host's root has no uid:
    the kernel refuses to create inodes for an unmapped owner. The file-system ids are
    per thread, so other threads of this process keep acting as root.
    """

    def __init__(self, owner: tuple[int, int]) -> None:
        self.uid, self.gid = owner

    def __enter__(self) -> None:
        libc = _libc()
        self.old_gid = libc.setfsgid(self.gid)
        self.old_uid = libc.setfsuid(self.uid)

    def __exit__(self, *exc: object) -> None:
        libc = _libc()
        libc.setfsuid(self.old_uid)
        libc.setfsgid(self.old_gid)


_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        import ctypes

        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _UidSlots:
    """Slot numbers (each a uid and a cgroup); every live sandbox holds a different one."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = list(range(size - 1, -1, -1))
        self._ready = threading.Condition()

    @property
    def in_use(self) -> int:
        """Slots held by sandboxes that are alive, starting or not yet buried."""
        with self._ready:
            return self.size - len(self._free)

    def take(self, timeout: float = START_TIMEOUT_S) -> int:
        """A free slot; waits for one while ended sandboxes are still being torn down."""
        with self._ready:
            if not self._ready.wait_for(lambda: self._free, timeout):
                raise InfrastructureError("no free sandbox slot (too many sandboxes alive)")
            return self._free.pop()

    def give(self, slot: int) -> None:
        with self._ready:
            self._free.append(slot)
            self._ready.notify()


class _Keeper:
    """Background thread of a backend: starts spare sandboxes and buries used ones.

    A used sandbox's slot is free again only once its PID 1 is gone (so that the next
    holder starts in an empty cgroup). The keeper waits for all the dying sandboxes at
    once, on their pidfds, without making any caller wait for the kernel's teardown. It
    also adopts sandboxes whose caller gave up before they said hello (a cancelled
    ``arun``): it waits for the hello, then buries them like the others, so that no slot
    is lost and no half-started sandbox is left behind.
    """

    def __init__(self, backend: LocalBackend) -> None:
        self._backend = weakref.ref(backend)
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        self._thread = threading.Thread(
            target=self._loop, name="palaestra-sandbox-keeper", daemon=True
        )
        self._thread.start()

    def _post(self, item: tuple) -> None:
        self._queue.put(item)
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass

    def dispose(self, channel: _LocalChannel) -> None:
        channel.close()
        self._post(("dispose", channel))

    def refill(self) -> None:
        self._post(("refill", None))

    def recycle(self, channel: _LocalChannel) -> None:
        """Has a sandbox that served a run renewed, then offered as a spare."""
        self._post(("recycle", channel))

    def adopt(self, sock: socket.socket, slot: int) -> None:
        """Takes over a sandbox that has not said hello yet; its caller no longer waits."""
        self._post(("adopt", (sock, slot)))

    def stop(self) -> None:
        self._post(("stop", None))
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        dying: dict[int, tuple[_LocalChannel, float]] = {}
        # Sandboxes adopted before their hello, by the host's socket: (socket, slot, deadline).
        unborn: dict[int, tuple[socket.socket, int, float]] = {}
        # Sandboxes being renewed after a run, by the host's socket: (channel, deadline).
        renewing: dict[int, tuple[_LocalChannel, float]] = {}

        def give_up(channel: _LocalChannel) -> None:
            """Ends a sandbox whose renewal failed; it is buried like the others."""
            channel.kill()
            channel.close()
            dying[channel.pidfd] = (channel, time.monotonic() + 2.0)

        try:
            while True:
                waits = [
                    item[-1] for item in (*dying.values(), *unborn.values(), *renewing.values())
                ]
                timeout = max(0.0, min(waits) - time.monotonic()) if waits else None
                ready = _readable([self._wake_r, *dying, *unborn, *renewing], timeout)
                for fd in ready:
                    if fd in dying:
                        self._bury(dying.pop(fd)[0])
                    elif fd in unborn:
                        sock, slot, _ = unborn.pop(fd)
                        channel = self._hatch(sock, slot)
                        if channel is not None:
                            dying[channel.pidfd] = (channel, time.monotonic() + 2.0)
                    elif fd in renewing:
                        channel = renewing.pop(fd)[0]
                        if not self._renewed(channel):
                            give_up(channel)
                now = time.monotonic()
                for fd, (channel, deadline) in list(dying.items()):
                    if now >= deadline:
                        channel.kill()
                        dying[fd] = (channel, now + 10.0)
                for fd, (channel, deadline) in list(renewing.items()):
                    if now >= deadline:
                        del renewing[fd]
                        give_up(channel)
                for fd, (sock, slot, deadline) in list(unborn.items()):
                    if now >= deadline:
                        # The zygote never started it; closing the socket ends it if it does.
                        del unborn[fd]
                        sock.close()
                        self._give(slot)
                try:
                    while os.read(self._wake_r, 4096):
                        pass
                except BlockingIOError:
                    pass
                while True:
                    try:
                        kind, channel = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if kind == "stop":
                        for sock, _, _ in unborn.values():
                            sock.close()
                        for channel, _ in renewing.values():
                            channel.kill()
                            channel.close()
                            channel.wait_gone(5.0)
                        for channel, _ in dying.values():
                            channel.kill()
                            channel.wait_gone(5.0)
                        return
                    if kind == "dispose":
                        dying[channel.pidfd] = (channel, time.monotonic() + 2.0)
                    elif kind == "adopt":
                        sock, slot = channel
                        deadline = time.monotonic() + START_TIMEOUT_S
                        unborn[sock.fileno()] = (sock, slot, deadline)
                    elif kind == "refill":
                        self._refill()
                    elif kind == "recycle":
                        try:
                            channel.sock.setblocking(True)
                            channel.sock.sendall(encode_frame({"t": "renew"}))
                            renewing[channel.sock.fileno()] = (channel, time.monotonic() + 5.0)
                        except OSError:
                            give_up(channel)
        finally:
            os.close(self._wake_r)
            os.close(self._wake_w)

    def _refill(self) -> None:
        backend = self._backend()
        if backend is None:
            return
        try:
            backend._refill()
        except Exception:  # spares are an optimisation; the keeper must go on burying
            # A run that finds no spare starts its sandbox itself and reports the failure.
            pass

    def _hatch(self, sock: socket.socket, slot: int) -> _LocalChannel | None:
        """Reads an adopted sandbox's hello and ends it; None if it never started."""
        try:
            sock.setblocking(False)
            data, ancillary, _, _ = sock.recvmsg(1 << 16, _HELLO_SPACE)
            pid, work = _parse_hello(data, ancillary)
            os.close(work)
            pidfd = os.pidfd_open(pid)
        except (OSError, InfrastructureError):
            # It died before its hello: it never joined the slot's cgroups.
            sock.close()
            self._give(slot)
            return None
        channel = _LocalChannel(sock, pidfd, slot, -1, 0)
        # Without a request, the sandbox leaves when its socket closes; the deadline of
        # the dying kills it if it does not.
        channel.close()
        return channel

    def _renewed(self, channel: _LocalChannel) -> bool:
        """Reads a renewed sandbox's ``ready`` (with its fresh /work) and offers it as a spare."""
        try:
            data, fds, _, _ = socket.recv_fds(channel.sock, 1 << 16, 1, socket.MSG_DONTWAIT)
        except OSError:
            return False
        try:
            frames = channel.decoder.feed(data) if data else []
        except ProtocolError:
            frames = []
        if len(fds) != 1 or len(frames) != 1 or frames[0][0].get("t") != "ready":
            for fd in fds:
                os.close(fd)
            return False
        channel.work = fds[0]
        backend = self._backend()
        if backend is None:
            return False
        backend._offer_spare(channel)
        return True

    def _give(self, slot: int) -> None:
        backend = self._backend()
        if backend is not None:
            backend._uids.give(slot)

    def _bury(self, channel: _LocalChannel) -> None:
        try:
            channel.wait_gone(0)
        except OSError:
            pass
        self._give(channel.slot)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


class LocalBackend:
    """Runs requests in Linux namespaces on this machine (see the module's threat model).

    Args:
        fast_python: Run Python requests (``code`` in Python, ``python3 file.py``,
            ``python3 -c ...``) by forking the warm interpreter instead of starting one.
        max_concurrency: Runs that go at once; more wait their turn (default: 2 per core).
        max_sessions: Sessions that may be open at once.
        prestart: Sandboxes kept started and waiting for a request, so that a run skips
            namespace and mount set-up (0 to start each one on demand).
        root: The source of the read-only root: ``"/"`` (this host's system directories)
            or the path of a root file system.
        python: The interpreter inside the root, by name or absolute path.
        preload: Modules the warm interpreter imports up front (``fast_python``).
        cgroups: Use cgroups where the machine allows; False uses rlimits only.
        reuse: Renew a sandbox after a run and keep it for the next run with the same
            rlimits (a fresh tmpfs and IPC namespace, every process of the run dead), up
            to ``MAX_RUNS_PER_SANDBOX`` runs; ``RunRequest(fresh=True)`` always gets a
            sandbox that never ran anything. False starts a new sandbox for every run.
            Python on the fast path always runs in a new one.
    """

    name = "local"

    def __init__(
        self,
        *,
        fast_python: bool = False,
        max_concurrency: int | None = None,
        max_sessions: int = 64,
        prestart: int = 2,
        root: str = "/",
        python: str = "python3",
        preload: tuple[str, ...] = DEFAULT_PRELOAD,
        cgroups: bool = True,
        reuse: bool = True,
    ) -> None:
        if sys.platform != "linux":
            raise InfrastructureError(
                "the local sandbox backend needs Linux (namespaces and cgroups)"
            )
        concurrency = default_concurrency() if max_concurrency is None else max_concurrency
        for name, value in (("max_concurrency", concurrency), ("max_sessions", max_sessions)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if isinstance(prestart, bool) or not isinstance(prestart, int) or prestart < 0:
            raise ValueError(f"prestart must be a non-negative int, got {prestart!r}")
        if not os.path.isdir(root):
            raise ValueError(f"root={root!r} is not a directory")
        self.max_concurrency = concurrency
        self.max_sessions = max_sessions
        self.prestart = prestart
        self.fast_python = bool(fast_python)
        self.root = os.path.abspath(root)
        self._python_name = python
        self.preload = tuple(preload)
        self._use_cgroups = cgroups
        self.reuse = bool(reuse)
        self._enforced: tuple[Cgroups, dict[str, str]] | None = None
        self._runs = SlotPool(concurrency)
        self._session_count = SlotPool(max_sessions)
        # Slots cost nothing until used; extra ones cover sandboxes still being torn down.
        self._uids = _UidSlots(2 * (concurrency + max_sessions + prestart) + 8)
        self._spares: deque[_LocalChannel] = deque()
        self._spare_disk_mb = Limits().disk_mb
        self._starting = 0
        self._lock = threading.Lock()
        self._zygote: _Zygote | None = None
        self._cgroups: Cgroups | None = None
        self._keeper: _Keeper | None = None
        self._closed = False
        self._finalizer = weakref.finalize(self, _shutdown, self.__dict__)

    # ---- lifecycle

    def _start(self) -> _Zygote:
        with self._lock:
            if self._closed:
                raise InfrastructureError("the backend is closed")
            if self._zygote is not None and self._zygote.alive:
                return self._zygote
            if os.geteuid() != 0:
                raise InfrastructureError(
                    "the local sandbox backend must run as root (to map uids and manage cgroups)"
                )
            if self._cgroups is None:
                self._cgroups = Cgroups(enable=self._use_cgroups)
            if self._keeper is None:
                self._keeper = _Keeper(self)
            if self._zygote is not None:
                self._zygote.stop()
                self._drop_spares()
            python = _find_python(self.root, self._python_name)
            preload = self.preload if self.fast_python else ()
            nslots = 2 * (self.max_concurrency + self.max_sessions + self.prestart) + 8
            zygote = _Zygote(self.root, python, preload, nslots, warm=self.fast_python)
            zygote.start()
            self._zygote = zygote
            return zygote

    def _drop_spares(self) -> None:
        """Hands the spare sandboxes to the keeper (they died with their zygote)."""
        while self._spares:
            self._dispose(self._spares.popleft())

    def close(self) -> None:
        """Kills every sandbox of this backend and removes its cgroups."""
        with self._lock:
            self._closed = True
        _shutdown(self.__dict__)

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def enforced(self) -> dict[str, str]:
        """How each limit is enforced on this machine (also in every result's ``info``)."""
        cached = self._enforced
        if cached is not None and cached[0] is self._cgroups:
            return dict(cached[1])
        groups = self._cgroups.enforced if self._cgroups is not None else {}
        enforced = self._enforced_from(groups)
        if self._cgroups is not None:
            self._enforced = (self._cgroups, enforced)
        return dict(enforced)

    @staticmethod
    def _enforced_from(groups: dict[str, str]) -> dict[str, str]:
        return {
            "memory": groups.get("memory", "rlimit-as (per process)"),
            "address_space": "rlimit-as (8 x memory, backstop)"
            if "memory" in groups
            else "rlimit-as",
            "pids": (groups["pids"] + " + " if "pids" in groups else "") + "rlimit-nproc (own uid)",
            "cpus": groups.get("cpu", "none"),
            "cpu_s": "rlimit-cpu",
            "disk": "tmpfs size + rlimit-fsize",
            "nofile": "rlimit-nofile",
            "network": "network namespace (loopback only)",
            "wall": "host kills the PID namespace at the deadline (pidfd)",
        }

    def _info(self, mode: str, channel: _LocalChannel | None = None) -> dict[str, Any]:
        notes = list(self._cgroups.problems) if self._cgroups is not None else []
        info = {"backend": self.name, "mode": mode, "enforced": self.enforced, "notes": notes}
        if channel is not None:
            # Runs the sandbox served before this one (0: it never ran anything before).
            info["reused"] = channel.served
        return info

    # ---- sandboxes

    def _fork(self, network: bool, disk_mb: int, wait: bool = True) -> tuple[socket.socket, int]:
        """Asks the zygote for a sandbox; returns the host's socket and the slot it holds.

        ``wait=False`` (the keeper's spares) never waits for a slot: the keeper is the
        thread that frees them.
        """
        zygote = self._start()
        slot = self._uids.take(START_TIMEOUT_S if wait else 0.0)
        sock, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        header = {"slot": slot, "network": network, "disk_mb": disk_mb}
        try:
            try:
                zygote.fork(child, header)
            except OSError:
                self._restart(zygote).fork(child, header)
        except BaseException:
            sock.close()
            self._uids.give(slot)
            raise
        finally:
            child.close()
        return sock, slot

    def _welcome(self, sock: socket.socket, slot: int, disk_mb: int) -> _LocalChannel:
        """Reads the sandbox's hello (its host pid and /work) and puts it in its cgroups."""
        try:
            data, ancillary, _, _ = sock.recvmsg(1 << 16, _HELLO_SPACE)
            pid, work = _parse_hello(data, ancillary)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 0)
            channel = _LocalChannel(sock, os.pidfd_open(pid), slot, work, disk_mb)
        except (OSError, InfrastructureError) as e:
            sock.close()
            self._uids.give(slot)
            raise InfrastructureError(f"the sandbox did not start: {e}") from e
        try:
            # Makes the memory killer pick the program, not its agent. Needs
            # CAP_SYS_RESOURCE; without it the agent is merely small.
            with open(f"/proc/{pid}/oom_score_adj", "w") as f:
                f.write("-1000")
        except OSError:
            pass
        try:
            if self._cgroups is not None and self._cgroups.parents:
                self._cgroups.prepare(slot, Limits().memory_mb, Limits().pids, Limits().cpus)
                self._cgroups.attach(slot, pid)
            # Now that the sandbox is in its cgroups, it may warm up for its program.
            channel.send(encode_frame({"t": "armed"}))
        except OSError as e:
            self._dispose(channel)
            raise InfrastructureError(f"could not put the sandbox in its cgroups: {e}") from e
        return channel

    def _create(self, network: bool, disk_mb: int, wait: bool = True) -> _LocalChannel:
        sock, slot = self._fork(network, disk_mb, wait)
        sock.settimeout(START_TIMEOUT_S)
        return self._welcome(sock, slot, disk_mb)

    async def _acreate(self, network: bool, disk_mb: int) -> _LocalChannel:
        sock, slot = self._fork(network, disk_mb)
        sock.setblocking(False)
        try:
            started = await _await_readable(sock.fileno(), START_TIMEOUT_S)
        except BaseException:
            # Cancelled: the sandbox is on its way; the keeper ends it and frees its slot.
            self._abandon(sock, slot)
            raise
        if not started:
            self._abandon(sock, slot)
            raise InfrastructureError(f"the sandbox did not start within {START_TIMEOUT_S:.0f} s")
        return self._welcome(sock, slot, disk_mb)

    def _abandon(self, sock: socket.socket, slot: int) -> None:
        """Gives up on a sandbox before its hello, without losing its slot."""
        keeper = self._keeper
        if keeper is not None and keeper.alive:
            keeper.adopt(sock, slot)
        else:
            sock.close()
            self._uids.give(slot)

    def _dispose(self, channel: _LocalChannel) -> None:
        keeper = self._keeper
        if keeper is None or not keeper.alive:
            channel.close()
            channel.wait_gone()
            self._uids.give(channel.slot)
        else:
            keeper.dispose(channel)

    def _take_spare(
        self, network: bool, disk_mb: int, rlimits: tuple | None = None
    ) -> _LocalChannel | None:
        """A started sandbox waiting for work, if one is ready (never for network runs).

        ``rlimits`` None takes only a sandbox that never ran anything (sessions, fresh
        runs); otherwise a renewed one that keeps these rlimits comes first. Spares are
        started with the disk size of the latest request, so a workload of one size
        always finds them; renewed ones kept for other rlimits wait for those.
        """
        if network:
            return None
        with self._lock:
            self._spare_disk_mb = disk_mb
            while True:
                best = None
                for candidate in list(self._spares):
                    if candidate.disk_mb != disk_mb:
                        self._spares.remove(candidate)
                        self._dispose(candidate)
                    elif candidate.rlimits is None:
                        best = best or candidate
                    elif rlimits is not None and candidate.rlimits == rlimits:
                        best = candidate
                        break
                if best is None:
                    return None
                self._spares.remove(best)
                if best.idle_and_alive():
                    return best
                self._dispose(best)

    def _offer_spare(self, channel: _LocalChannel) -> None:
        """Keeps a renewed sandbox for a later run, if the pool has room (the keeper's thread)."""
        with self._lock:
            room = len(self._spares) < max(self.prestart, self.max_concurrency)
            if not self._closed and room:
                self._spares.append(channel)
                return
        self._dispose(channel)

    def _recycle(self, channel: _LocalChannel, rlimits: tuple) -> None:
        """Hands a sandbox that served a run to the keeper for renewal."""
        keeper = self._keeper
        channel.served += 1
        channel.rlimits = rlimits
        if channel.work >= 0:
            os.close(channel.work)
            channel.work = -1
        if keeper is None or not keeper.alive or self._closed:
            self._dispose(channel)
        else:
            keeper.recycle(channel)

    def _replace_spares(self) -> None:
        """Has the keeper start spares again, once a run is over.

        Started while a run goes on, a spare (a clone, mounts, a warm-up) would compete
        with it for the CPU; started after, it overlaps the time between runs.
        """
        if self.prestart and self._keeper is not None:
            self._keeper.refill()

    def _refill(self) -> None:
        """Starts spare sandboxes until ``prestart`` are ready (runs in the keeper thread)."""
        while True:
            with self._lock:
                fresh = sum(1 for spare in self._spares if spare.rlimits is None)
                if self._closed or fresh + self._starting >= self.prestart:
                    return
                self._starting += 1
            try:
                channel = self._create(network=False, disk_mb=self._spare_disk_mb, wait=False)
            except InfrastructureError:
                return
            finally:
                with self._lock:
                    self._starting -= 1
            with self._lock:
                if self._closed:
                    self._dispose(channel)
                    return
                self._spares.append(channel)

    def _restart(self, dead: _Zygote) -> _Zygote:
        with self._lock:
            if self._zygote is dead:
                dead.stop()
                self._zygote = None
                self._drop_spares()
        return self._start()

    def _arm(self, channel: _LocalChannel, limits: Limits) -> int:
        """Writes the run's cgroup limits; returns the slot's OOM count so far."""
        groups = self._cgroups
        if groups is None or not groups.parents:
            return 0
        groups.prepare(channel.slot, limits.memory_mb, limits.pids, limits.cpus)
        return groups.oom_kills(channel.slot)

    def _oom_since(self, slot: int, before: int) -> bool | None:
        """Whether the slot's memory cgroup killed something since ``before`` (None: no cgroup)."""
        groups = self._cgroups
        if groups is None or "memory" not in groups.parents:
            return None
        return groups.oom_kills(slot) > before

    # ---- requests

    def _inproc(self, request: RunRequest) -> dict | None:
        """The in-process spec for requests the warm interpreter can run, else None."""
        if not self.fast_python:
            return None
        argv = request.command()
        if os.path.basename(argv[0]) not in _PYTHON_NAMES or len(argv) < 2:
            return None
        if argv[1] == "-c" and len(argv) >= 3:
            return {"code": argv[2], "argv0": "-c", "args": list(argv[3:])}
        if argv[1].endswith(".py") and argv[1] in request.all_files():
            return {"path": f"/work/{argv[1]}", "argv0": argv[1], "args": list(argv[2:])}
        return None

    def _plan(self, request: RunRequest) -> tuple[bytes, bool, tuple | None]:
        """The run frame, whether Python runs in-process, and the rlimits key of a reusable run.

        The key is None where the sandbox must not serve another run after this one.
        """
        if not isinstance(request, RunRequest):
            raise TypeError(f"expected a RunRequest, got {type(request).__name__}")
        inproc = self._inproc(request)
        has_memcg = self._cgroups is not None and "memory" in self._cgroups.parents
        limits = {
            **request.limits.to_wire(),
            "nproc": True,
            "address_space_mb": request.limits.address_space_mb(memory_cgroup=has_memcg),
        }
        reuse = (
            self.reuse
            and not self.fast_python
            and not request.fresh
            and not request.limits.network
            and inproc is None
        )
        header = {
            "t": "run",
            "argv": list(request.command()),
            "inproc": inproc,
            "env": request.environment(),
            "limits": limits,
            "reuse": reuse,
        }
        key = _guest._rlimit_key(limits) if reuse else None
        return encode_frame(header), inproc is not None, key

    def _finish(self, channel: _LocalChannel, run: _Run, key: tuple | None) -> None:
        """After a run: keeps the sandbox for the next one where it may, else ends it."""
        status = run.status
        if (
            key is not None
            and status is not None
            and status.get("t") == "exit"
            and not status.get("error")
            and not run.host_killed
            and channel.served + 1 < MAX_RUNS_PER_SANDBOX
            and channel.rlimits in (None, key)
        ):
            self._recycle(channel, key)
            return
        if status is None:
            channel.kill()
        self._dispose(channel)

    @staticmethod
    def _deadline(limits: Limits) -> float:
        return time.monotonic() + limits.wall_s

    def _prepare(self, channel: _LocalChannel, request: RunRequest) -> int:
        """Writes the cgroup limits and the input files; returns the slot's OOM count."""
        oom_before = self._arm(channel, request.limits)
        files = request.all_files()
        if files:
            with _acting_as(channel.owner):
                write_files(channel.work, files)
        return oom_before

    def run(self, request: RunRequest) -> RunResult:
        """Runs one request in a fresh sandbox; never raises for what the program did."""
        self._start_quietly()
        frame, inproc, key = self._plan(request)
        mode = "fork" if inproc else "exec"
        limits = request.limits
        token = self._runs.acquire()
        try:
            try:
                channel = self._take_spare(limits.network, limits.disk_mb, key) or self._create(
                    limits.network, limits.disk_mb
                )
            except (InfrastructureError, OSError) as e:
                return RunResult.failure(f"{e}", **self._info(mode))
            run = _Run(channel, limits, inproc)
            clean = False
            try:
                try:
                    oom_before = self._prepare(channel, request)
                    run.start(frame, request.stdin)
                except (OSError, ValueError) as e:
                    return RunResult.failure(f"could not start the run: {e}", **self._info(mode))
                deadline = self._deadline(limits)
                while not run.done:
                    timeout = max(0.0, deadline - time.monotonic())
                    ready = _readable(run.descriptors(), timeout)
                    if not ready and not run.host_killed:
                        run.kill()
                        deadline = time.monotonic() + _AFTER_KILL_S
                    elif not ready:
                        break
                    for fd in ready:
                        run.readable(fd)
                oom = self._oom_since(channel.slot, oom_before)
                result = run.result(self._info(mode, channel), oom, request.fetch)
                clean = not result.oom_killed
                return result
            finally:
                run.close_pipes()
                self._finish(channel, run, key if clean else None)
        finally:
            self._runs.release(token)
            self._replace_spares()

    async def arun(self, request: RunRequest) -> RunResult:
        """Async twin of :meth:`run`: waits for a turn, then talks to the sandbox, no threads."""
        self._start_quietly()
        frame, inproc, key = self._plan(request)
        mode = "fork" if inproc else "exec"
        limits = request.limits
        token = await self._runs.aacquire()
        try:
            try:
                channel = self._take_spare(
                    limits.network, limits.disk_mb, key
                ) or await self._acreate(limits.network, limits.disk_mb)
            except (InfrastructureError, OSError) as e:
                return RunResult.failure(f"{e}", **self._info(mode))
            run = _Run(channel, limits, inproc)
            clean = False
            try:
                try:
                    oom_before = self._prepare(channel, request)
                    run.start(frame, request.stdin)
                except (OSError, ValueError) as e:
                    return RunResult.failure(f"could not start the run: {e}", **self._info(mode))
                await _adrive(run, self._deadline(limits))
                oom = self._oom_since(channel.slot, oom_before)
                result = run.result(self._info(mode, channel), oom, request.fetch)
                clean = not result.oom_killed
                return result
            finally:
                run.close_pipes()
                self._finish(channel, run, key if clean else None)
        finally:
            self._runs.release(token)
            self._replace_spares()

    def _start_quietly(self) -> None:
        """Starts the zygote (so that cgroup facts are known when a request is planned)."""
        try:
            self._start()
        except InfrastructureError:
            pass

    # ---- sessions

    def session(
        self,
        kind: str = "python",
        *,
        limits: Limits | None = None,
        files: Mapping[str, bytes | str] | None = None,
        env: Mapping[str, str] | None = None,
        idle_timeout_s: float = 300.0,
    ) -> AgentSession:
        """Opens a sandbox that keeps state across calls.

        Args:
            kind: ``"python"`` (a persistent interpreter) or ``"shell"`` (bash commands in /work).
            limits: Limits of the session; ``wall_s`` is the default time per call.
            files: Files written to /work first; :meth:`AgentSession.diff` compares to them.
            env: Environment variables laid over the defaults.
            idle_timeout_s: The session is closed after this long without a call.

        Raises:
            InfrastructureError: The sandbox could not start, or ``max_sessions`` are open.
        """
        if kind not in ("python", "shell"):
            raise ValueError(f"kind must be 'python' or 'shell', got {kind!r}")
        limits = Limits() if limits is None else limits
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        if (
            isinstance(idle_timeout_s, bool)
            or not isinstance(idle_timeout_s, (int, float))
            or idle_timeout_s <= 0
        ):
            raise ValueError(f"idle_timeout_s must be a positive number, got {idle_timeout_s!r}")
        files = check_files(files or {}, "files")
        environment = {**DEFAULT_ENV, **_check_env(env or {})}
        try:
            token = self._session_count.acquire(timeout=START_TIMEOUT_S)
        except TimeoutError:
            raise InfrastructureError(
                f"all {self.max_sessions} sessions are in use; close one first"
            ) from None
        try:
            self._start()
            channel = self._take_spare(limits.network, limits.disk_mb) or self._create(
                limits.network, limits.disk_mb
            )
            self._replace_spares()
            oom_seen = [self._arm(channel, limits)]
        except BaseException:
            self._session_count.release(token)
            raise

        def oom_check() -> bool:
            groups = self._cgroups
            now = groups.oom_kills(channel.slot) if groups is not None and groups.parents else 0
            hit, oom_seen[0] = now > oom_seen[0], now
            return hit

        def on_close() -> None:
            self._dispose(channel)
            self._session_count.release(token)

        has_memcg = self._cgroups is not None and "memory" in self._cgroups.parents
        return AgentSession(
            channel,
            kind=kind,
            limits=limits,
            env=environment,
            files=files,
            idle_timeout_s=float(idle_timeout_s),
            info=self._info(f"session-{kind}"),
            on_close=on_close,
            oom_check=oom_check,
            wire_flags={"nproc": True, "address_space_mb": limits.address_space_mb(has_memcg)},
        )


async def _await_readable(fd: int, timeout: float) -> bool:
    """Whether ``fd`` became readable within ``timeout`` seconds (one future, one timer)."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(value: bool) -> None:
        if not future.done():
            future.set_result(value)

    loop.add_reader(fd, settle, True)
    timer = loop.call_later(timeout, settle, False)
    try:
        return await future
    finally:
        timer.cancel()
        loop.remove_reader(fd)


async def _adrive(run: _Run, deadline: float) -> None:
    """Runs ``run`` to its end on the event loop; kills the sandbox at ``deadline``.

    One future for the whole run and one timer: the readers handle the output as it
    comes and settle the future when the run is done; the timer kills the sandbox at the
    deadline, then gives it ``_AFTER_KILL_S`` to end.
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    watched: set[int] = set()

    def watch() -> None:
        nonlocal watched
        wanted = set(run.descriptors())
        for fd in watched - wanted:
            loop.remove_reader(fd)
        for fd in wanted - watched:
            loop.add_reader(fd, on_readable, fd)
        watched = wanted

    def on_readable(fd: int) -> None:
        run.readable(fd)
        if run.done:
            if not future.done():
                future.set_result(None)
        elif fd not in run.open_pipes:
            watch()

    def on_deadline() -> None:
        nonlocal timer
        if run.host_killed:
            if not future.done():
                future.set_result(None)
            return
        run.kill()
        timer = loop.call_later(_AFTER_KILL_S, on_deadline)

    timer = loop.call_later(max(0.0, deadline - time.monotonic()), on_deadline)
    try:
        if not run.done:
            watch()
            await future
    finally:
        timer.cancel()
        for fd in watched:
            loop.remove_reader(fd)


def _shutdown(state: dict) -> None:
    state["_closed"] = True
    keeper = state.get("_keeper")
    if keeper is not None:
        keeper.stop()
        state["_keeper"] = None
    spares = state.get("_spares")
    while spares:
        spare = spares.popleft()
        spare.kill()
        spare.close()
    zygote, groups = state.get("_zygote"), state.get("_cgroups")
    if zygote is not None:
        zygote.stop()
        state["_zygote"] = None
    if groups is not None:
        groups.close()
        state["_cgroups"] = None
