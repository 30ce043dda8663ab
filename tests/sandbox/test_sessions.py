"""Sessions: state across calls, files, diffs, timeouts, and guaranteed clean-up."""

from __future__ import annotations

import gc
import threading
import time

import pytest

from palaestra.errors import InfrastructureError
from palaestra.sandbox import Limits
from palaestra.sandbox._host import HOST_GRACE_S, REAPER

pytestmark = pytest.mark.timeout(180)

SESSION_BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(params=SESSION_BACKENDS)
def sessions(request):
    return request.getfixturevalue(f"{request.param}_backend")


def _sleeper(token: str) -> str:
    env = {"PALAESTRA_MARK": token}
    return f"import subprocess\nsubprocess.Popen(['sleep', '600'], env={env!r})"


def test_python_state_survives_100_calls_then_idleness_reclaims_it(sessions, token, no_leftovers):
    session = sessions.session("python", idle_timeout_s=2)
    session.exec(_sleeper(token))
    session.exec("total = 0")
    for i in range(100):
        result = session.exec(f"total += {i}\ntotal")
        assert result.exit_code == 0 and result.error is None
    assert result.stdout == f"{sum(range(100))}\n".encode()
    # A call that outlasts the idle timeout keeps the session busy, not idle: a sweep of
    # the reaper while it runs (past the timeout and its grace) leaves the session open.
    sweeper = threading.Timer(2 + HOST_GRACE_S + 0.3, REAPER.sweep)
    sweeper.start()
    long = session.exec("import time\ntime.sleep(3.6)\ntotal", timeout_s=10)
    sweeper.join()
    assert long.stdout == b"4950\n"
    time.sleep(0.3)
    assert not session.closed and session.exec("total").stdout == b"4950\n"
    deadline = time.monotonic() + 2 + HOST_GRACE_S + 10
    while not session.closed and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session.closed
    no_leftovers(token)
    result = session.exec("total")
    assert result.error is not None and "expired" in result.error


def test_cells_report_errors_and_keep_going(sessions):
    with sessions.session("python") as session:
        failed = session.exec("x = 1\n1 / 0")
        assert (
            failed.exit_code == 1
            and failed.stderr.decode().splitlines()[-1] == "ZeroDivisionError: division by zero"
        )
        assert session.exec("x").stdout == b"1\n"
        assert session.exec("import sys; sys.exit(0)").exit_code == 1
        assert session.exec("x + 1").stdout == b"2\n"


def test_a_cell_timeout_interrupts_and_keeps_state(sessions):
    with sessions.session("python") as session:
        session.exec("x = 7")
        result = session.exec("while True:\n    pass", timeout_s=1)
        assert result.timed_out and b"KeyboardInterrupt" in result.stderr
        assert session.exec("x").stdout == b"7\n"


def test_a_cell_that_ignores_interrupts_is_killed(sessions):
    with sessions.session("python") as session:
        session.exec("x = 7")
        code = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
        result = session.exec(code, timeout_s=1)
        assert result.timed_out and result.signal == 9
        assert any("state was lost" in note for note in result.info["notes"])
        assert session.exec("'x' in globals()").stdout == b"False\n"


def test_shell_session_files_and_diff(sessions):
    with sessions.session("shell", files={"a.txt": "one\n", "keep.txt": "k\n"}) as session:
        result = session.exec("echo two >> a.txt && echo new > b.txt && pwd")
        assert result.stdout == b"/work\n"
        assert session.exec("cat a.txt").stdout == b"one\ntwo\n"
        session.put({"c/d.txt": "put"})
        assert session.get(["c/d.txt", "a.txt", "missing"]) == {
            "c/d.txt": b"put",
            "a.txt": b"one\ntwo\n",
        }
        diff = session.diff()
        assert "+two" in diff and "b/b.txt" in diff and "keep.txt" not in diff


def test_shell_session_refuses_symlink_tricks(sessions):
    with sessions.session("shell") as session:
        session.exec("ln -s /tmp evil && ln -s /etc/passwd pw")
        with pytest.raises(InfrastructureError):
            session.put({"evil/planted": "x"})
        assert session.exec("ls /tmp").stdout == b""
        assert session.get(["pw"]) == {}


def test_shell_background_processes_persist_until_close(sessions, token, no_leftovers):
    session = sessions.session("shell")
    session.exec(f"PALAESTRA_MARK={token} nohup sleep 600 >/dev/null 2>&1 &")
    assert session.exec("sleep 0.2; pgrep -c sleep || ls /proc | grep -c '^[0-9]'").exit_code == 0
    session.close()
    no_leftovers(token)
    assert session.closed and session.exec("true").error == "the session is closed"


def test_context_manager_and_finaliser_close_sessions(sessions, token, no_leftovers):
    with sessions.session("python") as session:
        session.exec(_sleeper(token))
    no_leftovers(token)
    leaked = sessions.session("python")
    leaked.exec(_sleeper(token + "x"))
    del leaked
    gc.collect()
    no_leftovers(token + "x")


def test_the_reaper_closes_sessions_whose_agent_is_silent(local_backend):
    session = local_backend.session("python", idle_timeout_s=0.5)
    session._channel.kill()
    time.sleep(0.5 + 2.5)
    assert REAPER.sweep() >= 0
    deadline = time.monotonic() + 5
    while not session.closed and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session.closed


def test_session_limits_apply(sessions):
    with sessions.session("python", limits=Limits(memory_mb=128, output_bytes=100)) as session:
        big = session.exec("print('x' * 1000)")
        assert len(big.stdout) == 100 and big.stdout_truncated
        bomb = session.exec("y = bytearray(1 << 30)")
        assert bomb.exit_code != 0 or bomb.oom_killed


def test_bad_session_arguments():
    from palaestra.sandbox.local import LocalBackend

    backend = LocalBackend(prestart=0)
    try:
        with pytest.raises(ValueError):
            backend.session("ruby")
        with pytest.raises(ValueError):
            backend.session("python", idle_timeout_s=0)
        with pytest.raises(ValueError):
            backend.session("shell", files={"../x": "y"})
    finally:
        backend.close()
