"""verl: an agent loop that plays any Palaestra env, dataset rows, and a reward function.

Multi-turn (any id): `PalaestraAgentLoop`, registered in verl's agent-loop registry as
``"palaestra"``, plays one episode per row through verl's async server manager, token in
and token out. The rows name the episode; verl's agent-loop workers find the class through
an agent-loop config file:

    import palaestra.integrations.verl as pal_verl
    pal_verl.write_parquet("train.parquet", pal_verl.episode_rows("GuessNumber-v0", n=512))
    pal_verl.write_agent_loop_config("palaestra_agent.yaml")
    # python -m verl.trainer.main_ppo data.train_files=train.parquet
    #   actor_rollout_ref.rollout.agent.agent_loop_config_path=palaestra_agent.yaml ...

Single-turn ids can also go verl's own way, its single-turn agent loop scored by a custom
reward function: `task_rows` (made by `palaestra.datasets.rows`) and `compute_score`
(``reward.custom_reward_function.path=pkg://palaestra.integrations.verl
reward.custom_reward_function.name=compute_score``; the ``pkg://`` form imports this
module by its name, so the agent loop it registers stays importable by that name).

What maps to what (`PalaestraAgentLoop`):

    Palaestra                                  verl (AgentLoopBase.run -> AgentLoopOutput)
    make(id, **kwargs); reset(seed=seed)       the row's extra_info["palaestra"] (an EpisodeSpec)
    the opening messages, chat-templated       prompt_ids (replace the row's raw_prompt)
    a sampled turn                             server_manager.generate(prompt_ids=all ids so
                                               far) -> response_ids, response_mask 1,
                                               response_logprobs
    the env's next messages (and the next      response_ids with response_mask 0 and
      generation prompt), as a template suffix   log-prob 0.0
    the episode's return                       reward_score (verl puts it on the last token)
    each turn's reward                         extra_fields["turn_scores"]
    info: success, status, mask                extra_fields["palaestra"]

Token handling is `palaestra.agents.chat.ChatSequence`'s, the rollout engine's own: the
opening is templated once, sampled ids are kept as sampled, env messages are tokenized as a
suffix (never the transcript as a whole), with the data config's
``apply_chat_template_kwargs``. A turn gets the response budget that is left
(``max_tokens``); the episode stops when the budget is spent.

What is lost:

* **Per-turn credit.** verl places one reward at the episode's last token; the turn
  rewards are kept in ``extra_fields["turn_scores"]`` for logging only.
* **Masked episodes.** verl cannot drop an episode from its group. After an infrastructure
  failure every response_mask entry is 0, so the episode's own tokens teach nothing, but
  its reward (the turns' rewards, 0 for the failed one) still enters its group's baseline.
* **Native tool calls.** Envs get the sampled text and read tool calls from its text
  format (`palaestra.parsers`); the env's ``tools`` are rendered in the prompt.
* **Multi-modal data, routed experts, verl's tool and interaction configs**: not used.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from uuid import uuid4

from palaestra.agents.chat import ChatFormatter
from palaestra.agents.policy import Completion
from palaestra.errors import require
from palaestra.integrations._episodes import EpisodeSpec, outcome, plain_messages, specs
from palaestra.integrations._episodes import write_parquet as write_parquet

require("verl", "verl", "the verl agent loop")
from verl.experimental.agent_loop.agent_loop import (  # noqa: E402
    AgentLoopBase,
    AgentLoopMetrics,
    AgentLoopOutput,
    register,
)

AGENT_NAME = "palaestra"
"""The name `PalaestraAgentLoop` is registered under (a row's ``agent_name``)."""

DATA_SOURCE_PREFIX = "palaestra/"
"""Rows' ``data_source`` is this prefix and the env id."""

EXTRA_KEY = "palaestra"
"""``extra_info`` key of an episode row's `EpisodeSpec` (JSON text)."""

ROW_KEY = "palaestra_row"
"""``extra_info`` key of a task row's `palaestra.datasets` row (JSON text)."""


class PalaestraAgentLoop(AgentLoopBase):
    """Plays the Palaestra episode a row names, through verl's server manager.

    Constructed by verl's agent-loop worker (``hydra.utils.instantiate``) with the
    arguments of `AgentLoopBase`.
    """

    # verl builds a loop per episode: the formatter (and its caches of templated prompts and
    # suffixes) is kept per tokenizer and template arguments.
    _formatters: dict[tuple[int, str], ChatFormatter] = {}

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.prompt_length = self.rollout_config.prompt_length
        self.response_length = self.rollout_config.response_length
        template_kwargs = dict(self.apply_chat_template_kwargs or {})
        key = (id(self.tokenizer), json.dumps(template_kwargs, sort_keys=True, default=str))
        formatter = self._formatters.get(key)
        if formatter is None or formatter.tokenizer is not self.tokenizer:
            formatter = ChatFormatter(self.tokenizer, template_kwargs=template_kwargs)
            self._formatters[key] = formatter
        self.formatter = formatter

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """Plays one episode; ``kwargs`` are the row's fields (``extra_info`` names it)."""
        extra_info = kwargs.get("extra_info") or {}
        if EXTRA_KEY not in extra_info:
            raise ValueError(
                f"the {AGENT_NAME!r} agent loop needs extra_info[{EXTRA_KEY!r}], the episode "
                "spec (JSON with id, seed and kwargs), as episode_rows() writes it"
            )
        episode = EpisodeSpec.parse(extra_info[EXTRA_KEY])
        env, opening = await asyncio.to_thread(episode.start)
        try:
            return await self._play(env, opening, sampling_params)
        finally:
            await asyncio.to_thread(env.close)

    async def _play(
        self, env: Any, opening: list[dict[str, Any]], sampling_params: dict[str, Any]
    ) -> AgentLoopOutput:
        sequence = self.formatter.sequence(opening, getattr(env, "tools", None) or None)
        if len(sequence.prompt_ids) > self.prompt_length:
            raise ValueError(
                f"the episode's opening is {len(sequence.prompt_ids)} tokens, over "
                f"rollout.prompt_length={self.prompt_length}; raise it or filter such rows"
            )
        request_id = uuid4().hex  # one id per episode: the server keeps its prefix cache
        turn_rewards: list[float] = []
        info: dict[str, Any] = {}
        terminated = truncated = False
        while len(sequence.completion_ids) < self.response_length:
            output = await self.server_manager.generate(
                request_id=request_id,
                prompt_ids=sequence.ids,
                sampling_params={
                    **sampling_params,
                    "max_tokens": self.response_length - len(sequence.completion_ids),
                },
            )
            sampled = output.log_probs or [0.0] * len(output.token_ids)
            text = sequence.add_completion(Completion(list(output.token_ids), list(sampled)))
            observation, reward, terminated, truncated, info = await asyncio.to_thread(
                env.step, text
            )
            turn_rewards.append(float(reward))
            if terminated or truncated:
                break
            sequence.add_messages(plain_messages(observation))

        result = {
            **outcome(info),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "token_budget_spent": not (terminated or truncated),
        }
        length = self.response_length
        mask = sequence.loss_mask[:length]
        if result["mask"]:
            mask = [0] * len(mask)
        logprobs = sequence.logprobs[:length] if sampling_params.get("logprobs") else None
        return AgentLoopOutput(
            prompt_ids=sequence.prompt_ids,
            response_ids=sequence.completion_ids[:length],
            response_mask=mask,
            response_logprobs=logprobs,
            reward_score=sum(turn_rewards),
            # Messages, as verl counts turns: the opening, each action and each env reply.
            num_turns=len(sequence.messages) + len(turn_rewards),
            metrics=AgentLoopMetrics(),
            extra_fields={"turn_scores": turn_rewards, EXTRA_KEY: result},
        )


# verl records the class by its module's name. Executed from a file path under another name,
# this module leaves the registry alone: that name would not import in verl's workers.
if __name__ == "palaestra.integrations.verl":
    register(AGENT_NAME)(PalaestraAgentLoop)


def episode_rows(
    ids: str | Iterable[str],
    n: int,
    *,
    seed: int = 0,
    start: int = 0,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Rows in verl's columns for `PalaestraAgentLoop`: episodes ``start .. start + n - 1``.

    Args:
        ids: One id or several.
        n: Episodes per id.
        seed: The stream's seed (episode ``index`` resets with ``SeedSequence([seed, index])``).
        start: The first index (disjoint ranges give disjoint splits).
        **kwargs: make() kwargs for every id (JSON values).

    Returns:
        Rows with verl's columns (``data_source``, ``prompt``, ``ability``,
        ``reward_model``, ``extra_info``) and ``agent_name = "palaestra"``. verl repeats a
        row for each member of a group (``rollout.n``), so members share its seed.
    """
    out = []
    for index, episode in enumerate(specs(ids, n, seed=seed, start=start, **kwargs)):
        env, opening = episode.start()
        env.close()
        out.append(
            {
                "data_source": DATA_SOURCE_PREFIX + episode.env_id,
                "prompt": opening,
                "ability": "palaestra",
                "reward_model": {"style": "env", "ground_truth": ""},
                "extra_info": {"index": index, EXTRA_KEY: episode.to_json()},
                "agent_name": AGENT_NAME,
            }
        )
    return out


def task_rows(
    ids: str | Iterable[str] | Mapping[str, Mapping[str, Any]],
    n: int,
    *,
    seed: int = 0,
    start: int = 0,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Rows in verl's columns of single-turn ids, for its single-turn loop and `compute_score`.

    Arguments as `palaestra.datasets.rows` takes them (a multi-turn id is an error there).

    Returns:
        Rows with verl's columns; ``reward_model.ground_truth`` is the reference answer and
        ``extra_info["palaestra_row"]`` the whole Palaestra row, which `compute_score` scores.
    """
    from palaestra.datasets import rows

    out = []
    for index, row in enumerate(rows(ids, n, seed=seed, start=start, **kwargs)):
        out.append(
            {
                "data_source": DATA_SOURCE_PREFIX + row["id"],
                "prompt": row["prompt"],
                "ability": "palaestra",
                "reward_model": {"style": "rule", "ground_truth": row["reference"]},
                "extra_info": {"index": index, ROW_KEY: json.dumps(row)},
                "agent_name": "single_turn_agent",
            }
        )
    return out


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """Scores a completion of a `task_rows` row (verl's reward-function signature).

    The score is the env's own (`palaestra.datasets.score`), not a comparison with
    ``ground_truth``. Other keys are logged by verl's reward manager.

    Returns:
        ``{"score": reward, "correct": 0 or 1, "masked": 0 or 1}``; a masked verdict (an
        infrastructure failure) scores 0 and is counted in ``masked``, since verl cannot
        drop the sample.

    Raises:
        ValueError: The row is not a `task_rows` row.
    """
    from palaestra.datasets import score

    if not str(data_source).startswith(DATA_SOURCE_PREFIX) or not extra_info:
        raise ValueError(f"{data_source!r} is not a Palaestra row (task_rows() makes them)")
    if ROW_KEY not in extra_info:
        raise ValueError(
            f"extra_info lacks {ROW_KEY!r}: compute_score scores task_rows() rows; episode "
            "rows are scored by the palaestra agent loop itself"
        )
    verdict = score(json.loads(extra_info[ROW_KEY]), solution_str)
    masked = bool(verdict.mask)
    return {
        "score": 0.0 if masked else float(verdict.score),
        "correct": float(verdict.correct),
        "masked": float(masked),
    }


def write_agent_loop_config(path: str | Path) -> Path:
    """Writes the agent-loop config file that makes verl's workers load `PalaestraAgentLoop`.

    Pass it as ``actor_rollout_ref.rollout.agent.agent_loop_config_path``.
    """
    path = Path(path)
    target = "palaestra.integrations.verl.PalaestraAgentLoop"
    path.write_text(f"- name: {AGENT_NAME}\n  _target_: {target}\n", encoding="utf-8")
    return path
