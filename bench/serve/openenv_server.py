"""The same Palaestra env served by OpenEnv's own server framework (``openenv-core``).

    python -m bench.serve.openenv_server PORT ENV_ID MAX_SESSIONS

The env is wrapped in an OpenEnv `Environment` whose action is an assistant message's
content and whose observation carries the messages and info, then served by
`openenv.core.env_server.http_server.create_fastapi_app` on uvicorn: the comparison
`bench.serve` draws is between the two servers, not between envs.
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State

import palaestra
from palaestra.serve.protocol import encode

ENV_ID = sys.argv[2] if __name__ == "__main__" else "GuessNumber-v0"


class ChatAction(Action):
    """The assistant message's content."""

    content: str | None = None


class ChatObservation(Observation):
    """The messages the agent has not seen, and the step's info."""

    messages: list[dict[str, Any]] = []
    info: dict[str, Any] = {}


class PalaestraEnvironment(Environment):
    """One Palaestra env behind OpenEnv's `Environment` interface."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self.env = palaestra.make(ENV_ID)
        self.steps = 0

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any):
        """Starts an episode."""
        observation, info = self.env.reset(seed=seed)
        self.steps = 0
        return ChatObservation(messages=observation, info=encode(info), done=False, reward=None)

    def step(self, action: ChatAction, timeout_s: float | None = None, **kwargs: Any):
        """Plays one turn."""
        observation, reward, terminated, truncated, info = self.env.step(action.content)
        self.steps += 1
        return ChatObservation(
            messages=observation, info=encode(info), done=terminated or truncated, reward=reward
        )

    @property
    def state(self) -> State:
        """The step count."""
        return State(step_count=self.steps)


if __name__ == "__main__":
    port, max_sessions = int(sys.argv[1]), int(sys.argv[3])
    app = create_fastapi_app(
        PalaestraEnvironment, ChatAction, ChatObservation, max_concurrent_envs=max_sessions
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
