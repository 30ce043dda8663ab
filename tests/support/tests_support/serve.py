"""Servers for the serve tests: in-process (a uvicorn thread) or a child process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import uvicorn

from palaestra.serve import ServeConfig, create_app

TOKEN = "correct-horse-battery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"no server answered at {url}")
        time.sleep(0.05)


class ThreadServer:
    """A uvicorn server on a free port in a thread of this process."""

    def __init__(self, **options):
        self.config = ServeConfig(port=free_port(), **options)
        self.url = f"http://127.0.0.1:{self.config.port}"
        self.app = create_app(self.config)
        self.server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                host="127.0.0.1",
                port=self.config.port,
                ws_max_size=self.config.max_message_bytes,
                log_level="error",
                access_log=False,
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def store(self):
        return self.app.state.store

    def __enter__(self):
        self.thread.start()
        wait_healthy(self.url)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)


class ProcessServer:
    """`palaestra serve` in a child process (for tests that kill the server)."""

    def __init__(self, *args: str, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = args
        self.process: subprocess.Popen | None = None

    def start(self) -> ProcessServer:
        env = dict(os.environ)
        env.pop("PYTHONHASHSEED", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "palaestra.cli", "serve", *self.args, "--port", str(self.port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            wait_healthy(self.url)
        except TimeoutError:
            self.kill()
            raise
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
