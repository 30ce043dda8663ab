"""Snapshots (`get_state`/`set_state`) resume an episode exactly; `state_key` is hashable
and tells states apart."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import palaestra
from palaestra.checker import _plain

GAME_IDS = [spec.id for spec in palaestra.list_envs("game") if spec.id != "GuessNumber-v0"]


def _play(env, actions):
    return [json.dumps(_plain(list(env.step(a))), sort_keys=True) for a in actions]


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_set_state_replays_the_same_future(env_id):
    env = palaestra.make(env_id, max_turns=None, max_invalid=None).unwrapped
    rng = np.random.default_rng(np.random.SeedSequence([3, GAME_IDS.index(env_id)]))
    env.reset(seed=11)
    *_, terminated, truncated, _ = env.step(env.oracle_action())
    if terminated or truncated:  # one-move games: snapshot the opening instead
        env.reset(seed=11)
    snapshot = env.get_state()
    key = env.state_key()
    hash(key)
    actions = []
    for _ in range(4):
        actions.append(env.random_action(rng) if rng.random() < 0.7 else env.oracle_action())
    first = []
    for action in actions:
        out = env.step(action)
        first.append(json.dumps(_plain(list(out)), sort_keys=True))
        if out[2] or out[3]:
            break
    env.set_state(copy.deepcopy(snapshot))
    assert env.state_key() == key
    assert _play(env, actions[: len(first)]) == first
    # A fresh env of the same id resumes the snapshot too.
    other = palaestra.make(env_id, max_turns=None, max_invalid=None).unwrapped
    other.reset(seed=99)
    other.set_state(snapshot)
    assert other.state_key() == key
    assert _play(other, actions[: len(first)]) == first


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_state_key_changes_with_the_state(env_id):
    env = palaestra.make(env_id, max_turns=None, max_invalid=None).unwrapped
    env.reset(seed=5)
    keys = {env.state_key()}
    for _ in range(3):
        *_, terminated, truncated, _ = env.step(env.oracle_action())
        keys.add(env.state_key())
        if terminated or truncated:
            break
    assert len(keys) > 1


def test_set_state_rejects_foreign_objects():
    env = palaestra.make("Sokoban-v0").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="get_state"):
        env.set_state({"board": 1})
    game_env = palaestra.make("TicTacToe-v0").unwrapped
    game_env.reset(seed=0)
    with pytest.raises(ValueError, match="get_state"):
        game_env.set_state(env.get_state())
