"""The ASGI app of `palaestra serve`: OpenEnv's WebSocket protocol and an HTTP session API.

Routes (docs/serve.md has every frame and body):

    WS   /{env_id}/ws             OpenEnv: a new session per socket, closed with the socket
    WS   /ws                      the same, when the server serves one id
    WS   /sessions/{sid}/ws       attach to a session made over HTTP; reconnect after a drop
    POST /sessions                {"env_id", "kwargs"} -> {"session_id", "tools", ...}
    POST /sessions/{sid}/reset    {"seed", "options", "episode_id"} -> observation data
    POST /sessions/{sid}/step     an action (as in a step frame) -> observation data
    GET  /sessions/{sid}/state    OpenEnv's state data
    POST /sessions/{sid}/call     {"method"} -> {"value"}
    DELETE /sessions/{sid}        close it
    GET  /envs, /health, /metrics, /docs (OpenAPI)

Threat model. The server runs registered envs for clients who hold the token; it protects
itself and other sessions from a faulty or hostile client, not from the envs it serves
(those are the sandbox's business). Covered: authentication (a bearer token, or HTTP Basic
with the token as password for clients that can only put credentials in the URL,
compared in constant time; `/health` and `/docs` stay open), frames and bodies over a size
cap, malformed JSON and frames, unknown ids, arguments, sessions and methods (clear
errors, the socket stays open), clients that send bodies slowly (408) or never read
(disconnected after ``send_timeout_s``), envs that hang (masked step, see
`palaestra.serve.sessions`) and capacity. Not covered: TLS (put a proxy in front for
anything beyond loopback), rate limiting, a client spending its own sessions' CPU, and
slow HTTP headers (uvicorn's own limits apply).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import json
import sys
from collections.abc import Awaitable
from typing import Annotated, Any

from palaestra.errors import require
from palaestra.serve.protocol import ErrorCode, ProtocolError
from palaestra.serve.sessions import ServeConfig, SessionStore

require("fastapi", "serve", "palaestra serve")

from fastapi import Body, FastAPI, Request, WebSocket  # noqa: E402
from fastapi.responses import JSONResponse, Response  # noqa: E402
from starlette.websockets import WebSocketDisconnect, WebSocketState  # noqa: E402

HTTP_STATUS = {
    ErrorCode.INVALID_JSON: 400,
    ErrorCode.VALIDATION_ERROR: 422,
    ErrorCode.UNKNOWN_TYPE: 400,
    ErrorCode.EXECUTION_ERROR: 500,
    ErrorCode.CAPACITY_REACHED: 503,
    ErrorCode.FACTORY_ERROR: 422,
    ErrorCode.SESSION_ERROR: 500,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.UNKNOWN_ENV: 404,
    ErrorCode.UNKNOWN_ARGUMENT: 422,
    ErrorCode.UNKNOWN_SESSION: 404,
    ErrorCode.RESET_NEEDED: 409,
    ErrorCode.SLOW_CLIENT: 408,
}

POLICY_VIOLATION = 1008
"""WebSocket close code for a refused client (no or wrong token)."""

OPEN_PATHS = ("/health", "/docs", "/openapi.json")

REFUSAL_LINGER_S = 2.0
"""How long a refused socket (capacity, unknown id or session) waits for the client's first
frame, to answer it with the refusal before closing."""


def authorized(header: str | None, token: str | None) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (Bearer, or Basic's password)."""
    if token is None:
        return True
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer":
        offered = value.strip()
    elif scheme.lower() == "basic":
        try:
            offered = base64.b64decode(value.strip(), validate=True).decode().partition(":")[2]
        except (binascii.Error, UnicodeDecodeError):
            return False
    else:
        return False
    return hmac.compare_digest(offered.encode(), token.encode())


if sys.version_info >= (3, 11):

    async def _within(awaitable: Awaitable[Any], seconds: float) -> Any:
        """``asyncio.wait_for`` without the task it creates for every call (this runs per frame)."""
        async with asyncio.timeout(seconds):
            return await awaitable

else:  # asyncio.timeout is new in 3.11
    _within = asyncio.wait_for


def _error_response(error: ProtocolError) -> JSONResponse:
    return JSONResponse({"error": error.data()}, status_code=HTTP_STATUS[error.code])


