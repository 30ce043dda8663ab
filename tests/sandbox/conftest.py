"""Fixtures of the sandbox tests: backends (local, fast path, Docker) and host canaries.

The Docker fixtures start ``dockerd`` when none answers and build the base image when it
is missing; they skip only where no engine can start at all, and say why.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest
from tests_support.docker import require_docker_engine

from palaestra.sandbox import RunRequest

BACKENDS = [
    "local",
    "python",
    pytest.param("docker", marks=pytest.mark.docker),
]


# --------------------------------------------------------------------------- Docker engine


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """A running Docker engine with the base image built; skips only if no engine can start."""
    require_docker_engine()


@pytest.fixture(scope="session")
def docker_backend(docker_engine):
    from palaestra.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(max_concurrency=16, pool_size=4)
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def local_backend():
    from palaestra.sandbox.local import LocalBackend

    backend = LocalBackend(max_concurrency=64)
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def python_backend():
    from palaestra.sandbox.local import LocalBackend

    backend = LocalBackend(fast_python=True, max_concurrency=64)
    yield backend
    backend.close()


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each backend in turn: ``local``, ``python`` (the fast path) and ``docker``."""
    return request.getfixturevalue(f"{request.param}_backend")


# --------------------------------------------------------------------------- canaries


class _Service:
    """A TCP service on the host that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.sendall(b"canary-service\n")
            conn.close()

    def alive(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            return conn.recv(64) == b"canary-service\n"

    def close(self) -> None:
        self.sock.close()


def _host_ip() -> str | None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return None


class Canaries:
    """Things on the host that no sandboxed program may read, change or reach."""

    def __init__(self, tmp_path: Path) -> None:
        self.secret = secrets.token_hex(16)
        self.file = Path("/tmp") / f"palaestra-canary-{secrets.token_hex(6)}"
        self.file.write_text(self.secret)
        self.file_stat = self.file.stat()
        self.home_file = Path.home() / f".palaestra-canary-{secrets.token_hex(6)}"
        self.home_file.write_text(self.secret)
        os.chmod(self.home_file, 0o600)
        ssh = Path.home() / ".ssh"
        self.made_ssh = not ssh.exists()
        ssh.mkdir(mode=0o700, exist_ok=True)
        self.ssh_key = ssh / f"id_palaestra_canary_{secrets.token_hex(4)}"
        self.ssh_key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{self.secret}\n")
        os.chmod(self.ssh_key, 0o600)
        self.env_name = "PALAESTRA_CANARY_SECRET"
        os.environ[self.env_name] = self.secret
        self.service = _Service()
        self.host_ip = _host_ip()

    def check(self) -> None:
        """Asserts that the host is unharmed."""
        assert self.file.read_text() == self.secret, "the host canary file was changed"
        assert self.file.stat().st_mtime == self.file_stat.st_mtime, (
            "the host canary file was touched"
        )
        assert self.ssh_key.read_text().endswith(f"{self.secret}\n"), "the canary key was changed"
        assert self.home_file.read_text() == self.secret, (
            "the canary in the host's home was changed"
        )
        assert os.environ.get(self.env_name) == self.secret, "the host environment was changed"
        assert self.service.alive(), "the host loopback service died"
        assert self.service.connections == 1, (
            f"a sandbox reached the host service ({self.service.connections - 1} times)"
        )
        self.service.connections = 0
        assert not Path("/etc/palaestra-canary").exists(), "a sandbox wrote to the host's /etc"

    def close(self) -> None:
        self.service.close()
        for path in (self.file, self.home_file, self.ssh_key):
            path.unlink(missing_ok=True)
        if self.made_ssh:
            try:
                self.ssh_key.parent.rmdir()
            except OSError:
                pass  # another test process put something there meanwhile
        os.environ.pop(self.env_name, None)


@pytest.fixture
def canaries(tmp_path):
    """Host canaries, checked after the test: files in /tmp, $HOME and ~/.ssh, env, a service."""
    canary = Canaries(tmp_path)
    yield canary
    try:
        canary.check()
    finally:
        canary.close()


# --------------------------------------------------------------------------- helpers


def marked(token: str) -> list[int]:
    """Host pids whose name or initial environment carries ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_text().strip()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if comm == token[:15] or token.encode() in environ:
            found.append(int(entry.name))
    return found


def assert_no_leftovers(token: str, timeout: float = 10.0) -> None:
    """Waits until no host process carries ``token``; fails with the survivors if some remain."""
    deadline = time.monotonic() + timeout
    while True:
        survivors = marked(token)
        if not survivors:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"processes outlived their sandbox: {survivors}")
        time.sleep(0.1)


def run_python(backend, code: str, token: str | None = None, **kwargs) -> object:
    """Runs Python code; with ``token``, names the process and marks its environment."""
    prefix = ""
    env = dict(kwargs.pop("env", {}))
    if token is not None:
        prefix = f"import ctypes\nctypes.CDLL(None).prctl(15, {token[:15].encode()!r})\n"
        env["PALAESTRA_MARK"] = token
    return backend.run(RunRequest(code=prefix + code, env=env, **kwargs))


@pytest.fixture
def token() -> str:
    """A fresh marker for the processes of one test (see :func:`marked`)."""
    return "pt" + secrets.token_hex(6)


@pytest.fixture(scope="session")
def no_leftovers():
    """``no_leftovers(token)``: fails if a process marked with ``token`` is still alive."""
    return assert_no_leftovers


@pytest.fixture(scope="session")
def run_marked():
    """``run_marked(backend, code, token, **request_fields)``: see :func:`run_python`."""
    return run_python
