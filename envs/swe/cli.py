"""``palaestra swe ...``: fetch, build, collect and generate SWE tasks.

    palaestra swe fetch [TASKS]...                  fill the wheelhouse (needs PyPI, once)
    palaestra swe build [TASKS]... [--base-map public=local]...
    palaestra swe gc [TASKS]...                     remove images no listed task needs
    palaestra swe generate NAME==VERSION --count N --out DIR

TASKS are Harbor task directories or dataset folders (default: the shipped tasks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="swe",
    help="SWE tasks: fetch sources, build images locally, remove unused ones, generate tasks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

TasksArg = Annotated[
    list[Path] | None,
    typer.Argument(help="Task directories or dataset folders (default: the shipped tasks)."),
]


def _tasks(paths: list[Path] | None):
    from palaestra.envs.swe.task import load_tasks, shipped_dir

    tasks = []
    for path in paths or [shipped_dir()]:
        tasks += load_tasks(path)
    return tasks


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


@app.command("fetch")
def fetch(tasks: TasksArg = None) -> None:
    """Downloads the tasks' sources and wheels into the local wheelhouse (needs PyPI)."""
    from palaestra.envs.swe import build
    from palaestra.errors import PalaestraError

    try:
        build.fetch(_tasks(tasks), log=lambda line: typer.echo(line, err=True))
    except (PalaestraError, ValueError) as e:
        _fail(str(e))
    typer.echo(f"wheelhouse: {build.wheelhouse()}")


@app.command("build")
def build_command(
    tasks: TasksArg = None,
    base_map: Annotated[
        list[str] | None,
        typer.Option("--base-map", help="public=local: build FROM the local image instead."),
    ] = None,
) -> None:
    """Builds the tasks' images (a no-op for unchanged tasks); prints disk used per layer."""
    from rich.progress import Progress

    from palaestra.envs.swe import build
    from palaestra.errors import PalaestraError

    try:
        mapping = build.parse_base_map(base_map or [])
        loaded = _tasks(tasks)
    except (PalaestraError, ValueError) as e:
        _fail(str(e))
    results = []
    with Progress(transient=False) as progress:
        bar = progress.add_task("building", total=len(loaded))
        for task in loaded:
            progress.update(bar, description=task.name[:40])
            try:
                results.append(build.build_task(task, base_map=mapping, log=progress.console.log))
            except (PalaestraError, ValueError) as e:
                _fail(f"{task.name}: {e}")
            progress.advance(bar)
    sizes = build.layer_sizes({tag for r in results for tag in r.layers.values()})
    shared = {}
    for result in results:
        for kind, tag in result.layers.items():
            if kind != "instance":
                shared[tag] = sizes[tag]
        own = sizes[result.layers["instance"]]
        state = "built" if result.built else "unchanged"
        typer.echo(f"{result.task}: {result.image} {_mib(own)} ({state})")
    for tag, size in sorted(shared.items()):
        typer.echo(f"shared {tag}: {_mib(size)}")
    total = sum(sizes.values())
    typer.echo(f"{len(results)} tasks, {_mib(total)} on disk ({_mib(sum(shared.values()))} shared)")


@app.command("gc")
def gc_command(tasks: TasksArg = None) -> None:
    """Removes every palaestra-swe image that none of the tasks needs."""
    from palaestra.envs.swe import build
    from palaestra.errors import PalaestraError

    try:
        keep = []
        for task in _tasks(tasks):
            keep += list(build.build_task(task, log=lambda _line: None).layers.values())
        removed = build.gc(keep, log=typer.echo)
    except (PalaestraError, ValueError) as e:
        _fail(str(e))
    typer.echo(f"removed {len(removed)} images")


@app.command("generate")
def generate_command(
    requirement: Annotated[str, typer.Argument(help="The package, as name==version.")],
    count: Annotated[int, typer.Option(help="Tasks to write.")] = 5,
    out: Annotated[Path, typer.Option(help="The dataset folder to write into.")] = Path("tasks"),
    seed: Annotated[int, typer.Option(help="Seed of the mutation draw.")] = 0,
    requires: Annotated[
        list[str] | None, typer.Option("--requires", help="A wheel the tests need; repeatable.")
    ] = None,
    max_tries: Annotated[int, typer.Option(help="Mutants tried at most.")] = 200,
) -> None:
    """Makes validated tasks from a package's source distribution by mutating its code."""
    from palaestra.envs.swe.generate import generate
    from palaestra.errors import PalaestraError

    if count < 1:
        _fail("--count must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    try:
        written = generate(
            requirement,
            count=count,
            out=out,
            seed=seed,
            requirements=tuple(requires or ()),
            max_tries=max_tries,
            log=lambda line: typer.echo(line, err=True),
        )
    except (PalaestraError, ValueError) as e:
        _fail(str(e))
    for path in written:
        typer.echo(str(path))
    typer.echo(f"{len(written)} tasks written to {out}")


if __name__ == "__main__":
    app()
