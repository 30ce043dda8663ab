"""Fixtures for the integration tests: the tiny tokenizer (built fresh) and a fresh tiny model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory) -> Path:
    """The run's cache folder, shared by pytest-xdist workers (the tiny pair is built once)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / "palaestra-cache"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def tokenizer(tiny_cache):
    from filelock import FileLock

    from palaestra.agents.tiny import tiny_tokenizer

    with FileLock(str(tiny_cache / "build.lock")):
        return tiny_tokenizer(cache_dir=tiny_cache)


@pytest.fixture
def model(tokenizer, tiny_cache):
    """A fresh tiny model per test: the trainers update it in place."""
    import torch
    from filelock import FileLock

    from palaestra.agents.tiny import tiny_model

    torch.set_num_threads(1)
    with FileLock(str(tiny_cache / "build.lock")):
        return tiny_model(tokenizer, cache_dir=tiny_cache)
