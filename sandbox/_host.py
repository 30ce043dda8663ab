"""Host-side machinery shared by the backends.

Packing requests, collecting results, driving an agent over a channel, sessions, slots
and the reaper of idle sessions.
"""

from __future__ import annotations

import asyncio
import io
import os
import tarfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from palaestra.errors import InfrastructureError
from palaestra.sandbox._guest import FrameDecoder, ProtocolError, check_relpath, encode_frame
from palaestra.sandbox.api import Limits, RunRequest, RunResult, check_files

#: Extra seconds the host waits past a deadline before it kills the sandbox itself, where
#: an agent inside keeps the deadline (Docker, sessions) and reports what it killed.
HOST_GRACE_S = 1.0
#: Longest a sandbox may take to start or to answer a non-running command.
START_TIMEOUT_S = 30.0


# --------------------------------------------------------------------------- files


def host_deadline(wall_s: float, request_bytes: int) -> float:
    """Seconds after sending a request at which the host kills the sandbox itself.

    The agent inside starts the deadline when the program starts, after it has written
    the request's files, so the host allows for that, and a second of grace.
    """
    return wall_s + HOST_GRACE_S + request_bytes / (50 << 20)


def pack_files(files: Mapping[str, bytes]) -> bytes:
    """Packs ``{relative path: bytes}`` into a tar stream (``#!`` files are executable)."""
    if not files:
        return b""
    buf = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buf, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o755 if data.startswith(b"#!") else 0o644
            info.mtime = now
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def unpack_files(blob: bytes) -> dict[str, bytes]:
    """Reads the regular files of a tar stream into memory; unsafe names are dropped."""
    if not blob:
        return {}
    files = {}
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:") as tar:
        for member in tar:
            if not member.isreg():
                continue
            try:
                check_relpath(member.name)
            except ValueError:
                continue
            extracted = tar.extractfile(member)
            if extracted is not None:
                files[member.name] = extracted.read()
    return files


def run_frame(
    request: RunRequest, inproc: dict | None = None, **limit_flags: Any
) -> tuple[dict, bytes]:
    """The header and blob that ask an agent to run ``request``."""
    tar = pack_files(request.all_files())
    header = {
        "t": "run",
        "argv": list(request.command()),
        "inproc": inproc,
        "env": request.environment(),
        "limits": {**request.limits.to_wire(), **limit_flags},
        "fetch": list(request.fetch),
        "tar": len(tar),
    }
    return header, tar + request.stdin


# --------------------------------------------------------------------------- results


