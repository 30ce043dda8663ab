"""Remote envs: an env served by `palaestra serve`, with the local contract.

    env = palaestra.make("http://host:8000/Sudoku-v0", level=3)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("<answer>...</answer>")

A `RemoteEnv` is a `palaestra.Env`: the same 5-tuple, ``info`` (verdicts come back as
`Verdict` objects), tools, limits, oracle and async twins, so `check_env`, the rollout
engine, the trainer and the Gymnasium bridge use it unchanged. The env itself runs on the
server, which applies the contract (turn counting, invalid actions, limits); this class
only carries calls over one WebSocket per env (OpenEnv's frames, see
`palaestra.serve.protocol`).

Failures mid-episode never raise and never read as a zero reward. A dropped socket is
reconnected to the same session for up to ``reconnect_s`` and the unanswered frame is
resent (the server answers a resent frame from memory, so a step never runs twice); a
server that stays away, restarted (the session is gone) or does not answer within
``timeout_s`` gives a truncated step with ``info["status"] = "error"`` and
``info["mask"] = True``, and the next `reset` opens a new session. Only `reset` raises
(`InfrastructureError`) when no server answers at all.

The token comes from the ``token`` argument, the URL's password
(``http://:TOKEN@host:8000/Id-v0``) or the ``PALAESTRA_SERVE_TOKEN`` environment variable.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import threading
from collections.abc import Coroutine
from typing import Any
from urllib.parse import urlsplit

from palaestra.errors import (
    CapacityError,
    InfrastructureError,
    ResetNeeded,
    UnknownArgumentError,
    UnknownEnvError,
    require,
)
from palaestra.proxy import LostLink, ProxyEnv
from palaestra.serve import protocol
from palaestra.serve.sessions import TOKEN_ENV_VAR

SCHEMES = ("http", "https", "ws", "wss")


def is_remote_id(env_id: Any) -> bool:
    """Whether ``env_id`` is a server URL (``http://host:port/Name-vN``) rather than an id."""
    return isinstance(env_id, str) and env_id.split("://", 1)[0] in SCHEMES and "://" in env_id


def make(
    url: str,
    *,
    token: str | None = None,
    timeout_s: float = 300.0,
    reconnect_s: float = 30.0,
    **kwargs: Any,
) -> RemoteEnv:
    """Opens a session on a `palaestra serve` server and returns its env.

    Args:
        url: ``http://host:port/Name-vN`` (or https, ws, wss).
        token: The server's bearer token (default: the URL's password, then the
            ``PALAESTRA_SERVE_TOKEN`` environment variable).
        timeout_s: Seconds one call may wait for its answer before the step is masked.
        reconnect_s: Seconds to keep reconnecting a dropped socket before giving up.
        **kwargs: Arguments of `palaestra.make` (env arguments, ``max_turns``, ...), checked
            by the server.

    Returns:
        The remote env.

    Raises:
        UnknownEnvError: The server does not serve the id.
        UnknownArgumentError: The env does not accept an argument.
        CapacityError: The server holds all the sessions it may.
        InfrastructureError: The server cannot be reached or refused the token.
    """
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ValueError(f"a remote env URL looks like http://host:port/Name-vN, got {url!r}")
    env_id = parts.path.strip("/")
    if not env_id:
        raise ValueError(f"the URL {url!r} names no env id; add it as the path: /Name-vN")
    http = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    port = f":{parts.port}" if parts.port else ""
    base = f"{http}://{parts.hostname}{port}"
    token = token or parts.password or os.environ.get(TOKEN_ENV_VAR) or None
    return RemoteEnv(
        base, env_id, kwargs, token=token, timeout_s=timeout_s, reconnect_s=reconnect_s
    )


class _Loop:
    """One background event loop per process that owns every remote env's socket.

    Sync and async callers alike hand it coroutines, so an env's socket lives on one loop
    whichever loop or thread calls the env (`check_env` mixes `step` and `asyncio.run`).
    """

    _loop: asyncio.AbstractEventLoop | None = None
    _lock = threading.Lock()

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="palaestra-remote", daemon=True
                ).start()
                cls._loop = loop
            return cls._loop


