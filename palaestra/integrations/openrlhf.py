"""OpenRLHF: this file is an agent function file for OpenRLHF's multi-turn agent executor.

OpenRLHF loads the file named by ``--train.agent_func_path`` and instantiates its
``AgentExecutor``; here that is its own `MultiTurnAgentExecutor` over `AgentInstance`, an
agent instance that plays any Palaestra id. The id, kwargs and seed of each episode come
from the prompt's label:

    import palaestra.integrations.openrlhf as pal_openrlhf
    pal_openrlhf.write_jsonl("train.jsonl", pal_openrlhf.rows("GuessNumber-v0", n=512))
    # python -m openrlhf.cli.train_ppo_ray ... --data.prompt_dataset train.jsonl
    #   --data.input_key prompt --data.label_key label --data.apply_chat_template
    #   --train.agent_func_path <pal_openrlhf.__file__>

A row (`rows`) is ``{"prompt": opening messages, "label": spec}``, spec being the JSON text
of an `EpisodeSpec`. OpenRLHF runs ``n_samples_per_prompt`` executions of a prompt with its
label, so a group's members share the seed.

What maps to what:

    Palaestra                                  OpenRLHF (AgentInstanceBase)
    make(id, **kwargs); reset(seed=seed)       reset({"observation", "label"})
    the opening messages and env.tools,        reset's "observation" (replaces the prompt text)
      chat-templated
    step(text)                                 step({"action_text", ...})
    the env's next messages                    "environment_feedback": the template's text after
                                               the turn's end token, ending with the next
                                               generation prompt (the executor masks it)
    this turn's reward                         "rewards" (the executor sums them)
    terminated or truncated                    "done"
    info: success, mask; truncated             "extra_logs": success, masked, truncated_by_env

The executor hands `AgentInstance` no tokenizer, so `AgentExecutor.execute` (which gets
OpenRLHF's ``hf_tokenizer``) puts a `palaestra.agents.chat.ChatFormatter` of it in a
context variable that the instance reads; env messages are rendered by the model's own
chat template, as `palaestra.agents.rollout` renders them.

What is lost:

* **Per-turn rewards.** The executor sums the turns' rewards into one episode reward,
  placed at the end: no per-turn credit.
* **Masked episodes.** OpenRLHF cannot drop an episode. An infrastructure failure ends the
  episode (the failed turn's reward is 0, earlier turns' rewards stay in the sum) and sets
  ``extra_logs["masked"] = 1``.
* **Exact tokens.** The executor re-tokenizes the opening text and each feedback text on
  its own (sampled tokens are kept as sampled); with a template whose special tokens
  split text, as common chat templates' do, this gives the same ids as Palaestra's
  rollout engine.
* **Native tool calls.** Envs get the sampled text and read tool calls from its text
  format (`palaestra.parsers`).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from palaestra.agents.chat import ChatFormatter
from palaestra.errors import require
from palaestra.integrations._episodes import EpisodeSpec, outcome, plain_messages, specs

require("openrlhf", "openrlhf", "the OpenRLHF agent function")
torch = require("torch", "torch", "the OpenRLHF agent function")
from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # noqa: E402

_FORMATTER: contextvars.ContextVar[ChatFormatter] = contextvars.ContextVar("palaestra_formatter")


class AgentInstance(AgentInstanceBase):
    """One Palaestra episode, played through OpenRLHF's ``reset``/``step`` protocol."""

    def __init__(self, *args: Any, **kwargs: Any):
        if args or kwargs:
            raise TypeError(
                "AgentInstance takes no arguments: the episode comes from the prompt's label"
            )
        self.env: Any = None
        self.tools: list[dict[str, Any]] | None = None
        self.formatter: ChatFormatter | None = None
        self.episode_return = 0.0

    async def reset(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Makes and resets the label's env; the observation is its templated opening."""
        formatter = _FORMATTER.get(None)
        if formatter is None:
            raise RuntimeError(
                "AgentInstance needs the model's tokenizer: run it through this file's "
                "AgentExecutor (--train.agent_func_path), which provides it"
            )
        self.formatter = formatter
        episode = EpisodeSpec.parse(states["label"])
        self.env, opening = await asyncio.to_thread(episode.start)
        self.tools = getattr(self.env, "tools", None) or None
        return {"observation": formatter.prompt(opening, self.tools)[0]}

    async def step(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Plays the sampled text; returns the reward and the env's reply as template text."""
        observation, reward, terminated, truncated, info = await asyncio.to_thread(
            self.env.step, states["action_text"]
        )
        self.episode_return += float(reward)
        done = bool(terminated or truncated)
        feedback = (
            "" if done else self.formatter.suffix_text(plain_messages(observation), self.tools)
        )
        result = outcome(info)
        if done:
            self.env.close()
        return {
            "rewards": torch.tensor(float(reward)),
            "scores": torch.tensor(self.episode_return),
            "environment_feedback": feedback,
            "done": done,
            "extra_logs": {
                "success": float(bool(result["success"])),
                "masked": float(result["mask"]),
                "truncated_by_env": float(bool(truncated)),
            },
        }


class AgentExecutor(MultiTurnAgentExecutor):
    """OpenRLHF's multi-turn executor over `AgentInstance`, given the model's chat template."""

    def __init__(self) -> None:
        super().__init__(AgentInstance)
        self._formatters: dict[int, ChatFormatter] = {}

    async def execute(
        self,
        prompt: Any,
        label: Any,
        sampling_params: Any,
        max_length: int,
        hf_tokenizer: Any,
        llm_engine: Any,
        images: Any = None,
    ) -> dict[str, Any]:
        """Runs OpenRLHF's episode loop with a formatter of ``hf_tokenizer`` in context."""
        formatter = self._formatters.get(id(hf_tokenizer))
        if formatter is None or formatter.tokenizer is not hf_tokenizer:
            formatter = self._formatters[id(hf_tokenizer)] = ChatFormatter(hf_tokenizer)
        token = _FORMATTER.set(formatter)
        try:
            return await super().execute(
                prompt, label, sampling_params, max_length, hf_tokenizer, llm_engine, images
            )
        finally:
            _FORMATTER.reset(token)


def rows(
    ids: str | Iterable[str], n: int, *, seed: int = 0, start: int = 0, **kwargs: Any
) -> list[dict[str, Any]]:
    """OpenRLHF prompt rows of episodes ``start .. start + n - 1`` of every id (any id).

    Args:
        ids: One id or several.
        n: Episodes per id.
        seed: The stream's seed (episode ``index`` resets with ``SeedSequence([seed, index])``).
        start: The first index (disjoint ranges give disjoint splits).
        **kwargs: make() kwargs for every id (JSON values).

    Returns:
        Rows ``{"prompt": messages, "label": spec JSON}`` (``--data.input_key prompt
        --data.label_key label --data.apply_chat_template``).
    """
    out = []
    for episode in specs(ids, n, seed=seed, start=start, **kwargs):
        env, opening = episode.start()
        env.close()
        out.append({"prompt": opening, "label": episode.to_json()})
    return out


def write_jsonl(path: str | Path, rows_: Iterable[dict[str, Any]]) -> int:
    """Writes rows as JSON Lines, the format ``--data.prompt_dataset`` reads; returns the count."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as f:
        for row in rows_:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count
