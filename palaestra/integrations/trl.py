"""TRL's `GRPOTrainer` on Palaestra envs: a rollout function, reward functions, tool envs.

One line turns an id (or a list of `palaestra.datasets.rows` rows) into the arguments
`GRPOTrainer` needs:

    from palaestra.integrations.trl import grpo_arguments
    trainer = GRPOTrainer(model, args=config, processing_class=tokenizer,
                          **grpo_arguments("GuessNumber-v0", n=64))
    trainer.train()

What maps to what:

* An env id (single- or multi-turn) gives ``rollout_func=PalaestraRollout(id)``, a
  placeholder ``train_dataset`` of ``n`` prompts, and the reward function `episode_return`.
  The rollout function plays each prompt group with Palaestra's rollout engine
  (`palaestra.agents.rollout.RolloutEngine`) on the trainer's own model (an `HFPolicy`
  sampling with the trainer's temperature, top-p and top-k, ``max_completion_length``
  tokens per turn). TRL hands it only the prompts, so the env's seed cannot come from the
  dataset: each group of ``num_generations`` consecutive prompts gets its own seed, drawn
  from ``SeedSequence([seed, call, group])``, shared by the group's members (the groups of
  GRPO) and different between groups, so games whose opening prompt is the same for every
  seed still train on many seeds.
* Its output: ``prompt_ids`` and ``completion_ids`` are the engine's exact tokens (env
  messages tokenized as suffixes, never re-tokenized); ``env_mask`` is the engine's loss
  mask (1 only on sampled tokens), which TRL multiplies into its loss mask; ``logprobs``
  are the sampled log-probs (0.0 on env tokens). Extra fields reach the reward functions:
  ``palaestra_return`` (the sum of the turn rewards), ``turn_rewards``, ``seed``,
  ``group_id`` and ``status``.
* A masked episode (an env or policy failure, ``mask=True``) keeps its place, since TRL
  needs ``num_generations`` completions per group, but is skipped the way TRL skips
  samples: `episode_return` returns None for it (when every reward function does, TRL
  leaves it out of the group's baseline and gives it advantage 0) and its ``env_mask`` is
  all 0, so none of its tokens reach the loss.
* Rows (`palaestra.datasets.rows`, or their Hugging Face dataset) give the rows as
  ``train_dataset`` and `row_reward`, which re-scores each completion with
  `palaestra.datasets.score` from the row's own columns (TRL passes them to reward
  functions); TRL samples single-turn completions itself. A masked verdict gives None.
* `environment_factory` builds the class TRL's ``environment_factory`` wants from any env's
  ``tools``: one method per tool (signature and docstring from its JSON schema), ``submit``
  for the final answer, ``reset`` seeded by the row's ``seed`` column (give the dataset
  one), ``get_reward`` returning the episode's return. TRL parses the model's tool calls
  with a response template it picks for the chat templates it knows; for others set
  ``tokenizer.response_template``.

What is lost: TRL's GRPO gives one advantage per completion, so per-turn rewards are summed
into the episode's return (turn-level credit and Palaestra's per-turn advantages do not
reach the loss; ``turn_rewards`` is there for logging and custom rewards). TRL's vLLM
generation is not used by `PalaestraRollout` (its `HFPolicy` samples on the training
process; pass ``policy=`` for another backend). With `environment_factory`, TRL's tool loop
formats the turns, so Palaestra's exact-token mask and text tool parsers are not used, and
env messages other than tool results (hints, invalid-action notices) reach the model only
as tool results.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from palaestra.errors import require

RETURN_FIELD = "palaestra_return"
"""The rollout output field holding each episode's return (None when masked)."""

PLACEHOLDER = "{env_id}: each group of generations plays its own seed"
"""The prompt text of the placeholder dataset; the rollout function plays the env instead."""

_JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def group_seed(seed: int, call: int, group: int) -> int:
    """The env seed of group ``group`` in rollout call ``call`` under base ``seed``."""
    return int(np.random.SeedSequence([seed, call, group]).generate_state(1, dtype=np.uint32)[0])


