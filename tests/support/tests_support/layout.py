"""How long a module's functions are: the readability checks of the trainer and the engine."""

from __future__ import annotations

import ast
from pathlib import Path

MAX_FUNCTION_LINES = 60
"""Longest a function may be, from its ``def`` line to its last line, docstring included."""


def function_lengths(path: Path) -> dict[str, int]:
    """Each function's qualified name (``Class.method``) and length in lines."""
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


def too_long(path: Path, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """The functions of ``path`` over ``limit`` lines, with their lengths."""
    return {name: n for name, n in function_lengths(path).items() if n > limit}
