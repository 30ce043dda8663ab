"""Every game survives thousands of random and garbage actions: no exception, valid
observations, and every episode ends within its turn limit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import palaestra
from palaestra.checker import garbage_actions

GAME_IDS = [spec.id for spec in palaestra.list_envs("game") if spec.id != "GuessNumber-v0"]
ACTIONS_PER_GAME = 2_000

_GARBAGE = [
    action
    for name, action in garbage_actions()
    if name not in ("megabyte", "megabyte_of_tags", "tag_soup")
]
_WORDS = [
    "up",
    "reveal a1",
    "flag b2",
    "1 2",
    "A C",
    "accept",
    "propose 1 1 1",
    "bet",
    "fold",
    "cooperate",
    "e",
    "4",
    "crane",
]


def _action(env, rng: np.random.Generator):
    """Half well-formed random moves, a quarter random words in the move tag, a quarter junk."""
    draw = rng.random()
    if draw < 0.5:
        return env.random_action(rng)
    if draw < 0.75:
        word = _WORDS[int(rng.integers(len(_WORDS)))]
        noise = "".join(chr(int(c)) for c in rng.integers(32, 127, size=int(rng.integers(0, 4))))
        return f"<think>hmm</think><move>{word}{noise}</move>"
    return _GARBAGE[int(rng.integers(len(_GARBAGE)))]


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_random_and_garbage_actions(env_id):
    spec = palaestra.spec(env_id)
    env = palaestra.make(env_id)
    rng = np.random.default_rng(np.random.SeedSequence([7, GAME_IDS.index(env_id)]))
    actions, episodes = 0, 0
    while actions < ACTIONS_PER_GAME:
        observation, info = env.reset(seed=episodes)
        assert env.observation_space.contains(observation)
        episodes += 1
        for _ in range(spec.max_turns):
            observation, reward, terminated, truncated, info = env.step(_action(env.unwrapped, rng))
            actions += 1
            assert env.observation_space.contains(observation), observation
            assert isinstance(reward, float) and math.isfinite(reward)
            assert not (terminated and truncated)
            assert reward == pytest.approx(sum(info["reward_parts"].values()))
            if terminated or truncated:
                assert isinstance(info["success"], bool)
                break
        else:
            pytest.fail(f"{env_id}: an episode outlasted max_turns={spec.max_turns}")
    assert episodes > 1


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_text_actions_end_unwrapped_episodes_within_the_game_budget(env_id):
    """Without make()'s wrappers a game still ends by itself (its own turn budget or rules)."""
    env = palaestra.make(env_id, max_turns=None, max_invalid=None)
    rng = np.random.default_rng(np.random.SeedSequence([8, GAME_IDS.index(env_id)]))
    limit = palaestra.spec(env_id).max_turns
    for seed in range(3):
        env.reset(seed=seed)
        for _ in range(limit):
            action = env.unwrapped.random_action(rng) if rng.random() < 0.5 else "not a move"
            *_, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        else:
            pytest.fail(f"{env_id}: an unwrapped episode outlasted {limit} text turns")
