"""Runs verl's and OpenRLHF's own agent-loop code over Palaestra's adapters, with a scripted model.

test_verl.py and test_openrlhf.py run this file in a subprocess, because verl and OpenRLHF
live outside the venv (.ci/setup-frameworks.sh says why):

    python frameworks_driver.py FRAMEWORKS_DIR {openrlhf,verl} ENV_ID [ENV_ID ...]

For each id it plays one episode with Palaestra's rollout engine and the env's oracle (the
reference), then the same episode through the framework's code, with a model server that
replays the reference's sampled tokens, and the episode again as a second member of its
group. It prints one JSON object with what each side recorded, for the tests to compare.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

FRAMEWORKS = Path(sys.argv[1])
# hydra's parser needs antlr 4.9 ahead of the venv's; the frameworks' own packages go last,
# after the venv, so they never replace what Palaestra itself imports.
sys.path.insert(0, str(FRAMEWORKS / "first"))
sys.path.append(str(FRAMEWORKS / "site"))

from palaestra.agents.chat import ChatFormatter  # noqa: E402
from palaestra.agents.rollout import Episode, RolloutEngine, Task  # noqa: E402
from palaestra.agents.scripted import OraclePolicy  # noqa: E402
from palaestra.agents.tiny import tiny_tokenizer  # noqa: E402

SAMPLED_LOGPROB = -0.25
MAX_LENGTH = 4096


def reference(formatter: ChatFormatter, env_id: str, seed: int) -> Episode:
    engine = RolloutEngine(OraclePolicy(formatter), formatter, check_drift=False)
    return engine.run([Task(env_id, seed=seed)])[0]


def sampled_turns(episode: Episode) -> list[list[int]]:
    return [episode.completion_ids[start:end] for start, end in episode.turn_spans]


def summary(episode: Episode) -> dict[str, Any]:
    return {
        "prompt_ids": episode.prompt_ids,
        "completion_ids": episode.completion_ids,
        "loss_mask": episode.loss_mask,
        "turn_rewards": episode.turn_rewards,
        "success": episode.success,
    }


# --- OpenRLHF ---------------------------------------------------------------------------


class ReplayEngine:
    """OpenRLHF's ``llm_engine``: ``await generate(ids, params)`` gives a vLLM-like output."""

    def __init__(self, formatter: ChatFormatter, turns: list[list[int]]):
        self.formatter = formatter
        self.turns = turns
        self.prompts: list[list[int]] = []

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = self.turns[len(self.prompts)]
        self.prompts.append(list(prompt_token_ids))
        output = SimpleNamespace(
            token_ids=list(ids),
            text=self.formatter.completion_text(ids),
            finish_reason="stop",
            logprobs=[{t: SimpleNamespace(logprob=SAMPLED_LOGPROB)} for t in ids],
        )
        return SimpleNamespace(outputs=[output])


def drive_openrlhf(env_ids: list[str]) -> dict[str, Any]:
    from openrlhf.utils.agent import AgentExecutorBase

    import palaestra.integrations.openrlhf as adapter

    # Loaded the way OpenRLHF's vllm_engine._load_agent_executor loads --train.agent_func_path.
    spec = importlib.util.spec_from_file_location("agent_module", adapter.__file__)
    agent_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agent_module)
    assert issubclass(agent_module.AgentExecutor, AgentExecutorBase)
    executor = agent_module.AgentExecutor()

    tokenizer = tiny_tokenizer()
    formatter = ChatFormatter(tokenizer)
    out: dict[str, Any] = {}
    try:  # the instance alone, without the executor that gives it the tokenizer
        asyncio.run(agent_module.AgentInstance().reset({"observation": "", "label": "{}"}))
    except RuntimeError as e:
        out["instance_alone_error"] = str(e)
    for env_id in env_ids:
        row = adapter.rows(env_id, 1, seed=11)[0]
        episode = reference(formatter, env_id, json.loads(row["label"])["seed"])
        prompt = tokenizer.apply_chat_template(
            row["prompt"], tokenize=False, add_generation_prompt=True
        )

        async def member(episode=episode, row=row, prompt=prompt):
            engine = ReplayEngine(formatter, sampled_turns(episode))
            params = SimpleNamespace(max_tokens=None, logprobs=1)
            response = await executor.execute(
                prompt, row["label"], params, MAX_LENGTH, tokenizer, engine
            )
            return response, engine.prompts

        async def group():
            return await asyncio.gather(member(), member())

        (response, prompts), (second, _) = asyncio.run(group())
        out[env_id] = {
            "reference": summary(episode),
            "dataset_prompt_ids": formatter.encode(prompt),
            "observation_tokens": response["observation_tokens"],
            "action_ranges": response["action_ranges"],
            "rollout_log_probs": response["rollout_log_probs"],
            "reward": response["reward"],
            "scores": float(response["scores"]),
            "extra_logs": response["extra_logs"],
            "engine_prompts": prompts,
            "second_member_tokens": second["observation_tokens"],
        }
    return out


if __name__ == "__main__":
    framework, ids = sys.argv[2], sys.argv[3:]
    drivers = {"openrlhf": drive_openrlhf}
    print(json.dumps(drivers[framework](ids)))