def _run_sync(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run_coroutine_threadsafe(coroutine, _Loop.get()).result()


async def _run_async(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, _Loop.get()))


class RemoteEnv(ProxyEnv):
    """An env running in a `palaestra serve` session (see the module docstring).

    Attributes:
        base_url: The server, ``http://host:port``.
        env_id: The served id.
        kwargs: The arguments the env was made with.
        session_id: The current session (None after it was lost, until the next reset).
    """

    def __init__(
        self,
        base_url: str,
        env_id: str,
        kwargs: dict[str, Any],
        *,
        token: str | None = None,
        timeout_s: float = 300.0,
        reconnect_s: float = 30.0,
    ):
        self._websockets = require("websockets", "serve", "remote envs")
        if not timeout_s > 0 or not reconnect_s >= 0:
            raise ValueError("timeout_s must be positive and reconnect_s non-negative")
        self.base_url, self.env_id, self.kwargs = base_url.rstrip("/"), env_id, dict(kwargs)
        self._token, self._timeout_s, self._reconnect_s = token, timeout_s, reconnect_s
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._ids = itertools.count(1)
        self._socket: Any = None
        self.session_id: str | None = None
        self._tools: list[dict[str, Any]] = []
        self._link()

    # --- sessions --------------------------------------------------------------------------

    @property
    def linked(self) -> bool:
        """Whether a session is open."""
        return self.session_id is not None

    def _link(self) -> None:
        """Creates a session over HTTP; maps the server's refusals to local errors."""
        import httpx

        body = {"env_id": self.env_id, "kwargs": protocol.encode(self.kwargs)}
        try:
            response = httpx.post(
                f"{self.base_url}/sessions", json=body, headers=self._headers, timeout=60.0
            )
        except httpx.HTTPError as e:
            raise InfrastructureError(
                f"cannot reach the env server at {self.base_url}: {e}. Is `palaestra serve` "
                "running there?"
            ) from e
        if response.status_code != 201:
            raise _refusal(response)
        created = response.json()
        self.session_id, self._tools = created["session_id"], created["tools"]
        self.set_limits(max_turns=created["max_turns"], max_invalid=created["max_invalid"])

    async def _alink(self) -> None:
        await asyncio.to_thread(self._link)

    def _unlink(self) -> None:
        self.session_id = None
        socket, self._socket = self._socket, None
        if socket is not None:
            _Loop.get().call_soon_threadsafe(lambda: asyncio.ensure_future(socket.close()))

    # --- the transport ---------------------------------------------------------------------

    async def _connect(self) -> Any:
        if self._socket is not None:
            return self._socket
        url = self.base_url.replace("http", "ws", 1) + f"/sessions/{self.session_id}/ws"
        self._socket = await self._websockets.connect(
            url, additional_headers=self._headers, max_size=None, open_timeout=10
        )
        return self._socket

    async def _exchange(self, kind: str, data: Any) -> dict[str, Any]:
        """Sends one frame and returns the answer frame, reconnecting and resending on drops.

        Raises:
            LostLink: No answer within ``timeout_s``, the server stayed away for
                ``reconnect_s``, or the session is gone.
        """
        loop = asyncio.get_running_loop()
        frame = json.dumps({"type": kind, "data": data, "id": next(self._ids)})
        answer_by = loop.time() + self._timeout_s
        give_up_at: float | None = None
        delay = 0.05
        while True:
            try:
                socket = await self._connect()
                await socket.send(frame)
                raw = await asyncio.wait_for(socket.recv(), max(0.0, answer_by - loop.time()))
            except asyncio.TimeoutError:
                self._socket = None
                raise LostLink(
                    f"no answer from {self.base_url} within {self._timeout_s:g} s"
                ) from None
            except (OSError, self._websockets.exceptions.WebSocketException) as e:
                self._socket = None
                now = loop.time()
                give_up_at = give_up_at or now + self._reconnect_s
                if now >= give_up_at or now >= answer_by:
                    raise LostLink(f"lost the connection to {self.base_url}: {e}") from None
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            reply = json.loads(raw)
            if reply.get("type") == "error" and reply["data"].get("code") == "UNKNOWN_SESSION":
                raise LostLink(reply["data"]["message"])
            return reply

    def _request(self, method: str, *args: Any, **kwargs: Any) -> Any:
        kind, data = _frame(method, args, kwargs)
        return _reply(method, _answer(_run_sync(self._exchange(kind, data))))

    async def _arequest(self, method: str, *args: Any, **kwargs: Any) -> Any:
        kind, data = _frame(method, args, kwargs)
        return _reply(method, _answer(await _run_async(self._exchange(kind, data))))

    # --- what only a local env has ---------------------------------------------------------

    def state_key(self) -> Any:
        """The served env's state key (lists come back as tuples, so it stays hashable)."""
        return _hashable(super().state_key())

    def get_state(self) -> dict[str, Any]:
        """Not available over the network: snapshots hold Python objects JSON cannot carry."""
        raise NotImplementedError("get_state/set_state work on local envs only")

    def set_state(self, state: dict[str, Any]) -> None:
        """Not available over the network (see `get_state`)."""
        raise NotImplementedError("get_state/set_state work on local envs only")

    def close(self) -> None:
        """Closes the session on the server and the socket (twice is fine)."""
        if self.session_id is None:
            return
        session_id, socket = self.session_id, self._socket
        self.session_id, self._socket = None, None
        if socket is not None:
            try:
                _run_sync(_close_socket(socket))
                return
            except Exception:  # noqa: BLE001 - the socket is gone; close over HTTP instead
                pass
        import httpx

        try:
            httpx.delete(f"{self.base_url}/sessions/{session_id}", headers=self._headers)
        except httpx.HTTPError:
            pass  # the server is gone, and with it the session

    def __repr__(self) -> str:
        return f"<RemoteEnv {self.base_url}/{self.env_id} session={self.session_id}>"


