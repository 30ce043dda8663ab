"""The local backend and its Python fast path: what a program sees, and how the backend copes."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time

import pytest

from palaestra.sandbox import Limits, RunRequest
from palaestra.sandbox.local import LocalBackend

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(params=["local", "python"])
def local(request):
    return request.getfixturevalue(f"{request.param}_backend")


def test_hello_world_and_exit_codes(local):
    assert local.run(RunRequest(code="print('hello')")).stdout == b"hello\n"
    assert local.run(RunRequest(code="import sys; sys.exit(3)")).exit_code == 3
    assert local.run(RunRequest(code="raise SystemExit('bye')")).stderr == b"bye\n"
    crashed = local.run(RunRequest(code="import os; os.abort()"))
    # On the fast path Python is PID 1 of its sandbox, which ignores the SIGABRT it sends
    # itself: abort() then ends it with SIGSEGV (see the threat model of the backend).
    assert crashed.exit_code is None and crashed.signal in (6, 11)


def test_tracebacks_start_at_the_program(local):
    result = local.run(RunRequest(code="def f():\n    1 / 0\nf()"))
    assert result.exit_code == 1
    lines = result.stderr.decode().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == '  File "/work/main.py", line 3, in <module>'
    assert lines[-1] == "ZeroDivisionError: division by zero"


def test_what_a_program_sees(local):
    code = """
import os, sys
print(os.getcwd(), os.getuid() != 0, sys.argv[1:], __name__, input())
print(sorted(os.environ))
print(sorted(os.listdir("/")))
"""
    result = local.run(RunRequest(code=code, args=["a", "b"], stdin="typed\n", env={"EXTRA": "1"}))
    first, env, root = result.stdout.decode().splitlines()
    assert first == "/work True ['a', 'b'] __main__ typed"
    assert env == str(sorted(["EXTRA", "HOME", "LANG", "PATH", "TMPDIR"]))
    assert "root" not in root and "home" not in root and "work" in root


def test_files_in_and_out(local):
    result = local.run(
        RunRequest(
            argv=["bash", "-c", "cat in/a.txt > out.txt; ./tool.sh >> out.txt"],
            files={"in/a.txt": "A", "tool.sh": "#!/bin/sh\necho T"},
            fetch=["out.txt", "nope.txt"],
        )
    )
    assert result.files == {"out.txt": b"AT\n"}
    assert result.info["fetch_errors"] == {"nope.txt": "no such file"}


def test_unknown_commands_exit_127(local):
    result = local.run(RunRequest(argv=["no-such-program"]))
    assert (
        result.exit_code == 127 and b"command not found" in result.stderr and result.error is None
    )


def test_fast_path_runs_python_in_the_warm_interpreter(python_backend):
    assert python_backend.run(RunRequest(code="print(1)")).info["mode"] == "fork"
    assert (
        python_backend.run(
            RunRequest(argv=["python3", "-c", "import sys; print(sys.argv)", "x"])
        ).stdout
        == b"['-c', 'x']\n"
    )
    assert (
        python_backend.run(
            RunRequest(argv=["python3", "t.py"], files={"t.py": "print(__file__)"})
        ).stdout
        == b"/work/t.py\n"
    )
    assert python_backend.run(RunRequest(argv=["bash", "-c", "echo hi"])).info["mode"] == "exec"


def test_fast_path_runs_do_not_share_state(python_backend):
    first = python_backend.run(
        RunRequest(code="import json, random; json.leak = 1; print(random.random())")
    )
    second = python_backend.run(
        RunRequest(code="import json, random; print(hasattr(json, 'leak'), random.random())")
    )
    assert second.stdout.split()[0] == b"False"
    assert first.stdout != second.stdout.split()[1] + b"\n"


def test_fast_path_honours_exit_handlers_and_threads(python_backend):
    code = """
import atexit, threading, time
atexit.register(lambda: print("atexit ran"))
threading.Thread(target=lambda: (time.sleep(0.2), print("thread ran"))).start()
"""
    result = python_backend.run(RunRequest(code=code))
    assert result.stdout == b"thread ran\natexit ran\n"


def test_async_runs_respect_the_concurrency_limit():
    async def main(backend):
        requests = [RunRequest(code=f"print({i})") for i in range(12)]
        return await asyncio.gather(*(backend.arun(r) for r in requests))

    with LocalBackend(fast_python=True, max_concurrency=3) as backend:
        results = asyncio.run(main(backend))
    assert [r.stdout for r in results] == [f"{i}\n".encode() for i in range(12)]


def test_sync_runs_from_many_threads(local):
    out = {}

    def one(i):
        out[i] = local.run(RunRequest(code=f"print({i})")).stdout

    threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {i: f"{i}\n".encode() for i in range(16)}


def test_without_prestarted_sandboxes():
    with LocalBackend(prestart=0) as backend:
        assert backend.run(RunRequest(code="print('cold')")).stdout == b"cold\n"


def test_without_cgroups_memory_falls_back_to_rlimits():
    with LocalBackend(cgroups=False, prestart=0) as backend:
        result = backend.run(
            RunRequest(
                code="x = bytearray(1 << 30)\nprint('survived')", limits=Limits(memory_mb=128)
            )
        )
        assert result.info["enforced"]["memory"].startswith("rlimit-as")
        assert b"survived" not in result.stdout and b"MemoryError" in result.stderr
        assert result.oom_killed


def test_network_opt_in_reaches_the_host(local):
    """The positive control of the hostile network test: with the network on, it connects."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    code = (
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
        "print('connected')"
    )
    try:
        assert (
            local.run(RunRequest(code=code, limits=Limits(network=True))).stdout == b"connected\n"
        )
        assert b"connected" not in local.run(RunRequest(code=code)).stdout
    finally:
        server.close()


