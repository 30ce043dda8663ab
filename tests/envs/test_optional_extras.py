"""A task that needs an optional dependency says which extra installs it."""

import sys

import pytest

import palaestra
from palaestra.errors import MissingDependencyError


@pytest.mark.parametrize("env_id, module, extra", [("PolynomialExpansion-v0", "sympy", "math")])
def test_a_missing_module_names_its_extra(monkeypatch, env_id, module, extra):
    monkeypatch.setitem(sys.modules, module, None)
    for name in list(sys.modules):
        if name.startswith(module + "."):
            monkeypatch.setitem(sys.modules, name, None)
    env = palaestra.make(env_id)
    env.reset(seed=1)
    # Episodes need no extra (answers are checked in exact integers); certifying does.
    *_, info = env.step(env.unwrapped.oracle_action())
    assert info["success"]
    with pytest.raises(MissingDependencyError, match=f'pip install "palaestra\\[{extra}\\]"'):
        env.unwrapped.task.certify(env.unwrapped.problem_)
