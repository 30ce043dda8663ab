"""Agents and rollouts: policies, token-in/token-out chat, tool calls and the rollout engine.

    from palaestra.agents import ChatFormatter, HFPolicy, RolloutEngine, Task, load_tiny

    tokenizer, model = load_tiny()
    engine = RolloutEngine(HFPolicy(model, tokenizer), ChatFormatter(tokenizer), samples_per_task=4)
    episodes = engine.run([Task("GuessNumber-v0", seed=s) for s in range(8)])

Names load on first use: importing `palaestra.agents` imports neither torch nor
transformers nor httpx.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports name the lazy exports for type checkers

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    # the policy protocol
    "Policy": "palaestra.agents.policy",
    "Request": "palaestra.agents.policy",
    "Completion": "palaestra.agents.policy",
    "SamplingParams": "palaestra.agents.policy",
    "TurnContext": "palaestra.agents.policy",
    "PolicyError": "palaestra.agents.policy",
    # chat, token in / token out
    "ChatFormatter": "palaestra.agents.chat",
    "ChatSequence": "palaestra.agents.chat",
    "DriftReport": "palaestra.agents.chat",
    "TemplateError": "palaestra.agents.chat",
    "text_to_action": "palaestra.agents.tool_calls",
    # backends
    "HFPolicy": "palaestra.agents.backends.hf",
    "token_logprobs": "palaestra.agents.backends.hf",
    "OpenAIPolicy": "palaestra.agents.backends.openai",
    "VLLMPolicy": "palaestra.agents.backends.vllm",
    "AsyncVLLMPolicy": "palaestra.agents.backends.vllm",
    # scripted policies
    "OraclePolicy": "palaestra.agents.scripted",
    "RandomPolicy": "palaestra.agents.scripted",
    "ReplayPolicy": "palaestra.agents.scripted",
    "LatencyPolicy": "palaestra.agents.scripted",
    # rollouts
    "Task": "palaestra.agents.rollout",
    "Episode": "palaestra.agents.rollout",
    "RolloutConfig": "palaestra.agents.rollout",
    "RolloutEngine": "palaestra.agents.rollout",
    "RolloutStats": "palaestra.agents.rollout",
    "rollout": "palaestra.agents.rollout",
    "write_jsonl": "palaestra.agents.rollout",
    "read_jsonl": "palaestra.agents.rollout",
    "pad_episodes": "palaestra.agents.rollout",
    "WorkerPool": "palaestra.agents.workers",
    # the tiny model
    "load_tiny": "palaestra.agents.tiny",
    "tiny_tokenizer": "palaestra.agents.tiny",
    "tiny_model": "palaestra.agents.tiny",
    "TinyModelConfig": "palaestra.agents.tiny",
    "TinyTokenizerConfig": "palaestra.agents.tiny",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # names for type checkers and IDEs; loaded lazily at run time
    from palaestra.agents.backends.hf import HFPolicy, token_logprobs
    from palaestra.agents.backends.openai import OpenAIPolicy
    from palaestra.agents.backends.vllm import AsyncVLLMPolicy, VLLMPolicy
    from palaestra.agents.chat import ChatFormatter, ChatSequence, DriftReport, TemplateError
    from palaestra.agents.policy import (
        Completion,
        Policy,
        PolicyError,
        Request,
        SamplingParams,
        TurnContext,
    )
    from palaestra.agents.rollout import (
        Episode,
        RolloutConfig,
        RolloutEngine,
        RolloutStats,
        Task,
        pad_episodes,
        read_jsonl,
        rollout,
        write_jsonl,
    )
    from palaestra.agents.scripted import LatencyPolicy, OraclePolicy, RandomPolicy, ReplayPolicy
    from palaestra.agents.tiny import (
        TinyModelConfig,
        TinyTokenizerConfig,
        load_tiny,
        tiny_model,
        tiny_tokenizer,
    )
    from palaestra.agents.tool_calls import text_to_action
    from palaestra.agents.workers import WorkerPool


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'palaestra.agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
