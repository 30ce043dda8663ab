"""The rollout engine stays readable: no long functions in the engine or its scheduling."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from tests_support.layout import MAX_FUNCTION_LINES, function_lengths, too_long

MODULES = ("palaestra.agents.rollout", "palaestra.agents.scheduling")
MAX_EPISODE_LINES = 49
"""`RolloutEngine._episode` reads at a glance: under 50 lines."""


def _path(module: str) -> Path:
    return Path(importlib.util.find_spec(module).origin)


@pytest.mark.parametrize("module", MODULES)
def test_no_function_is_longer_than_the_limit(module):
    assert function_lengths(_path(module)), f"{module} defines no functions"
    long = too_long(_path(module))
    assert not long, f"{module}: functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_the_episode_coroutine_is_under_fifty_lines():
    lengths = function_lengths(_path("palaestra.agents.rollout"))
    assert lengths["RolloutEngine._episode"] <= MAX_EPISODE_LINES


def test_lengths_count_from_the_def_line_to_the_last_line(tmp_path):
    source = (
        "class A:\n"
        "    def f(self):\n"
        "        x = 1\n"
        "\n"
        "        return x\n"
        "\n"
        "\n"
        "async def g():\n"
        "    pass\n"
    )
    probe = tmp_path / "length_probe.py"
    probe.write_text(source, encoding="utf-8")
    assert function_lengths(probe) == {"A.f": 4, "g": 2}
