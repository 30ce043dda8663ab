"""The hostile suite: programs that try to escape, starve or fool the sandbox.

Every case runs on each backend (local, the Python fast path, Docker) and asserts two
things: the run is contained (the limit held, and the run ended), and the host is
unharmed (the ``canaries`` fixture checks a file in /tmp, a file in $HOME, an environment
variable and a TCP service after every case). Each case fails if its limit is ignored:
the program reports what it managed to do, and the test asserts it could not do more.
"""

from __future__ import annotations

import asyncio
import shutil
import signal

import pytest

from palaestra.sandbox import Limits, RunRequest

pytestmark = pytest.mark.timeout(240)


def contained(result) -> None:
    """A run that ended as a program outcome, not as an infrastructure failure."""
    assert result.error is None, result.error
    assert result.wall_s < 120


# --------------------------------------------------------------------------- processes


def test_python_fork_bomb(backend, canaries, token, run_marked, no_leftovers):
    code = """
import os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError as e:
    print("forks", n, e.errno)
"""
    result = run_marked(backend, code, token, limits=Limits(pids=24, wall_s=10))
    contained(result)
    forks = int(result.stdout.split()[1])
    assert forks < 24, f"{forks} processes started under a limit of 24"
    no_leftovers(token)


def test_shell_fork_bomb(backend, canaries, token, no_leftovers):
    bomb = "b() { b | b & }; b; sleep 2; echo done"
    result = backend.run(
        RunRequest(
            argv=["bash", "-c", bomb],
            env={"PALAESTRA_MARK": token},
            limits=Limits(pids=32, wall_s=5),
        )
    )
    contained(result)
    assert b"Resource temporarily unavailable" in result.stderr or result.timed_out
    no_leftovers(token)


def test_thread_exhaustion(backend, canaries):
    code = """
import threading, time
n = 0
try:
    while True:
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        n += 1
except RuntimeError:
    pass
print("threads", n, flush=True)
import os
os._exit(0)
"""
    result = backend.run(RunRequest(code=code, limits=Limits(pids=32, wall_s=10)))
    contained(result)
    assert int(result.stdout.split()[1]) < 32


@pytest.mark.parametrize("how", ["double-fork", "setsid"])
def test_daemons_die_with_the_run(backend, canaries, token, run_marked, no_leftovers, how):
    detach = "os.setsid()" if how == "setsid" else "pass"
    code = f"""
import os, time
if os.fork() == 0:
    {detach}
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
time.sleep(0.2)
print("parent exits")
"""
    result = run_marked(backend, code, token, limits=Limits(wall_s=10))
    contained(result)
    assert result.exit_code == 0 and b"parent exits" in result.stdout
    no_leftovers(token)


def test_kill_the_parent(backend, canaries):
    code = """
import os, signal
for target in (os.getppid(), 1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError as e:
        print("refused", target, e.errno)
print("still here")
"""
    result = backend.run(RunRequest(code=code, limits=Limits(wall_s=10)))
    contained(result)
    after = backend.run(RunRequest(code="print('alive')"))
    assert after.stdout == b"alive\n", "the backend stopped working after a run killed its parent"


def test_kill_everything(backend, canaries):
    result = backend.run(
        RunRequest(argv=["bash", "-c", "kill -9 -1; echo survived"], limits=Limits(wall_s=10))
    )
    contained(result)
    assert backend.run(RunRequest(code="print('alive')")).stdout == b"alive\n"


# --------------------------------------------------------------------------- memory


MEMORY_BOMBS = {
    "list": "x = []\nwhile len(x) < 4096:\n    x.append(bytearray(1 << 20))\nprint('survived')",
    "bytearray": "x = bytearray(2 << 30)\nx[::4096] = b'x' * len(x[::4096])\nprint('survived')",
    "mmap": (
        "import mmap\nm = mmap.mmap(-1, 2 << 30)\n"
        "for i in range(0, 2 << 30, 4096):\n    m[i] = 1\nprint('survived')"
    ),
    "malloc": (
        "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.malloc.restype = ctypes.c_void_p\n"
        "p = libc.malloc(2 << 30)\nassert p, 'malloc failed'\n"
        "ctypes.memset(p, 1, 2 << 30)\nprint('survived')"
    ),
}


@pytest.mark.parametrize("kind", sorted(MEMORY_BOMBS))
def test_memory_bomb(backend, canaries, kind):
    result = backend.run(
        RunRequest(code=MEMORY_BOMBS[kind], limits=Limits(memory_mb=128, wall_s=30))
    )
    contained(result)
    assert b"survived" not in result.stdout, f"a {kind} bomb allocated 2 GiB under a 128 MiB limit"
    assert result.exit_code != 0
    assert (
        result.oom_killed
        or b"MemoryError" in result.stderr
        or b"malloc failed" in result.stderr
        or result.signal
    )


