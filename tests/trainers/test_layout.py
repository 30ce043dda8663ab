"""The trainer reads top to bottom: short functions, and the loop module opens with the loop."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests_support.layout import MAX_FUNCTION_LINES, too_long

ROOT = Path(__file__).resolve().parents[2]

SHORT_FUNCTION_FILES = sorted((ROOT / "trainers").glob("*.py"))
"""The modules held to `MAX_FUNCTION_LINES`."""


@pytest.mark.parametrize("path", SHORT_FUNCTION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_functions_fit_on_a_screen(path):
    long = too_long(path)
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines in {path.name}: {long}"


def test_the_checked_files_are_found():
    assert {p.name for p in SHORT_FUNCTION_FILES} >= {"loop.py", "batch.py", "losses.py"}


def test_the_loop_module_opens_with_train():
    tree = ast.parse((ROOT / "trainers" / "loop.py").read_text(encoding="utf-8"))
    statements = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    docstring, first = statements[:2]
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    assert isinstance(first, ast.FunctionDef) and first.name == "train"
