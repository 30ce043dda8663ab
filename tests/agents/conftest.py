"""Fixtures for the agents tests: the tiny tokenizer and model (built fresh), a loopback server."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _load_server_module():
    name = "palaestra_tests_openai_server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "openai_server.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def model(tokenizer, tiny_cache):
    import torch
    from filelock import FileLock

    from palaestra.agents.tiny import tiny_model

    # The tiny model gains nothing from intra-op threads, and on a CPU shared with other
    # pytest workers their spin-waiting makes a 4-token generation take seconds (enough to
    # trip the HTTP timeouts the server tests set on purpose).
    torch.set_num_threads(1)
    with FileLock(str(tiny_cache / "build.lock")):
        return tiny_model(tokenizer, cache_dir=tiny_cache)


@pytest.fixture(scope="session")
def formatter(tokenizer):
    from palaestra.agents.chat import ChatFormatter

    return ChatFormatter(tokenizer)


@pytest.fixture(scope="module")
def server(model, tokenizer):
    """The tiny model behind an OpenAI-compatible server on 127.0.0.1."""
    from palaestra.agents.backends.hf import HFPolicy

    module = _load_server_module()
    running = module.PolicyServer(HFPolicy(model, tokenizer, seed=0), tokenizer, hang_s=3.0).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def server_module():
    """The module defining `PolicyServer`."""
    return _load_server_module()
