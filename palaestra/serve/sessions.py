"""Sessions: each owns one env, runs one request at a time and answers in protocol frames.

A `SessionStore` holds the sessions of one process: it makes their envs, enforces the
capacity limit, reaps idle sessions and keeps the numbers `/metrics` reports. It knows
nothing of HTTP or WebSockets (the server in `palaestra.serve.app` calls `Session.handle`
for every frame it receives), so another host, such as a Ray actor, can serve the same
sessions through its own transport.

Where env calls run, and the invariants that keep other sessions served:

* **Sync envs run in the store's thread pool under a deadline** (``step_timeout_s``):
  make, call, and the resets and steps of every env that may block. A call that misses the
  deadline leaves its env behind: the step answers with a masked infrastructure error, the
  next reset makes a new env, and the thread stays busy until the hung call returns
  (Python cannot kill a thread), so the pool is sized with room for that.
* **Natively async envs** are awaited on the event loop, under the same deadline.
* **Steps and resets of pure game envs run inline, on the event loop, under a budget.**
  Handing a call to a thread and waking the loop when it is done costs tens of
  microseconds of CPU (two thread wake-ups and a write to the loop's wake-up pipe), more
  than a game's step (GuessNumber's takes about 20 us), and it is most of what a light
  env's step costs a server; short games reset every few steps, so their resets count
  too. An id runs inline when its registry tags include one of `INLINE_TAGS` and none of
  `MAY_BLOCK_TAGS` (sandboxes, Docker, tools, network, SQL) and ``inline_budget_s`` is
  set. Every inline call is timed; a step that uses more CPU than the budget, or waits,
  sends every later step of its id to the thread pool, for the life of the server, and a
  reset over the budget does the same for its id's resets (a game may build its puzzle in
  reset and still step in microseconds). The price of running inline: while a call runs
  no other session is served, and the deadline cannot stop it, so an inline call that
  never returned would stall the server. Only ids whose steps and resets are bounded
  pure-Python computations qualify; a server that must survive a buggy game sets
  ``inline_budget_s=None`` (``--inline-budget-ms 0``).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import difflib
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from palaestra.core import Env, user
from palaestra.errors import ResetNeeded, UnknownArgumentError, UnknownEnvError
from palaestra.serve import protocol
from palaestra.serve.protocol import ErrorCode, ProtocolError
from palaestra.verdict import Verdict

INLINE_TAGS = frozenset({"game"})
"""Registry tags of ids whose steps are pure-Python state updates, stepped on the event loop."""

MAY_BLOCK_TAGS = frozenset({"needs-docker", "code", "tools", "mcp", "swe", "sql", "search"})
"""Registry tags of ids whose steps may wait on something (a sandbox, a container, a tool, the
network, a database): always stepped in the thread pool, under the deadline."""

_log = logging.getLogger(__name__)

INLINE_WAIT_FACTOR = 20
"""An inline step whose wall time exceeds this many CPU budgets waited on something."""

TOKEN_ENV_VAR = "PALAESTRA_SERVE_TOKEN"
"""The environment variable `palaestra serve` and remote envs read the bearer token from."""


@dataclasses.dataclass
class ServeConfig:
    """How a server serves (also the options of ``palaestra serve``).

    Attributes:
        env_ids: The ids to serve; empty serves every registered id.
        host: Interface to bind; loopback unless you mean to expose the server.
        port: TCP port (0 picks a free one).
        max_sessions: Most sessions held at once; one more gets a CAPACITY_REACHED error.
        idle_timeout_s: A session with no request for this long is closed (None: never).
            It is also how long a client may take to reconnect to its session.
        step_timeout_s: Deadline of one env call (make, reset, step, call) on the server.
        max_message_bytes: Largest WebSocket frame or HTTP body accepted.
        send_timeout_s: A client that does not read an answer for this long is disconnected.
        body_timeout_s: An HTTP request body that takes longer than this to arrive gets 408.
        workers: Threads that run sync envs.
        inline_budget_s: Steps and resets of pure game envs (see `INLINE_TAGS`) run on the
            event loop; a step that uses more CPU than this, or waits, sends its id's steps
            to the thread pool for good (a reset, its resets). None: every env call runs in
            the thread pool.
        token: Bearer token every request must carry (None: no authentication).
    """

    env_ids: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8000
    max_sessions: int = 1024
    idle_timeout_s: float | None = 600.0
    step_timeout_s: float = 60.0
    max_message_bytes: int = 8 * 1024 * 1024
    send_timeout_s: float = 30.0
    body_timeout_s: float = 30.0
    workers: int = 64
    inline_budget_s: float | None = 0.005
    token: str | None = None

    def __post_init__(self) -> None:
        self.env_ids = tuple(self.env_ids)
        for name in ("max_sessions", "max_message_bytes", "workers"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if type(self.port) is not int or not 0 <= self.port <= 65535:
            raise ValueError(f"port must be an integer in [0, 65535], got {self.port!r}")
        for name in ("step_timeout_s", "send_timeout_s", "body_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        if self.inline_budget_s is not None and not self.inline_budget_s > 0:
            raise ValueError(
                f"inline_budget_s must be positive or None, got {self.inline_budget_s!r}"
            )
        if self.idle_timeout_s is not None and not self.idle_timeout_s > 0:
            raise ValueError(f"idle_timeout_s must be positive or None, got {self.idle_timeout_s}")
        if self.token is not None and len(self.token) < 8:
            raise ValueError("the token must be at least 8 characters long")


class Metrics:
    """Counters and step latencies of one store, for ``/metrics``."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.sessions_opened = 0
        self.steps = 0
        self.errors = 0
        self.masked_steps = 0
        self.latencies: collections.deque[float] = collections.deque(maxlen=10_000)
        self._per_second: collections.deque[tuple[int, int]] = collections.deque(maxlen=61)

    def record_step(self, seconds: float) -> None:
        """Counts one step that took ``seconds`` on the server."""
        self.steps += 1
        self.latencies.append(seconds)
        now = int(time.monotonic())
        if self._per_second and self._per_second[-1][0] == now:
            self._per_second[-1] = (now, self._per_second[-1][1] + 1)
        else:
            self._per_second.append((now, 1))

    def steps_per_second(self, window_s: int = 60) -> float:
        """Steps per second over the last ``window_s`` whole seconds."""
        now = int(time.monotonic())
        recent = sum(n for second, n in self._per_second if now - window_s <= second < now)
        return recent / max(1, min(window_s, now - int(self.started)))

    def snapshot(self) -> dict[str, Any]:
        """The numbers as a JSON object."""
        ordered = sorted(self.latencies)

        def quantile(q: float) -> float | None:
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else None

        return {
            "uptime_s": time.monotonic() - self.started,
            "sessions_opened": self.sessions_opened,
            "steps": self.steps,
            "steps_per_s": self.steps_per_second(),
            "errors": self.errors,
            "masked_steps": self.masked_steps,
            "step_latency_s": {"p50": quantile(0.5), "p99": quantile(0.99), "n": len(ordered)},
        }


