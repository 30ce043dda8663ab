"""The curriculum pieces: a level that follows success (between episodes only), the mixture env."""

from __future__ import annotations

import collections

import pytest

import palaestra
from palaestra.envs.tasks.curriculum import (
    AdaptiveLevel,
    LevelController,
    LevelSchedule,
    TaskMixEnv,
)

WRONG = "<answer>definitely not it</answer>"


def play(env, seed, answer_well: bool):
    _, reset_info = env.reset(seed=seed)
    action = env.oracle_action() if answer_well else WRONG
    *_, info = env.step(action)
    return reset_info, info


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"window": 0}, "window"),
        ({"raise_at": 1.5}, "raise_at"),
        ({"raise_at": 0.2, "lower_at": 0.3}, "below raise_at"),
        ({"min_level": 5, "max_level": 2}, "above max_level"),
        ({"step": 0}, "step"),
    ],
)
def test_schedule_rejects_bad_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LevelSchedule(**kwargs)


def test_controller_moves_only_on_a_full_window_and_restarts_it():
    controller = LevelController(
        LevelSchedule(window=3, raise_at=0.6, lower_at=0.4, max_level=4), level=3
    )
    for _ in range(2):
        controller.record(True)
        assert controller.advance() == 0  # the window is not full yet
    controller.record(True)
    assert controller.advance() == 1 and controller.level == 4
    assert controller.state()["window_episodes"] == 0
    for _ in range(3):
        controller.record(True)
    assert controller.advance() == 0 and controller.level == 4  # capped at max_level
    controller.outcomes.clear()
    for success in (False, False, True):
        controller.record(success)
    assert controller.advance() == -1 and controller.level == 3


def test_adaptive_level_rises_with_success_between_episodes_only():
    env = AdaptiveLevel(
        palaestra.make("KnightsKnaves-v0", level=1), window=3, raise_at=0.6, lower_at=0.2
    )
    levels = []
    for seed in range(7):
        reset_info, info = play(env, seed, answer_well=True)
        assert info["success"] is True
        assert reset_info["level"] == info["level"], "the level changed inside an episode"
        assert env.unwrapped.task.config == env.unwrapped.task_class.level_config(info["level"])
        levels.append(info["level"])
    assert levels == [1, 1, 1, 2, 2, 2, 3]


def test_adaptive_level_falls_with_failure_and_respects_the_floor():
    env = AdaptiveLevel(
        palaestra.make("Syllogism-v0", level=3), window=2, raise_at=0.9, lower_at=0.4, min_level=2
    )
    levels = [play(env, seed, answer_well=False)[1]["level"] for seed in range(8)]
    assert levels == [3, 3, 2, 2, 2, 2, 2, 2]
    assert env.level == 2


def test_adaptive_level_keeps_explicit_knobs():
    env = AdaptiveLevel(
        palaestra.make("KnightsKnaves-v0", level=1, people=5), window=1, raise_at=0.5, lower_at=0.0
    )
    for seed in range(3):
        play(env, seed, answer_well=True)
    env.reset(seed=9)
    assert env.level == 4
    assert env.unwrapped.task.config.people == 5
    assert (
        env.unwrapped.task.config.complexity == env.unwrapped.task_class.level_config(4).complexity
    )


def test_adaptive_level_ignores_masked_episodes():
    env = AdaptiveLevel(palaestra.make("Zebra-v0", level=2), window=1, raise_at=0.5, lower_at=0.0)
    env.reset(seed=0)
    env.after_step([], 0.0, False, True, {"mask": True, "status": "error", "success": False})
    assert len(env.controller.outcomes) == 0


def test_adaptive_level_needs_a_task_env():
    with pytest.raises(TypeError, match="task env"):
        AdaptiveLevel(palaestra.make("GuessNumber-v0"))
    with pytest.raises(ValueError, match="range"):
        AdaptiveLevel(palaestra.make("Sat-v0"), max_level=11)


def test_mixture_is_deterministic_given_the_seed():
    def run():
        env = TaskMixEnv()
        out = []
        for seed in range(12):
            observation, info = env.reset(seed=seed)
            out.append((info["family"], observation[0]["content"]))
        return out

    first = run()
    assert first == run()
    assert len({family for family, _ in first}) > 3


def test_mixture_draws_by_weight():
    env = TaskMixEnv(families={"Sat-v0": 3.0, "Syllogism-v0": 1.0})
    counts = collections.Counter(env.reset(seed=seed)[1]["family"] for seed in range(400))
    assert 0.65 < counts["Sat-v0"] / 400 < 0.85


def test_mixture_reports_per_family_statistics():
    env = TaskMixEnv(families=["Sat-v0", "NumberSequence-v0"], level=2, stats_in_info=True)
    expected = collections.defaultdict(lambda: [0, 0])
    for seed in range(10):
        _, info = play(env, seed, answer_well=seed % 3 != 0)
        expected[info["family"]][0] += 1
        expected[info["family"]][1] += seed % 3 != 0
        assert info["mixture"] == env.statistics()
    for family, (episodes, successes) in expected.items():
        stats = env.statistics()[family]
        assert stats["episodes"] == episodes
        assert stats["success_rate"] == pytest.approx(successes / episodes)
        assert stats["mean_reward"] == pytest.approx(successes / episodes)
        assert stats["level"] == 2


def test_adaptive_mixture_moves_each_family_separately():
    env = TaskMixEnv(
        families=["Sat-v0", "Syllogism-v0"],
        level=2,
        adaptive=True,
        window=2,
        raise_at=0.9,
        lower_at=0.1,
    )
    for seed in range(12):
        _, info = env.reset(seed=seed)
        env.step(env.oracle_action() if info["family"] == "Sat-v0" else WRONG)
    stats = env.statistics()
    assert stats["Sat-v0"]["level"] > 2
    assert stats["Syllogism-v0"]["level"] < 2


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"families": ["NoSuchTask-v0"]}, Exception),
        ({"families": ["GuessNumber-v0"]}, ValueError),
        ({"families": {"Sat-v0": 0}}, ValueError),
        ({"families": []}, ValueError),
        ({"families": "Sat-v0"}, TypeError),
    ],
)
def test_mixture_rejects_bad_families(kwargs, error):
    with pytest.raises(error):
        TaskMixEnv(**kwargs)


def test_registered_mixture_is_tagged_and_made_by_id():
    spec = palaestra.spec("TaskMix-v0")
    assert {"task", "mixture", "single-turn"} <= set(spec.tags)
    env = palaestra.make("TaskMix-v0", families=["BaseConversion-v0"], level=4)
    _, info = env.reset(seed=1)
    assert info["family"] == "BaseConversion-v0" and info["level"] == 4
    *_, info = env.step(env.oracle_action())
    assert info["success"] is True


def test_the_newest_mixture_draws_the_newest_list_functions_and_v0_is_frozen():
    families = {
        version: {
            palaestra.make(f"TaskMix-{version}").reset(seed=seed)[1]["family"]
            for seed in range(200)
        }
        for version in ("v0", "v1")
    }
    assert "ListFunctions-v1" in families["v1"] and "ListFunctions-v0" not in families["v1"]
    assert "ListFunctions-v0" in families["v0"] and "ListFunctions-v1" not in families["v0"]
    assert families["v0"] - {"ListFunctions-v0"} == families["v1"] - {"ListFunctions-v1"}
