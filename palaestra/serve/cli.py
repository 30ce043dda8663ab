"""The ``palaestra serve`` command (mounted on the `palaestra` CLI by `register`)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from palaestra.serve.sessions import TOKEN_ENV_VAR, ServeConfig


def serve_command(
    env_ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="IDS", help="Ids to serve (default: every registered id)."),
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to bind (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    max_sessions: Annotated[int, typer.Option(help="Most sessions held at once.")] = 1024,
    idle_timeout: Annotated[
        float, typer.Option(help="Close sessions idle this many seconds (0: never).")
    ] = 600.0,
    step_timeout: Annotated[float, typer.Option(help="Deadline of one env call, seconds.")] = 60.0,
    max_message_bytes: Annotated[
        int, typer.Option(help="Largest WebSocket frame or HTTP body accepted.")
    ] = 8 * 1024 * 1024,
    workers: Annotated[int, typer.Option(help="Threads that run sync envs.")] = 64,
    inline_budget_ms: Annotated[
        float,
        typer.Option(
            help="Step and reset pure game envs on the event loop while each call uses less "
            "CPU than this many ms (0: every env call in the thread pool, under the step "
            "deadline)."
        ),
    ] = 5.0,
    token: Annotated[
        str | None,
        typer.Option(
            help=f"Require this bearer token (default: ${TOKEN_ENV_VAR}; unset: no token).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve envs over OpenEnv's WebSocket protocol and an HTTP session API."""
    from palaestra.errors import PalaestraError
    from palaestra.serve import serve

    try:
        config = ServeConfig(
            env_ids=tuple(env_ids or ()),
            host=host,
            port=port,
            max_sessions=max_sessions,
            idle_timeout_s=idle_timeout or None,
            step_timeout_s=step_timeout,
            max_message_bytes=max_message_bytes,
            workers=workers,
            inline_budget_s=inline_budget_ms / 1e3 or None,
            token=token or os.environ.get(TOKEN_ENV_VAR) or None,
        )
        from palaestra.serve.sessions import SessionStore

        served = SessionStore(config).served_ids
    except (PalaestraError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    shown = ", ".join(served) if len(served) <= 5 else f"{len(served)} ids"
    auth = "token required" if config.token else "no token"
    typer.echo(f"palaestra serve: {shown} on http://{host}:{port} ({auth}); docs at /docs")
    serve(config)


def register(app: typer.Typer) -> None:
    """Adds ``serve`` to the `palaestra` CLI."""
    app.command("serve")(serve_command)
