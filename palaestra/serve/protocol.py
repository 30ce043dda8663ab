"""The wire format of `palaestra serve`: OpenEnv's WebSocket frames, carrying Palaestra values.

OpenEnv (``openenv-core`` and ``openenv`` on PyPI) speaks JSON text frames over a WebSocket
at ``<base_url>/ws``; each client frame is ``{"type": ..., "data": ...}`` and the server
answers each with one frame:

    {"type": "reset", "data": {"seed": 0, "options": {...}, "episode_id": "e1"}}
        -> {"type": "observation", "data": {"observation": OBS, "reward": null, "done": false}}
    {"type": "step", "data": ACTION}
        -> {"type": "observation", "data": {"observation": OBS, "reward": 0.5, "done": true}}
    {"type": "state"}  -> {"type": "state", "data": {"episode_id": ..., "step_count": 3, ...}}
    {"type": "close"}  -> (no answer; the server closes the socket)
    anything wrong     -> {"type": "error", "data": {"message": "...", "code": "INVALID_JSON"}}

Palaestra fills OpenEnv's ``observation`` slot with ``{"messages": [...], "info": {...},
"terminated": bool, "truncated": bool}``, so nothing of Gymnasium's 5-tuple is lost, and adds
one frame type of its own, ``{"type": "call", "data": {"method": "oracle_action"}}`` ->
``{"type": "result", "data": {"value": ...}}``, for the env methods that are not steps. A
client may add an integer ``"id"`` to any frame; the answer then carries the same ``"id"``,
and a frame that repeats the last ``"id"`` of its session (a client resending after a
reconnect) gets the stored answer instead of running twice. docs/serve.md lists every frame.

This module is pure (no server or client imports), so the server, the remote env and a
future Ray host share it.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from palaestra.verdict import Verdict

OPENENV_VERSIONS = {"openenv-core": "0.3.0"}
"""The OpenEnv client releases the test suite plays against (pinned in the ``dev`` extra)."""

VERDICT_TAG = "$verdict"
"""Key of the one-entry object that carries a `Verdict` (``{"$verdict": {...}}``)."""

UNENCODABLE_TAG = "$unencodable"
"""Key of the stand-in for an action JSON cannot carry (``{"$unencodable": "bytes"}``)."""

CALLABLE_METHODS = ("oracle_action", "best_return", "render_text", "state_key", "tools")
"""The env methods a ``call`` frame may run (``tools`` is a property)."""

RESET_KEYS = ("seed", "options", "episode_id")
"""The keys a reset frame's data may hold."""

MESSAGE_KEYS = ("role", "content", "tool_calls", "name", "metadata")
"""The keys a step frame's data may hold when it is an assistant message (OpenEnv's typed
actions always carry ``metadata``; it is ignored)."""


class ErrorCode(str, enum.Enum):
    """The ``code`` of an error frame: OpenEnv's codes first, then Palaestra's."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"
    FACTORY_ERROR = "FACTORY_ERROR"
    SESSION_ERROR = "SESSION_ERROR"
    UNAUTHORIZED = "UNAUTHORIZED"
    UNKNOWN_ENV = "UNKNOWN_ENV"
    UNKNOWN_ARGUMENT = "UNKNOWN_ARGUMENT"
    UNKNOWN_SESSION = "UNKNOWN_SESSION"
    RESET_NEEDED = "RESET_NEEDED"
    SLOW_CLIENT = "SLOW_CLIENT"

    def __str__(self) -> str:
        return self.value


class ProtocolError(Exception):
    """A request the server refuses; becomes an error frame (WebSocket) or response (HTTP).

    Attributes:
        code: What kind of error.
        message: What failed and how to fix it.
        extra: More fields for the error's data (e.g. ``active_sessions``).
    """

    def __init__(self, code: ErrorCode, message: str, **extra: Any):
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra

    def data(self) -> dict[str, Any]:
        """The error's ``data`` object."""
        return {"message": self.message, "code": self.code.value, **self.extra}


# --- values --------------------------------------------------------------------------------


_JSON_LEAVES = frozenset({str, int, float, bool, type(None)})
"""The exact types `encode` returns as they are."""


def encode(value: Any) -> Any:
    """A JSON-ready copy of ``value``: verdicts tagged, numpy unwrapped, tuples and sets listed.

    Anything else JSON cannot hold becomes its ``repr``, so that an env's odd info value
    never breaks a response.
    """
    # Exact JSON types first: they are nearly every value a frame carries, and testing the
    # type once is several times cheaper than the chain of isinstance checks below. The
    # leaves of dicts and lists are tested in place, sparing a call per leaf (a step's
    # frame holds dozens of them).
    kind = type(value)
    if kind in _JSON_LEAVES:
        return value
    if kind is dict:
        return {
            k if type(k) is str else str(k): v if type(v) in _JSON_LEAVES else encode(v)
            for k, v in value.items()
        }
    if kind is list or kind is tuple:
        return [v if type(v) in _JSON_LEAVES else encode(v) for v in value]
    if isinstance(value, Verdict):
        return {VERDICT_TAG: encode(value.to_dict())}
    if isinstance(value, (str, bool, int)) or value is None:
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((encode(v) for v in value), key=repr)
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, np.ndarray):
        return encode(value.tolist())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(dataclasses.asdict(value))
    return repr(value)


