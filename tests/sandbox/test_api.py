"""The sandbox contract without running anything: validation, wire format, helpers."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile

import pytest

from palaestra.errors import InfrastructureError
from palaestra.sandbox import Limits, RunRequest, RunResult, get_backend
from palaestra.sandbox._guest import FrameDecoder, ProtocolError, encode_frame, unified_diff
from palaestra.sandbox._host import Collector, SlotPool, build_result, pack_files, unpack_files
from palaestra.sandbox.images import apt_mirror, base_tag


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("wall_s", 0, ValueError),
        ("wall_s", "1", TypeError),
        ("wall_s", float("inf"), ValueError),
        ("memory_mb", 1.5, TypeError),
        ("memory_mb", 8, ValueError),
        ("pids", True, TypeError),
        ("disk_mb", 0, ValueError),
        ("nofile", 4, ValueError),
        ("output_bytes", -1, ValueError),
        ("cpus", 0, ValueError),
        ("network", "yes", TypeError),
    ],
)
def test_limits_reject_bad_values(field, value, error):
    with pytest.raises(error, match=field):
        Limits(**{field: value})


def test_limits_reject_unknown_fields():
    with pytest.raises(TypeError):
        Limits(memory=1)


def test_request_needs_exactly_one_program():
    with pytest.raises(ValueError, match="exactly one"):
        RunRequest()
    with pytest.raises(ValueError, match="exactly one"):
        RunRequest(argv=["true"], code="pass")
    with pytest.raises(TypeError):
        RunRequest(argv="true")
    with pytest.raises(ValueError, match="unknown language"):
        RunRequest(code="x", language="cobol")


def test_request_normalises_its_fields():
    request = RunRequest(
        code="print(1)", stdin="é", files={"a/b.txt": "x"}, args=["1"], env={"A": "b"}
    )
    assert request.stdin == "é".encode()
    assert request.files == {"a/b.txt": b"x"}
    assert request.command() == ("python3", "main.py", "1")
    assert request.all_files() == {"a/b.txt": b"x", "main.py": b"print(1)"}
    assert request.environment()["A"] == "b" and request.environment()["HOME"] == "/work"


@pytest.mark.parametrize("bad", [{"A=B": "x"}, {"": "x"}, {"A": 1}, {"A": "x\0y"}])
def test_request_rejects_bad_environment(bad):
    with pytest.raises((ValueError, TypeError)):
        RunRequest(code="pass", env=bad)


def test_request_rejects_conflicting_files():
    with pytest.raises(ValueError, match="main.py"):
        RunRequest(code="pass", files={"main.py": "x"})
    with pytest.raises(ValueError, match="also a directory"):
        RunRequest(argv=["true"], files={"a": "x", "a/b": "y"})
    with pytest.raises(TypeError):
        RunRequest(argv=["true"], fetch="out.txt")


def test_result_helpers():
    ok = RunResult(exit_code=0)
    assert ok.ok and ok.raise_for_error() is ok
    failed = RunResult.failure("engine gone", backend="x")
    assert not failed.ok and failed.info == {"backend": "x"}
    with pytest.raises(InfrastructureError, match="engine gone"):
        failed.raise_for_error()
    assert not RunResult(exit_code=0, timed_out=True).ok
    assert RunResult(stdout=b"\xffa").stdout_text == "\ufffda"


def test_get_backend_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown sandbox backend"):
        get_backend("firecracker")
    with pytest.raises(TypeError):
        get_backend("local", speed=11)


def test_frames_round_trip_and_reject_garbage():
    decoder = FrameDecoder(max_blob=100)
    data = encode_frame({"t": "o", "s": 1}, b"abc") + encode_frame({"t": "exit"})
    frames = []
    for i in range(len(data)):
        frames += decoder.feed(data[i : i + 1])
    assert frames == [({"t": "o", "s": 1}, b"abc"), ({"t": "exit"}, b"")]
    with pytest.raises(ProtocolError):
        FrameDecoder(max_blob=2).feed(encode_frame({"t": "o"}, b"abc"))
    with pytest.raises(ProtocolError):
        FrameDecoder(max_blob=2).feed(b"\x00\x00\x00\x02\x00\x00\x00\x00[]")


def test_collector_caps_and_keeps_later_frames():
    collector = Collector(cap=4)
    rest = collector.feed(
        [
            ({"t": "o", "s": 1}, b"abcdef"),
            ({"t": "exit", "code": 0, "out_total": 6}, b""),
            ({"t": "ready"}, b""),
        ]
    )
    assert rest == [({"t": "ready"}, b"")]
    result = build_result(collector, wall_s=0.1, info={})
    assert result.stdout == b"abcd" and result.stdout_truncated and result.exit_code == 0


def test_build_result_reports_silent_sandboxes_as_errors():
    assert build_result(Collector(cap=4), wall_s=0.1, info={}).error is not None
    killed = build_result(Collector(cap=4), wall_s=0.1, info={}, host_killed=True)
    assert killed.error is None and killed.timed_out and killed.signal == 9


def test_files_pack_and_unpack():
    files = {"a.txt": b"x", "dir/run.sh": b"#!/bin/sh\n"}
    packed = pack_files(files)
    assert unpack_files(packed) == files
    with tarfile.open(fileobj=io.BytesIO(packed)) as tar:
        assert tar.getmember("dir/run.sh").mode & 0o111
    evil = io.BytesIO()
    with tarfile.open(fileobj=evil, mode="w:") as tar:
        info = tarfile.TarInfo("../escape")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    assert unpack_files(evil.getvalue()) == {}


def test_unified_diff():
    before = {"a.txt": ("file", b"one\n"), "gone.txt": ("file", b"x")}
    after = {"a.txt": ("file", b"one\ntwo\n"), "new.bin": ("file", b"\0\1")}
    diff = unified_diff(before, after)
    assert (
        "+two" in diff
        and "deleted file mode" in diff
        and "Binary files a/new.bin and b/new.bin differ" in diff
    )
    assert "\\ No newline at end of file" in diff


def test_slot_pool_serves_threads_and_tasks():
    import asyncio
    import threading

    pool = SlotPool(1)
    first = pool.acquire()
    got = []

    async def waiter():
        got.append(await pool.aacquire())

    async def main():
        task = asyncio.create_task(waiter())
        await asyncio.sleep(0.05)
        threading.Timer(0.05, pool.release, args=(first,)).start()
        await asyncio.wait_for(task, 5)

    asyncio.run(main())
    assert got == [first]
    with pytest.raises(TimeoutError):
        pool.acquire(timeout=0.05)


def test_apt_mirror_reads_both_source_formats(tmp_path):
    (tmp_path / "a.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm bookworm-updates\n"
    )
    assert apt_mirror("bookworm", [str(tmp_path)]) == "http://mirror.example/debian"
    legacy = tmp_path / "sources.list"
    legacy.write_text("# comment\ndeb [arch=amd64] http://old.example/debian bullseye main\n")
    assert apt_mirror("bullseye", [str(legacy)]) == "http://old.example/debian"
    assert apt_mirror("trixie", [str(legacy)]) == "http://deb.debian.org/debian"


def test_image_tags_follow_the_recipe():
    assert base_tag() == base_tag()
    assert base_tag() != base_tag(packages=("python3",))
    assert base_tag().startswith("palaestra-sandbox:base-")


def test_importing_the_sandbox_is_cheap():
    code = (
        "import sys, palaestra.sandbox\n"
        "assert 'docker' not in sys.modules, 'docker imported'\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "ok\n", done.stderr
