"""Any Palaestra env as an environment of PrimeIntellect's verifiers (``vf.Environment``).

    import verifiers as vf
    env = vf.load_environment("palaestra", id="GuessNumber-v0", num_examples=64)
    results = env.evaluate_sync(client, model="...", num_examples=8)

``vf.load_environment(name)`` imports the module called ``name`` and calls its
``load_environment``; `palaestra.load_environment` is this module's `load_environment`, so
the name is ``palaestra`` and the id goes in the arguments. From the command line:
``vf-eval palaestra -a '{"id": "GuessNumber-v0"}'``. prime-rl loads environments through
the same ``load_environment`` by name (not exercised by the tests here). Tested with
verifiers 0.3.1, whose ``import verifiers as vf`` is the ``vf.Environment`` API (0.4.0 keeps
only ``verifiers.v1``).

What maps to what:

* Each dataset example is one episode: its ``prompt`` is the env's opening messages for
  its seed, and ``info["seed"]`` the seed (``SeedSequence([seed, index])``), so the
  ``rollouts_per_example`` samples of an example play the same instance, and examples
  differ.
* Every id is a `vf.MultiTurnEnv` (a single-turn id ends after one turn): ``setup_state``
  makes and resets the env, ``env_response`` steps it with the model's message (text and
  native tool calls) and answers with the env's messages; the episode's end is verifiers'
  ``final_env_response``, so the closing messages reach the transcript.
* ``env.tools`` are offered as verifiers ``tool_defs``; the env parses text formats itself.
* The turn cap is the env's own (``max_turns=`` sets it); verifiers' is left off, since it
  stops before sending the last turn to the env, which would leave that turn unscored.
* The rubric's reward is ``palaestra_return``, the sum of the turn rewards; ``success`` is
  logged as a metric (``info["success"]``).
* An infrastructure failure (``info["mask"]``) is a verifiers ``InfraError`` on the state,
  the way verifiers reports rollouts that must not be learned from.

What is lost: verifiers scores a rollout with one number, so per-turn rewards are summed
(the per-turn list stays in ``state["palaestra_rewards"]``); Palaestra's exact token
bookkeeping is verifiers' (its client and chat template), not Palaestra's rollout engine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from palaestra.errors import require

SEED_KEY = "seed"
"""The key of an example's env seed in its ``info``."""


def _vf() -> Any:
    vf = require("verifiers", "verifiers", "PrimeIntellect verifiers environments")
    if not hasattr(vf, "MultiTurnEnv"):
        # In a Palaestra checkout, the current directory's verifiers/ folder (the source of
        # palaestra.verifiers) shadows the installed package when it is on sys.path.
        raise ImportError(
            f"'import verifiers' found {getattr(vf, '__file__', vf)!r}, not PrimeIntellect's "
            "verifiers; run from a directory that has no verifiers/ folder"
        )
    return vf


def _plain(message: Any) -> dict[str, Any]:
    """A verifiers message (a pydantic model or a dict) as a plain dict."""
    if hasattr(message, "model_dump"):
        return message.model_dump(exclude_none=True)
    return dict(message)


def _action(message: Mapping[str, Any]) -> dict[str, Any]:
    """The model's verifiers message as a Palaestra action (OpenAI tool-call layout)."""
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts: keep the text
        content = "".join(str(part.get("text") or "") for part in content)
    action: dict[str, Any] = {"role": "assistant", "content": str(content)}
    calls = message.get("tool_calls") or []
    if calls:
        action["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for call in calls
        ]
    return action