def decode(value: Any) -> Any:
    """The inverse of `encode` for what it can invert: tagged verdicts become `Verdict`s."""
    if isinstance(value, dict):
        if len(value) == 1 and VERDICT_TAG in value:
            return Verdict.from_dict(decode(value[VERDICT_TAG]))
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def encode_action(action: Any) -> dict[str, Any]:
    """The step frame's data for a client-side action (any value a local env accepts).

    JSON values go as ``{"action": value}``; a value JSON cannot carry (bytes, objects) goes
    as a stand-in naming its type, which the env refuses as an invalid action exactly as it
    refuses the value itself.
    """
    if _json_native(action):
        return {"action": action}
    return {"action": {UNENCODABLE_TAG: type(action).__name__}}


def _json_native(value: Any, depth: int = 0) -> bool:
    if depth > 64:  # deeper than any message; sent as a stand-in rather than recursing on
        return False
    if isinstance(value, (str, bool, int)) or value is None:
        return True
    if isinstance(value, float):
        return not math.isnan(value) and not math.isinf(value)
    if isinstance(value, list):
        return all(_json_native(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_native(v, depth + 1) for k, v in value.items())
    return False


_TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def decode_action(data: Any) -> Any:
    """The action a step frame's data stands for.

    Accepts ``{"action": <any JSON>}`` (Palaestra's client) or an assistant message
    ``{"role"?, "content", "tool_calls"?, "metadata"?}`` (OpenEnv's clients).

    Raises:
        ProtocolError: The data is neither.
    """
    if not isinstance(data, dict):
        raise ProtocolError(
            ErrorCode.VALIDATION_ERROR,
            f"a step's data must be an object, got {type(data).__name__}",
        )
    if set(data) == {"action"}:
        action = data["action"]
        if isinstance(action, dict) and set(action) == {UNENCODABLE_TAG}:
            name = action[UNENCODABLE_TAG]
            if not isinstance(name, str) or not _TYPE_NAME.match(name):
                raise ProtocolError(
                    ErrorCode.VALIDATION_ERROR, f"{UNENCODABLE_TAG} must name a Python type"
                )
            # An instance of a class with the client's type name: the env refuses it with
            # the same message it gives the original value.
            return type(name, (), {})()
        return action
    unknown = sorted(set(data) - set(MESSAGE_KEYS))
    if unknown:
        raise ProtocolError(
            ErrorCode.VALIDATION_ERROR,
            f"a step's data is an assistant message ({', '.join(MESSAGE_KEYS)}) or "
            f'{{"action": ...}}; unknown keys {unknown}',
        )
    return {k: v for k, v in data.items() if k != "metadata"}


def decode_reset(data: Any) -> tuple[int | None, dict[str, Any] | None, str | None]:
    """``(seed, options, episode_id)`` from a reset frame's data.

    Raises:
        ProtocolError: Unknown keys or wrongly typed values.
    """
    if data is None:
        return None, None, None
    if not isinstance(data, dict):
        raise ProtocolError(
            ErrorCode.VALIDATION_ERROR,
            f"a reset's data must be an object, got {type(data).__name__}",
        )
    unknown = sorted(set(data) - set(RESET_KEYS))
    if unknown:
        raise ProtocolError(
            ErrorCode.VALIDATION_ERROR,
            f"a reset accepts {', '.join(RESET_KEYS)}; unknown keys {unknown}",
        )
    seed, options, episode_id = data.get("seed"), data.get("options"), data.get("episode_id")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise ProtocolError(
            ErrorCode.VALIDATION_ERROR, f"seed must be a non-negative integer, got {seed!r}"
        )
    if options is not None and not isinstance(options, dict):
        raise ProtocolError(ErrorCode.VALIDATION_ERROR, "options must be an object or null")
    if episode_id is not None and (not isinstance(episode_id, str) or len(episode_id) > 255):
        raise ProtocolError(
            ErrorCode.VALIDATION_ERROR, "episode_id must be a string of at most 255 characters"
        )
    return seed, options, episode_id


# --- results -------------------------------------------------------------------------------


def reset_result(observation: list[dict[str, Any]], info: dict[str, Any]) -> dict[str, Any]:
    """OpenEnv's observation data for a reset."""
    return {
        "observation": {
            "messages": encode(observation),
            "info": encode(info),
            "terminated": False,
            "truncated": False,
        },
        "reward": None,
        "done": False,
    }


def step_result(
    observation: list[dict[str, Any]],
    reward: float,
    terminated: bool,
    truncated: bool,
    info: dict[str, Any],
) -> dict[str, Any]:
    """OpenEnv's observation data for a step (``done`` is terminated or truncated)."""
    return {
        "observation": {
            "messages": encode(observation),
            "info": encode(info),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
        },
        "reward": float(reward),
        "done": bool(terminated or truncated),
    }


def parse_reset(data: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(observation, info)`` from a reset's observation data."""
    body = data["observation"]
    return decode(body["messages"]), decode(body["info"])


def parse_step(data: dict[str, Any]) -> tuple[list[dict[str, Any]], float, bool, bool, dict]:
    """Gymnasium's 5-tuple from a step's observation data."""
    body = data["observation"]
    return (
        decode(body["messages"]),
        float(data["reward"]),
        bool(body["terminated"]),
        bool(body["truncated"]),
        decode(body["info"]),
    )