# --------------------------------------------------------------------------- time


TIME_BOMBS = {
    "busy-loop": "while True:\n    pass",
    "sleep-forever": "import time\ntime.sleep(10**6)",
    "ignore-sigterm": (
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(10**6)"
    ),
    "disable-alarms": (
        "import signal, time\nsignal.alarm(0)\nsignal.setitimer(signal.ITIMER_REAL, 0)\n"
        "for s in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        "while True:\n    time.sleep(0.01)"
    ),
}


@pytest.mark.parametrize("kind", sorted(TIME_BOMBS))
def test_time_bomb(backend, canaries, kind, token, run_marked, no_leftovers):
    result = run_marked(backend, TIME_BOMBS[kind], token, limits=Limits(wall_s=1.0))
    contained(result)
    assert result.timed_out and result.info["timeout"] == "wall"
    assert result.exit_code is None
    assert result.wall_s < 6, f"a 1 s deadline ended after {result.wall_s:.1f} s"
    no_leftovers(token)


def test_cpu_time_limit(backend, canaries):
    result = backend.run(
        RunRequest(code="while True:\n    pass", limits=Limits(wall_s=60, cpu_s=1))
    )
    contained(result)
    assert result.timed_out and result.info["timeout"] == "cpu"
    assert result.signal in (signal.SIGXCPU, signal.SIGKILL)
    assert result.info["cpu_s"] < 3


# --------------------------------------------------------------------------- network


def test_network_is_off(backend, canaries):
    targets = [("1.1.1.1", 80), ("127.0.0.1", canaries.service.port)]
    if canaries.host_ip:
        targets.append((canaries.host_ip, canaries.service.port))
    code = f"""
import socket
for host, port in {targets!r}:
    try:
        socket.create_connection((host, port), timeout=3).close()
        print("connected", host, port)
    except OSError as e:
        print("blocked", host, port, e.errno)
try:
    print("resolved", socket.getaddrinfo("deb.debian.org", 80))
except OSError as e:
    print("dns blocked", e)
for path in ("/var/run/docker.sock", "/run/docker.sock"):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        print("connected", path)
    except OSError as e:
        print("blocked", path, e.errno)
"""
    result = backend.run(RunRequest(code=code, limits=Limits(wall_s=30)))
    contained(result)
    assert b"connected" not in result.stdout, result.stdout
    assert b"resolved" not in result.stdout
    assert result.stdout.count(b"blocked") == len(targets) + 3


# --------------------------------------------------------------------------- files


def test_writes_outside_work_fail(backend, canaries):
    code = f"""
import os
for path in ("/etc/palaestra-canary", "/root/palaestra-canary", "/usr/palaestra-canary",
             os.path.expanduser("~root") + "/x", {str(canaries.home_file)!r}):
    try:
        with open(path, "w") as f:
            f.write("owned")
        print("wrote", path)
    except OSError as e:
        print("refused", path, e.errno)
with open({str(canaries.file)!r}, "w") as f:
    f.write("owned")
print("private tmp ok")
"""
    result = backend.run(RunRequest(code=code))
    contained(result)
    assert b"wrote" not in result.stdout, result.stdout
    assert b"private tmp ok" in result.stdout


def test_unsafe_paths_are_rejected():
    for bad in ("../x", "/etc/passwd", "a/../../x", "a//b", "./x", ""):
        with pytest.raises(ValueError):
            RunRequest(code="pass", files={bad: "x"})
        with pytest.raises(ValueError):
            RunRequest(code="pass", fetch=[bad])


def test_symlinks_are_not_followed_out(backend, canaries):
    code = f"""
import os
os.symlink("/etc/passwd", "passwd")
os.symlink({str(canaries.file)!r}, "canary")
os.symlink("/etc", "etc")
os.mkdir("real")
open("real/ok.txt", "w").write("ok")
"""
    result = backend.run(
        RunRequest(code=code, fetch=["passwd", "canary", "etc/passwd", "real/ok.txt"])
    )
    contained(result)
    assert result.files == {"real/ok.txt": b"ok"}
    assert set(result.info["fetch_errors"]) == {"passwd", "canary", "etc/passwd"}


def test_fill_the_disk(backend, canaries):
    before = shutil.disk_usage("/").free
    code = """
import errno
written = 0
try:
    with open("big", "wb") as f:
        while True:
            f.write(b"x" * (1 << 20))
            f.flush()
            written += 1
except OSError as e:
    print("full at", written, errno.errorcode[e.errno])
"""
    result = backend.run(RunRequest(code=code, limits=Limits(disk_mb=16, memory_mb=256, wall_s=30)))
    contained(result)
    words = result.stdout.split()
    assert words[:2] == [b"full", b"at"] and int(words[2]) <= 16, result.stdout
    assert words[3] in (b"ENOSPC", b"EFBIG")
    assert shutil.disk_usage("/").free > before - (64 << 20)


