"""The Docker backend: warm pool hygiene, fresh containers, task images, stale containers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from palaestra.sandbox import Limits, RunRequest

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]


@pytest.fixture
def single(docker_engine):
    """A backend with one warm container, so that consecutive runs share it."""
    from palaestra.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(max_concurrency=1, pool_size=1)
    yield backend
    backend.close()


def _wait_for_pool(backend, count=1, timeout=30.0):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(len(q) for q in backend._idle.values()) >= count:
            return
        time.sleep(0.05)
    pytest.fail("the container did not come back to the pool")


def test_warm_runs_reuse_a_container_and_leave_nothing_behind(single):
    first = single.run(
        RunRequest(
            code="import os\nopen('/work/w', 'w').write('1')\nopen('/tmp/t', 'w').write('1')\n"
            "open('/dev/shm/s', 'w').write('1')\nos.chmod('/work/w', 0)\nprint('wrote')"
        )
    )
    assert first.stdout == b"wrote\n"
    _wait_for_pool(single)
    second = single.run(
        RunRequest(
            code="import os\nprint(os.listdir('/work'), os.listdir('/tmp'), os.listdir('/dev/shm'))"
        )
    )
    assert second.info["container"] == first.info["container"]
    assert second.stdout == b"['main.py'] [] []\n"


def test_every_request_shares_one_socket_pool(single):
    """docker-py keys Unix-socket pools by URL and closes the 26th: in-flight reads broke."""
    for n in range(4):
        assert single.run(RunRequest(code=f"print({n})", fresh=True)).stdout == f"{n}\n".encode()
    adapter = single.client.api.adapters["http+docker://"]
    assert len(adapter.pools) == 1


def test_fresh_runs_get_new_containers(single, docker_engine):
    import docker

    first = single.run(RunRequest(code="print(1)", fresh=True))
    second = single.run(RunRequest(code="print(2)", fresh=True))
    assert first.info["mode"] == second.info["mode"] == "fresh-container"
    assert first.info["container"] != second.info["container"]
    single._executor.submit(lambda: None).result()
    import time

    time.sleep(1)
    ids = [c["Id"][:12] for c in docker.from_env().api.containers(all=True)]
    assert first.info["container"] not in ids


def test_containers_run_unprivileged_and_read_only(docker_backend):
    code = (
        "id -u; touch /usr/x 2>&1 | grep -c 'Read-only'; "
        "grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status"
    )
    result = docker_backend.run(RunRequest(argv=["bash", "-c", code]))
    lines = result.stdout.decode().split("\n")
    assert lines[0] == "10001" and lines[1] == "1"
    assert lines[2].split()[1] == "0000000000000000" and lines[3].split()[1] == "1"


def test_a_missing_image_is_an_infrastructure_error(docker_engine):
    from palaestra.sandbox.docker_backend import DockerBackend

    with DockerBackend(image="palaestra-sandbox:does-not-exist") as backend:
        result = backend.run(RunRequest(code="print(1)"))
    assert result.error is not None and "build-image" in result.error


def test_task_images_layer_files_and_sessions_copy_them(docker_backend):
    from palaestra.sandbox.images import build_task_image

    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def add(a, b):\n    return a - b\n",
        "test_core.py": "from pkg.core import add\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    }
    tag = build_task_image(files, commands=["python3 -m compileall -q pkg"], log=lambda line: None)
    assert (
        build_task_image(files, commands=["python3 -m compileall -q pkg"], log=lambda line: None)
        == tag
    )
    with docker_backend.session(
        "shell", image=tag, copy_from="/repo", limits=Limits(wall_s=60)
    ) as session:
        assert session.exec("python3 -m pytest -q -p no:cacheprovider").exit_code == 1
        session.exec("sed -i 's/a - b/a + b/' pkg/core.py")
        assert session.exec("python3 -m pytest -q -p no:cacheprovider").exit_code == 0
        diff = session.diff()
        assert "-    return a - b" in diff and "+    return a + b" in diff


def test_stale_containers_of_dead_owners_are_removed(docker_backend, docker_engine):
    import socket

    import docker

    client = docker.from_env()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    labels = {
        "palaestra.sandbox": "1",
        "palaestra.sandbox.owner": f"{socket.gethostname()}:{dead.pid}",
    }
    stale = client.api.create_container(
        docker_backend.image, command=["sleep", "600"], labels=labels
    )
    assert docker_backend.reap_stale() >= 1
    assert stale["Id"] not in [c["Id"] for c in client.api.containers(all=True)]


def test_without_the_docker_package(tmp_path):
    code = (
        "import sys\nsys.modules['docker'] = None\n"
        "from palaestra.errors import MissingDependencyError\n"
        "from palaestra.sandbox import get_backend\n"
        "try:\n    get_backend('docker')\nexcept MissingDependencyError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert 'pip install "palaestra[docker]"' in done.stdout, done.stderr


def test_docker_available_reports_the_engine_and_image(docker_engine):
    from palaestra.sandbox import docker_available

    assert docker_available() is True
    assert docker_available("palaestra-sandbox:never-built") is False