class Collector:
    """Accumulates an agent's frames for one call, keeping at most ``cap`` bytes per stream."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.streams = {1: bytearray(), 2: bytearray()}
        self.final: dict | None = None
        self.final_blob = b""
        self.expired = False

    def feed(self, frames: list) -> list | None:
        """Takes decoded frames; once the final frame arrives, returns the frames after it."""
        for i, (header, blob) in enumerate(frames):
            kind = header.get("t")
            if kind == "o":
                buf = self.streams.get(header.get("s"))
                if buf is not None and len(buf) < self.cap:
                    buf += blob[: self.cap - len(buf)]
            elif kind == "exit":
                self.final, self.final_blob = header, blob
                return frames[i + 1 :]
            elif kind == "expired":
                self.expired = True
                return frames[i + 1 :]
        return None


def build_result(
    collector: Collector,
    *,
    wall_s: float,
    info: dict[str, Any],
    host_killed: bool = False,
    oom_killed: bool = False,
) -> RunResult:
    """Turns what an agent reported into a RunResult.

    Args:
        collector: The frames received.
        wall_s: The host's own measure of the call, used when the agent sent none.
        info: Backend details to put in ``RunResult.info``.
        host_killed: The host killed the sandbox at its backstop deadline.
        oom_killed: The host saw the memory limit hit (cgroup counter or container state).
    """
    final = collector.final or {}
    info = {**info, "notes": [*info.get("notes", []), *final.get("notes", [])]}
    if final.get("error"):
        return RunResult.failure(final["error"], **info)
    if collector.final is None and not host_killed and not oom_killed:
        return RunResult.failure("the sandbox ended without reporting an exit status", **info)
    if host_killed:
        info["notes"].append("the host killed the sandbox at its deadline")
    stdout, stderr = bytes(collector.streams[1]), bytes(collector.streams[2])
    out_total = final.get("out_total", len(stdout) + (1 if len(stdout) >= collector.cap else 0))
    err_total = final.get("err_total", len(stderr) + (1 if len(stderr) >= collector.cap else 0))
    timeout_kind = None
    if final.get("timed_out") or host_killed:
        timeout_kind = "wall"
    elif final.get("cpu_limit"):
        timeout_kind = "cpu"
    info["timeout"] = timeout_kind
    info["cpu_s"] = final.get("cpu_s")
    info["fetch_errors"] = final.get("fetch_errors", {})
    try:
        files = unpack_files(collector.final_blob)
    except tarfile.TarError as e:
        return RunResult.failure(f"the sandbox returned an unreadable file archive: {e}", **info)
    return RunResult(
        exit_code=final.get("code"),
        signal=final.get("signal", 9 if collector.final is None else None),
        stdout=stdout,
        stderr=stderr,
        stdout_truncated=out_total > len(stdout),
        stderr_truncated=err_total > len(stderr),
        timed_out=timeout_kind is not None,
        oom_killed=bool(oom_killed or final.get("oom")),
        wall_s=float(final.get("wall_s", wall_s)),
        files=files,
        info=info,
    )


# --------------------------------------------------------------------------- channels


class Channel(Protocol):
    """A byte pipe to one in-sandbox agent, plus a way to kill its sandbox from outside.

    ``decoder`` is the channel's own frame decoder, so that bytes of a frame that arrive
    with the end of the previous one are not lost between calls.
    """

    decoder: FrameDecoder

    def send(self, data: bytes) -> None:
        """Sends every byte; raises OSError if the agent is gone."""
        ...

    def recv(self, timeout: float | None) -> bytes:
        """Returns the next bytes (b"" at end of stream); raises TimeoutError."""
        ...

    def kill(self) -> None:
        """Kills the whole sandbox now."""
        ...

    def close(self) -> None:
        """Closes the channel (the agent then ends everything it runs)."""
        ...


def read_frames(channel: Channel, timeout: float | None) -> list:
    """The next frames from a channel: those kept back first, else what arrives next.

    Returns:
        A list of frames; empty at end of stream.

    Raises:
        TimeoutError: Nothing arrived in time.
        ProtocolError: The peer sent something that is not a frame.
    """
    frames = channel.decoder.feed(b"")
    while not frames:
        data = channel.recv(timeout)
        if not data:
            return []
        frames = channel.decoder.feed(data)
    return frames


def drive(
    channel: Channel, frame: bytes, collector: Collector, deadline: float | None
) -> tuple[bool, bool]:
    """Sends ``frame`` and collects the reply until the final frame or end of stream.

    At ``deadline`` the host kills the sandbox itself, then reads what is left.

    Returns:
        ``(finished, host_killed)``: whether the final frame arrived, and whether the host
        had to kill the sandbox.
    """
    try:
        channel.send(frame)
    except OSError:
        # The agent is gone; it may still have left a last word (an idle session's "expired").
        deadline = time.monotonic() + 1.0
    host_killed = False
    while True:
        timeout = None if deadline is None else deadline - time.monotonic()
        if timeout is not None and timeout <= 0:
            if host_killed:
                return False, True
            channel.kill()
            host_killed = True
            deadline = time.monotonic() + 5.0
            continue
        try:
            frames = read_frames(channel, timeout)
        except TimeoutError:
            continue
        except ProtocolError:
            channel.kill()
            return False, host_killed
        if not frames:
            return False, host_killed
        rest = collector.feed(frames)
        if rest is not None:
            channel.decoder.push_back(rest)
            return True, host_killed


def request_reply(
    channel: Channel, header: dict, blob: bytes = b"", timeout: float = START_TIMEOUT_S
):
    """Sends one command and waits for its reply frame (output frames are skipped)."""
    channel.send(encode_frame(header, blob))
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no answer to {header.get('t')!r} within {timeout:.0f} s")
        frames = read_frames(channel, remaining)
        if not frames:
            raise EOFError("the sandbox closed its channel")
        for i, frame in enumerate(frames):
            if frame[0].get("t") != "o":
                channel.decoder.push_back(frames[i + 1 :])
                return frame


def wait_for(channel: Channel, kind: str, timeout: float) -> None:
    """Waits for one frame of type ``kind``.

    Raises:
        EOFError: The channel ended first.
        ProtocolError: Another frame came first.
        TimeoutError: Nothing came in time.
    """
    deadline = time.monotonic() + timeout
    frames = read_frames(channel, max(0.0, deadline - time.monotonic()))
    if not frames:
        raise EOFError("the sandbox closed its channel")
    if frames[0][0].get("t") != kind:
        raise ProtocolError(f"expected {kind!r}, got {frames[0][0]!r}")
    channel.decoder.push_back(frames[1:])


# --------------------------------------------------------------------------- sessions


class AgentSession:
    """A session over any channel to an agent (local namespaces or a Docker container).

    Args:
        channel: The open channel; the agent is waiting for its first command.
        kind: ``"python"`` or ``"shell"``.
        limits: Limits of the session; ``wall_s`` is the default per call.
        env: Environment of every process.
        files: Files written to /work before the baseline of :meth:`diff` is taken.
        idle_timeout_s: The session ends after this long without a call.
        info: Backend details copied into every result.
        copy_from: A directory of the sandbox image copied into /work first (Docker).
        on_close: Releases the backend's resources once the session is closed.
        oom_check: Returns whether the sandbox hit its memory limit since the last call.
        wire_flags: Backend switches added to the limits the agent reads (``nproc``,
            ``address_space_mb``).
    """

    def __init__(
        self,
        channel: Channel,
        *,
        kind: str,
        limits: Limits,
        env: Mapping[str, str],
        files: Mapping[str, bytes],
        idle_timeout_s: float,
        info: dict[str, Any],
        copy_from: str | None = None,
        on_close: Callable[[], None] | None = None,
        oom_check: Callable[[], bool] | None = None,
        wire_flags: Mapping[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.limits = limits
        self.idle_timeout_s = idle_timeout_s
        self._channel = channel
        self._info = info
        self._lock = threading.Lock()
        self._closed = False
        self._expired = False
        self._oom_check = oom_check
        self.last_used = time.monotonic()
        self._finalizer = weakref.finalize(self, _close_quietly, channel, on_close)
        header = {
            "t": "session",
            "kind": kind,
            "limits": {**limits.to_wire(), **(wire_flags or {})},
            "env": dict(env),
            "idle_s": idle_timeout_s,
            "copy_from": copy_from,
        }
        try:
            reply, _ = request_reply(channel, header, pack_files(files))
        except (OSError, EOFError, TimeoutError, ProtocolError) as e:
            self._finalizer()
            raise InfrastructureError(f"the sandbox session did not start: {e}") from e
        if reply.get("t") != "ready":
            self._finalizer()
            raise InfrastructureError(
                f"the sandbox session did not start: {reply.get('error', reply)}"
            )
        REAPER.watch(self)

    @property
    def closed(self) -> bool:
        """Whether the session has ended (closed, expired or broken)."""
        return self._closed

    def _closed_reason(self) -> str:
        if self._expired:
            return f"the session expired after {self.idle_timeout_s} s without a call"
        return "the session is closed"

    def expire(self) -> None:
        """Closes the session if it sat idle past its timeout.

        A session whose lock is held is busy (a call that outlasted the idle timeout is
        still running), not idle: it is left alone, and the reaper does not wait for it.
        """
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self.expired(time.monotonic()):
                self._expired = True
                self._close_locked()
        finally:
            self._lock.release()

    def _fail(self, message: str) -> RunResult:
        return RunResult.failure(message, **self._info)

    def exec(
        self, source: str, *, timeout_s: float | None = None, stdin: bytes | str = b""
    ) -> RunResult:
        """Runs one call (Python source or a shell command line); never raises for what it did."""
        if not isinstance(source, str):
            raise TypeError(f"source must be a str, got {type(source).__name__}")
        if timeout_s is not None:
            Limits(wall_s=timeout_s)
        data = stdin.encode() if isinstance(stdin, str) else bytes(stdin)
        with self._lock:
            if self._closed:
                return self._fail(self._closed_reason())
            wall = timeout_s or self.limits.wall_s
            collector = Collector(self.limits.output_bytes)
            start = time.monotonic()
            frame = encode_frame({"t": "exec", "source": source, "wall_s": wall}, data)
            finished, host_killed = drive(
                self._channel,
                frame,
                collector,
                # A Python cell gets SIGINT at the deadline and SIGKILL 2 s later.
                start + host_deadline(wall, len(frame)) + 2.0,
            )
            self.last_used = time.monotonic()
            oom = bool(self._oom_check and self._oom_check())
            if collector.expired:
                self._expired = True
                self._shutdown()
                return self._fail(self._closed_reason())
            if not finished:
                self._shutdown()
                if host_killed:
                    return self._fail("the session stopped answering and was killed")
                if oom:
                    return RunResult(
                        signal=9,
                        oom_killed=True,
                        wall_s=time.monotonic() - start,
                        info={
                            **self._info,
                            "notes": ["the session was killed by the memory limit"],
                        },
                    )
                return self._fail("the session ended unexpectedly")
            return build_result(
                collector, wall_s=time.monotonic() - start, info=dict(self._info), oom_killed=oom
            )

    async def aexec(
        self, source: str, *, timeout_s: float | None = None, stdin: bytes | str = b""
    ) -> RunResult:
        """Async twin of :meth:`exec` (runs in a worker thread)."""
        return await asyncio.to_thread(self.exec, source, timeout_s=timeout_s, stdin=stdin)

    def _command(self, header: dict, blob: bytes = b"") -> tuple[dict, bytes]:
        with self._lock:
            if self._closed:
                raise InfrastructureError(self._closed_reason())
            try:
                reply, data = request_reply(self._channel, header, blob)
            except (OSError, EOFError, TimeoutError, ProtocolError) as e:
                self._shutdown()
                raise InfrastructureError(f"the session failed: {e}") from e
            self.last_used = time.monotonic()
            if reply.get("t") == "expired":
                self._expired = True
                self._shutdown()
                raise InfrastructureError(self._closed_reason())
            if reply.get("t") != "ok":
                raise InfrastructureError(
                    f"the session refused {header['t']!r}: {reply.get('error', reply)}"
                )
            return reply, data

    def put(self, files: Mapping[str, bytes | str]) -> None:
        """Writes files under /work (paths as in ``RunRequest.files``)."""
        self._command({"t": "put"}, pack_files(check_files(files, "files")))

    def get(self, paths: Sequence[str]) -> dict[str, bytes]:
        """Reads regular files under /work; missing ones and symlinks are left out."""
        if isinstance(paths, str):
            raise TypeError("paths must be a list of paths, not one string")
        for path in paths:
            check_relpath(path)
        _, blob = self._command({"t": "get", "paths": list(paths)})
        return unpack_files(blob)

    def diff(self) -> str:
        """A unified diff of /work against its state when the session opened."""
        _, blob = self._command({"t": "diff"})
        return blob.decode("utf-8", errors="replace")

    def _shutdown(self) -> None:
        self._closed = True
        REAPER.forget(self)
        self._finalizer()

    def close(self) -> None:
        """Ends the session and everything running in it; safe to call twice."""
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._closed:
            return
        try:
            self._channel.send(encode_frame({"t": "close"}))
        except OSError:
            pass
        self._shutdown()

    def expired(self, now: float) -> bool:
        """Whether the session sat idle past its timeout (with a margin for the agent)."""
        return not self._closed and now - self.last_used > self.idle_timeout_s + HOST_GRACE_S

    def __enter__(self) -> AgentSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_quietly(channel: Channel, on_close: Callable[[], None] | None) -> None:
    try:
        channel.kill()
    except Exception:
        pass
    try:
        channel.close()
    except Exception:
        pass
    if on_close is not None:
        on_close()


class _Reaper:
    """Closes sessions left idle past their timeout, in one daemon thread."""

    def __init__(self) -> None:
        self._sessions: weakref.WeakSet = weakref.WeakSet()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, session: AgentSession) -> None:
        with self._lock:
            self._sessions.add(session)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="palaestra-sandbox-reaper", daemon=True
                )
                self._thread.start()

    def forget(self, session: AgentSession) -> None:
        with self._lock:
            self._sessions.discard(session)

    def sweep(self) -> int:
        """Closes every expired session now; returns how many."""
        now = time.monotonic()
        with self._lock:
            stale = [s for s in self._sessions if s.expired(now)]
        for session in stale:
            session.expire()
        return len(stale)

    def _loop(self) -> None:
        while True:
            time.sleep(1.0)
            self.sweep()
            with self._lock:
                if not self._sessions:
                    self._thread = None
                    return


REAPER = _Reaper()


# --------------------------------------------------------------------------- slots


class SlotPool:
    """Hands out slot numbers (each a uid and a cgroup) to at most ``size`` holders.

    Works for threads and for asyncio tasks at once; a released slot goes to the longest
    waiter of either kind.
    """

    def __init__(self, size: int, first: int = 0) -> None:
        self._free = deque(range(first, first + size))
        self._waiters: deque = deque()
        self._lock = threading.Lock()

    def acquire(self, timeout: float | None = None) -> int:
        """Blocks until a slot is free; raises TimeoutError after ``timeout`` seconds."""
        with self._lock:
            if self._free:
                return self._free.popleft()
            waiter = _ThreadWaiter()
            self._waiters.append(waiter)
        if waiter.event.wait(timeout):
            return waiter.slot
        with self._lock:
            if waiter.slot is not None:
                return waiter.slot
            waiter.abandoned = True
        raise TimeoutError("no sandbox slot became free in time")

    async def aacquire(self) -> int:
        """Waits (asynchronously) until a slot is free."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._free:
                return self._free.popleft()
            future = loop.create_future()
            self._waiters.append(_AsyncWaiter(self, loop, future))
        try:
            return await future
        except asyncio.CancelledError:
            # Cancelled after the slot was handed over but before this task resumed.
            if future.done() and not future.cancelled():
                self.release(future.result())
            raise

    def release(self, slot: int) -> None:
        """Returns a slot to the pool or hands it to a waiter."""
        with self._lock:
            while self._waiters:
                if self._waiters.popleft().offer(slot):
                    return
            self._free.append(slot)


class _ThreadWaiter:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.slot: int | None = None
        self.abandoned = False

    def offer(self, slot: int) -> bool:
        if self.abandoned:
            return False
        self.slot = slot
        self.event.set()
        return True


class _AsyncWaiter:
    def __init__(
        self, pool: SlotPool, loop: asyncio.AbstractEventLoop, future: asyncio.Future
    ) -> None:
        self.pool, self.loop, self.future = pool, loop, future

    def offer(self, slot: int) -> bool:
        if self.future.done() or self.loop.is_closed():
            return False

        def deliver() -> None:
            if self.future.done():
                self.pool.release(slot)
            else:
                self.future.set_result(slot)

        try:
            self.loop.call_soon_threadsafe(deliver)
        except RuntimeError:
            return False
        return True


def default_concurrency() -> int:
    """Runs that go at once unless told otherwise: two per core, at least four."""
    return max(4, 2 * (os.cpu_count() or 1))
