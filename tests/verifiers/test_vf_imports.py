"""The verifier modules import one another in one direction, and each imports on its own."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = "palaestra.verifiers"
FOLDER = Path(__file__).parents[2] / "verifiers"
MODULES = sorted(p.stem for p in FOLDER.glob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """The package's modules a file imports anywhere: top level, inside functions, for typing."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
            for alias in node.names:
                # `from palaestra.verifiers import fastmath` names a module; `import get` does not.
                found.add(alias.name if alias.name in MODULES else "__init__")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE + "."):
            found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith(PACKAGE + ".")}
    found.discard(path.stem)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in a directed graph as a list of nodes (first == last), or None."""
    state: dict[str, str] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        trail.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return trail[trail.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = "done"
        trail.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_scan_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from palaestra.verifiers import fastmath\n"
        "if TYPE_CHECKING:\n"
        "    from palaestra.verifiers.base import Verifier\n"
        "def f():\n"
        "    from palaestra.verifiers.pool import default_pool\n"
        "    from palaestra.verifiers import get\n"
        "    import palaestra.verifiers.batch\n",
        encoding="utf-8",
    )
    assert imported_modules(source) == {"fastmath", "base", "pool", "__init__", "batch"}


def test_no_import_cycle_among_verifier_modules():
    graph = {name: imported_modules(FOLDER / f"{name}.py") for name in MODULES}
    assert set().union(*graph.values()) <= set(MODULES)
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_in_a_fresh_interpreter(module):
    name = PACKAGE if module == "__init__" else f"{PACKAGE}.{module}"
    done = subprocess.run(
        [sys.executable, "-c", f"import {name}"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
