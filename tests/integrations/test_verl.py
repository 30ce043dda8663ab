"""verl adapter: verl's own agent-loop machinery plays Palaestra envs through PalaestraAgentLoop.

verl does not install on a CPU machine without a CUDA torch; its agent-loop modules run on
the venv's CPU torch: .ci/setup-frameworks.sh installs them outside the venv and
`frameworks_driver.py` runs them in a subprocess. There the rows go through a Parquet file
and verl's RLHFDataset, the loop is built by hydra from the agent-loop config file (as
verl's workers build it), and verl's LLMServerClient sends its requests to a server that
replays the tokens Palaestra's rollout engine sampled with the oracle.
"""

from __future__ import annotations

import pytest
from tests_support.frameworks import drive

ENV_IDS = ["GuessNumber-v0", "Countdown-v0"]
TOOL_ID = "Calculator-v0"  # its tool schemas are rendered in the prompt
MASKED_ID = "JudgeDown-v0"  # the driver's GuessNumber whose second turn is an infra failure
SHORT_RESPONSE = 40  # the driver's short response budget

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def driven(tmp_path_factory) -> dict:
    return drive("verl", [*ENV_IDS, TOOL_ID, MASKED_ID], tmp_path_factory)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_agent_loop_is_token_for_token_the_rollout_engine(driven, env_id):
    record, reference = driven[env_id], driven[env_id]["reference"]
    assert record["agent_name"] == "palaestra"
    assert record["loop_class"] == "PalaestraAgentLoop"
    assert record["prompt_ids"] == reference["prompt_ids"]
    assert record["response_ids"] == reference["completion_ids"]
    # 1 on sampled tokens, 0 on the env's messages and generation prompts.
    assert record["response_mask"] == reference["loss_mask"]
    assert 0 in record["response_mask"] or len(reference["turn_rewards"]) == 1
    logprobs = record["response_logprobs"]
    assert logprobs == [-0.25 if m else 0.0 for m in reference["loss_mask"]]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_request_carries_the_whole_sequence_and_the_budget_left(driven, env_id):
    record = driven[env_id]
    sequence = record["prompt_ids"] + record["response_ids"]
    starts = [len(call["prompt_ids"]) for call in record["calls"]]
    for call, start in zip(record["calls"], starts, strict=True):
        assert call["prompt_ids"] == sequence[:start]
        assert call["max_tokens"] == 1024 - (start - len(record["prompt_ids"]))
        assert call["temperature"] == 1.0


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rewards_are_palaestras(driven, env_id):
    record, reference = driven[env_id], driven[env_id]["reference"]
    assert record["reward_score"] == pytest.approx(sum(reference["turn_rewards"]))
    assert record["extra_fields"]["turn_scores"] == reference["turn_rewards"]
    # verl's as_dict puts the episode's reward on the last response token only.
    assert record["rm_scores"][-1] == pytest.approx(record["reward_score"])
    assert sum(record["rm_scores"][:-1]) == 0
    outcome = record["extra_fields"]["palaestra"]
    assert outcome["success"] is True and outcome["mask"] is False
    assert outcome["terminated"] is True and outcome["token_budget_spent"] is False


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_members_of_a_group_play_the_same_seed(driven, env_id):
    assert driven[env_id]["second_member_response_ids"] == driven[env_id]["response_ids"]


def test_a_tool_env_gets_its_tool_schemas_rendered_as_the_engine_renders_them(driven):
    record, reference = driven[TOOL_ID], driven[TOOL_ID]["reference"]
    assert record["prompt_ids"] == reference["prompt_ids"]
    assert record["response_ids"] == reference["completion_ids"]
    assert record["response_mask"] == reference["loss_mask"]
    assert record["reward_score"] == pytest.approx(sum(reference["turn_rewards"]))
    assert record["extra_fields"]["palaestra"]["success"] is True


def test_a_masked_episode_teaches_nothing(driven):
    record, reference = driven[MASKED_ID], driven[MASKED_ID]["reference"]
    assert reference["mask"] is True and len(reference["turn_rewards"]) == 2
    assert record["response_ids"] == reference["completion_ids"]
    assert 1 in reference["loss_mask"]
    assert record["response_mask"] == [0] * len(reference["loss_mask"])
    assert record["reward_score"] == pytest.approx(sum(reference["turn_rewards"]))
    outcome = record["extra_fields"]["palaestra"]
    assert outcome["mask"] is True and outcome["status"] == "error"
    assert outcome["truncated"] is True


def test_a_spent_response_budget_ends_the_episode_and_cuts_the_response(driven):
    record, reference = driven["GuessNumber-v0"], driven["GuessNumber-v0"]["reference"]
    short = record["short"]
    assert short["response_ids"] == reference["completion_ids"][:SHORT_RESPONSE]
    assert short["response_mask"] == reference["loss_mask"][:SHORT_RESPONSE]
    turns = short["extra_fields"]["turn_scores"]
    assert 0 < len(turns) < len(reference["turn_rewards"])
    assert turns == reference["turn_rewards"][: len(turns)]
    assert short["reward_score"] == pytest.approx(sum(turns))
    assert short["extra_fields"]["palaestra"]["token_budget_spent"] is True
    # A single-turn episode shorter than the budget is untouched.
    countdown = driven["Countdown-v0"]
    assert countdown["short"]["response_ids"] == countdown["response_ids"]


def test_compute_score_loaded_by_verl_scores_task_rows_with_the_env(driven):
    # Two Countdown rows, each scored on its oracle answer and on a wrong one.
    right = {"score": 1.0, "correct": 1.0, "masked": 0.0}
    wrong = {"score": 0.0, "correct": 0.0, "masked": 0.0}
    assert driven["compute_score"] == [right, wrong, right, wrong]