class PalaestraRollout:
    """A TRL ``rollout_func`` playing ``env_id`` with Palaestra's rollout engine.

    Args:
        env_id: A registered id (any id `palaestra.make` takes).
        env_kwargs: Arguments for `palaestra.make`.
        seed: Base of the group seeds (`group_seed`) and of the sampling seeds.
        policy: A function ``trainer -> Policy`` for another backend; default: an
            `HFPolicy` over the trainer's model and tokenizer.
        **config: `palaestra.agents.rollout.RolloutConfig` fields, e.g. ``max_turns=6``,
            ``max_episode_tokens=1024``, ``tool_parser="hermes"``.

    Attributes:
        episodes: The episodes of the last call, in the order of the prompts.
        calls: How many times the trainer has called it.
    """

    def __init__(
        self,
        env_id: str,
        *,
        env_kwargs: Mapping[str, Any] | None = None,
        seed: int = 0,
        policy: Callable[[Any], Any] | None = None,
        **config: Any,
    ):
        from palaestra.agents.rollout import RolloutConfig

        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        reserved = sorted({"samples_per_task", "sampling", "seed"} & set(config))
        if reserved:
            raise ValueError(
                f"{reserved} come from the trainer (num_generations, temperature, top_p, "
                "top_k, max_completion_length) and the seed= argument; set them there"
            )
        self.config = RolloutConfig(**config)  # checks the fields now, not at the first step
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs or {})
        self.seed = seed
        self.policy = policy
        self.calls = 0
        self.episodes: list[Any] = []

    def __call__(self, prompts: Sequence[Any], trainer: Any) -> dict[str, list[Any]]:
        """Plays one episode per prompt; groups of ``num_generations`` share a seed."""
        from palaestra.agents.chat import ChatFormatter
        from palaestra.agents.policy import SamplingParams
        from palaestra.agents.rollout import RolloutEngine, Task

        size = trainer.num_generations if trainer.model.training else trainer.num_generations_eval
        if len(prompts) % size:
            raise ValueError(
                f"the trainer passed {len(prompts)} prompts, not whole groups of "
                f"num_generations={size}: make the per-process generation batch a multiple "
                "of num_generations"
            )
        tokenizer = trainer.processing_class
        tokenizer = getattr(tokenizer, "tokenizer", tokenizer)  # a processor wraps one
        groups = len(prompts) // size
        first = trainer.accelerator.process_index * groups
        tasks = [
            Task(
                self.env_id,
                seed=group_seed(self.seed, self.calls, first + g),
                kwargs=self.env_kwargs,
                group_id=f"{self.calls}-{first + g}",
            )
            for g in range(groups)
        ]
        sampling = SamplingParams(
            temperature=float(trainer.temperature),
            top_p=float(trainer.top_p),
            top_k=int(trainer.top_k or 0),
            max_tokens=int(trainer.max_completion_length),
        )
        config = dataclasses.replace(
            self.config,
            samples_per_task=size,
            sampling=sampling,
            seed=group_seed(self.seed, self.calls, 2**31),
        )
        model = trainer.accelerator.unwrap_model(trainer.model)
        policy = self.policy(trainer) if self.policy is not None else _hf_policy(model, tokenizer)
        was_training = model.training
        model.eval()
        try:
            episodes = RolloutEngine(policy, ChatFormatter(tokenizer), config).run(tasks)
        finally:
            model.train(was_training)
        self.calls += 1
        order = {task.group_id: i for i, task in enumerate(tasks)}
        self.episodes = sorted(episodes, key=lambda e: (order[e.group_id], e.sample_index))
        return episode_fields(self.episodes, _end_id(tokenizer))


def _hf_policy(model: Any, tokenizer: Any) -> Any:
    from palaestra.agents.backends.hf import HFPolicy

    return HFPolicy(model, tokenizer)


def _end_id(tokenizer: Any) -> int:
    end = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else tokenizer.pad_token_id
    if end is None:
        raise ValueError("the tokenizer has neither an eos_token_id nor a pad_token_id")
    return int(end)


def episode_fields(episodes: Sequence[Any], end_id: int) -> dict[str, list[Any]]:
    """What a TRL ``rollout_func`` returns, from rollout-engine episodes (in prompt order).

    Args:
        episodes: `palaestra.agents.rollout.Episode` objects.
        end_id: The token that stands in for the completion of an episode that sampled
            nothing (TRL reads the last completion token); its mask is 0.

    Returns:
        ``prompt_ids``, ``completion_ids``, ``logprobs``, ``env_mask``, and per episode
        ``palaestra_return`` (None when masked), ``turn_rewards``, ``seed``, ``group_id``,
        ``status``.
    """
    out: dict[str, list[Any]] = {
        key: []
        for key in (
            "prompt_ids",
            "completion_ids",
            "logprobs",
            "env_mask",
            RETURN_FIELD,
            "turn_rewards",
            "seed",
            "group_id",
            "status",
        )
    }
    for episode in episodes:
        completion, logprobs = list(episode.completion_ids), list(episode.logprobs)
        mask = [0] * len(completion) if episode.mask else list(episode.loss_mask)
        if not completion:
            completion, logprobs, mask = [end_id], [0.0], [0]
        out["prompt_ids"].append(list(episode.prompt_ids))
        out["completion_ids"].append(completion)
        out["logprobs"].append(logprobs)
        out["env_mask"].append(mask)
        out[RETURN_FIELD].append(None if episode.mask else episode.total_reward)
        out["turn_rewards"].append(list(episode.turn_rewards))
        out["seed"].append(episode.seed)
        out["group_id"].append(episode.group_id)
        out["status"].append(episode.status)
    return out