def test_limits_are_reported(local):
    result = local.run(RunRequest(code="pass"))
    assert set(result.info["enforced"]) >= {"memory", "pids", "cpus", "disk", "network", "wall"}
    assert result.info["backend"] == "local"


def test_a_dead_zygote_is_replaced():
    with LocalBackend(prestart=0) as backend:
        assert backend.run(RunRequest(code="print(1)")).exit_code == 0
        backend._zygote.proc.kill()
        backend._zygote.proc.wait()
        assert backend.run(RunRequest(code="print(2)")).stdout == b"2\n"


def test_a_root_without_python_is_an_infrastructure_error(tmp_path):
    (tmp_path / "usr").mkdir()
    with LocalBackend(root=str(tmp_path), prestart=0) as backend:
        result = backend.run(RunRequest(code="print(1)"))
    assert result.error is not None and "python3" in result.error
    assert result.exit_code is None


def test_a_closed_backend_reports_errors():
    backend = LocalBackend(prestart=0)
    backend.close()
    assert backend.run(RunRequest(code="print(1)")).error is not None


def test_bad_options_are_rejected():
    with pytest.raises(ValueError):
        LocalBackend(max_concurrency=0)
    with pytest.raises(ValueError):
        LocalBackend(root="/no/such/dir")
    with pytest.raises(TypeError):
        LocalBackend(turbo=True)


def test_backend_close_leaves_no_processes():
    backend = LocalBackend(prestart=2)
    backend.run(RunRequest(code="print(1)"))
    zygote = backend._zygote.proc.pid
    backend.close()
    assert (
        not os.path.exists(f"/proc/{zygote}")
        or open(f"/proc/{zygote}/stat").read().split()[2] == "Z"
    )


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _settled(backend: LocalBackend, timeout: float = 20.0) -> tuple[int, int, int]:
    """Waits until only the spares hold slots; returns (slots in use, spares, processes)."""
    deadline = time.monotonic() + timeout
    while True:
        in_use, spares = backend._uids.in_use, len(backend._spares)
        # The starter, the zygote and one process per spare sandbox.
        processes = len(_descendants(backend._zygote.proc.pid)) + 1
        if (in_use == spares and processes == spares + 2) or time.monotonic() > deadline:
            return in_use, spares, processes
        time.sleep(0.1)


@pytest.mark.parametrize("fast", [False, True], ids=["local", "python"])
def test_16_and_32_runs_in_flight_leave_nothing_behind(fast):
    """32 tasks, 16 threads, 32 tasks cancelled at all stages: results right, nothing leaked."""

    async def gather(backend, codes):
        return await asyncio.gather(*(backend.arun(RunRequest(code=c)) for c in codes))

    async def cancelled(backend, n):
        async def one(i):
            request = RunRequest(code=f"import time; time.sleep(0.05); print({i})")
            try:
                return await asyncio.wait_for(backend.arun(request), 0.01 * (i % 20))
            except asyncio.TimeoutError:
                return None

        return await asyncio.gather(*(one(i) for i in range(n)))

    with LocalBackend(fast_python=fast, max_concurrency=32, prestart=2) as backend:
        results = asyncio.run(gather(backend, [f"print({i})" for i in range(32)]))
        assert [r.stdout for r in results] == [f"{i}\n".encode() for i in range(32)]
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]

        out: dict[int, bytes] = {}

        def one(i):
            out[i] = backend.run(RunRequest(code=f"print(-{i})")).stdout

        threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert out == {i: f"{-i}\n".encode() for i in range(16)}

        for i, result in enumerate(asyncio.run(cancelled(backend, 32))):
            assert result is None or result.stdout == f"{i}\n".encode()
        in_use, spares, processes = _settled(backend)
        # Spares: the prestarted ones, and (plain backend) sandboxes renewed after a run.
        assert in_use == spares <= (2 if fast else backend.max_concurrency)
        assert processes == spares + 2
        assert len(backend._runs._free) == backend.max_concurrency
        # The backend is as good as new afterwards.
        after = asyncio.run(gather(backend, [f"print({i})" for i in range(16)]))
        assert [r.stdout for r in after] == [f"{i}\n".encode() for i in range(16)]
        starter = backend._zygote.proc.pid
        groups = set(backend._cgroups.parents.values()) if backend._cgroups else set()
    assert not os.path.exists(f"/proc/{starter}") or _descendants(starter) == []
    assert all(not path.exists() for path in groups)


def test_a_host_holding_many_descriptors(local):
    """Descriptors numbered past 1024 in the host process (a trainer, a test runner)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1200
    if soft < wanted + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted + 200), hard))
    hog = [os.open(os.devnull, os.O_RDONLY) for _ in range(wanted)]
    try:
        assert max(hog) > 1024
        assert local.run(RunRequest(code="print('sync')")).stdout == b"sync\n"

        async def main():
            return await asyncio.gather(
                *(local.arun(RunRequest(code="print(7)")) for _ in range(8))
            )

        assert [r.stdout for r in asyncio.run(main())] == [b"7\n"] * 8
    finally:
        for fd in hog:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
