"""Fixtures of the SWE tests: a Docker engine, the shipped tasks' sources, a backend."""

from __future__ import annotations

import pytest
from tests_support.docker import require_docker_engine


@pytest.fixture(scope="session")
def swe_ready():
    """A Docker engine with the base image, and the wheelhouse holding the tasks' sources."""
    require_docker_engine()
    from palaestra.envs.swe import build
    from palaestra.envs.swe.task import shipped_tasks

    for task in shipped_tasks():
        build.check_source(task)  # CI fetches them at set-up: palaestra swe fetch


@pytest.fixture(scope="session")
def backend(swe_ready):
    from palaestra.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(max_concurrency=4, pool_size=0)
    yield backend
    backend.close()
