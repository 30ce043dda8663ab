"""The trainer reads top to bottom: short functions, and the loop module opens with the loop."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MAX_FUNCTION_LINES = 60
"""From a function's ``def`` line to its last line, docstring included."""

SHORT_FUNCTION_FILES = sorted((ROOT / "trainers").glob("*.py"))
"""The modules held to `MAX_FUNCTION_LINES`."""


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


@pytest.mark.parametrize("path", SHORT_FUNCTION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_functions_fit_on_a_screen(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = {
        f"{node.name} (line {node.lineno})": node.end_lineno - node.lineno + 1
        for node in _functions(tree)
        if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    }
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines in {path.name}: {long}"


def test_the_checked_files_are_found():
    assert {p.name for p in SHORT_FUNCTION_FILES} >= {"loop.py", "batch.py", "losses.py"}


def test_the_loop_module_opens_with_train():
    tree = ast.parse((ROOT / "trainers" / "loop.py").read_text(encoding="utf-8"))
    statements = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    docstring, first = statements[:2]
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    assert isinstance(first, ast.FunctionDef) and first.name == "train"
