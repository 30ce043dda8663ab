"""Images of SWE tasks, built here on the local base image; nothing is pulled.

Repository tasks get three layers, each tagged by a hash of what went into it, so that a
rebuild of an unchanged task is a no-op and tasks with the same dependencies share layers:

    palaestra-sandbox:base-<hash>      the Debian base (``palaestra sandbox build-image``)
    palaestra-swe:env-<hash>           + the task's requirements, installed offline from
                                       the local wheelhouse (one layer per dependency set)
    palaestra-swe:inst-<hash>          + the repository at the task's base state, a git
                                       repository of one fresh commit, owned by the
                                       sandbox user (one layer per task)

The wheelhouse (``$PALAESTRA_SWE_CACHE/wheelhouse``, default ``~/.cache/palaestra/swe``)
holds the packages' source distributions and the requirements' wheels, fetched once with
``pip download`` (:func:`fetch`); builds never use the network.

Generic Harbor tasks are built from their ``environment/Dockerfile``. A ``FROM`` naming an
image that is not present here is an error naming the image and the local base to map it
to (``base_map={"python:3.11-slim": "palaestra-sandbox:base-..."}``, ``--base-map`` on the
command line), never a pull. A last layer moves the Dockerfile's working directory to
where the sandbox's writable ``/work`` is copied from, and points ``/tests``, ``/logs`` and
``/solution`` into the writable ``/tmp`` (the image's root is read-only at run time).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palaestra.envs.swe.task import HarborTask, TaskFormatError, sha256_file
from palaestra.errors import InfrastructureError, require
from palaestra.sandbox.images import SANDBOX_UID, base_tag, build_context

REPOSITORY = "palaestra-swe"
LABEL = "palaestra.swe"
#: Where an instance image keeps the directory copied into the sandbox's /work.
WORKSPACE = "/opt/palaestra/workspace"
#: The repository's path inside the sandbox (``/work`` is its writable tmpfs).
REPO_DIR = "/work/repo"
#: Bumped when the way layers are made changes (it is part of every tag's hash).
RECIPE_VERSION = 1
# Fixed author and date: the same base state gives the same commit id on every machine.
_GIT_ENV = (
    "GIT_AUTHOR_NAME=palaestra GIT_AUTHOR_EMAIL=palaestra@localhost "
    "GIT_COMMITTER_NAME=palaestra GIT_COMMITTER_EMAIL=palaestra@localhost "
    "GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z"
)
Log = Callable[[str], None]


def cache_dir() -> Path:
    """The SWE cache (``$PALAESTRA_SWE_CACHE``, default ``~/.cache/palaestra/swe``)."""
    return Path(os.environ.get("PALAESTRA_SWE_CACHE") or Path.home() / ".cache/palaestra/swe")


def wheelhouse() -> Path:
    """The local wheelhouse: source distributions and wheels fetched with ``pip download``."""
    return cache_dir() / "wheelhouse"


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def _client(client: Any = None) -> Any:
    if client is not None:
        return client
    docker = require("docker", "docker", "building SWE task images")
    try:
        return docker.from_env()
    except Exception as e:
        raise InfrastructureError(f"cannot reach the Docker engine: {e}") from e


def _image_id(api: Any, tag: str) -> str | None:
    docker = require("docker", "docker", "building SWE task images")
    try:
        return api.inspect_image(tag)["Id"]
    except docker.errors.ImageNotFound:
        return None


# --------------------------------------------------------------------------- the wheelhouse


def _pip_download(args: list[str], log: Log) -> None:
    command = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q"]
    command += ["-d", str(wheelhouse()), *args]
    log("$ " + " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise InfrastructureError(
            f"pip download failed ({done.returncode}); the wheelhouse is filled once with "
            f"network access to PyPI:\n{done.stderr[-2000:]}"
        )


def _wheel_for(requirement: str) -> Path | None:
    name, _, version = requirement.partition("==")
    stem = re.sub(r"[-_.]+", "_", name).lower()
    for path in sorted(wheelhouse().glob("*.whl")):
        parts = path.name.split("-")
        if re.sub(r"[-_.]+", "_", parts[0]).lower() == stem and (
            not version or parts[1] == version
        ):
            return path
    return None


def fetch(tasks: Iterable[HarborTask], log: Log = print) -> None:
    """Fills the wheelhouse with what the tasks' images need (the only step that needs PyPI).

    Raises:
        InfrastructureError: pip failed, or a downloaded source does not match its sha256.
    """
    wheelhouse().mkdir(parents=True, exist_ok=True)
    for task in tasks:
        if task.repo is None or task.repo.git_repository is not None:
            continue
        source = wheelhouse() / task.repo.source
        if not source.is_file():
            _pip_download(
                ["--no-deps", "--no-binary", ":all:", f"{task.repo.package}=={task.repo.version}"],
                log,
            )
        check_source(task)
        for requirement in task.repo.requirements:
            if _wheel_for(requirement) is None:
                _pip_download(["--no-deps", "--only-binary", ":all:", requirement], log)


def check_source(task: HarborTask) -> Path:
    """The task's source distribution in the wheelhouse, checked against its sha256.

    Raises:
        InfrastructureError: It is missing (with the command that fetches it) or differs.
    """
    assert task.repo is not None
    source = wheelhouse() / task.repo.source
    if not source.is_file():
        raise InfrastructureError(
            f"{task.repo.source} is not in the wheelhouse {wheelhouse()}; fetch it once "
            f"(needs PyPI) with: palaestra swe fetch {task.path}"
        )
    digest = sha256_file(source)
    if digest != task.repo.source_sha256:
        raise InfrastructureError(
            f"{source} has sha256 {digest}, but {task.name} expects {task.repo.source_sha256}; "
            "delete the file and fetch it again"
        )
    return source


# --------------------------------------------------------------------------- the repository


def extract_source(archive: Path, target: Path) -> None:
    """Unpacks a source distribution into ``target`` without its top-level directory.

    Raises:
        TaskFormatError: A member is a link or device, or its path escapes the target.
    """
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if len(parts) < 2:
                continue
            if member.issym() or member.islnk() or not (member.isfile() or member.isdir()):
                raise TaskFormatError(f"{archive}: {member.name} is not a plain file")
            relative = Path(*parts[1:])
            if relative.is_absolute() or ".." in relative.parts:
                raise TaskFormatError(f"{archive}: {member.name} escapes the archive")
            destination = target / relative
            if member.isdir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            destination.write_bytes(source.read())
            destination.chmod(0o755 if member.mode & 0o111 else 0o644)


def export_commit(repository: str, commit: str, target: Path) -> None:
    """Writes the tree of ``commit`` of a local git repository into ``target`` (no history).

    Raises:
        InfrastructureError: The repository or the commit is not there.
    """
    archive = subprocess.run(
        ["git", "-C", repository, "archive", "--format=tar", commit], capture_output=True
    )
    if archive.returncode != 0:
        raise InfrastructureError(
            f"cannot read commit {commit} of {repository}: "
            f"{archive.stderr.decode(errors='replace').strip()[:500]}; clone the repository "
            "there (with that commit) first"
        )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar.getmembers():
            relative = Path(member.name)
            if member.issym() or member.islnk() or relative.is_absolute() or ".." in relative.parts:
                continue  # links stay out of the task's tree, as they stay out of grading
            if member.isdir():
                (target / relative).mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                (target / relative).write_bytes(source.read())
                (target / relative).chmod(0o755 if member.mode & 0o111 else 0o644)


def apply_patch(repo: Path, patch: str) -> None:
    """Applies a unified diff (``git apply``) to a directory, which need not be a git repository.

    Raises:
        TaskFormatError: The patch does not apply.
    """
    done = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        cwd=repo,
        input=patch,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise TaskFormatError(f"the patch does not apply: {done.stderr.strip()[:1000]}")


def base_state(task: HarborTask, target: Path, *, hidden: bool = True) -> None:
    """Writes the repository at the task's base state into ``target``.

    Args:
        task: A repository task.
        target: An empty directory.
        hidden: Leave out the hidden test files (what the agent's image holds).
    """
    assert task.repo is not None
    if task.repo.git_repository is not None:
        export_commit(task.repo.git_repository, task.repo.source_sha256, target)
    else:
        extract_source(check_source(task), target)
    patch = (task.path / task.repo.base_patch).read_text()
    if patch.strip():
        apply_patch(target, patch)
    # Packaging leftovers of the sdist are not part of a checkout.
    for leftover in target.glob("*.egg-info"):
        shutil.rmtree(leftover)
    if hidden:
        for relpath in task.repo.hidden_tests:
            (target / relpath).unlink(missing_ok=True)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# --------------------------------------------------------------------------- docker builds


def _context(dockerfile: str, files: Mapping[str, bytes], modes: Mapping[str, int]) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        entries = [("Dockerfile", dockerfile.encode())] + list(files.items())
        for path, data in entries:
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = modes.get(path, 0o644)
            tar.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    return buffer


@dataclass(frozen=True)
class Built:
    """The images of one task.

    Attributes:
        task: The task's name.
        image: The image the agent's and the grader's containers start from.
        layers: ``{"base"|"env"|"instance"|"harbor": tag}`` of the task's layers.
        built: The tags this call built (empty when every layer already existed).
    """

    task: str
    image: str
    layers: dict[str, str]
    built: tuple[str, ...]


def env_layer(
    requirements: Iterable[str], *, base: str | None = None, client: Any = None, log: Log = print
) -> tuple[str, bool]:
    """Builds (unless present) the environment layer for a dependency set.

    Returns:
        ``(tag, built)``: the layer's tag and whether this call built it.

    Raises:
        InfrastructureError: The base image or a wheel is missing, or the build failed.
    """
    api = _client(client).api
    base = base or base_tag()
    base_id = _image_id(api, base)
    if base_id is None:
        raise InfrastructureError(
            f"the base image {base} is not built; build it with: palaestra sandbox build-image"
        )
    requirements = sorted(set(requirements))
    wheels = {}
    for requirement in requirements:
        wheel = _wheel_for(requirement)
        if wheel is None:
            raise InfrastructureError(
                f"no wheel for {requirement} in the wheelhouse {wheelhouse()}; "
                "fetch it once with: palaestra swe fetch"
            )
        if not wheel.name.endswith("-none-any.whl"):
            raise InfrastructureError(
                f"{wheel.name} is not a pure-Python wheel (...-none-any.whl); environment layers "
                "install pure-Python wheels only"
            )
        wheels[f"wheels/{wheel.name}"] = wheel.read_bytes()
    lines = [f"FROM {base}", "USER root", f"LABEL {LABEL}=env"]
    if wheels:
        # Pure-Python wheels are zip archives laid out as installed: unpacking them into
        # the site directory installs them, offline, with no pip in the image.
        lines += [
            "COPY wheels/ /tmp/wheels/",
            'RUN python3 -c "import glob, site, zipfile; '
            "[zipfile.ZipFile(w).extractall(site.getsitepackages()[0]) "
            "for w in sorted(glob.glob('/tmp/wheels/*.whl'))]\" && rm -rf /tmp/wheels",
        ]
    dockerfile = "\n".join(lines) + "\n"
    digest = _digest(
        {
            "base": base_id,
            "dockerfile": dockerfile,
            "wheels": {p: hashlib.sha256(c).hexdigest() for p, c in wheels.items()},
            "recipe": RECIPE_VERSION,
        }
    )
    tag = f"{REPOSITORY}:env-{digest}"
    if _image_id(api, tag) is not None:
        return tag, False
    build_context(api, tag, _context(dockerfile, wheels, {}), log, timeout_s=600)
    return tag, True


def build_repo_task(
    task: HarborTask, *, base: str | None = None, client: Any = None, log: Log = print
) -> Built:
    """Builds (unless present) the environment and instance layers of a repository task.

    Raises:
        InfrastructureError: The base image or a wheelhouse file is missing, or a build failed.
        TaskFormatError: The task's patch does not apply to its source.
    """
    if task.repo is None:
        raise ValueError(f"{task.name} is not a repository task; use build_harbor_task")
    api = _client(client).api
    base = base or base_tag()
    env_tag, env_built = env_layer(task.repo.requirements, base=base, client=client, log=log)
    with tempfile.TemporaryDirectory(prefix="palaestra-swe-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        base_state(task, repo)
        files = {f"repo/{p}": data for p, data in _tree(repo).items()}
        modes = {
            f"repo/{p.relative_to(repo).as_posix()}": p.stat().st_mode & 0o777
            for p in repo.rglob("*")
            if p.is_file()
        }
    dockerfile = (
        "\n".join(
            [
                f"FROM {env_tag}",
                "USER root",
                f"LABEL {LABEL}=instance {LABEL}.task={json.dumps(task.name)}",
                f"COPY repo/ {WORKSPACE}/repo/",
                f"RUN cd {WORKSPACE}/repo && {_GIT_ENV} git -c init.defaultBranch=main init -q "
                "&& git add -A && "
                f"{_GIT_ENV} git -c user.name=palaestra -c user.email=palaestra@localhost "
                "commit -q -m 'Base state' && rm -rf .git/hooks .git/logs .git/description "
                f"&& chown -R {SANDBOX_UID}:{SANDBOX_UID} {WORKSPACE}",
                "WORKDIR /work",
            ]
        )
        + "\n"
    )
    env_id = _image_id(api, env_tag)
    digest = _digest(
        {
            "env": env_id,
            "dockerfile": dockerfile,
            "files": {p: hashlib.sha256(c).hexdigest() for p, c in files.items()},
            "modes": modes,
            "recipe": RECIPE_VERSION,
        }
    )
    tag = f"{REPOSITORY}:inst-{digest}"
    built = [env_tag] if env_built else []
    if _image_id(api, tag) is None:
        build_context(
            api, tag, _context(dockerfile, files, modes), log, timeout_s=task_build_timeout(task)
        )
        built.append(tag)
    return Built(task.name, tag, {"base": base, "env": env_tag, "instance": tag}, tuple(built))


def task_build_timeout(task: HarborTask) -> float:
    """``[environment].build_timeout_sec`` of the task (600 s if unset)."""
    value = task.config.get("environment", {}).get("build_timeout_sec", 600.0)
    return float(value) if isinstance(value, (int, float)) and value > 0 else 600.0


_FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$", re.I | re.M)


def parse_base_map(items: Iterable[str]) -> dict[str, str]:
    """Parses ``--base-map public=local`` items into a dict.

    Raises:
        ValueError: An item is not ``public=local``.
    """
    mapping = {}
    for item in items:
        public, sep, local = item.partition("=")
        if not sep or not public.strip() or not local.strip():
            raise ValueError(
                f"--base-map takes public=local, e.g. python:3.11-slim={base_tag()}; got {item!r}"
            )
        mapping[public.strip()] = local.strip()
    return mapping


def map_dockerfile(
    dockerfile: str, base_map: Mapping[str, str], exists: Callable[[str], bool], where: str
) -> str:
    """Rewrites the ``FROM`` lines through ``base_map``; checks every base is present here.

    Raises:
        InfrastructureError: A ``FROM`` names an image that is neither mapped nor present.
    """
    stages: set[str] = set()

    def replace(match: re.Match) -> str:
        image, alias = match.group(1), match.group(2)
        mapped = base_map.get(image, image)
        if mapped not in stages and mapped.lower() != "scratch" and not exists(mapped):
            raise InfrastructureError(
                f"{where}: FROM {image} names an image that is not present here, and images "
                f"are never pulled; build on the local base instead, e.g. "
                f"--base-map {image}={base_tag()} (palaestra sandbox build-image builds it)"
            )
        if alias:
            stages.add(alias)
        return match.group(0).replace(image, mapped, 1)

    return _FROM.sub(replace, dockerfile)


def build_harbor_task(
    task: HarborTask,
    *,
    base_map: Mapping[str, str] | None = None,
    client: Any = None,
    log: Log = print,
) -> Built:
    """Builds (unless present) a generic Harbor task from its ``environment/Dockerfile``.

    Raises:
        InfrastructureError: A base image is neither mapped nor present, or the build failed.
    """
    api = _client(client).api
    where = f"{task.path}/environment/Dockerfile"
    dockerfile = map_dockerfile(
        (task.environment_dir / "Dockerfile").read_text(),
        dict(base_map or {}),
        lambda image: _image_id(api, image) is not None,
        where,
    )
    context = _tree(task.environment_dir)
    context.pop("Dockerfile", None)
    modes = {
        p.relative_to(task.environment_dir).as_posix(): p.stat().st_mode & 0o777
        for p in task.environment_dir.rglob("*")
        if p.is_file()
    }
    bases = {m.group(1): _image_id(api, m.group(1)) for m in _FROM.finditer(dockerfile)}
    digest = _digest(
        {
            "dockerfile": dockerfile,
            "bases": bases,
            "files": {p: hashlib.sha256(c).hexdigest() for p, c in context.items()},
            "modes": modes,
            "recipe": RECIPE_VERSION,
        }
    )
    stage = f"{REPOSITORY}:harbor-{digest}"
    built = []
    if _image_id(api, stage) is None:
        build_context(
            api,
            stage,
            _context(dockerfile, context, modes),
            log,
            timeout_s=task_build_timeout(task),
        )
        built.append(stage)
    workdir = api.inspect_image(stage)["Config"].get("WorkingDir") or "/work"
    relocate = (
        f'mkdir -p {WORKSPACE} && if [ -d "$W" ]; then cp -a "$W" {WORKSPACE}/workdir '
        f'&& rm -rf "$W"; else mkdir -p {WORKSPACE}/workdir; fi && ln -s /work "$W"'
        if workdir != "/work"
        else f"mkdir -p {WORKSPACE}/workdir"
    )
    final = (
        "\n".join(
            [
                f"FROM {stage}",
                "USER root",
                f"LABEL {LABEL}=instance {LABEL}.task={json.dumps(task.name)}",
                f"ENV W={workdir}",
                f"RUN {relocate} && chown -R {SANDBOX_UID}:{SANDBOX_UID} {WORKSPACE} "
                "&& for d in tests logs solution; do rm -rf /$d; ln -s /tmp/palaestra/$d /$d; done",
                "WORKDIR /work",
            ]
        )
        + "\n"
    )
    tag = f"{REPOSITORY}:inst-{_digest({'stage': _image_id(api, stage), 'df': final})}"
    if _image_id(api, tag) is None:
        build_context(api, tag, _context(final, {}, {}), log, timeout_s=task_build_timeout(task))
        built.append(tag)
    return Built(task.name, tag, {"harbor": stage, "instance": tag}, tuple(built))


def build_task(
    task: HarborTask,
    *,
    base_map: Mapping[str, str] | None = None,
    client: Any = None,
    log: Log = print,
) -> Built:
    """Builds a task's images (repository or generic Harbor task); a no-op when unchanged."""
    if task.repo is not None:
        return build_repo_task(task, base=(base_map or {}).get("base"), client=client, log=log)
    return build_harbor_task(task, base_map=base_map, client=client, log=log)


# --------------------------------------------------------------------------- disk and gc


def layer_sizes(tags: Iterable[str], client: Any = None) -> dict[str, int]:
    """Bytes each image adds over its parent layers (``docker history``), by tag."""
    api = _client(client).api
    sizes = {}
    for tag in tags:
        history = api.history(tag)
        own = 0
        for entry in history:
            if entry.get("Tags") and tag not in entry["Tags"]:
                break  # reached the layer below, which has a tag of its own
            own += int(entry.get("Size") or 0)
        sizes[tag] = own
    return sizes


def gc(keep: Iterable[str], client: Any = None, log: Log = print) -> list[str]:
    """Removes every ``palaestra-swe`` image not in ``keep`` (and not under a kept one).

    Returns:
        The removed tags.
    """
    docker = require("docker", "docker", "removing SWE task images")
    api = _client(client).api
    keep_ids: set[str] = set()
    for tag in keep:
        try:
            keep_ids.update(e["Id"] for e in api.history(tag) if e.get("Id", "").startswith("sha"))
        except docker.errors.ImageNotFound:
            continue
    removed = []
    images = api.images(name=REPOSITORY)
    # Instance layers first, so that their parents are free to go after them.
    for image in sorted(images, key=lambda i: -i.get("Created", 0)):
        if image["Id"] in keep_ids:
            continue
        for tag in image.get("RepoTags") or []:
            try:
                api.remove_image(tag, noprune=False)
                removed.append(tag)
                log(f"removed {tag}")
            except docker.errors.APIError as e:
                log(f"kept {tag}: {e.explanation or e}")
    return removed
