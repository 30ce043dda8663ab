"""Gymnasium spaces for conversations, so that Gymnasium's own `check_env` accepts our envs.

`Conversation` holds observations (lists of chat messages); `ChatAction` holds actions
(strings or assistant messages). Their `sample()` draws seeded junk: it is what Gymnasium's
checker feeds an env, so it deliberately includes unicode, control characters and
malformed tool calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import create_shared_memory

OBSERVATION_ROLES = ("system", "user", "tool")

_ALPHABET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n\t"
    ".,;:!?()[]{}<>/\\|'\"`~@#$%^&*-_=+"
    "éßøЖж中文数学解αβγ∑√∞−\u200b\u202e\x00\x07\x1b"
)


def _random_text(rng: np.random.Generator, max_length: int) -> str:
    length = int(rng.integers(0, max_length + 1))
    return "".join(_ALPHABET[i] for i in rng.integers(0, len(_ALPHABET), size=length))


class Conversation(spaces.Space[list]):
    """Lists of chat messages ``{"role": "system" | "user" | "tool", "content": str}``.

    Tool messages must carry a string ``tool_call_id``.
    """

    def __init__(self, roles: tuple[str, ...] = OBSERVATION_ROLES, seed: int | None = None):
        """Creates the space.

        Args:
            roles: Roles an observation message may have.
            seed: Seeds `sample()`.
        """
        super().__init__(shape=None, dtype=None, seed=seed)
        self.roles = tuple(roles)

    @property
    def is_np_flattenable(self) -> bool:
        """Conversations cannot be flattened into arrays."""
        return False

    def contains(self, x: Any) -> bool:
        """True when ``x`` is a list of well-formed observation messages."""
        if not isinstance(x, list):
            return False
        for message in x:
            if not isinstance(message, dict) or message.get("role") not in self.roles:
                return False
            if not isinstance(message.get("content"), str):
                return False
            if message["role"] == "tool" and not isinstance(message.get("tool_call_id"), str):
                return False
        return True

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> list:
        """One or two random user messages."""
        if mask is not None or probability is not None:
            raise ValueError("Conversation.sample() takes no mask or probability")
        count = int(self.np_random.integers(1, 3))
        return [{"role": "user", "content": _random_text(self.np_random, 64)} for _ in range(count)]

    def __repr__(self) -> str:
        return f"Conversation(roles={self.roles})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conversation) and other.roles == self.roles


class ChatAction(spaces.Space[Any]):
    """Strings, or assistant messages.

    An assistant message is ``{"role": "assistant", "content": ..., "tool_calls": [...]}``.
    """

    def __init__(self, seed: int | None = None):
        """Creates the space.

        Args:
            seed: Seeds `sample()`.
        """
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Actions cannot be flattened into arrays."""
        return False

    def contains(self, x: Any) -> bool:
        """True for a string or a structurally valid assistant message."""
        if isinstance(x, str):
            return True
        if not isinstance(x, dict) or x.get("role", "assistant") != "assistant":
            return False
        content = x.get("content")
        if content is not None and not isinstance(content, str):
            return False
        calls = x.get("tool_calls")
        return calls is None or (
            isinstance(calls, list) and all(isinstance(c, dict) for c in calls)
        )

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> Any:
        """Seeded junk: random text, a malformed tool call, or a tool-call message."""
        if mask is not None or probability is not None:
            raise ValueError("ChatAction.sample() takes no mask or probability")
        rng = self.np_random
        kind = int(rng.integers(0, 4))
        text = _random_text(rng, 48)
        if kind == 0:
            return text
        if kind == 1:
            return f'<tool_call>{{"name": {text!r}</tool_call>'
        if kind == 2:
            return f"<answer>{text}</answer>"
        return {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": text, "arguments": "{"}}
            ],
        }

    def __repr__(self) -> str:
        return "ChatAction()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChatAction)


@create_shared_memory.register(Conversation)
def _no_shared_memory(space: Conversation, n: int = 1, ctx: Any = None) -> None:
    # Gymnasium's AsyncVectorEnv shares observations in fixed-size arrays by default;
    # conversations have no fixed size (as Gymnasium's own Sequence and Graph spaces).
    raise TypeError(
        "Palaestra observations are conversations of any length, which cannot live in "
        "fixed-size shared memory: pass shared_memory=False to gymnasium.vector.AsyncVectorEnv "
        "(or use palaestra.make_vec(id, n), which steps envs concurrently)"
    )