def test_dev_shm_is_capped(backend, canaries):
    code = """
written = 0
try:
    with open("/dev/shm/fill", "wb") as f:
        while True:
            f.write(b"x" * (1 << 20))
            f.flush()
            written += 1
except OSError as e:
    print("full at", written)
"""
    result = backend.run(RunRequest(code=code, limits=Limits(disk_mb=16, memory_mb=256, wall_s=30)))
    contained(result)
    assert int(result.stdout.split()[2]) <= 16


def test_file_descriptor_exhaustion(backend, canaries):
    code = """
import os
fds = []
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print("fds", len(fds), e.errno)
"""
    result = backend.run(RunRequest(code=code, limits=Limits(nofile=64)))
    contained(result)
    assert int(result.stdout.split()[1]) <= 64


# --------------------------------------------------------------------------- secrets


def test_host_secrets_are_unreadable(backend, canaries):
    code = f"""
import os
seen = []
seen.append(repr(dict(os.environ)))
for path in ("/proc/1/environ", "/proc/self/environ", {str(canaries.file)!r},
             {str(canaries.home_file)!r}, {str(canaries.ssh_key)!r}, "/etc/shadow"):
    try:
        with open(path, "rb") as f:
            seen.append(f.read().decode(errors="replace"))
        print("read", path)
    except OSError as e:
        print("refused", path, e.errno)
print("secret seen" if any({canaries.secret!r} in s for s in seen) else "secret not seen")
"""
    result = backend.run(RunRequest(code=code))
    contained(result)
    assert b"secret not seen" in result.stdout, result.stdout
    for path in (b"/etc/shadow", str(canaries.ssh_key).encode(), str(canaries.home_file).encode()):
        assert b"read " + path not in result.stdout


# --------------------------------------------------------------------------- output


@pytest.mark.slow
def test_one_gigabyte_of_stdout(backend, canaries):
    code = (
        "import sys\nchunk = b'y' * (1 << 20)\nfor _ in range(1024):\n"
        "    sys.stdout.buffer.write(chunk)\nprint('end', file=sys.stderr)"
    )
    result = backend.run(RunRequest(code=code, limits=Limits(wall_s=120, output_bytes=1 << 20)))
    contained(result)
    assert result.stdout_truncated and len(result.stdout) == 1 << 20
    assert result.exit_code == 0 and result.stderr == b"end\n"


def test_output_without_newlines_is_capped(backend, canaries):
    code = "import sys\nsys.stdout.write('x' * (8 << 20))"
    result = backend.run(RunRequest(code=code, limits=Limits(output_bytes=4096)))
    contained(result)
    assert result.stdout == b"x" * 4096 and result.stdout_truncated and result.exit_code == 0


def test_large_output_does_not_block(backend, canaries):
    code = "import sys\nsys.stdout.write('z' * 200_000)\nsys.stderr.write('w' * 200_000)"
    result = backend.run(RunRequest(code=code))
    contained(result)
    assert result.exit_code == 0 and not result.timed_out
    assert result.stdout == b"z" * 200_000 and result.stderr == b"w" * 200_000


def test_invalid_utf8_is_kept_as_bytes(backend, canaries):
    result = backend.run(
        RunRequest(code="import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00ok\\xc3')")
    )
    contained(result)
    assert result.stdout == b"\xff\xfe\x00ok\xc3"
    assert result.stdout_text.endswith("ok\ufffd")


# --------------------------------------------------------------------------- concurrency


@pytest.mark.slow
def test_concurrent_runs_do_not_cross_talk(backend, canaries):
    code = """
import os, sys, time
me = sys.argv[1]
for path in ("/work/token", "/tmp/token", "/dev/shm/token"):
    with open(path, "w") as f:
        f.write(me)
time.sleep(0.5)
mine = [open(p).read() for p in ("/work/token", "/tmp/token", "/dev/shm/token")]
print(" ".join(mine), sorted(os.listdir("/work")), sorted(os.listdir("/tmp")))
"""

    async def all_runs():
        requests = [
            RunRequest(code=code, args=[f"run{i}"], limits=Limits(wall_s=60)) for i in range(64)
        ]
        return await asyncio.gather(*(backend.arun(r) for r in requests))

    results = asyncio.run(all_runs())
    for i, result in enumerate(results):
        contained(result)
        assert result.exit_code == 0, result.stderr
        words = result.stdout.decode().split(" ", 3)
        assert words[:3] == [f"run{i}"] * 3, result.stdout
        assert words[3].startswith("['main.py', 'token'] ['token']"), result.stdout