def _frame(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any]:
    """The frame type and data that carry a call of ``method``."""
    if method == "reset":
        return "reset", kwargs
    if method == "step":
        return "step", protocol.encode_action(args[0])
    return "call", {"method": method}


def _reply(method: str, data: dict[str, Any]) -> Any:
    """The local value of the answer to a call of ``method``."""
    if method == "reset":
        return protocol.parse_reset(data)
    if method == "step":
        return protocol.parse_step(data)
    return protocol.decode(data["value"])


async def _close_socket(socket: Any) -> None:
    await socket.send(json.dumps({"type": "close"}))
    await socket.close()


def _answer(reply: dict[str, Any]) -> dict[str, Any]:
    """The data of an answer frame, or the local error an error frame stands for."""
    if reply.get("type") != "error":
        return reply["data"]
    data = reply.get("data") or {}
    code, message = data.get("code"), data.get("message", "unknown error")
    if code == "RESET_NEEDED":
        raise ResetNeeded(message)
    raise InfrastructureError(f"the env server refused the call ({code}): {message}")


def _refusal(response: Any) -> Exception:
    """The local error for a refused session."""
    try:
        error = response.json()["error"]
        code, message = error["code"], error["message"]
    except (ValueError, KeyError, TypeError):
        code, message = None, response.text[:500]
    if code == "UNKNOWN_ENV":
        return UnknownEnvError(message)
    if code == "UNKNOWN_ARGUMENT":
        return UnknownArgumentError(message)
    if code == "CAPACITY_REACHED":
        return CapacityError(message, active=error["active_sessions"], limit=error["max_sessions"])
    if code in ("FACTORY_ERROR", "VALIDATION_ERROR"):
        return ValueError(message)
    if code == "UNAUTHORIZED":
        return InfrastructureError(f"{message} (pass token=..., or set {TOKEN_ENV_VAR})")
    return InfrastructureError(f"the env server answered {response.status_code}: {message}")


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value
