"""Every registered id keeps the contract.

Checked three ways: Palaestra's checker, Gymnasium's checker and `gymnasium.make`.
"""

from __future__ import annotations

import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import palaestra

SPECS = palaestra.list_envs()
IDS = [spec.id for spec in SPECS]


def _skip_unavailable(env_id: str) -> None:
    spec = palaestra.spec(env_id)
    if "needs-docker" in spec.tags:
        from palaestra.sandbox import docker_available  # noqa: PLC0415

        if not docker_available():
            pytest.skip("no Docker engine can be started on this machine")


@pytest.mark.parametrize("env_id", IDS)
def test_palaestra_check_env(env_id):
    _skip_unavailable(env_id)
    report = palaestra.check_env(palaestra.make(env_id))
    assert report.ok
    assert not [n for n in report.notes if "not checked" in n and "garbage" in n], report.notes


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env(env_id, capsys):
    _skip_unavailable(env_id)
    env = palaestra.make(env_id).unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium_check_env(env)
    gymnasium_warnings = [str(w.message) for w in caught if "gymnasium" in str(w.filename)]
    assert gymnasium_warnings == []


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_make_plays_the_oracle(env_id):
    _skip_unavailable(env_id)
    name, version = env_id.rsplit("-v", 1)
    if f"{name}-v{int(version) + 1}" in IDS:  # Gymnasium tells users of an old version
        with pytest.warns(DeprecationWarning, match=f"{env_id} is out of date"):
            env = gymnasium.make(f"palaestra:palaestra/{env_id}")
    else:
        env = gymnasium.make(f"palaestra:palaestra/{env_id}")
    env.reset(seed=0)
    oracle = env.get_wrapper_attr("oracle_action")
    for _ in range(10_000):
        *_, terminated, truncated, info = env.step(oracle())
        if terminated or truncated:
            break
    assert terminated and info["success"] is True
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_every_id_has_a_description_tags_and_a_shape_tag(env_id):
    spec = palaestra.spec(env_id)
    assert spec.description, spec.id
    assert {"single-turn", "multi-turn"} & set(spec.tags), (
        f"{spec.id} needs single-turn or multi-turn"
    )
