"""Many envs stepped together, concurrently.

LLM envs spend their time waiting (on sandboxes, judges, search servers), so `VecEnv`
steps its envs concurrently on asyncio: native async envs run on the event loop and sync
ones in worker threads. Episodes have different lengths, so there is no autoreset: a
finished env takes ``None`` as its action and is skipped until it is reset.

    envs = palaestra.make_vec("GuessNumber-v0", 8)
    obs, infos = envs.reset(seed=0)            # env i gets a stream derived from (0, i)
    obs, rewards, terms, truncs, infos = envs.step(actions)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.core import Action, Env, Info, Observation, Wrapper


def derive_seeds(seed: int | None, n: int) -> list[int | None]:
    """Independent per-env seeds from one seed (``SeedSequence([seed, i])``, never ``seed + i``)."""
    if seed is None:
        return [None] * n
    return [int(np.random.SeedSequence([seed, i]).generate_state(1)[0]) for i in range(n)]


def _run(make_coroutine):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coroutine())
    raise RuntimeError(
        "VecEnv.reset/step were called inside a running event loop; use areset/astep there"
    )


class VecEnv:
    """A batch of envs, reset and stepped concurrently.

    Args:
        envs: The envs (usually copies of one id, from `palaestra.make_vec`).
    """

    def __init__(self, envs: Sequence[Env | Wrapper]):
        if not envs:
            raise ValueError("VecEnv needs at least one env")
        self.envs = list(envs)
        self.done = [True] * len(self.envs)

    @property
    def num_envs(self) -> int:
        """How many envs there are."""
        return len(self.envs)

    def __len__(self) -> int:
        return len(self.envs)

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list[Observation], list[Info]]:
        """Resets every env; env ``i`` is seeded from ``SeedSequence([seed, i])``."""
        seeds = derive_seeds(seed, len(self.envs))
        results = await asyncio.gather(
            *(env.areset(seed=s, options=options) for env, s in zip(self.envs, seeds, strict=True))
        )
        self.done = [False] * len(self.envs)
        return [r[0] for r in results], [r[1] for r in results]

    async def astep(
        self, actions: Sequence[Action | None]
    ) -> tuple[list[Observation], list[float], list[bool], list[bool], list[Info]]:
        """Steps every env that has not finished; finished envs must get ``None``."""
        if len(actions) != len(self.envs):
            raise ValueError(f"expected {len(self.envs)} actions, got {len(actions)}")
        for i, action in enumerate(actions):
            if self.done[i] and action is not None:
                raise ValueError(f"env {i} has finished its episode; pass None as its action")
            if not self.done[i] and action is None:
                raise ValueError(f"env {i} is still running; it needs an action, not None")

        async def one(i: int, action: Action | None):
            if action is None:
                return [], 0.0, False, False, {"skipped": True}
            return await self.envs[i].astep(action)

        results = await asyncio.gather(*(one(i, a) for i, a in enumerate(actions)))
        for i, (_, _, terminated, truncated, _) in enumerate(results):
            if actions[i] is not None and (terminated or truncated):
                self.done[i] = True
        observations, rewards, terms, truncs, infos = (list(x) for x in zip(*results, strict=True))
        return observations, rewards, terms, truncs, infos

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list[Observation], list[Info]]:
        """Sync `areset`."""
        return _run(lambda: self.areset(seed=seed, options=options))

    def step(
        self, actions: Sequence[Action | None]
    ) -> tuple[list[Observation], list[float], list[bool], list[bool], list[Info]]:
        """Sync `astep`."""
        return _run(lambda: self.astep(actions))

    def close(self) -> None:
        """Closes every env."""
        for env in self.envs:
            env.close()
