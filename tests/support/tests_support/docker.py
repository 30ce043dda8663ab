"""The Docker engine for tests: started when none answers, skipped only where none can start."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest


def docker_ping() -> str | None:
    """None if an engine answers, else why not."""
    try:
        import docker
    except ImportError:
        return 'the docker package is not installed (pip install "palaestra[docker]")'
    try:
        docker.from_env().ping()
        return None
    except Exception as e:  # any failure to reach the engine is the reason to report
        return f"{type(e).__name__}: {e}"


def start_dockerd() -> str | None:
    """Starts dockerd in the background if we can; returns why not, or None once it answers."""
    binary = shutil.which("dockerd")
    if binary is None:
        return "dockerd is not installed (apt-get install docker.io, or run .ci/setup-sandbox.sh)"
    if os.geteuid() != 0:
        return "dockerd is not running and starting it needs root"
    with open("/var/log/palaestra-test-dockerd.log", "ab") as log:
        subprocess.Popen([binary], stdout=log, stderr=log, start_new_session=True)
    for _ in range(60):
        if docker_ping() is None:
            return None
        time.sleep(1)
    return "dockerd did not answer within 60 s (see /var/log/palaestra-test-dockerd.log)"


def require_docker_engine() -> None:
    """A running engine with the base image built; `pytest.skip` only if no engine can start."""
    reason = docker_ping()
    if reason is not None and "not installed (pip" in reason:
        pytest.skip(f"Docker engine cannot be used: {reason}")
    if reason is not None:
        why = start_dockerd()
        if why is not None:
            pytest.skip(f"Docker engine cannot start: {reason}; {why}")
    from palaestra.sandbox.images import base_tag, build_base_image, image_exists

    if not image_exists(base_tag()):
        build_base_image(log=lambda line: None)
