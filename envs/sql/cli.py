"""``palaestra db start|stop|status``: the local PostgreSQL server of the SQL environments.

See `palaestra.envs.sql.local_server`. Also runs as ``python -m palaestra.envs.sql.cli``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from palaestra.envs.sql import local_server

app = typer.Typer(
    name="db",
    help="The local PostgreSQL server of the SQL environments (start, stop, status).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

Directory = Annotated[
    Path | None,
    typer.Option("--dir", help="Cluster directory (default: $PALAESTRA_DB_DIR or a cache dir)."),
]


@app.command()
def start(directory: Directory = None) -> None:
    """Starts the server (initdb on first use) and prints its DSN."""
    try:
        dsn = local_server.start(directory)
    except local_server.ServerError as e:
        typer.echo(f"palaestra db start: {e}", err=True)
        raise typer.Exit(1) from e
    typer.echo(f"running: {dsn}")
    typer.echo("SQL envs with backend='postgres' use it; other programs: "
               f"export PALAESTRA_POSTGRES_DSN='{dsn}'")


@app.command()
def stop(directory: Directory = None) -> None:
    """Stops the server."""
    try:
        stopped = local_server.stop(directory)
    except local_server.ServerError as e:
        typer.echo(f"palaestra db stop: {e}", err=True)
        raise typer.Exit(1) from e
    typer.echo("stopped" if stopped else "not running")


@app.command()
def status(directory: Directory = None) -> None:
    """Says whether the server runs, and its DSN (exit status 1 when it does not run)."""
    dsn = local_server.running_dsn(directory)
    if dsn is None:
        typer.echo("not running (start it with `palaestra db start`)")
        raise typer.Exit(1)
    typer.echo(f"running: {dsn}")


if __name__ == "__main__":
    app(prog_name="palaestra db")
