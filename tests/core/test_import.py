"""`import palaestra` is light: no heavy dependency, no env family, fast."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

PROBE = """
import json, sys, time
start = time.perf_counter()
import palaestra
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "modules": sorted(sys.modules)}))
"""

HEAVY = ("torch", "transformers", "docker", "vllm", "sympy", "math_verify", "datasets")


def _probe(env) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env(), check=True
    )
    return json.loads(out.stdout)


def test_import_pulls_in_nothing_heavy_and_no_env_family(subprocess_env):
    modules = _probe(subprocess_env)["modules"]
    for heavy in HEAVY:
        assert heavy not in modules, f"import palaestra imported {heavy}"
    families = [
        m for m in modules if m.startswith("palaestra.envs") or m.startswith("palaestra.verifiers")
    ]
    assert families == [], f"import palaestra imported env families or verifiers: {families}"
    for part in ("palaestra.agents", "palaestra.trainers", "palaestra.sandbox"):
        assert part not in modules


def test_import_is_fast(subprocess_env):
    # Best of five fresh interpreters: the acceptance bar is 0.3 s.
    best = min(_probe(subprocess_env)["seconds"] for _ in range(5))
    assert best < 0.3, f"import palaestra took {best:.3f} s"


def test_public_names_resolve_lazily():
    import palaestra

    for name in palaestra.__all__:
        assert getattr(palaestra, name) is not None
    try:
        palaestra.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("unknown attribute did not raise")


def test_no_core_module_imports_an_env_family(repo_root):
    # The core reaches env families only through the registry's entry points.
    offenders = []
    for path in sorted((repo_root / "palaestra").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.startswith("palaestra.envs")]
    assert offenders == []
