"""`palaestra serve`: Palaestra envs over the network, for any process or language.

    palaestra serve GuessNumber-v0 Sudoku-v0 --port 8000 --token "$TOKEN"

Clients speak OpenEnv's WebSocket protocol (OpenEnv's own clients work unchanged) or the
HTTP session API; `palaestra.make("http://host:8000/Sudoku-v0", level=3)` returns a remote
env with the local contract. docs/serve.md records the protocol.

`palaestra.serve.protocol` (frames and values) and `palaestra.serve.sessions` (sessions,
capacity, reaper, deadlines) are transport-free; `palaestra.serve.app` is the ASGI app
(FastAPI on uvicorn, ``pip install 'palaestra[serve]'``).
"""

from __future__ import annotations

from palaestra.serve.sessions import TOKEN_ENV_VAR, ServeConfig

__all__ = ["TOKEN_ENV_VAR", "ServeConfig", "create_app", "serve"]


def create_app(config: ServeConfig | None = None):
    """The ASGI app (see `palaestra.serve.app.create_app`)."""
    from palaestra.serve.app import create_app as create

    return create(config)


def serve(config: ServeConfig, *, log_level: str = "warning") -> None:
    """Serves until interrupted (uvicorn, with the config's size cap on WebSocket frames).

    WebSocket frames are not compressed (no permessage-deflate): frames are small JSON, and
    compressing and inflating each one costs both ends more CPU than a step of a light env.
    Sockets use uvicorn's sans-I/O implementation over the `websockets` library (new in
    uvicorn 0.35, with keepalive pings since 0.44, the default of ``ws="auto"`` since 0.50):
    it costs less CPU per frame than the legacy one, which older uvicorns pick.
    """
    from palaestra.errors import require

    uvicorn = require("uvicorn", "serve", "palaestra serve")
    uvicorn.run(
        create_app(config),
        host=config.host,
        port=config.port,
        ws_max_size=config.max_message_bytes,
        ws_per_message_deflate=False,
        ws="websockets-sansio",
        log_level=log_level,
        access_log=False,
    )
