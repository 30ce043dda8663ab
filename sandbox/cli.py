"""``palaestra sandbox ...``: build the sandbox image, show how limits are enforced here.

    palaestra sandbox build-image [--suite S] [--mirror URL] [--package P]... [--force]
                                  [--rootfs DIR]
    palaestra sandbox info

Also runs as ``python -m palaestra.sandbox.cli``.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

app = typer.Typer(
    name="sandbox",
    help="Sandbox tools: build the Docker base image, show how limits are enforced here.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no type column beside every flag
)


@app.command("build-image")
def build_image(
    suite: Annotated[str, typer.Option(help="Debian release to bootstrap.")] = "bookworm",
    mirror: Annotated[
        str | None, typer.Option(help="Debian mirror (default: the one apt uses here).")
    ] = None,
    package: Annotated[
        list[str] | None, typer.Option("--package", "-p", help="Extra package; repeatable.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Rebuild even if the image exists.")] = False,
    rootfs: Annotated[
        str | None, typer.Option(help="Also keep the root file system here (local backend).")
    ] = None,
) -> None:
    """Builds the base image from a Debian root file system (debootstrap, then docker import)."""
    from palaestra.errors import PalaestraError
    from palaestra.sandbox.images import BASE_PACKAGES, build_base_image

    packages = tuple(BASE_PACKAGES) + tuple(package or ())
    try:
        tag = build_base_image(
            suite=suite,
            packages=packages,
            mirror=mirror,
            force=force,
            rootfs=rootfs,
            log=lambda line: typer.echo(line, err=True),
        )
    except PalaestraError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    typer.echo(tag)


@app.command("info")
def info() -> None:
    """Prints how each limit is enforced on this machine, and whether Docker is usable."""
    from palaestra.errors import PalaestraError
    from palaestra.sandbox import Limits, RunRequest
    from palaestra.sandbox.local import LocalBackend

    report: dict[str, object] = {}
    try:
        with LocalBackend(prestart=0) as backend:
            result = backend.run(RunRequest(argv=["true"], limits=Limits(wall_s=10)))
            report["local"] = {
                "works": result.error is None,
                "error": result.error,
                "enforced": result.info.get("enforced"),
                "notes": result.info.get("notes"),
            }
    except PalaestraError as e:
        report["local"] = {"works": False, "error": str(e)}
    try:
        from palaestra.sandbox.docker_backend import DockerBackend

        with DockerBackend(pool_size=0) as backend:
            backend._check()
            report["docker"] = {"works": True, "image": backend.image}
    except PalaestraError as e:
        report["docker"] = {"works": False, "error": str(e)}
    typer.echo(json.dumps(report, indent=2))


if __name__ == "__main__":
    app()
