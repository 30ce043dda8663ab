"""``palaestra search``: build a world's index, serve it over HTTP.

palaestra search build --articles 100000   # generate and index a larger world
palaestra search serve --port 8000         # HTML pages, /api/search, POST /retrieve
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from palaestra.envs.search.world import SHIPPED_ARTICLES, SHIPPED_SEED

app = typer.Typer(
    name="search",
    help="Search worlds: build an index, serve it as a web site.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

ARTICLES_HELP = "Articles in the generated world (the package ships 3000)."


@app.command("build")
def build_command(
    articles: Annotated[int, typer.Option(help=ARTICLES_HELP)] = SHIPPED_ARTICLES,
    seed: Annotated[int, typer.Option(help="Seed of the generated world.")] = SHIPPED_SEED,
) -> None:
    """Generates a world and builds its BM25 index in the cache (``$PALAESTRA_CACHE``)."""
    from palaestra.envs.search.env import world_cache_dir, world_index

    if articles < 50 or seed < 0:
        typer.echo("error: --articles must be >= 50 and --seed >= 0", err=True)
        raise typer.Exit(2)
    start = time.perf_counter()
    index = world_index(seed, articles)
    typer.echo(
        f"{len(index.documents)} articles indexed in {time.perf_counter() - start:.1f} s "
        f"at {world_cache_dir(seed, articles)}"
    )


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port).")] = 8000,
    articles: Annotated[int, typer.Option(help=ARTICLES_HELP)] = SHIPPED_ARTICLES,
    seed: Annotated[int, typer.Option(help="Seed of the generated world.")] = SHIPPED_SEED,
    latency: Annotated[float, typer.Option(help="Seconds every answer waits.")] = 0.0,
    error_rate: Annotated[float, typer.Option(help="Share of requests answered 503.")] = 0.0,
) -> None:
    """Serves the world as HTML pages, a JSON search API and a Search-R1 ``/retrieve``."""
    from palaestra.envs.search.env import world_index
    from palaestra.envs.search.server import SearchServer

    try:
        server = SearchServer(
            world_index(seed, articles), host, port, latency_s=latency, error_rate=error_rate
        )
    except (ValueError, OSError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(
        f"serving {server.url} (search: {server.url}/api/search, Search-R1: POST "
        f"{server.url}/retrieve); Ctrl-C stops",
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
