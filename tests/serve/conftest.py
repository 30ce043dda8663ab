"""Fixtures of the serve tests (the servers are in `tests_support.serve`)."""

from __future__ import annotations

import contextlib

import pytest
from tests_support.serve import ProcessServer, ThreadServer


@pytest.fixture
def serve():
    """`serve(**ServeConfig fields)` starts a thread server for the test."""
    with contextlib.ExitStack() as stack:
        yield lambda **options: stack.enter_context(ThreadServer(**options))


@pytest.fixture
def process_server():
    """`process_server(*cli_args)` makes (but does not start) a child-process server."""
    made: list[ProcessServer] = []

    def make(*args: str, port: int | None = None) -> ProcessServer:
        made.append(ProcessServer(*args, port=port))
        return made[-1]

    yield make
    for server in made:
        server.kill()
