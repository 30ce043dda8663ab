"""Fixtures of the code env tests: a Docker backend, when an engine can be started at all."""

from __future__ import annotations

import pytest
from tests_support.docker import require_docker_engine


@pytest.fixture(scope="session")
def docker_backend():
    """A Docker backend with the base image built; skips only where no engine can start."""
    require_docker_engine()
    from palaestra.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(max_concurrency=4, pool_size=2)
    yield backend
    backend.close()
