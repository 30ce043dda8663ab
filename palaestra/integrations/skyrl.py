"""SkyRL-gym: any Palaestra env as a `skyrl_gym` text env (``pip install "palaestra[skyrl]"``).

Importing this module registers the name ``"palaestra"`` in SkyRL-gym's registry; the id,
kwargs and seed of each episode come from the dataset row, so one name serves every id:

    import palaestra.integrations.skyrl as pal_skyrl    # registers "palaestra" in skyrl_gym
    pal_skyrl.write_parquet("train.parquet", pal_skyrl.rows("GuessNumber-v0", n=512))
    # skyrl-train: data.train_data="['train.parquet']"; import this module in your entrypoint

    env = skyrl_gym.make("palaestra", extras={"palaestra": '{"id": "GuessNumber-v0", "seed": 3}'})
    conversation, _ = env.init([])
    output = env.step("<guess>50</guess>")     # {"observations", "reward", "done", "metadata"}

A row (`rows`) is ``{"prompt": opening messages, "env_class": "palaestra", "palaestra": spec}``
where spec is the JSON text of an `EpisodeSpec`; SkyRL hands every column other than the
prompt and env class to the env as ``extras``, and repeats a row for each member of a group,
so a group's members share the row's seed.

What maps to what:

    Palaestra                                    SkyRL-gym (BaseTextEnv)
    make(id, **kwargs); reset(seed=seed)         skyrl_gym.make("palaestra", extras=row); init()
    the opening messages                         init()'s conversation (replaces the row's prompt)
    step(text) -> obs, reward, term, trunc, info step(text) -> observations, reward, done, metadata
    terminated or truncated                      done (metadata keeps which)
    each turn's reward                           each step's reward
    info: reward_parts, success, status, mask,   metadata (verdict as a dict)
      verdict
    env.oracle_action(), the env itself          `PalaestraTextEnv.env`

What is lost:

* **Masked episodes.** SkyRL has no way to drop an episode. An infrastructure failure ends
  the episode (``done``; the failed turn's reward is 0) with ``metadata["mask"] = True``;
  filter such episodes in your own generator if they matter.
* **Native tool calls.** SkyRL hands the env the sampled text; envs with tools read their
  text formats (``<tool_call>`` JSON and the like) through `palaestra.parsers`, as they do
  for any text action.
* **Tool schemas in the prompt.** SkyRL templates the conversation without tools, so a tool
  env's schemas (``env.env.tools``) reach the model only through your chat template or a
  system message of your own (the other adapters render them with the template).
* The distinction between terminated and truncated, except in the metadata.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from palaestra.errors import require
from palaestra.integrations._episodes import EpisodeSpec, outcome, plain_messages, specs
from palaestra.integrations._episodes import write_parquet as write_parquet
from palaestra.registration import spec

skyrl_gym = require("skyrl_gym", "skyrl", "the SkyRL-gym adapter")
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput  # noqa: E402

ENV_CLASS = "palaestra"
"""The name this module registers in SkyRL-gym (a row's ``env_class``)."""

EXTRAS_KEY = "palaestra"
"""The row column (SkyRL's ``extras`` key) holding the episode spec."""


class PalaestraTextEnv(BaseTextEnv):
    """A Palaestra env behind SkyRL-gym's `BaseTextEnv` (``init``/``step``/``close``).

    Args:
        env_config: SkyRL's per-env-class config section; this env reads nothing from it,
            and a non-empty one is an error (ids, kwargs and seeds belong in the rows).
        extras: The row's other columns; ``extras["palaestra"]`` is the episode spec (its
            JSON text or mapping, see `EpisodeSpec`). Other keys (SkyRL adds ``max_turns``)
            are left alone.

    Attributes:
        episode: The `EpisodeSpec` of the row.
        env: The Palaestra env (made and reset with the spec's seed).
        max_turns: The env's turn cap (None: it has none); the env ends its episodes there.

    Raises:
        ValueError: The spec is missing or malformed, or env_config is not empty.
        UnknownEnvError, UnknownArgumentError: As `palaestra.make` raises them.
    """

    def __init__(self, env_config: Mapping[str, Any] | None = None, extras: Any = None):
        super().__init__()
        if env_config:
            raise ValueError(
                f"the {ENV_CLASS!r} env takes no env_config (got keys {sorted(env_config)}); "
                f"put ids, kwargs and seeds in the dataset's {EXTRAS_KEY!r} column (rows())"
            )
        if not isinstance(extras, Mapping) or EXTRAS_KEY not in extras:
            raise ValueError(
                f"the {ENV_CLASS!r} env needs extras[{EXTRAS_KEY!r}], the episode spec "
                "(JSON with id, seed and kwargs), as rows() writes it"
            )
        self.episode = EpisodeSpec.parse(extras[EXTRAS_KEY])
        self.env, self._opening = self.episode.start()
        self.max_turns = self.episode.kwargs.get("max_turns", spec(self.episode.env_id).max_turns)
        self._return = 0.0
        self._last: dict[str, Any] = {}

    def init(self, prompt: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The env's opening messages (the row's prompt is replaced by them) and no metadata."""
        return [dict(m) for m in self._opening], {}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Plays one turn: the sampled text goes to the env as is."""
        self.turns += 1
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        metadata = {**outcome(info), "terminated": terminated, "truncated": truncated}
        self._last = metadata
        done = bool(terminated or truncated)
        return BaseTextEnvStepOutput(
            observations=[] if done else plain_messages(observation),
            reward=float(reward),
            done=done,
            metadata=metadata,
        )

    def get_metrics(self) -> dict[str, Any]:
        """The episode's return, success, turns and whether it is masked (numbers only)."""
        return {
            "return": self._return,
            "success": float(bool(self._last.get("success"))),
            "turns": self.turns,
            "masked": float(self._last.get("mask", False)),
        }

    def close(self) -> None:
        """Closes the Palaestra env."""
        self.env.close()


def register() -> None:
    """Registers `ENV_CLASS` in SkyRL-gym's registry (a second call does nothing)."""
    if ENV_CLASS not in skyrl_gym.registry:
        skyrl_gym.register(id=ENV_CLASS, entry_point=PalaestraTextEnv)


def rows(
    ids: str | Iterable[str], n: int, *, seed: int = 0, start: int = 0, **kwargs: Any
) -> list[dict[str, Any]]:
    """SkyRL dataset rows of episodes ``start .. start + n - 1`` of every id (any id).

    Args:
        ids: One id or several.
        n: Episodes per id.
        seed: The stream's seed (episode ``index`` resets with ``SeedSequence([seed, index])``).
        start: The first index (disjoint ranges give disjoint splits).
        **kwargs: make() kwargs for every id (JSON values).

    Returns:
        Rows ``{"prompt", "env_class", "palaestra"}``, ready for `write_parquet`.
    """
    out = []
    for episode in specs(ids, n, seed=seed, start=start, **kwargs):
        env, opening = episode.start()
        env.close()
        out.append({"prompt": opening, "env_class": ENV_CLASS, EXTRAS_KEY: episode.to_json()})
    return out


register()
