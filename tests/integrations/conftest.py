"""Fixtures for the integration tests: a fresh tiny model per test (the tokenizer is the run's)."""

from __future__ import annotations

import pytest


@pytest.fixture
def model(tokenizer, tiny_cache):
    """A fresh tiny model per test: the trainers update it in place."""
    import torch
    from filelock import FileLock

    from palaestra.agents.tiny import tiny_model

    torch.set_num_threads(1)
    with FileLock(str(tiny_cache / "build.lock")):
        return tiny_model(tokenizer, cache_dir=tiny_cache)
