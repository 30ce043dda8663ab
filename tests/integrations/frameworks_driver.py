"""Runs verl's and OpenRLHF's own agent-loop code over Palaestra's adapters, with a scripted model.

test_verl.py and test_openrlhf.py run this file in a subprocess (tests_support.frameworks),
because verl and OpenRLHF live outside the venv (.ci/setup-frameworks.sh says why):

    python frameworks_driver.py FRAMEWORKS_DIR WORK_DIR {openrlhf,verl} ENV_ID [ENV_ID ...]

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

import palaestra  # noqa: E402
from palaestra.agents.chat import ChatFormatter  # noqa: E402
from palaestra.agents.rollout import Episode, RolloutEngine, Task  # noqa: E402
from palaestra.agents.scripted import OraclePolicy  # noqa: E402
from palaestra.agents.tiny import tiny_tokenizer  # noqa: E402
from palaestra.envs.games.guess_number import GuessNumberEnv  # noqa: E402
from palaestra.errors import InfrastructureError  # noqa: E402

MASKED_ID = "JudgeDown-v0"
"""An id the tests may ask for: GuessNumber whose second turn is an infrastructure failure."""
SAMPLED_LOGPROB = -0.25
MAX_LENGTH = 4096
SHORT_RESPONSE = 40


class JudgeDownOnTurnTwo(GuessNumberEnv):
    def _step(self, message):
        if self._turn >= 2:
            raise InfrastructureError("the judge is unreachable")
        return super()._step(message)


palaestra.register(MASKED_ID, JudgeDownOnTurnTwo, max_turns=20)


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
        "mask": episode.mask,
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


# --- verl -------------------------------------------------------------------------------


def verl_config(response_length: int):
    from omegaconf import OmegaConf

    return OmegaConf.create(
        {
            "actor_rollout_ref": {
                "rollout": {
                    "prompt_length": 1024,
                    "response_length": response_length,
                    "name": "vllm",
                }
            },
            "data": {"apply_chat_template_kwargs": {}},
            "reward": {
                "custom_reward_function": {
                    "path": "pkg://palaestra.integrations.verl",
                    "name": "compute_score",
                }
            },
        }
    )


class ReplayServer:
    """A verl rollout server's ``generate.remote``: replays recorded turns of one episode."""

    def __init__(self, turns: list[list[int]]):
        self.turns = turns
        self.calls: list[dict[str, Any]] = []
        self.generate = SimpleNamespace(remote=self._generate)

    async def _generate(self, *, request_id, prompt_ids, sampling_params, **kwargs):
        from verl.workers.rollout.replica import TokenOutput

        ids = self.turns[len(self.calls)]
        self.calls.append(
            {"request_id": request_id, "prompt_ids": list(prompt_ids), **sampling_params}
        )
        return TokenOutput(token_ids=list(ids), log_probs=[SAMPLED_LOGPROB] * len(ids))


def scripted_client(server: ReplayServer, config):
    """verl's own LLMServerClient, routed to one replay server instead of a load balancer."""
    from verl.workers.rollout.llm_server import LLMServerClient

    class ScriptedClient(LLMServerClient):
        async def _acquire_server(self, request_id, **extra):
            return "replay", server

        def _release_server(self, server_id, request_id=None):
            pass

    return ScriptedClient(config)


async def play_verl(loop_config, tokenizer, fields, episode, response_length):
    """Builds the agent loop as verl's AgentLoopWorker does and runs it on one row."""
    import hydra
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset

    config = verl_config(response_length)
    server = ReplayServer(sampled_turns(episode))
    loop = hydra.utils.instantiate(
        config=loop_config,
        trainer_config=DictConfigWrap(config=config),
        server_manager=scripted_client(server, config),
        tokenizer=tokenizer,
        processor=None,
        hf_model_type=None,
        dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data),
        tools=ToolListWrap([]),
    )
    output = await loop.run({"temperature": 1.0, "logprobs": True}, **fields)
    return type(loop).__name__, output, server.calls


def verl_row_fields(adapter, tokenizer, env_id: str, workdir: Path) -> dict[str, Any]:
    """One episode row, through a Parquet file and verl's RLHFDataset, as the loop gets it."""
    import torch
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    path = workdir / f"{env_id}.parquet"
    adapter.write_parquet(path, adapter.episode_rows(env_id, 1, seed=11))
    dataset = RLHFDataset(
        data_files=[str(path)],
        tokenizer=tokenizer,
        config=OmegaConf.create({"max_prompt_length": 1024, "cache_dir": str(workdir)}),
        processor=None,
    )
    return {k: v for k, v in dataset[0].items() if not isinstance(v, torch.Tensor)}


def verl_scores(adapter) -> list[Any]:
    """verl's loader of custom reward functions, on rows made for its single-turn loop."""
    from verl.trainer.ppo.reward import get_custom_reward_fn

    reward_fn = get_custom_reward_fn(verl_config(1024))
    scored = []
    for row in adapter.task_rows("Countdown-v0", 2, seed=5):
        task = json.loads(row["extra_info"][adapter.ROW_KEY])
        for completion in (task["oracle"], "<answer>1</answer>"):
            scored.append(
                reward_fn(
                    data_source=row["data_source"],
                    solution_str=completion,
                    ground_truth=row["reward_model"]["ground_truth"],
                    extra_info=row["extra_info"],
                )
            )
    return scored


def drive_verl(env_ids: list[str]) -> dict[str, Any]:
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import _agent_loop_registry

    import palaestra.integrations.verl as adapter

    tokenizer = tiny_tokenizer()
    formatter = ChatFormatter(tokenizer)
    workdir = Path(sys.argv[2])
    # The config file verl's agent-loop workers read (rollout.agent.agent_loop_config_path),
    # read the way they read it; the class comes back through hydra.
    registry = dict(_agent_loop_registry)
    for entry in OmegaConf.load(adapter.write_agent_loop_config(workdir / "agent.yaml")):
        registry[entry.name] = entry

    out: dict[str, Any] = {}
    for env_id in env_ids:
        fields = verl_row_fields(adapter, tokenizer, env_id, workdir)
        agent_name = fields.pop("agent_name")
        spec = json.loads(fields["extra_info"][adapter.EXTRA_KEY])
        episode = reference(formatter, env_id, spec["seed"])

        async def group(episode=episode, fields=fields, loop_config=registry[agent_name]):
            return await asyncio.gather(
                *(
                    play_verl(loop_config, tokenizer, fields, episode, length)
                    for length in (1024, 1024, SHORT_RESPONSE)
                )
            )

        (loop_class, output, calls), (_, second, _), (_, short, _) = asyncio.run(group())
        out[env_id] = {
            "reference": summary(episode),
            "agent_name": agent_name,
            "loop_class": loop_class,
            "prompt_ids": output.prompt_ids,
            "response_ids": output.response_ids,
            "response_mask": output.response_mask,
            "response_logprobs": output.response_logprobs,
            "reward_score": output.reward_score,
            "extra_fields": output.extra_fields,
            "rm_scores": output.as_dict()["rm_scores"].tolist(),
            "calls": calls,
            "num_turns": output.num_turns,
            "second_member_response_ids": second.response_ids,
            "short": {
                "response_ids": short.response_ids,
                "response_mask": short.response_mask,
                "reward_score": short.reward_score,
                "extra_fields": short.extra_fields,
            },
        }
    out["compute_score"] = verl_scores(adapter)
    return out


if __name__ == "__main__":
    framework, ids = sys.argv[3], sys.argv[4:]
    drivers = {"openrlhf": drive_openrlhf, "verl": drive_verl}
    print(json.dumps(drivers[framework](ids)))