class _GuardBodies:
    """ASGI middleware: the token, a body size cap and a body deadline on HTTP requests.

    A client trickling its body gets 408 and frees the worker; `/health` and the docs need
    no token.
    """

    def __init__(self, app: Any, config: ServeConfig):
        self.app, self.config = app, config

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        if scope["path"] not in OPEN_PATHS and not authorized(
            headers.get(b"authorization", b"").decode("latin-1"), self.config.token
        ):
            error = ProtocolError(
                ErrorCode.UNAUTHORIZED,
                "this server requires a token: send 'Authorization: Bearer <token>'",
            )
            return await _error_response(error)(scope, receive, send)
        cap = self.config.max_message_bytes
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > cap):
            error = ProtocolError(
                ErrorCode.VALIDATION_ERROR, f"the body is larger than the {cap:,}-byte limit"
            )
            response = JSONResponse({"error": error.data()}, status_code=413)
            return await response(scope, receive, send)
        # The body is read here, whole, under the cap and the deadline, then replayed to
        # the app: the app's own body parsing would turn these failures into a plain 400.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.body_timeout_s
        chunks: list[bytes] = []
        seen, more = 0, True
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                error = ProtocolError(
                    ErrorCode.SLOW_CLIENT,
                    f"the body did not arrive within {self.config.body_timeout_s:g} s",
                )
                return await _error_response(error)(scope, receive, send)
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            more = message.get("more_body", False)
            if seen > cap:
                error = ProtocolError(
                    ErrorCode.VALIDATION_ERROR, f"the body is larger than the {cap:,}-byte limit"
                )
                response = JSONResponse({"error": error.data()}, status_code=413)
                return await response(scope, receive, send)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def create_app(config: ServeConfig | None = None) -> FastAPI:
    """The server's ASGI app for ``config`` (run it with uvicorn, or `palaestra.serve.serve`)."""
    config = config or ServeConfig()
    store = SessionStore(config)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI):
        store.start()
        yield
        await store.stop()

    app = FastAPI(
        title="Palaestra env server",
        description="Palaestra environments over OpenEnv's WebSocket protocol and HTTP.",
        lifespan=lifespan,
    )
    app.state.store = store
    app.add_middleware(_GuardBodies, config=config)

    @app.exception_handler(ProtocolError)
    async def protocol_error(_request: Request, error: ProtocolError) -> JSONResponse:
        if error.code is not ErrorCode.UNKNOWN_SESSION:
            store.metrics.errors += 1
        return _error_response(error)

    # --- HTTP ------------------------------------------------------------------------------

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness and session count."""
        return store.health()

    @app.get("/metrics")
    async def metrics() -> dict[str, Any]:
        """Sessions, steps, steps/s, errors and server-side step latency (p50, p99)."""
        return {
            "sessions": len(store.sessions),
            "max_sessions": config.max_sessions,
            **store.metrics.snapshot(),
        }

    @app.get("/envs")
    async def envs() -> dict[str, Any]:
        """The ids this server serves."""
        return {"env_ids": store.served_ids}

    @app.post("/sessions", status_code=201)
    async def create_session(
        env_id: Annotated[str, Body(examples=["GuessNumber-v0"])],
        kwargs: Annotated[dict[str, Any] | None, Body(examples=[{"level": 3}])] = None,
    ) -> dict[str, Any]:
        """Opens a session: makes the env ``env_id`` with ``kwargs``."""
        session = await store.create(env_id, kwargs or {})
        env = session.env
        return {
            "session_id": session.id,
            "env_id": session.env_id,
            "kwargs": session.state()["kwargs"],
            "tools": session.state()["tools"],
            "max_turns": env.episode_limits[0] if env is not None else None,
            "max_invalid": env.episode_limits[1] if env is not None else None,
            "idle_timeout_s": config.idle_timeout_s,
        }

    @app.post("/sessions/{session_id}/reset")
    async def reset(
        session_id: str, data: Annotated[dict[str, Any] | None, Body()] = None
    ) -> dict[str, Any]:
        """Starts an episode; the body may hold ``seed``, ``options`` and ``episode_id``."""
        return (await store.get(session_id).handle("reset", data))[1]

    @app.post("/sessions/{session_id}/step")
    async def step(session_id: str, data: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """Plays one turn: the body is ``{"action": ...}`` or an assistant message."""
        return (await store.get(session_id).handle("step", data))[1]

    @app.get("/sessions/{session_id}/state")
    async def state(session_id: str) -> dict[str, Any]:
        """The episode's id, step count, the env's id, kwargs and tools."""
        return (await store.get(session_id).handle("state", None))[1]

    @app.post("/sessions/{session_id}/call")
    async def call(session_id: str, data: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """Runs an env method that is not a step (``oracle_action``, ``best_return``, ...)."""
        return (await store.get(session_id).handle("call", data))[1]

    @app.delete("/sessions/{session_id}", status_code=204)
    async def close_session(session_id: str) -> Response:
        """Closes the session and its env."""
        store.get(session_id)
        await store.close(session_id)
        return Response(status_code=204)

    # --- WebSocket -------------------------------------------------------------------------

    async def refuse(websocket: WebSocket, error: ProtocolError, code: int = 1000) -> None:
        frame = json.dumps({"type": "error", "data": error.data()})
        await websocket.accept()
        with contextlib.suppress(Exception):
            await websocket.send_text(frame)
            if code != POLICY_VIOLATION:
                # A client that sends its first frame before the close reaches it (OpenEnv's
                # does) would see a closed socket, not the reason: answer that frame too.
                message = await asyncio.wait_for(websocket.receive(), REFUSAL_LINGER_S)
                if message["type"] == "websocket.receive":
                    await websocket.send_text(frame)
            await websocket.close(code)

    def token_ok(websocket: WebSocket) -> bool:
        return authorized(websocket.headers.get("authorization"), config.token)

    unauthorized = ProtocolError(
        ErrorCode.UNAUTHORIZED,
        "this server requires a token: send 'Authorization: Bearer <token>', or put it in "
        "the URL as the password (ws://:TOKEN@host:port/...)",
    )

    @app.websocket("/sessions/{session_id}/ws")
    async def attach(websocket: WebSocket, session_id: str) -> None:
        if not token_ok(websocket):
            return await refuse(websocket, unauthorized, POLICY_VIOLATION)
        try:
            session = store.get(session_id)
        except ProtocolError as e:
            return await refuse(websocket, e)
        await websocket.accept()
        await _serve_socket(websocket, store, session)

    @app.websocket("/ws")
    async def only(websocket: WebSocket) -> None:
        served = store.served_ids
        if len(served) != 1:
            error = ProtocolError(
                ErrorCode.UNKNOWN_ENV,
                f"this server serves {len(served)} ids; connect to /<env_id>/ws",
            )
            return await open_ephemeral(websocket, None, error)
        await open_ephemeral(websocket, served[0])

    @app.websocket("/{env_id:path}/ws")
    async def by_id(websocket: WebSocket, env_id: str) -> None:
        await open_ephemeral(websocket, env_id)

    async def open_ephemeral(
        websocket: WebSocket, env_id: str | None, error: ProtocolError | None = None
    ) -> None:
        if not token_ok(websocket):
            return await refuse(websocket, unauthorized, POLICY_VIOLATION)
        if error is not None:
            return await refuse(websocket, error)
        try:
            session = await store.create(env_id, {}, ephemeral=True)
        except ProtocolError as e:
            store.metrics.errors += 1
            return await refuse(websocket, e)
        await websocket.accept()
        try:
            await _serve_socket(websocket, store, session)
        finally:
            await store.close(session.id)

    return app


async def _serve_socket(websocket: WebSocket, store: SessionStore, session: Any) -> None:
    """Answers the frames of one socket until it closes (the session may outlive it)."""
    config = store.config

    async def detach() -> None:
        # Bounded: a client that does not read cannot take the close frame either.
        with contextlib.suppress(Exception):
            if websocket.client_state is WebSocketState.CONNECTED:
                await asyncio.wait_for(websocket.close(1001), config.send_timeout_s)

    if session.detach is not None:  # a reconnect replaces a stale socket
        await session.detach()
    session.detach = detach

    async def send(frame: dict[str, Any]) -> bool:
        try:
            await _within(websocket.send_text(json.dumps(frame)), config.send_timeout_s)
        except asyncio.TimeoutError:
            return False
        return True

    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            request_id = None
            try:
                if text is None:
                    raise ProtocolError(ErrorCode.INVALID_JSON, "frames must be JSON text frames")
                try:
                    frame = json.loads(text)
                except json.JSONDecodeError as e:
                    raise ProtocolError(ErrorCode.INVALID_JSON, f"Invalid JSON: {e}") from None
                if not isinstance(frame, dict):
                    raise ProtocolError(ErrorCode.VALIDATION_ERROR, "a frame must be an object")
                request_id = frame.get("id")
                if request_id is not None and type(request_id) is not int:
                    raise ProtocolError(ErrorCode.VALIDATION_ERROR, "a frame's id must be an int")
                kind = frame.get("type")
                if kind == "close":
                    if not session.ephemeral:
                        await store.close(session.id)
                    break
                extra = sorted(set(frame) - {"type", "data", "id"})
                if extra:
                    raise ProtocolError(ErrorCode.VALIDATION_ERROR, f"unknown frame keys {extra}")
                answer_type, data = await session.handle(kind, frame.get("data"), request_id)
                reply: dict[str, Any] = {"type": answer_type, "data": data}
            except ProtocolError as e:
                store.metrics.errors += 1
                reply = {"type": "error", "data": e.data()}
            except Exception as e:  # an env bug: report it, keep the socket and the server
                store.metrics.errors += 1
                reply = {
                    "type": "error",
                    "data": {"message": f"{type(e).__name__}: {e}", "code": "EXECUTION_ERROR"},
                }
            if request_id is not None:
                reply["id"] = request_id
            if not await send(reply):
                store.metrics.errors += 1
                break
    except WebSocketDisconnect:
        pass
    finally:
        if session.detach is detach:
            session.detach = None
        await detach()
