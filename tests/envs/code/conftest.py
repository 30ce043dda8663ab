"""Fixtures of the code env tests: a Docker backend, when an engine can be started at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest


def _docker_ping() -> str | None:
    """None if an engine answers, else why not."""
    try:
        import docker
    except ImportError:
        return "the docker package is not installed (pip install 'palaestra[docker]')"
    try:
        docker.from_env().ping()
        return None
    except Exception as e:  # any failure to reach the engine is the reason to report
        return f"{type(e).__name__}: {e}"


def _start_dockerd() -> str | None:
    """Starts dockerd in the background if possible; returns why not, or None once it answers."""
    binary = shutil.which("dockerd")
    if binary is None:
        return "dockerd is not installed (see .ci/docker-setup.sh)"
    if os.geteuid() != 0:
        return "dockerd is not running and starting it needs root"
    with open("/var/log/palaestra-test-dockerd.log", "ab") as log:
        subprocess.Popen([binary], stdout=log, stderr=log, start_new_session=True)
    for _ in range(60):
        if _docker_ping() is None:
            return None
        time.sleep(1)
    return "dockerd did not answer within 60 s"


@pytest.fixture(scope="session")
def docker_backend():
    """A Docker backend with the base image built; skips only where no engine can start."""
    reason = _docker_ping()
    if reason is not None and "not installed (pip" in reason:
        pytest.skip(f"Docker engine cannot be used: {reason}")
    if reason is not None:
        why = _start_dockerd()
        if why is not None:
            pytest.skip(f"Docker engine cannot start: {reason}; {why}")
    from palaestra.sandbox.docker_backend import DockerBackend
    from palaestra.sandbox.images import base_tag, build_base_image, image_exists

    if not image_exists(base_tag()):
        build_base_image(log=lambda line: None)
    backend = DockerBackend(max_concurrency=4, pool_size=2)
    yield backend
    backend.close()
