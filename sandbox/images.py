"""Sandbox images, built here and never pulled.

The base image is a Debian root file system made by ``debootstrap`` (minimal variant,
plus Python, pytest and git), imported with ``docker import``. Task images are layered on
it with a generated Dockerfile and no network. Every image is tagged by a hash of what
went into it, so a rebuild happens exactly when its inputs change:

    palaestra-sandbox:base-<12 hex>     from the recipe (suite, packages, mirror, script)
    palaestra-sandbox:task-<12 hex>     from the base image id, the files and the commands

``palaestra sandbox build-image`` builds the base image (and, with ``--rootfs DIR``,
keeps the root file system for ``LocalBackend(root=DIR)``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from palaestra.errors import InfrastructureError, require

REPOSITORY = "palaestra-sandbox"
DEFAULT_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
BASE_PACKAGES = ("python3", "python3-pytest", "git", "ca-certificates")
SANDBOX_UID = 10001
#: Bumped whenever the way the base image is made changes (it is part of the tag's hash).
RECIPE_VERSION = 1
_ENV = (
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG=C.UTF-8",
    "HOME=/work",
)
# Removed from the root file system: documentation and caches no sandbox reads.
_PRUNE = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/cache/apt",
    "var/lib/apt/lists",
)


def apt_mirror(
    suite: str = DEFAULT_SUITE,
    sources: Sequence[str] = ("/etc/apt/sources.list", "/etc/apt/sources.list.d"),
) -> str:
    """The Debian mirror this machine's apt uses for ``suite`` (``deb.debian.org`` if none).

    Reads both one-line (``deb URL suite ...``) and deb822 (``URIs:``/``Suites:``) sources.
    """
    files: list[Path] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.suffix in (".list", ".sources"))
        elif path.is_file():
            files.append(path)
    for path in files:
        try:
            text = path.read_text()
        except OSError:
            continue
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(
                    (k.strip().lower(), v.strip())
                    for k, _, v in (
                        line.partition(":")
                        for line in stanza.splitlines()
                        if ":" in line and not line.startswith("#")
                    )
                )
                if (
                    "deb" in fields.get("types", "").split()
                    and suite in fields.get("suites", "").split()
                ):
                    uris = fields.get("uris", "").split()
                    if uris:
                        return uris[0].rstrip("/")
        else:
            for line in text.splitlines():
                parts = line.split("#", 1)[0].split()
                if len(parts) >= 3 and parts[0] == "deb":
                    rest = [p for p in parts[1:] if not p.startswith("[")]
                    if len(rest) >= 2 and rest[1] == suite:
                        return rest[0].rstrip("/")
    return DEFAULT_MIRROR


def base_recipe(
    suite: str = DEFAULT_SUITE, packages: Sequence[str] = BASE_PACKAGES
) -> dict[str, Any]:
    """What the base image is made of; its hash names the image."""
    return {
        "suite": suite,
        "variant": "minbase",
        "packages": sorted(set(packages)),
        "uid": SANDBOX_UID,
        "env": list(_ENV),
        "version": RECIPE_VERSION,
    }


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:12]


def base_tag(suite: str = DEFAULT_SUITE, packages: Sequence[str] = BASE_PACKAGES) -> str:
    """The tag of the base image for this recipe (whether built or not)."""
    return f"{REPOSITORY}:base-{_digest(base_recipe(suite, packages))}"


def _client(client: Any) -> Any:
    if client is not None:
        return client
    docker = require("docker", "docker", "building sandbox images")
    try:
        return docker.from_env()
    except Exception as e:
        raise InfrastructureError(f"cannot reach the Docker engine: {e}") from e


def image_exists(tag: str, client: Any = None) -> bool:
    """Whether ``tag`` is present in the local engine."""
    docker = require("docker", "docker", "building sandbox images")
    try:
        _client(client).api.inspect_image(tag)
        return True
    except docker.errors.ImageNotFound:
        return False


def build_rootfs(
    target: str,
    *,
    suite: str = DEFAULT_SUITE,
    packages: Sequence[str] = BASE_PACKAGES,
    mirror: str | None = None,
    log: Callable[[str], None] = print,
) -> None:
    """Makes a Debian root file system at ``target`` with debootstrap, ready to import.

    Adds the sandbox user (uid 10001, home /work) and the /work directory, and prunes
    documentation and apt caches.

    Raises:
        InfrastructureError: debootstrap is missing, not run as root, or failed.
    """
    if shutil.which("debootstrap") is None:
        raise InfrastructureError(
            "debootstrap is not installed; install it with: apt-get install -y debootstrap"
        )
    if os.geteuid() != 0:
        raise InfrastructureError("building a root file system needs root (debootstrap)")
    mirror = mirror or apt_mirror(suite)
    command = [
        "debootstrap",
        "--variant=minbase",
        f"--include={','.join(sorted(set(packages)))}",
        suite,
        target,
        mirror,
    ]
    log(f"$ {' '.join(command)}")
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise InfrastructureError(f"debootstrap failed ({done.returncode}):\n{done.stdout[-4000:]}")
    root = Path(target)
    with open(root / "etc/passwd", "a") as f:
        f.write(f"sandbox:x:{SANDBOX_UID}:{SANDBOX_UID}:sandbox:/work:/bin/bash\n")
    with open(root / "etc/group", "a") as f:
        f.write(f"sandbox:x:{SANDBOX_UID}:\n")
    (root / "work").mkdir(mode=0o1777, exist_ok=True)
    os.chmod(root / "work", 0o1777)
    for rel in _PRUNE:
        shutil.rmtree(root / rel, ignore_errors=True)
        (root / rel).mkdir(parents=True, exist_ok=True)
    (root / "etc/palaestra-image.json").write_text(
        json.dumps(base_recipe(suite, packages), indent=1) + "\n"
    )


def build_base_image(
    *,
    suite: str = DEFAULT_SUITE,
    packages: Sequence[str] = BASE_PACKAGES,
    mirror: str | None = None,
    force: bool = False,
    rootfs: str | None = None,
    client: Any = None,
    log: Callable[[str], None] = print,
) -> str:
    """Builds the base image (debootstrap, then ``docker import``) unless it already exists.

    Args:
        suite: The Debian release.
        packages: Packages installed on top of the minimal system.
        mirror: The Debian mirror (default: the one apt uses here).
        force: Rebuild even if the tag exists.
        rootfs: Also keep the root file system at this path (for ``LocalBackend(root=...)``).
        client: A ``docker.DockerClient``.
        log: Where progress lines go.

    Returns:
        The image's tag.
    """
    tag = base_tag(suite, packages)
    api = _client(client).api
    if (
        not force
        and image_exists(tag, client)
        and (rootfs is None or Path(rootfs, "etc/palaestra-image.json").exists())
    ):
        log(f"{tag} is already built")
        return tag
    work = tempfile.mkdtemp(prefix="palaestra-rootfs-", dir="/var/tmp")
    try:
        build_rootfs(work, suite=suite, packages=packages, mirror=mirror, log=log)
        archive = os.path.join(
            tempfile.mkdtemp(prefix="palaestra-import-", dir="/var/tmp"), "rootfs.tar"
        )
        try:
            subprocess.run(["tar", "--numeric-owner", "-C", work, "-cf", archive, "."], check=True)
            log(f"importing {archive} as {tag}")
            repository, _, name = tag.partition(":")
            api.import_image_from_file(
                archive,
                repository=repository,
                tag=name,
                changes=[f"ENV {e}" for e in _ENV] + ["WORKDIR /work"],
            )
        finally:
            shutil.rmtree(os.path.dirname(archive), ignore_errors=True)
        if rootfs is not None:
            shutil.rmtree(rootfs, ignore_errors=True)
            shutil.move(work, rootfs)
            log(f"root file system kept at {rootfs}")
    except subprocess.CalledProcessError as e:
        raise InfrastructureError(f"packing the root file system failed: {e}") from e
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not image_exists(tag, client):
        raise InfrastructureError(f"docker import did not produce {tag}")
    log(f"built {tag}")
    return tag


def build_task_image(
    files: Mapping[str, bytes | str],
    *,
    commands: Sequence[str] = (),
    base: str | None = None,
    workdir: str = "/repo",
    client: Any = None,
    log: Callable[[str], None] = print,
) -> str:
    """Layers a task on the base image: ``files`` under ``workdir``, then ``commands`` as root.

    The build has no network (install from files you copy in, e.g. a wheelhouse) and never
    pulls. The tag hashes the base image id, the files and the commands.

    Args:
        files: ``{path relative to workdir: content}``.
        commands: Shell commands run in order (``RUN``), as root, in ``workdir``.
        base: The image to build on (default: :func:`base_tag`).
        workdir: Where the files go; sessions can copy it to /work (``copy_from``).
        client: A ``docker.DockerClient``.
        log: Where progress lines go.

    Returns:
        The image's tag.

    Raises:
        ValueError: A file path or ``workdir`` is unsafe.
        InfrastructureError: The base image is missing or the build failed.
    """
    from palaestra.sandbox.api import check_files

    if not workdir.startswith("/") or ".." in workdir.split("/"):
        raise ValueError(f"workdir must be an absolute path without '..', got {workdir!r}")
    contents = check_files(files, "files")
    base = base or base_tag()
    docker = require("docker", "docker", "building sandbox images")
    api = _client(client).api
    try:
        base_id = api.inspect_image(base)["Id"]
    except docker.errors.ImageNotFound:
        raise InfrastructureError(
            f"base image {base!r} is not built; run: palaestra sandbox build-image"
        ) from None
    lines = [f"FROM {base}", "USER root", f"COPY context/ {workdir}/", f"WORKDIR {workdir}"]
    lines += [f"RUN {command}" for command in commands]
    lines += [f"RUN chown -R {SANDBOX_UID}:{SANDBOX_UID} {workdir}", "WORKDIR /work"]
    dockerfile = "\n".join(lines) + "\n"
    digest = _digest(
        {
            "base": base_id,
            "dockerfile": dockerfile,
            "files": {p: hashlib.sha256(c).hexdigest() for p, c in sorted(contents.items())},
        }
    )
    tag = f"{REPOSITORY}:task-{digest}"
    if image_exists(tag, client):
        return tag
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for path, data in [("Dockerfile", dockerfile.encode())] + [
            (f"context/{p}", c) for p, c in contents.items()
        ]:
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o755 if data.startswith(b"#!") else 0o644
            tar.addfile(info, io.BytesIO(data))
        if not contents:
            info = tarfile.TarInfo("context")
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            tar.addfile(info)
    context.seek(0)
    build_context(api, tag, context, log)
    return tag


def build_context(
    api: Any,
    tag: str,
    context: io.BytesIO,
    log: Callable[[str], None] = print,
    *,
    timeout_s: float | None = None,
) -> None:
    """Builds ``tag`` from a tar build context (its Dockerfile at the root), pulling nothing.

    Args:
        api: A docker-py low-level API client.
        tag: The image's tag.
        context: The tar archive, read from its start.
        log: Receives one line when the image is built.
        timeout_s: Seconds the engine may take (None: docker-py's default).

    Raises:
        InfrastructureError: The build failed or outlasted ``timeout_s``; the message ends
            with the build's last output.
    """
    docker = require("docker", "docker", "building images")
    output: list[str] = []
    try:
        for chunk in api.build(
            fileobj=context,
            custom_context=True,
            tag=tag,
            rm=True,
            forcerm=True,
            pull=False,
            network_mode="none",
            decode=True,
            timeout=None if timeout_s is None else int(timeout_s),
        ):
            if "stream" in chunk:
                output.append(chunk["stream"])
            if "error" in chunk:
                raise InfrastructureError(
                    f"building {tag} failed: {chunk['error'].strip()}\n{''.join(output)[-4000:]}"
                )
    except InfrastructureError:
        raise
    except docker.errors.APIError as e:
        raise InfrastructureError(f"building {tag} failed: {e}") from e
    except Exception as e:  # the engine's read timed out: the build outlasted its budget
        raise InfrastructureError(f"building {tag} failed or timed out: {e}") from e
    log(f"built {tag}")