def _env_messages(observation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Env messages as plain dicts with string content (what verifiers' types take)."""
    out = []
    for message in observation:
        item = {"role": message["role"], "content": str(message.get("content") or "")}
        if message["role"] == "tool":
            item["tool_call_id"] = message["tool_call_id"]
        out.append(item)
    return out


def _vf_messages(vf: Any, observation: list[dict[str, Any]]) -> list[Any]:
    """Env messages as verifiers' message types."""
    types = {"user": vf.UserMessage, "system": vf.SystemMessage, "tool": vf.ToolMessage}
    return [types[m["role"]](**m) for m in _env_messages(observation)]


def _tool_defs(tools: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    defs = [
        {
            "name": t["function"]["name"],
            "description": t["function"].get("description", ""),
            "parameters": t["function"].get("parameters", {"type": "object", "properties": {}}),
        }
        for t in tools
    ]
    return defs or None


def examples(
    env_id: str, num_examples: int, seed: int, env_kwargs: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The dataset rows: each example's opening messages and, in ``info``, its seed."""
    import numpy as np

    import palaestra

    env = palaestra.make(env_id, **env_kwargs)
    rows = []
    try:
        for index in range(num_examples):
            item_seed = int(
                np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint32)[0]
            )
            observation, _ = env.reset(seed=item_seed)
            rows.append(
                {
                    "prompt": _env_messages(observation),
                    "info": json.dumps({SEED_KEY: item_seed}),
                }
            )
    finally:
        env.close()
    return rows


def load_environment(
    id: str,  # noqa: A002 - palaestra.make's name; verifiers' own load_environment takes env_id
    *,
    num_examples: int = 64,
    seed: int = 0,
    max_turns: int | None = None,
    **env_kwargs: Any,
) -> Any:
    """A verifiers environment playing the env ``id``.

    Args:
        id: A registered id (or any id `palaestra.make` takes); not ``env_id``, which is
            the name of verifiers' own first argument (the module name, ``"palaestra"``).
        num_examples: Examples in the dataset (one seed each).
        seed: Base of the example seeds.
        max_turns: The env's turn cap (default: the id's own); the env truncates the
            episode there, after scoring the last turn.
        **env_kwargs: Arguments for `palaestra.make`.

    Returns:
        A `vf.MultiTurnEnv` whose dataset and eval dataset are the examples.
    """
    vf = _vf()
    datasets = require("datasets", "verifiers", "the verifiers dataset")
    import palaestra

    env_id = id
    if not isinstance(num_examples, int) or num_examples < 1:
        raise ValueError(f"num_examples must be a positive integer, got {num_examples!r}")
    if max_turns is not None:
        env_kwargs = {**env_kwargs, "max_turns": max_turns}
    probe = palaestra.make(env_id, **env_kwargs)
    tools = probe.tools
    probe.close()
    data = datasets.Dataset.from_list(examples(env_id, num_examples, seed, env_kwargs))
    env_class = _environment_class(vf)
    return env_class(
        palaestra_id=env_id,
        palaestra_kwargs=dict(env_kwargs),
        dataset=data,
        eval_dataset=data,
        rubric=_rubric(vf),
        # The env's own cap ends the episode: verifiers' max_turns stops before sending the
        # last turn to the env, which would leave that turn unscored.
        max_turns=-1,
        tool_defs=_tool_defs(tools),
        env_id="palaestra",
        env_args={"id": env_id, "num_examples": num_examples, "seed": seed, **env_kwargs},
    )


def _rubric(vf: Any) -> Any:
    async def palaestra_return(state: Any, **_: Any) -> float:
        return float(sum(state.get("palaestra_rewards") or []))

    async def success(state: Any, **_: Any) -> float:
        return float(bool(state.get("palaestra_success")))

    rubric = vf.Rubric(funcs=[palaestra_return])
    rubric.add_metric(success)
    return rubric


_CLASS: Any = None


def _environment_class(vf: Any) -> type:
    """`PalaestraEnv`, defined on first use (its base class is verifiers')."""
    global _CLASS
    if _CLASS is not None:
        return _CLASS

    class PalaestraEnv(vf.MultiTurnEnv):
        """A Palaestra env behind verifiers' multi-turn loop (see the module docstring)."""

        def __init__(self, palaestra_id: str, palaestra_kwargs: dict[str, Any], **kwargs: Any):
            super().__init__(**kwargs)
            self.palaestra_id = palaestra_id
            self.palaestra_kwargs = palaestra_kwargs

        async def setup_state(self, state: Any) -> Any:
            import palaestra

            info = state["info"]
            if isinstance(info, str):
                info = json.loads(info)
            env = palaestra.make(self.palaestra_id, **self.palaestra_kwargs)
            await env.areset(seed=int(info[SEED_KEY]))
            state["palaestra_env"] = env
            state["palaestra_rewards"] = []
            state["palaestra_success"] = None
            return state

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            env = state["palaestra_env"]
            action = _action(_plain(messages[-1]))
            observation, reward, terminated, truncated, info = await env.astep(action)
            state["palaestra_rewards"].append(float(reward))
            reply = _vf_messages(vf, observation)
            if info.get("mask"):
                raise vf.InfraError(
                    f"{self.palaestra_id} failed: {info.get('error') or 'masked step'}"
                )
            if terminated or truncated:
                state["palaestra_success"] = info.get("success")
                # An empty final reply still has to end the rollout.
                state["final_env_response"] = reply or [vf.UserMessage(content="")]
            return reply

        @vf.cleanup
        async def close_palaestra_env(self, state: Any) -> None:
            env = state.get("palaestra_env")
            if env is not None:
                env.close()

    _CLASS = PalaestraEnv
    return _CLASS
