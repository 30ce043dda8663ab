"""The rollout engine stays readable: no long functions in the engine or its scheduling."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

MODULES = ("palaestra.agents.rollout", "palaestra.agents.scheduling")
MAX_LINES = 60
"""Longest a function may be, from its ``def`` line to its last line."""
MAX_EPISODE_LINES = 49
"""`RolloutEngine._episode` reads at a glance: under 50 lines."""


def _function_lengths(module: str) -> dict[str, int]:
    """Each function's qualified name (``Class.method``) and length in lines."""
    path = Path(importlib.util.find_spec(module).origin)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    lengths[name] = child.end_lineno - child.lineno + 1
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return lengths


@pytest.mark.parametrize("module", MODULES)
def test_no_function_is_longer_than_the_limit(module):
    lengths = _function_lengths(module)
    assert lengths, f"{module} defines no functions"
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not too_long, f"{module}: functions over {MAX_LINES} lines: {too_long}"


def test_the_episode_coroutine_is_under_fifty_lines():
    lengths = _function_lengths("palaestra.agents.rollout")
    assert lengths["RolloutEngine._episode"] <= MAX_EPISODE_LINES


def test_lengths_count_from_the_def_line_to_the_last_line(tmp_path, monkeypatch):
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
    (tmp_path / "length_probe.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _function_lengths("length_probe") == {"A.f": 4, "g": 2}