def episode_return(completions: list[Any], palaestra_return: list[float | None], **_: Any):
    """TRL reward function: each episode's return from `PalaestraRollout` (None if masked).

    TRL passes every column and rollout field to every reward function, so the other
    keyword arguments are expected and unused.
    """
    if len(palaestra_return) != len(completions):
        raise ValueError(
            f"{len(completions)} completions but {len(palaestra_return)} returns: is "
            "rollout_func a PalaestraRollout?"
        )
    return list(palaestra_return)


def _completion_text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    # Conversational: the assistant messages TRL decoded.
    return "".join(str(m.get("content") or "") for m in completion)


def row_reward(completions: list[Any], **columns: list[Any]) -> list[float | None]:
    """TRL reward function for `palaestra.datasets.rows` rows: the row's own verdict.

    TRL passes the dataset's columns (``id``, ``verifier``, ``verifier_config``,
    ``problem``, ...) as lists beside the completions; each completion is scored with
    `palaestra.datasets.score` against its row. A masked verdict gives None, which TRL
    leaves out of the group's baseline.
    """
    from palaestra.datasets import ROW_KEYS, score

    missing = [k for k in ("id", "verifier", "verifier_config") if k not in columns]
    if missing:
        raise ValueError(
            f"row_reward needs the row columns {missing}; train on "
            "palaestra.datasets.to_hf_dataset(rows)"
        )
    rewards: list[float | None] = []
    for i, completion in enumerate(completions):
        row = {key: columns[key][i] for key in ROW_KEYS if key in columns}
        verdict = score(row, _completion_text(completion))
        rewards.append(None if verdict.mask else float(verdict.score))
    return rewards


def grpo_arguments(
    source: str | Iterable[Mapping[str, Any]] | Any,
    *,
    n: int = 64,
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    **config: Any,
) -> dict[str, Any]:
    """The `GRPOTrainer` arguments for an env id or for rows.

    Args:
        source: An env id (played by `PalaestraRollout`), or `palaestra.datasets.rows`
            rows (a list, or the dataset `palaestra.datasets.to_hf_dataset` made).
        n: Placeholder prompts in the dataset of an id (the rollout draws the seeds; TRL
            counts epochs over these rows).
        seed: Base of the group seeds (ids only).
        env_kwargs: Arguments for `palaestra.make` (ids only).
        **config: `RolloutConfig` fields (ids only).

    Returns:
        ``train_dataset`` and ``reward_funcs``, plus ``rollout_func`` for an id.
    """
    datasets = require("datasets", "trl", "TRL's datasets")
    if isinstance(source, str):
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        prompt = [{"role": "user", "content": PLACEHOLDER.format(env_id=source)}]
        return {
            "train_dataset": datasets.Dataset.from_dict({"prompt": [prompt] * n}),
            "reward_funcs": [episode_return],
            "rollout_func": PalaestraRollout(source, env_kwargs=env_kwargs, seed=seed, **config),
        }
    if env_kwargs or config:
        raise ValueError(
            "env_kwargs and rollout settings apply to env ids; rows already hold their problems"
        )
    from palaestra.datasets import to_hf_dataset

    dataset = source if isinstance(source, datasets.Dataset) else to_hf_dataset(source)
    if "verifier_config" not in dataset.column_names:
        raise ValueError("the dataset has no row columns; build it with datasets.to_hf_dataset")
    return {"train_dataset": dataset, "reward_funcs": [row_reward]}


# --- environment_factory ---------------------------------------------------------------------