class _Hung(Exception):
    """An env call missed the server's deadline."""


class Session:
    """One client's env: requests run one at a time, the last answer is kept for resends.

    Attributes:
        id: The session's id; it is also the capability to reconnect, so it is unguessable.
        env_id: The served id.
        kwargs: The arguments the env was made with.
        ephemeral: Closed when its socket closes (OpenEnv clients, who cannot reconnect).
        native: Whether the env is natively async (awaited on the loop, not in a thread).
    """

    def __init__(self, store: SessionStore, env_id: str, kwargs: dict[str, Any], ephemeral: bool):
        self.id = secrets.token_urlsafe(24)
        self.env_id, self.kwargs, self.ephemeral = env_id, kwargs, ephemeral
        self.store = store
        self.env: Env | None = None
        self.native = False
        self.lost: str | None = None
        self.episode_id: str | None = None
        self.step_count = 0
        self.last_active = time.monotonic()
        self.busy = False
        self.closed = False
        self.detach: Callable[[], Any] | None = None
        self._lock = asyncio.Lock()
        self._last: tuple[int, tuple[str, dict[str, Any]]] | None = None

    async def _make_env(self) -> None:
        self.env, self.lost = await self.store.make_env(self.env_id, self.kwargs), None
        self.native = _is_native_async(self.env)

    async def handle(
        self, kind: str, data: Any, request_id: int | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Answers one frame: ``(response type, response data)``.

        Raises:
            ProtocolError: The frame is refused (the caller sends an error frame).
        """
        async with self._lock:
            if self.closed:
                raise ProtocolError(ErrorCode.UNKNOWN_SESSION, "the session is closed")
            if request_id is not None and self._last is not None and self._last[0] == request_id:
                return self._last[1]
            self.busy, self.last_active = True, time.monotonic()
            try:
                answer = await self._dispatch(kind, data)
            finally:
                self.busy, self.last_active = False, time.monotonic()
            if request_id is not None:
                self._last = (request_id, answer)
            return answer

    async def _dispatch(self, kind: str, data: Any) -> tuple[str, dict[str, Any]]:
        if kind == "reset":
            return "observation", await self._reset(data)
        if kind == "step":
            return "observation", await self._step(data)
        if kind == "state":
            return "state", self.state()
        if kind == "call":
            return "result", await self._call(data)
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"Unknown message type: {kind!r}; expected reset, step, state, call or close",
        )

    async def _reset(self, data: Any) -> dict[str, Any]:
        seed, options, episode_id = protocol.decode_reset(data)
        if self.env is None or self.lost is not None:
            await self._make_env()
        env = self.env
        try:
            if not self.native and self.store.runs_inline(self.env_id, "reset"):
                observation, info = self.store.run_inline(
                    self.env_id, "reset", lambda: env.reset(seed=seed, options=options)
                )
            else:
                observation, info = await self.store.run(
                    "reset",
                    lambda: env.reset(seed=seed, options=options),
                    (lambda: env.areset(seed=seed, options=options)) if self.native else None,
                )
        except _Hung as e:
            self.lost = str(e)
            raise ProtocolError(ErrorCode.EXECUTION_ERROR, str(e)) from None
        self.episode_id, self.step_count = episode_id or secrets.token_hex(8), 0
        return protocol.reset_result(observation, info)

    async def _step(self, data: Any) -> dict[str, Any]:
        action = protocol.decode_action(data)
        if self.env is None:
            raise ProtocolError(ErrorCode.RESET_NEEDED, "step was called before reset")
        if self.lost is not None:
            raise ProtocolError(
                ErrorCode.RESET_NEEDED, f"the episode was lost ({self.lost}); call reset"
            )
        env = self.env
        started = time.monotonic()
        try:
            if not self.native and self.store.runs_inline(self.env_id, "step"):
                out = self.store.run_inline(self.env_id, "step", lambda: env.step(action))
            else:
                out = await self.store.run(
                    "step",
                    lambda: env.step(action),
                    (lambda: env.astep(action)) if self.native else None,
                )
        except _Hung as e:
            self.lost = str(e)
            self.step_count += 1
            self.store.metrics.masked_steps += 1
            return infrastructure_error_result(str(e), self.step_count)
        except ResetNeeded as e:
            raise ProtocolError(ErrorCode.RESET_NEEDED, str(e)) from None
        self.step_count += 1
        self.store.metrics.record_step(time.monotonic() - started)
        if out[4].get("mask"):
            self.store.metrics.masked_steps += 1
        return protocol.step_result(*out)

    def state(self) -> dict[str, Any]:
        """OpenEnv's state data, with the session's id, kwargs and tools."""
        return {
            "episode_id": self.episode_id,
            "step_count": self.step_count,
            "env_id": self.env_id,
            "kwargs": protocol.encode(self.kwargs),
            "tools": protocol.encode(self.env.tools) if self.env is not None else [],
        }

    async def _call(self, data: Any) -> dict[str, Any]:
        method = data.get("method") if isinstance(data, dict) else None
        if not isinstance(data, dict) or set(data) != {"method"}:
            raise ProtocolError(
                ErrorCode.VALIDATION_ERROR, 'a call\'s data must be {"method": NAME}'
            )
        if method not in protocol.CALLABLE_METHODS:
            raise ProtocolError(
                ErrorCode.VALIDATION_ERROR,
                f"cannot call {method!r}; callable: {', '.join(protocol.CALLABLE_METHODS)}",
            )
        if self.env is None or self.lost is not None:
            raise ProtocolError(ErrorCode.RESET_NEEDED, f"{method} needs an episode; call reset")
        env = self.env
        if method == "tools":
            return {"value": protocol.encode(env.tools)}
        try:
            value = await self.store.run(method, getattr(env, method))
        except _Hung as e:
            self.lost = str(e)
            raise ProtocolError(ErrorCode.EXECUTION_ERROR, str(e)) from None
        return {"value": protocol.encode(value)}


def infrastructure_error_result(reason: str, turn: int) -> dict[str, Any]:
    """A step's data for a failure outside the policy's control: truncated, masked, no reward."""
    info = {
        "status": "error",
        "mask": True,
        "error": reason,
        "verdict": Verdict.error(reason),
        "reward_parts": {},
        "turn": turn,
        "success": False,
    }
    observation = [user("The environment failed; this episode is discarded.")]
    return protocol.step_result(observation, 0.0, False, True, info)


class SessionStore:
    """The sessions of one process, with their capacity limit, reaper and metrics."""

    def __init__(self, config: ServeConfig):
        import palaestra

        self.config = config
        self.sessions: dict[str, Session] = {}
        self.metrics = Metrics()
        self.served = (
            tuple(palaestra.registry.resolve(i).id for i in config.env_ids)
            if config.env_ids
            else None
        )
        self._pending = 0
        self._inline: dict[tuple[str, str], bool] = {}
        self._executor = ThreadPoolExecutor(config.workers, thread_name_prefix="palaestra-serve")
        self._reaper: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    @property
    def served_ids(self) -> list[str]:
        """The ids this store serves."""
        import palaestra

        return list(self.served) if self.served is not None else list(palaestra.registry)

    def start(self) -> None:
        """Starts the idle reaper (call inside the server's event loop, which it records)."""
        self.loop = asyncio.get_running_loop()
        if self.config.idle_timeout_s is not None and self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def stop(self) -> None:
        """Closes every session and stops the reaper."""
        if self._reaper is not None:
            self._reaper.cancel()
        for session_id in list(self.sessions):
            await self.close(session_id)
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def create(self, env_id: Any, kwargs: Any, *, ephemeral: bool = False) -> Session:
        """Opens a session and makes its env.

        Raises:
            ProtocolError: Unknown or unserved id, unknown kwargs, a factory error, or the
                server is full (CAPACITY_REACHED, with ``active_sessions``/``max_sessions``).
        """
        resolved = self.resolve(env_id)
        if not isinstance(kwargs, dict):
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, "kwargs must be an object")
        active, limit = len(self.sessions) + self._pending, self.config.max_sessions
        if active >= limit:
            raise ProtocolError(
                ErrorCode.CAPACITY_REACHED,
                f"the server holds {active} of {limit} sessions; close one, wait for idle ones "
                "to be reaped, or start the server with a larger --max-sessions",
                active_sessions=active,
                max_sessions=limit,
            )
        self._pending += 1
        try:
            session = Session(self, resolved, dict(kwargs), ephemeral)
            await session._make_env()
        finally:
            self._pending -= 1
        self.sessions[session.id] = session
        self.metrics.sessions_opened += 1
        return session

    def resolve(self, env_id: Any) -> str:
        """The registered id ``env_id`` names, if this store serves it.

        Raises:
            ProtocolError: UNKNOWN_ENV, with close matches among the served ids.
        """
        import palaestra

        if not isinstance(env_id, str):
            raise ProtocolError(ErrorCode.VALIDATION_ERROR, "env_id must be a string")
        served = self.served_ids
        try:
            resolved = palaestra.registry.resolve(env_id).id
        except (UnknownEnvError, TypeError):
            resolved = None
        if resolved is None or resolved not in served:
            close = difflib.get_close_matches(env_id, served, n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise ProtocolError(
                ErrorCode.UNKNOWN_ENV,
                f"this server does not serve {env_id!r}.{hint} GET /envs lists the served ids.",
            )
        return resolved

    async def make_env(self, env_id: str, kwargs: dict[str, Any]) -> Env:
        """Makes an env in the thread pool, under the deadline."""
        import palaestra

        try:
            return await self.run("make", lambda: palaestra.make(env_id, **kwargs))
        except UnknownArgumentError as e:
            raise ProtocolError(ErrorCode.UNKNOWN_ARGUMENT, str(e)) from None
        except _Hung as e:
            raise ProtocolError(ErrorCode.FACTORY_ERROR, str(e), factory_name=env_id) from None
        except (ValueError, TypeError) as e:
            raise ProtocolError(ErrorCode.FACTORY_ERROR, str(e), factory_name=env_id) from None

    async def run(
        self,
        what: str,
        call: Callable[[], Any],
        async_call: Callable[[], Awaitable[Any]] | None = None,
    ) -> Any:
        """Runs ``call`` in the thread pool (or awaits ``async_call``) under the deadline.

        Raises:
            _Hung: The call missed ``step_timeout_s``.
        """
        deadline = self.config.step_timeout_s
        try:
            if async_call is not None:
                return await asyncio.wait_for(async_call(), deadline)
            future = asyncio.get_running_loop().run_in_executor(self._executor, call)
            return await asyncio.wait_for(future, deadline)
        except asyncio.TimeoutError:
            reason = f"{what} took longer than the server's deadline of {deadline:g} s"
            raise _Hung(reason) from None

    def runs_inline(self, env_id: str, what: str) -> bool:
        """Whether ``what`` (``"step"`` or ``"reset"``) of ``env_id`` runs on the event loop.

        See the module docstring.
        """
        inline = self._inline.get((env_id, what))
        if inline is None:
            import palaestra

            tags = set(palaestra.registry.resolve(env_id).tags)
            inline = (
                self.config.inline_budget_s is not None
                and bool(tags & INLINE_TAGS)
                and not tags & MAY_BLOCK_TAGS
            )
            self._inline[env_id, what] = inline
        return inline

    def run_inline(self, env_id: str, what: str, call: Callable[[], Any]) -> Any:
        """Runs ``call`` on the event loop; over the budget, ``what`` of ``env_id`` leaves it.

        The budget is on the CPU time the call used: time the OS gave to other processes
        while it ran is not the env's doing. A call that waits instead (sleep, I/O) uses
        little CPU, so a wall time of `INLINE_WAIT_FACTOR` budgets also counts as over.
        """
        budget = self.config.inline_budget_s
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return call()
        finally:
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            if cpu > budget or wall > INLINE_WAIT_FACTOR * budget:
                self._inline[env_id, what] = False
                _log.warning(
                    "a %s of %s took %.1f ms (%.1f ms of CPU), over the %.1f ms inline "
                    "budget: its %ss run in the thread pool from now on",
                    what,
                    env_id,
                    wall * 1e3,
                    cpu * 1e3,
                    budget * 1e3,
                    what,
                )

    def get(self, session_id: str) -> Session:
        """The open session ``session_id``.

        Raises:
            ProtocolError: UNKNOWN_SESSION.
        """
        session = self.sessions.get(session_id)
        if session is None:
            raise ProtocolError(
                ErrorCode.UNKNOWN_SESSION,
                "no such session: it was closed, reaped after its idle timeout, or the server "
                "restarted; create a new one",
            )
        return session

    async def close(self, session_id: str) -> None:
        """Closes a session (no error if it is already gone); its env closes in the background."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            return
        session.closed = True
        if session.detach is not None:
            await session.detach()
        env = session.env
        if env is not None and session.lost is None:
            self._executor.submit(env.close)

    def idle(self, now: float) -> Iterable[str]:
        """Ids of sessions idle for longer than the timeout (none while a request runs)."""
        limit = self.config.idle_timeout_s
        if limit is None:
            return []
        return [
            s.id for s in list(self.sessions.values()) if not s.busy and now - s.last_active > limit
        ]

    async def _reap_forever(self) -> None:
        period = min(5.0, (self.config.idle_timeout_s or 5.0) / 4)
        while True:
            await asyncio.sleep(period)
            for session_id in self.idle(time.monotonic()):
                await self.close(session_id)

    def health(self) -> dict[str, Any]:
        """What ``/health`` reports."""
        return {
            "status": "healthy",
            "sessions": len(self.sessions),
            "max_sessions": self.config.max_sessions,
            "pid": os.getpid(),
        }


def _is_native_async(env: Env) -> bool:
    cls = type(env.unwrapped)
    return cls._astep is not Env._astep or cls._areset is not Env._areset
