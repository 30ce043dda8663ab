"""Local sandboxes that serve one run after another: nothing of a run reaches the next.

A renewed sandbox keeps its PID 1 and its slot; everything a program can leave behind is
new for the next run: processes (all killed), /work, /tmp and /dev/shm (a fresh tmpfs),
SysV and POSIX IPC (a fresh IPC namespace), TCP ports (no TIME_WAIT in the slot's
network namespace), keys (the uid's keyrings are emptied). The tests check
``info["reused"]`` to show that the later run did run in a renewed sandbox, so none of
them passes by starting fresh sandboxes.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from palaestra.sandbox import Limits, RunRequest
from palaestra.sandbox.local import MAX_RUNS_PER_SANDBOX, LocalBackend

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def backend():
    # One sandbox at a time: every run after the first lands in the renewed sandbox.
    with LocalBackend(max_concurrency=1, prestart=0) as b:
        yield b


def _run(backend, code: str, **kwargs) -> object:
    result = backend.run(RunRequest(code=code, **kwargs))
    assert result.error is None, result.error
    return result


def _until_reused(backend, code: str) -> object:
    """Runs ``code`` until a run lands in a renewed sandbox (renewal happens in the background)."""
    for _ in range(50):
        result = _run(backend, code)
        if result.info["reused"]:
            return result
        time.sleep(0.05)
    raise AssertionError("no run was served by a renewed sandbox")


LEAVE_BEHIND = r"""
import ctypes, os, socket, subprocess
open("/work/left.txt", "w").write("x")
open("/tmp/left.txt", "w").write("x")
open("/dev/shm/left", "w").write("x")
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(0x5151, 4096, 0o1000 | 0o600) >= 0          # IPC_CREAT
rt = ctypes.CDLL("librt.so.1", use_errno=True)
rt.mq_open.restype = ctypes.c_int
assert rt.mq_open(b"/leftq", os.O_CREAT | os.O_RDWR, 0o600, None) >= 0
libc.syscall.restype = ctypes.c_long
ADD_KEY = {"x86_64": 248, "aarch64": 217}[os.uname().machine]
assert libc.syscall(ADD_KEY, b"user", b"leftkey", b"x", 1, -4) > 0  # into @u
# A daemon in a session of its own, still running when the program ends.
subprocess.Popen(["sleep", "1000"], start_new_session=True)
# A connection the server side closes first (TIME_WAIT on port 7777 if it were kept).
server = socket.socket()
server.bind(("127.0.0.1", 7777))
server.listen()
client = socket.create_connection(("127.0.0.1", 7777))
conn, _ = server.accept()
conn.close()
client.close()
server.close()
print("left")
"""

LOOK = r"""
import ctypes, os, socket
print(sorted(os.listdir("/work")), os.listdir("/tmp"), os.listdir("/dev/shm"))
libc = ctypes.CDLL(None, use_errno=True)
print(libc.shmget(0x5151, 4096, 0o600))                         # -1: no such segment
rt = ctypes.CDLL("librt.so.1", use_errno=True)
rt.mq_open.restype = ctypes.c_int
print(rt.mq_open(b"/leftq", os.O_RDWR, 0, None))                # -1: no such queue
libc.syscall.restype = ctypes.c_long
REQUEST_KEY = {"x86_64": 249, "aarch64": 218}[os.uname().machine]
print(libc.syscall(REQUEST_KEY, b"user", b"leftkey", None, 0))  # -1: no such key
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
print(sorted(open(f"/proc/{p}/cmdline").read() for p in others))
s = socket.socket()
s.bind(("127.0.0.1", 7777))                                     # no SO_REUSEADDR
print("bound")
"""


def test_nothing_of_a_run_reaches_the_next(backend):
    assert _run(backend, LEAVE_BEHIND).stdout == b"left\n"
    result = _until_reused(backend, LOOK)
    assert result.stdout.decode().splitlines() == [
        "['main.py'] [] []",
        "-1",
        "-1",
        "-1",
        "[]",
        "bound",
    ], result.stderr
    # And again, after the look itself ran in the renewed sandbox.
    assert _run(backend, LEAVE_BEHIND).stdout == b"left\n"
    assert _until_reused(backend, LOOK).stdout.decode().splitlines()[0] == "['main.py'] [] []"


def test_programs_in_a_renewed_sandbox_hold_no_capability(backend):
    code = "print([l for l in open('/proc/self/status') if l.startswith('Cap')])"
    result = _until_reused(backend, code)
    caps = dict(line.split(":") for line in eval(result.stdout))  # noqa: S307 - our own output
    for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(caps[name].strip(), 16) == 0, (name, caps)
    ids = _run(backend, "import os; print(os.getuid(), os.getgid(), os.getgroups())")
    assert ids.stdout.split()[0] != b"0"


def test_other_limits_get_another_sandbox_with_their_own_rlimits(backend):
    narrow = Limits(nofile=64)
    wide = Limits(nofile=512)
    code = "import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE))"
    for limits, expected in ((narrow, b"(64, 64)\n"), (wide, b"(512, 512)\n")) * 3:
        result = backend.run(RunRequest(code=code, limits=limits))
        assert result.stdout == expected, (limits, result)


def test_fresh_requests_never_get_a_renewed_sandbox(backend):
    _until_reused(backend, "print(1)")
    for _ in range(3):
        assert _run(backend, "print(1)", fresh=True).info["reused"] == 0


def test_a_sandbox_serves_at_most_max_runs():
    with LocalBackend(max_concurrency=1, prestart=0) as backend:
        seen = []
        for _ in range(MAX_RUNS_PER_SANDBOX + 20):
            seen.append(_run(backend, "pass").info["reused"])
            time.sleep(0.005)
    assert max(seen) <= MAX_RUNS_PER_SANDBOX - 1
    assert max(seen) >= 5  # reuse did happen


def test_timed_out_and_killed_runs_are_not_reused(backend, monkeypatch):
    _until_reused(backend, "print(1)")
    recycled = []
    recycle = backend._recycle
    monkeypatch.setattr(
        backend, "_recycle", lambda channel, key: (recycled.append(channel), recycle(channel, key))
    )
    late = backend.run(RunRequest(code="import time; time.sleep(30)", limits=Limits(wall_s=0.5)))
    assert late.timed_out and recycled == []
    oom = backend.run(RunRequest(code="x = bytearray(400 << 20)", limits=Limits(memory_mb=64)))
    assert oom.oom_killed and recycled == []
    assert _run(backend, "print(2)").stdout == b"2\n" and len(recycled) == 1


def test_concurrent_sandboxes_do_not_share_a_network():
    """Slots keep their network namespaces; two sandboxes alive at once never share one."""
    server = r"""
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 7788))
s.listen()
s.settimeout(3)
try:
    s.accept()
    print("contacted")
except socket.timeout:
    print("alone")
"""
    client = r"""
import socket, time
time.sleep(0.5)
try:
    socket.create_connection(("127.0.0.1", 7788), timeout=1)
    print("connected")
except OSError as e:
    print("refused")
"""

    async def both(backend):
        return await asyncio.gather(
            backend.arun(RunRequest(code=server)), backend.arun(RunRequest(code=client))
        )

    with LocalBackend(max_concurrency=4) as backend:
        for _ in range(3):
            served, tried = asyncio.run(both(backend))
            assert (served.stdout, tried.stdout) == (b"alone\n", b"refused\n")