def _tool_method(schema: Mapping[str, Any]) -> Callable[..., str]:
    """A method calling the tool ``schema`` names, with a signature and docstring from it."""
    function = schema["function"]
    name = function["name"]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())

    def call(self: Any, **arguments: Any) -> str:
        return self._call_tool(name, arguments)

    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    lines = [function.get("description") or f"Calls the {name} tool.", "", "Args:"]
    for argument, prop in properties.items():
        annotation = _JSON_TYPES.get(prop.get("type"), str)
        default = inspect.Parameter.empty if argument in required else None
        signature.append(
            inspect.Parameter(
                argument, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
        lines.append(f"    {argument}: {prop.get('description') or argument}")
    lines += ["", "Returns:", "    What the environment answers."]
    call.__signature__ = inspect.Signature(signature, return_annotation=str)
    call.__annotations__ = {p.name: p.annotation for p in signature[1:]} | {"return": str}
    call.__name__ = call.__qualname__ = name
    call.__doc__ = "\n".join(lines if properties else [lines[0], *lines[3:]])
    return call


def environment_factory(env_id: str, **env_kwargs: Any) -> type:
    """The class TRL's ``environment_factory`` takes, generated from ``env_id``'s tools.

    Each instance holds one env. ``reset(**row)`` resets it with the row's ``seed``
    column (so a group, which shares its row, shares its seed) and returns the opening
    messages' text; each tool of ``env.tools`` is a public method that steps the env with
    that tool call and returns the tool's answer; ``submit(answer)`` steps it with the
    answer in the env's reply tag (``env.reply_tag``, else ``<answer>``), since TRL's tool
    loop never hands the env the model's last message;
    ``get_reward()`` is the episode's return.
    Pass the class itself: ``GRPOTrainer(..., environment_factory=environment_factory(id))``.

    Raises:
        ValueError: The env offers no tools (use `PalaestraRollout` instead).
    """
    import palaestra

    probe = palaestra.make(env_id, **env_kwargs)
    # Envs that name no reply tag read their final answer from Palaestra's usual <answer>.
    tools, tag = probe.tools, probe.reply_tag or "answer"
    probe.close()
    if not tools:
        raise ValueError(
            f"{env_id} offers no tools, so TRL's tool loop cannot play it; use "
            "grpo_arguments(env_id), which plays it through rollout_func"
        )
    names = [schema["function"]["name"] for schema in tools]
    reserved = {"reset", "get_reward", "submit"}
    clash = sorted(reserved & set(names) | {n for n in names if n.startswith("_")})
    if clash:
        raise ValueError(f"{env_id}'s tools {clash} clash with TRL's reserved method names")

    def __init__(self: Any) -> None:
        self.env = palaestra.make(env_id, **env_kwargs)
        self.total = 0.0
        self.done = False
        self._calls = 0

    def reset(self: Any, **row: Any) -> str:
        seed = row.get("seed")
        observation, _ = self.env.reset(seed=None if seed is None else int(seed))
        self.total, self.done, self._calls = 0.0, False, 0
        return "\n\n".join(str(m.get("content") or "") for m in observation)

    def get_reward(self: Any) -> float:
        return self.total

    def _call_tool(self: Any, name: str, arguments: Mapping[str, Any]) -> str:
        self._calls += 1
        call = {
            "id": f"call_{self._calls}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": json.dumps({k: v for k, v in arguments.items() if v is not None}),
            },
        }
        return self._reply({"role": "assistant", "content": "", "tool_calls": [call]})

    def _reply(self: Any, action: Any) -> str:
        if self.done:
            return "The episode is over; no more calls are taken."
        observation, reward, terminated, truncated, _ = self.env.step(action)
        self.total += float(reward)
        self.done = terminated or truncated
        return "\n\n".join(str(m.get("content") or "") for m in observation)

    def submit(self, answer: str) -> str:  # self unannotated: transformers reads the hints
        return self._reply(f"<{tag}>{answer}</{tag}>")

    namespace = {
        "__init__": __init__,
        "reset": reset,
        "get_reward": get_reward,
        "_call_tool": _call_tool,
        "_reply": _reply,
        "__doc__": f"{env_id} for TRL's environment_factory (tools: {', '.join(names)}).",
    }
    namespace.update({schema["function"]["name"]: _tool_method(schema) for schema in tools})
    submit.__doc__ = (
        f"Submits the final answer (the env reads it from <{tag}> tags), ending the task.\n\n"
        "Args:\n    answer: The final answer.\n\nReturns:\n    The environment's verdict."
    )
    namespace["submit"] = submit
    class_name = "".join(c for c in env_id.split("-v")[0].title() if c.isalnum()) + "Tools"
    return type(class_name, (), namespace)
