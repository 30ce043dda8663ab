"""OpenRLHF adapter: its own MultiTurnAgentExecutor plays Palaestra envs through our agent file.

OpenRLHF does not install on a CPU machine (flash-attn needs CUDA to build); its
`openrlhf.utils.agent` module does, without its dependencies: .ci/setup-frameworks.sh
installs it outside the venv and `frameworks_driver.py` runs it in a subprocess, with a
model server that replays the tokens Palaestra's rollout engine sampled with the oracle.
"""

from __future__ import annotations

import pytest
from tests_support.frameworks import drive

ENV_IDS = ["GuessNumber-v0", "Countdown-v0"]
TOOL_ID = "Calculator-v0"  # its tool schemas are rendered in the prompt
MASKED_ID = "JudgeDown-v0"  # the driver's GuessNumber whose second turn is an infra failure

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def driven(tmp_path_factory) -> dict:
    return drive("openrlhf", [*ENV_IDS, TOOL_ID, MASKED_ID], tmp_path_factory)


def _action_mask(record: dict) -> list[int]:
    mask = [0] * len(record["observation_tokens"])
    for start, end in record["action_ranges"]:
        mask[start:end] = [1] * (end - start)
    return mask[len(record["reference"]["prompt_ids"]) :]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_executor_plays_the_episode_token_for_token_as_the_rollout_engine(driven, env_id):
    record, reference = driven[env_id], driven[env_id]["reference"]
    assert record["observation_tokens"] == reference["prompt_ids"] + reference["completion_ids"]
    # The env's tokens (feedback, next generation prompt) are outside the action ranges.
    assert _action_mask(record) == reference["loss_mask"]
    assert len(record["engine_prompts"]) == len(reference["turn_rewards"])
    # The opening our reset renders is the dataset's prompt, chat-templated by OpenRLHF.
    assert record["dataset_prompt_ids"] == reference["prompt_ids"]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rewards_are_palaestras_and_logs_say_how_it_ended(driven, env_id):
    record, reference = driven[env_id], driven[env_id]["reference"]
    assert record["reward"] == pytest.approx(sum(reference["turn_rewards"]))
    assert record["scores"] == pytest.approx(record["reward"])
    assert record["extra_logs"] == {"success": 1.0, "masked": 0.0, "truncated_by_env": 0.0}
    sampled = [
        lp
        for lp, m in zip(
            record["rollout_log_probs"][len(reference["prompt_ids"]) :],
            reference["loss_mask"],
            strict=True,
        )
        if m
    ]
    assert sampled == [-0.25] * sum(reference["loss_mask"])


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_members_of_a_group_play_the_same_seed(driven, env_id):
    assert driven[env_id]["second_member_tokens"] == driven[env_id]["observation_tokens"]


def test_a_tool_env_gets_its_tool_schemas_rendered_as_the_engine_renders_them(driven):
    record, reference = driven[TOOL_ID], driven[TOOL_ID]["reference"]
    assert record["observation_tokens"] == reference["prompt_ids"] + reference["completion_ids"]
    assert _action_mask(record) == reference["loss_mask"]
    assert record["reward"] == pytest.approx(sum(reference["turn_rewards"]))
    # OpenRLHF's own templating of the dataset prompt has no tools; the episode's has.
    assert len(record["dataset_prompt_ids"]) < len(reference["prompt_ids"])


def test_a_masked_episode_is_logged_as_masked(driven):
    record, reference = driven[MASKED_ID], driven[MASKED_ID]["reference"]
    assert reference["mask"] is True and len(reference["turn_rewards"]) == 2
    assert record["observation_tokens"] == reference["prompt_ids"] + reference["completion_ids"]
    assert record["extra_logs"] == {"success": 0.0, "masked": 1.0, "truncated_by_env": 1.0}
    assert record["reward"] == pytest.approx(sum(reference["turn_rewards"]))


def test_the_instance_alone_says_to_use_the_executor(driven):
    assert "AgentExecutor" in driven["instance_alone_error"]
