"""Helpers for the MCP tests: specs of the test server, an HTTP server, child processes."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SUPPORT = str(Path(__file__).resolve().parent.parent)


def stdio_spec(*arguments: str, name: str | None = None) -> dict:
    """The spec of `tests_support.mcp_servers` run over stdio (extra command-line arguments)."""
    spec = {
        "command": [sys.executable, "-m", "tests_support.mcp_servers", *arguments],
        "env": {"PYTHONPATH": SUPPORT},
    }
    if name is not None:
        spec["name"] = name
    return spec


@contextlib.contextmanager
def http_server(*arguments: str, log: Path) -> Iterator[dict]:
    """Runs `tests_support.mcp_servers` over streamable HTTP; yields its spec, then stops it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "tests_support.mcp_servers", "--port", str(port), *arguments]
    env = {**os.environ, "PYTHONPATH": SUPPORT}
    with open(log, "w") as stderr:
        process = subprocess.Popen(command, env=env, stderr=stderr, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    message = f"the MCP test server did not start: {log.read_text()}"
                    raise RuntimeError(message) from None
                time.sleep(0.1)
        yield {"url": f"http://127.0.0.1:{port}/mcp", "name": "http-test"}
    finally:
        process.kill()
        process.wait()


def child_pids() -> set[int]:
    """The ids of this process's live child processes (zombies included: they are leaks too)."""
    me, children = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == me:
            children.add(int(stat.parent.name))
    return children
