"""The env contract for envs whose episodes run somewhere else.

A `ProxyEnv` holds a link to an env elsewhere (a `palaestra serve` session, a lease in a Ray
env pool) and turns the failures of that link into the contract's terms, the same way for
every transport:

* `reset` opens a link if there is none, and tries once more on a new link when the first
  is lost; only when both fail does it raise `InfrastructureError`.
* `step` never raises for a lost link: it gives a truncated step with
  ``info["status"] = "error"`` and ``info["mask"] = True`` (never a zero reward), and the
  next `reset` opens a new link.
* The oracle, `best_return`, `render_text` and `state_key` are asked of the remote env.

A subclass says how to open and drop a link and how to carry calls over it; it raises
`LostLink` whenever the other side cannot be reached.
"""

from __future__ import annotations

import abc
from typing import Any

import gymnasium as gym

from palaestra.core import Action, Env, Info, Observation
from palaestra.errors import InfrastructureError, ResetNeeded
from palaestra.serve import protocol
from palaestra.serve.sessions import infrastructure_error_result

StepTuple = tuple[Observation, float, bool, bool, Info]


class LostLink(Exception):
    """The env on the other side cannot be reached (gone, restarted, or silent)."""


class ProxyEnv(Env, abc.ABC):
    """An env that forwards the contract over a link (see the module docstring).

    Attributes:
        env_id: The id of the env on the other side.
        kwargs: The arguments it was made with.
    """

    env_id: Any
    kwargs: dict[str, Any]
    _tools: list[dict[str, Any]]

    # --- what a transport provides ---------------------------------------------------------

    @property
    @abc.abstractmethod
    def linked(self) -> bool:
        """Whether a link is open."""

    @abc.abstractmethod
    def _link(self) -> None:
        """Opens a link (a session, a lease); raises `LostLink` when nothing answers."""

    @abc.abstractmethod
    async def _alink(self) -> None:
        """The async twin of `_link`."""

    @abc.abstractmethod
    def _unlink(self) -> None:
        """Forgets a lost link (never waits, never raises)."""

    @abc.abstractmethod
    def _request(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Calls ``method`` of the remote env and returns its answer; raises `LostLink`."""

    @abc.abstractmethod
    async def _arequest(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """The async twin of `_request`."""

    # --- the contract ----------------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The remote env's tool schemas."""
        return self._tools

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """Starts an episode (on a new link if the last one was lost).

        Raises:
            InfrastructureError: Nothing answered, twice.
        """
        gym.Env.reset(self, seed=seed)  # seeds the local np_random, as Gymnasium expects
        for attempt in range(2):
            try:
                if not self.linked:
                    self._link()
                observation, info = self._request("reset", seed=seed, options=options)
            except LostLink as e:
                self._unlink()
                if attempt == 1:
                    raise InfrastructureError(f"{self.env_id}: reset failed: {e}") from None
                continue
            self._turn = 0
            return observation, info
        raise AssertionError("unreachable")

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, Info]:
        """The async twin of `reset`."""
        gym.Env.reset(self, seed=seed)
        for attempt in range(2):
            try:
                if not self.linked:
                    await self._alink()
                observation, info = await self._arequest("reset", seed=seed, options=options)
            except LostLink as e:
                self._unlink()
                if attempt == 1:
                    raise InfrastructureError(f"{self.env_id}: reset failed: {e}") from None
                continue
            self._turn = 0
            return observation, info
        raise AssertionError("unreachable")

    def step(self, action: Action) -> StepTuple:
        """Plays one turn on the other side; a lost link gives a masked, truncated step."""
        self._require_link()
        try:
            out = self._request("step", action)
        except LostLink as e:
            return self._lost_step(str(e))
        return self._stepped(out)

    async def astep(self, action: Action) -> StepTuple:
        """The async twin of `step`."""
        self._require_link()
        try:
            out = await self._arequest("step", action)
        except LostLink as e:
            return self._lost_step(str(e))
        return self._stepped(out)

    def _require_link(self) -> None:
        if not self.linked:
            raise ResetNeeded(f"{self.env_id}: the link to the env was lost; call reset()")

    def _stepped(self, out: StepTuple) -> StepTuple:
        self._turn = out[4].get("turn", self._turn + 1)
        return out

    def _lost_step(self, reason: str) -> StepTuple:
        self._unlink()
        self._turn += 1
        return protocol.parse_step(infrastructure_error_result(reason, self._turn))

    def _ask(self, method: str, *args: Any) -> Any:
        """Calls a method of the remote env outside `step`; a lost link raises."""
        self._require_link()
        try:
            return self._request(method, *args)
        except LostLink as e:
            self._unlink()
            raise InfrastructureError(f"{self.env_id}: {method} failed: {e}") from None

    def oracle_action(self) -> Action:
        """The remote env's oracle action."""
        return self._ask("oracle_action")

    def best_return(self) -> float:
        """The remote env's best return for the current episode."""
        return float(self._ask("best_return"))

    def render_text(self) -> str:
        """The remote env's text picture of the current state."""
        return self._ask("render_text")

    def state_key(self) -> Any:
        """The remote env's state key."""
        return self._ask("state_key")
