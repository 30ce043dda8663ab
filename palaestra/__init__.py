"""Palaestra: the training ground for reasoning and agentic language models.

    import palaestra
    env = palaestra.make("GuessNumber-v0")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("<guess>50</guess>")

Importing `palaestra` is cheap: names below are loaded on first use, and no environment
family, torch, transformers or docker is imported until something needs it.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports name the lazy exports for type checkers

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    # the contract
    "Env": "palaestra.core",
    "Wrapper": "palaestra.core",
    "Step": "palaestra.core",
    "Message": "palaestra.core",
    "Action": "palaestra.core",
    "Observation": "palaestra.core",
    "InvalidAction": "palaestra.core",
    "as_message": "palaestra.core",
    "user": "palaestra.core",
    "system": "palaestra.core",
    "tool_message": "palaestra.core",
    "Verdict": "palaestra.verdict",
    "Status": "palaestra.verdict",
    "Conversation": "palaestra.spaces",
    "ChatAction": "palaestra.spaces",
    # the registry
    "EnvSpec": "palaestra.registration",
    "make": "palaestra.registration",
    "make_vec": "palaestra.registration",
    "spec": "palaestra.registration",
    "register": "palaestra.registration",
    "deregister": "palaestra.registration",
    "list_envs": "palaestra.registration",
    "load_registry": "palaestra.registration",
    "registry": "palaestra.registration",
    # checking
    "check_env": "palaestra.checker",
    # tools and parsers
    "Tool": "palaestra.tools",
    "tool": "palaestra.tools",
    "ToolCall": "palaestra.parsers",
    "ParsedAction": "palaestra.parsers",
    "get_parser": "palaestra.parsers",
    "parse_action": "palaestra.parsers",
    "VecEnv": "palaestra.vector",
    # multi-agent games
    "MultiAgentEnv": "palaestra.multiagent",
    "VsOpponent": "palaestra.multiagent",
    # verifiers loads environments by module name: vf.load_environment("palaestra", ...)
    "load_environment": "palaestra.integrations.verifiers",
}

__all__ = sorted(_EXPORTS) + ["__version__"]

if TYPE_CHECKING:
    from palaestra.checker import check_env
    from palaestra.core import (
        Action,
        Env,
        InvalidAction,
        Message,
        Observation,
        Step,
        Wrapper,
        as_message,
        system,
        tool_message,
        user,
    )
    from palaestra.integrations.verifiers import load_environment
    from palaestra.multiagent import MultiAgentEnv, VsOpponent
    from palaestra.parsers import ParsedAction, ToolCall, get_parser, parse_action
    from palaestra.registration import (
        EnvSpec,
        deregister,
        list_envs,
        load_registry,
        make,
        make_vec,
        register,
        registry,
        spec,
    )
    from palaestra.spaces import ChatAction, Conversation
    from palaestra.tools import Tool, tool
    from palaestra.vector import VecEnv
    from palaestra.verdict import Status, Verdict


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'palaestra' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


def _install_gymnasium_bridge() -> None:
    """Makes every id a Gymnasium id, ``gymnasium.make("palaestra:palaestra/Name-vN")``.

    If Gymnasium is already imported, the ids are registered now. Otherwise a one-shot
    import hook registers them right after Gymnasium's registry is first imported, so
    that importing `palaestra` never pays for importing Gymnasium.
    """
    from palaestra import _gymnasium_hook

    if "gymnasium.envs.registration" in sys.modules:
        from palaestra.registration import register_gymnasium

        register_gymnasium()
    else:
        _gymnasium_hook.install()


_install_gymnasium_bridge()
