"""SkyRL-gym adapter: `skyrl_gym.make("palaestra", ...)` plays Palaestra envs with their rewards."""

from __future__ import annotations

import json

import pyarrow.parquet
import pytest
import skyrl_gym

import palaestra
from palaestra.envs.games.guess_number import GuessNumberEnv
from palaestra.errors import InfrastructureError
from palaestra.integrations import skyrl as pal_skyrl


class JudgeDownOnTurnTwo(GuessNumberEnv):
    """GuessNumber whose second turn fails for a reason outside the policy's control."""

    def _step(self, message):
        if self._turn >= 2:
            raise InfrastructureError("the judge is unreachable")
        return super()._step(message)


def _play_palaestra(env_id: str, seed: int) -> tuple[list[float], list[list[dict]]]:
    env = palaestra.make(env_id)
    env.reset(seed=seed)
    rewards, observations = [], []
    while True:
        observation, reward, terminated, truncated, _ = env.step(env.oracle_action())
        rewards.append(reward)
        observations.append(observation)
        if terminated or truncated:
            return rewards, observations


@pytest.mark.parametrize("env_id", ["Countdown-v0", "GuessNumber-v0", "TicTacToe-v0"])
def test_skyrl_make_plays_the_oracle_with_palaestras_rewards(env_id):
    row = pal_skyrl.rows(env_id, 1, seed=7)[0]
    seed = json.loads(row["palaestra"])["seed"]
    expected_rewards, expected_observations = _play_palaestra(env_id, seed)

    env = skyrl_gym.make("palaestra", env_config={}, extras={**row, "max_turns": 3})
    assert isinstance(env, skyrl_gym.envs.base_text_env.BaseTextEnv)
    conversation, _ = env.init(row["prompt"])
    assert conversation == row["prompt"]
    rewards, done = [], False
    while not done:
        output = env.step(env.env.oracle_action())
        rewards.append(output["reward"])
        done = output["done"]
        if not done:
            assert output["observations"] == expected_observations[len(rewards) - 1]
    env.close()

    assert rewards == expected_rewards
    assert output["metadata"]["success"] is True
    assert output["metadata"]["verdict"]["status"] == "correct"
    assert env.get_metrics() == {
        "return": pytest.approx(sum(expected_rewards)),
        "success": 1.0,
        "turns": len(expected_rewards),
        "masked": 0.0,
    }


def test_a_wrong_answer_scores_as_in_palaestra():
    row = pal_skyrl.rows("Countdown-v0", 1, seed=3)[0]
    env = skyrl_gym.make("palaestra", extras=row)
    env.init(row["prompt"])
    output = env.step("<answer>1</answer>")
    reference = palaestra.make("Countdown-v0")
    reference.reset(seed=json.loads(row["palaestra"])["seed"])
    _, reward, *_ = reference.step("<answer>1</answer>")
    assert output["done"] and output["reward"] == reward < 1
    assert output["metadata"]["success"] is False


def test_rows_go_through_parquet_and_groups_share_a_seed(tmp_path):
    rows = pal_skyrl.rows(["GuessNumber-v0", "Countdown-v0"], 3, seed=0, level=2)
    path = tmp_path / "train.parquet"
    assert pal_skyrl.write_parquet(path, rows) == 6
    loaded = pyarrow.parquet.read_table(path).to_pylist()
    assert loaded == rows
    specs = [json.loads(row["palaestra"]) for row in loaded]
    assert [s["id"] for s in specs] == ["GuessNumber-v0"] * 3 + ["Countdown-v0"] * 3
    assert len({s["seed"] for s in specs[:3]}) == 3
    assert all(s["kwargs"] == {"level": 2} for s in specs)
    # Two envs from one row (two members of a group) open with the same messages.
    first, second = (skyrl_gym.make("palaestra", extras=loaded[0]) for _ in range(2))
    assert first.init([])[0] == second.init([])[0] == loaded[0]["prompt"]


@pytest.mark.parametrize(
    ("extras", "env_config", "message"),
    [
        ({}, None, "needs extras"),
        ({"palaestra": "not json"}, None, "must be JSON"),
        ({"palaestra": '{"id": "GuessNumber-v0"}'}, None, "missing \\['seed'\\]"),
        ({"palaestra": '{"id": "GuessNumber-v0", "seed": 1, "level": 2}'}, None, "unknown"),
        ({"palaestra": '{"id": "GuessNumber-v0", "seed": -1}'}, None, "non-negative"),
        ({"palaestra": '{"id": "GuessNumber-v0", "seed": 1}'}, {"level": 2}, "no env_config"),
    ],
)
def test_bad_rows_are_errors_that_say_what_to_fix(extras, env_config, message):
    with pytest.raises(ValueError, match=message):
        skyrl_gym.make("palaestra", env_config=env_config, extras=extras)


def test_registering_twice_keeps_one_entry():
    pal_skyrl.register()
    assert skyrl_gym.registry["palaestra"].entry_point is pal_skyrl.PalaestraTextEnv


def test_a_masked_episode_ends_and_says_so_in_metadata(registered):
    registered("JudgeDown-v0", JudgeDownOnTurnTwo, max_turns=20)
    row = pal_skyrl.rows("JudgeDown-v0", 1, seed=2)[0]
    env = skyrl_gym.make("palaestra", extras=row)
    env.init(row["prompt"])
    first = env.step("<guess>1</guess>")
    assert not first["done"] and first["metadata"]["mask"] is False
    second = env.step("<guess>2</guess>")
    assert second["done"] and second["reward"] == 0.0
    assert second["metadata"]["mask"] is True and second["metadata"]["status"] == "error"
    assert second["metadata"]["truncated"] is True
    assert env.get_metrics()["masked"] == 1.0
