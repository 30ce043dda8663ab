"""A missing optional dependency gives an `error` verdict whose reason names the extra."""

import json
import subprocess
import sys

import pytest

from palaestra import verifiers
from palaestra.verifiers.constraints import check_assignment
from palaestra.verifiers.math import sympy_check

SMT = "(declare-const x Int) (assert (> x 2))"


def block(monkeypatch, module: str) -> None:
    """Makes `module` and its submodules unimportable, including ones imported already."""
    monkeypatch.setitem(sys.modules, module, None)
    for name in list(sys.modules):
        if name.startswith(module + "."):
            monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize(
    "module, extra, check",
    [
        ("math_verify", "math", lambda: sympy_check("\\sqrt{72}", "6\\sqrt{2}", 6, 3, "", "")),
        ("latex2sympy2_extended", "math", lambda: sympy_check("x+1", "1+x", 6, 3, "", "")),
        ("sympy", "math", lambda: sympy_check("\\pi", "3.14", 6, 3, "", "")),
        ("z3", "z3", lambda: check_assignment(SMT, {"x": 3}, 1000, "x = 3")),
        (
            "lean_dojo",
            "lean",
            lambda: verifiers.verify(
                "lean",
                "```lean\nby simp\n```",
                {"repo": "r", "commit": "c", "file": "f", "theorem": "t"},
            ),
        ),
    ],
    ids=["math_verify", "latex2sympy2_extended", "sympy", "z3", "lean_dojo"],
)
def test_a_missing_module_names_its_extra(monkeypatch, module, extra, check):
    block(monkeypatch, module)
    verdict = check()
    assert verdict.status.value == "error" and verdict.mask
    assert f'pip install "palaestra[{extra}]"' in verdict.reason, verdict.reason


LIGHT_INSTALL = """
import json, sys
from palaestra import verifiers
cases = json.loads(sys.argv[1])
print(json.dumps([verifiers.verify(*case).to_dict() for case in cases]))
"""


@pytest.mark.parametrize(
    "module, case, extra",
    [
        ("math_verify", ["math", "\\boxed{\\sqrt{72}}", "6\\sqrt{2}"], "math"),
        ("z3", ["z3", "\\boxed{x = 3}", SMT], "z3"),
    ],
)
def test_a_light_install_names_the_extra(tmp_path, subprocess_env, module, case, extra):
    # A package that fails to import stands in for one that is not installed, in this
    # interpreter and in the worker processes it starts (they inherit PYTHONPATH).
    stub = tmp_path / module
    stub.mkdir()
    message = f"No module named {module!r}"
    (stub / "__init__.py").write_text(f"raise ModuleNotFoundError({message!r}, name={module!r})\n")
    plain = ["math", "\\boxed{42}", "42"]  # the fast path needs no optional dependency
    done = subprocess.run(
        [sys.executable, "-c", LIGHT_INSTALL, json.dumps([case, plain])],
        capture_output=True,
        text=True,
        timeout=300,
        env=subprocess_env(PYTHONPATH=str(tmp_path)),
    )
    assert done.returncode == 0, done.stderr
    missing, settled = json.loads(done.stdout.strip().splitlines()[-1])
    assert missing["status"] == "error" and missing["mask"]
    assert f'pip install "palaestra[{extra}]"' in missing["reason"], missing["reason"]
    assert settled["status"] == "correct"
