"""The conformance checker: it passes good envs and catches each kind of broken one."""

from __future__ import annotations

import random

import numpy as np
import pytest

import palaestra
from palaestra.checker import _check_garbage_case, _Failed, check_env, garbage_actions
from palaestra.errors import ConformanceError

GOOD = ["Arithmetic-v0", "GuessNumber-v0", "Calculator-v0"]


def _report(registered, name: str, **make_options):
    env_id = registered(f"{name}-v0", f"tests_support.envs:{name}", max_turns=5)
    env = palaestra.make(env_id, **make_options)
    return check_env(env, raise_on_failure=False, step_timeout=2.0)


def _failed(report) -> set[str]:
    return {check for check, _ in report.failures}


def test_a_good_env_passes_every_check(registered):
    report = _report(registered, "EchoEnv")
    assert report.ok, str(report)
    assert {"api", "oracle", "determinism", "close", "garbage:stream"} <= set(report.passed)


def test_failures_raise_conformance_error_listing_them(registered):
    env_id = registered("BrokenOracleEnv-v0", "tests_support.envs:BrokenOracleEnv")
    with pytest.raises(ConformanceError, match="oracle"):
        check_env(palaestra.make(env_id))


@pytest.mark.parametrize(
    "broken, check",
    [
        ("BrokenOracleEnv", "oracle"),
        ("BrokenGlobalRandomEnv", "determinism"),
        ("BrokenHashEnv", "determinism"),
        ("BrokenBothFlagsEnv", "api"),
        ("BrokenPartsEnv", "api"),
        ("BrokenCloseEnv", "close"),
        ("BrokenHangEnv", "garbage:empty"),
        ("BrokenCrashEnv", "garbage:integer"),
        ("BrokenSilentEnv", "garbage:empty"),
        ("BrokenGenerousEnv", "garbage:empty"),
    ],
)
def test_each_broken_env_fails_its_check(registered, broken, check):
    report = _report(registered, broken)
    assert check in _failed(report), str(report)


def test_global_rng_is_left_untouched_by_good_envs():
    random.seed(7)
    np.random.seed(7)
    before = (random.getstate(), np.random.get_state()[1].copy())
    env = palaestra.make("GuessNumber-v0")
    env.reset(seed=0)
    while True:
        *_, terminated, truncated, _ = env.step(env.oracle_action())
        if terminated or truncated:
            break
    assert random.getstate() == before[0]
    assert (np.random.get_state()[1] == before[1]).all()


CASES = [name for name, _ in garbage_actions()]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("env_id", GOOD)
def test_garbage_case_is_handled_by_every_exemplar(env_id, case):
    action = dict(garbage_actions())[case]
    _check_garbage_case(palaestra.make(env_id), case, action, seed=0, timeout=20.0)


@pytest.mark.parametrize("case", CASES)
def test_garbage_case_catches_a_crashing_env(registered, case):
    env_id = registered("Crash-v0", "tests_support.envs:BrokenCrashEnv")
    action = dict(garbage_actions())[case]
    with pytest.raises(_Failed, match="raised"):
        _check_garbage_case(palaestra.make(env_id), case, action, seed=0, timeout=20.0)


@pytest.mark.parametrize("case", CASES)
def test_garbage_case_catches_an_env_that_accepts_it(registered, case):
    env_id = registered("Generous-v0", "tests_support.envs:BrokenGenerousEnv")
    action = dict(garbage_actions())[case]
    with pytest.raises(_Failed, match="success|positive reward"):
        _check_garbage_case(palaestra.make(env_id), case, action, seed=0, timeout=20.0)


@pytest.mark.parametrize("case", CASES)
def test_garbage_case_catches_an_env_that_ignores_it(registered, case):
    env_id = registered("Silent-v0", "tests_support.envs:BrokenSilentEnv")
    action = dict(garbage_actions())[case]
    base = palaestra.make(env_id, max_invalid=None)
    with pytest.raises(_Failed, match="silently|invalid_action|no message"):
        _check_garbage_case(base, case, action, seed=0, timeout=20.0)
