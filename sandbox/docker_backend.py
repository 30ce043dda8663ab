"""Docker backend: containers from locally built images, a warm pool for short runs.

Threat model
============

The program is assumed hostile. The Docker engine, the image and the kernel are trusted.
Images are never pulled: the base image is built here from a Debian root file system
(``palaestra sandbox build-image``), task images are layered on it.

How a run is isolated
---------------------
* **Container.** Its own PID, mount, network, IPC and UTS namespaces; the in-container
  agent is PID 1 and starts the program as its child.
* **Identity.** A non-root user (uid 10001), every capability dropped,
  ``no-new-privileges``, Docker's default seccomp and AppArmor profiles.
* **Files.** Read-only root; ``/work``, ``/tmp`` and ``/dev/shm`` are size-capped tmpfs
  mounts of ``disk_mb`` each. Files travel as tar streams over the container's attached
  stdin/stdout (``docker cp`` cannot reach tmpfs mounts); the agent writes and reads them
  without following symlinks, and reads them only after the program's processes are dead.
  The Docker socket is never mounted.
* **Network.** ``--network none`` (loopback only) unless ``Limits.network``.
* **Resources.** ``--memory`` equal to ``--memory-swap`` (no swap), ``--pids-limit``,
  CPU quota, ``RLIMIT_CPU``/``FSIZE``/``NOFILE``/``CORE`` per program, output read while
  it runs under caps. The deadline is enforced from the host: ``docker kill`` when the
  agent has not reported in time. OOM kills are read from the container's cgroup by the
  agent, and from the container state when the agent itself was killed.

What it does not isolate
------------------------
* The kernel is shared with the host (a container is not a VM); Docker's seccomp
  profile narrows but does not remove that surface.
* Warm-pool containers are reused between runs that do not ask for ``fresh=True``: the
  agent kills every process and empties /work, /tmp and /dev/shm between runs, but kernel
  objects of the container's IPC namespace (System V shared memory, semaphores) may
  persist, and the container's memory and PID limits are shared by its runs in turn. Use
  ``RunRequest(fresh=True)`` whenever grading must not see earlier state.
* ``RLIMIT_NPROC`` is not used (container uids are shared across containers on the host);
  the cgroup ``pids`` limit bounds processes.
* Side channels (timing, caches, the kernel version) are open.
"""

from __future__ import annotations

import asyncio
import os
import socket
import struct
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from palaestra.errors import InfrastructureError, require
from palaestra.sandbox._guest import FrameDecoder, ProtocolError, encode_frame
from palaestra.sandbox._host import (
    START_TIMEOUT_S,
    AgentSession,
    Collector,
    SlotPool,
    build_result,
    default_concurrency,
    drive,
    host_deadline,
    run_frame,
    wait_for,
)
from palaestra.sandbox.api import (
    DEFAULT_ENV,
    Limits,
    RunRequest,
    RunResult,
    _check_env,
    check_files,
)

#: The non-root user every container runs as (created in the base image).
SANDBOX_USER = "10001:10001"
LABEL = "palaestra.sandbox"
_GUEST_SOURCE = (Path(__file__).parent / "_guest.py").read_text


class _Demux:
    """Splits Docker's multiplexed attach stream (8-byte headers) and keeps stdout."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._need = 0

    def feed(self, data: bytes) -> bytes:
        self._buf += data
        out = bytearray()
        while True:
            if self._need:
                take = min(self._need, len(self._buf))
                if not take:
                    break
                out += self._buf[:take]
                del self._buf[:take]
                self._need -= take
                continue
            if len(self._buf) < 8:
                break
            kind, size = self._buf[0], struct.unpack(">I", self._buf[4:8])[0]
            del self._buf[:8]
            if kind == 1:
                self._need = size
            else:
                # stderr of the agent (not attached) or stdin echo: skip the payload.
                skip = min(size, len(self._buf))
                del self._buf[:skip]
                if skip < size:
                    self._buf = bytearray()
        return bytes(out)


class _Container:
    """One running container with its agent on the other end of the attach socket."""

    def __init__(self, api: Any, container_id: str, raw: socket.socket, key: tuple) -> None:
        self.api, self.id, self.sock, self.key = api, container_id, raw, key
        self._demux = _Demux()
        self._pending = b""
        self.healthy = True
        self.decoder = FrameDecoder(max_blob=1 << 31)

    def send(self, data: bytes) -> None:
        self.sock.settimeout(None)
        self.sock.sendall(data)

    def recv(self, timeout: float | None) -> bytes:
        while True:
            if self._pending:
                data, self._pending = self._pending, b""
                return data
            self.sock.settimeout(timeout)
            try:
                raw = self.sock.recv(1 << 20)
            except TimeoutError:
                raise TimeoutError from None
            except OSError:
                raw = b""
            if not raw:
                return b""
            self._pending = self._demux.feed(raw)

    def kill(self) -> None:
        self.healthy = False
        try:
            self.api.kill(self.id)
        except Exception:  # already gone, or the engine is down: nothing left to kill
            pass

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def oom_killed(self) -> bool:
        """Whether the engine recorded an OOM kill in this container's state."""
        try:
            return bool(self.api.inspect_container(self.id)["State"].get("OOMKilled"))
        except Exception:
            return False

    def remove(self) -> None:
        self.close()
        try:
            self.api.remove_container(self.id, force=True)
        except Exception:
            pass


def _share_one_socket_pool(client: Any) -> None:
    """Makes a client's Unix-socket transport keep one connection pool for every URL.

    docker-py's Unix-socket adapter keys its pools by the request's full URL, so each
    container and exec gets a pool of its own, and past 25 of them the least recently used
    pool is closed, even while one of this backend's threads is still reading from it (the
    request then fails inside urllib3). Every request goes to the same socket: one pool,
    sized for the backend's threads, is what the transport needs.
    """
    from docker.transport import UnixHTTPAdapter

    adapter = client.api.adapters.get("http+docker://")
    if not isinstance(adapter, UnixHTTPAdapter):
        return  # TCP or SSH transports key their pools by host already

    class OnePool(UnixHTTPAdapter):
        def get_connection(self, url: str, proxies: Any = None) -> Any:
            return super().get_connection("http+docker://localhost", proxies)

    shared = OnePool(
        "http+unix://" + adapter.socket_path,
        timeout=adapter.timeout,
        max_pool_size=adapter.max_pool_size,
    )
    client.api.mount("http+docker://", shared)  # the session closes it with the client
    adapter.close()


class DockerBackend:
    """Runs requests in Docker containers (see the module's threat model).

    Args:
        image: The image to run (default: the base image of the default recipe, see
            :func:`palaestra.sandbox.images.base_tag`). It must exist locally.
        max_concurrency: Runs that go at once.
        pool_size: Warm containers kept per limits configuration.
        client: A ``docker.DockerClient`` (default: ``docker.from_env()``).
        user: ``uid:gid`` the containers run as.
    """

    name = "docker"

    def __init__(
        self,
        *,
        image: str | None = None,
        max_concurrency: int | None = None,
        pool_size: int = 4,
        client: Any = None,
        user: str = SANDBOX_USER,
    ) -> None:
        self._docker = require("docker", "docker", "the Docker sandbox backend")
        concurrency = default_concurrency() if max_concurrency is None else max_concurrency
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive int, got {concurrency!r}")
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 0:
            raise ValueError(f"pool_size must be a non-negative int, got {pool_size!r}")
        if image is None:
            from palaestra.sandbox.images import base_tag

            image = base_tag()
        self.image = image
        self.max_concurrency = concurrency
        self.pool_size = pool_size
        self.user = user
        self._client = client
        self._runs = SlotPool(concurrency)
        self._idle: dict[tuple, deque[_Container]] = {}
        self._live: set[str] = set()
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(
            max_workers=concurrency + 2, thread_name_prefix="palaestra-docker"
        )
        self._checked = False
        self._closed = False
        self._owner = f"{socket.gethostname()}:{os.getpid()}"
        self._finalizer = weakref.finalize(self, _shutdown, self.__dict__)

    # ---- engine

    @property
    def client(self) -> Any:
        """The Docker client, connected on first use."""
        if self._client is None:
            try:
                self._client = self._docker.from_env(max_pool_size=self.max_concurrency + 2)
            except Exception as e:
                raise InfrastructureError(f"cannot reach the Docker engine: {e}") from e
            _share_one_socket_pool(self._client)
        return self._client

    def _check(self) -> None:
        if self._checked:
            return
        try:
            self.client.ping()
        except InfrastructureError:
            raise
        except Exception as e:
            raise InfrastructureError(f"the Docker engine does not answer: {e}") from e
        try:
            self.client.api.inspect_image(self.image)
        except self._docker.errors.ImageNotFound:
            raise InfrastructureError(
                f"image {self.image!r} is not built here (images are never pulled); "
                "build it with: palaestra sandbox build-image"
            ) from None
        except Exception as e:
            raise InfrastructureError(f"cannot inspect image {self.image!r}: {e}") from e
        self.reap_stale()
        self._checked = True

    def reap_stale(self) -> int:
        """Removes sandbox containers left by processes of this host that are gone."""
        removed = 0
        host = socket.gethostname()
        try:
            listed = self.client.api.containers(all=True, filters={"label": LABEL})
        except Exception:
            return 0
        for item in listed:
            owner = (item.get("Labels") or {}).get(f"{LABEL}.owner", "")
            name, _, pid = owner.partition(":")
            if name == host and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                try:
                    self.client.api.remove_container(item["Id"], force=True)
                    removed += 1
                except Exception:
                    pass
        return removed

    # ---- containers

    def _key(self, limits: Limits, image: str) -> tuple:
        return (
            image,
            limits.memory_mb,
            limits.pids,
            limits.cpus,
            limits.disk_mb,
            limits.nofile,
            limits.network,
        )

    def _start(self, key: tuple) -> _Container:
        """Creates and starts a container whose agent waits for work."""
        image, memory_mb, pids, cpus, disk_mb, nofile, network = key
        api = self.client.api
        types = self._docker.types
        tmpfs = f"rw,exec,nosuid,nodev,size={disk_mb}m,mode=1777"
        host_config = api.create_host_config(
            network_mode="bridge" if network else "none",
            mem_limit=f"{memory_mb}m",
            memswap_limit=f"{memory_mb}m",
            pids_limit=pids + 1,
            nano_cpus=int(cpus * 1e9) if cpus else None,
            read_only=True,
            tmpfs={"/work": tmpfs, "/tmp": tmpfs},
            shm_size=f"{disk_mb}m",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            ulimits=[
                types.Ulimit(name="core", soft=0, hard=0),
                types.Ulimit(name="nofile", soft=max(nofile, 1024), hard=max(nofile, 1024)),
            ],
            log_config=types.LogConfig(type="none"),
            ipc_mode="private",
            init=False,
        )
        labels = {
            LABEL: "1",
            f"{LABEL}.owner": self._owner,
            f"{LABEL}.created": str(int(time.time())),
        }
        try:
            created = api.create_container(
                image,
                command=["python3", "-c", _GUEST_SOURCE(), "docker", "{}"],
                user=self.user,
                stdin_open=True,
                tty=False,
                working_dir="/work",
                environment=dict(DEFAULT_ENV),
                host_config=host_config,
                labels=labels,
                network_disabled=not network,
            )
        except Exception as e:
            raise InfrastructureError(f"could not create a container from {image!r}: {e}") from e
        container_id = created["Id"]
        self._live.add(container_id)
        try:
            attached = api.attach_socket(
                container_id, params={"stdin": 1, "stdout": 1, "stream": 1}
            )
            raw = getattr(attached, "_sock", attached)
            container = _Container(api, container_id, raw, key)
            api.start(container_id)
            wait_for(container, "hello", START_TIMEOUT_S)
            return container
        except (InfrastructureError, TimeoutError, EOFError, ProtocolError, OSError) as e:
            self._discard_id(container_id)
            raise InfrastructureError(f"the container did not start: {e}") from e
        except Exception as e:
            self._discard_id(container_id)
            raise InfrastructureError(f"the container did not start: {e}") from e

    def _discard_id(self, container_id: str) -> None:
        self._live.discard(container_id)
        try:
            self.client.api.remove_container(container_id, force=True)
        except Exception:
            pass

    def _discard_later(self, container: _Container) -> None:
        """Removes a container in a worker thread, or now once the backend is shut down."""
        try:
            self._executor.submit(self._discard, container)
        except RuntimeError:  # the executor is shut down (closed backend, interpreter exit)
            self._discard(container)

    def _discard(self, container: _Container) -> None:
        self._live.discard(container.id)
        container.remove()

    def _take(self, key: tuple, fresh: bool) -> _Container:
        if not fresh:
            with self._lock:
                idle = self._idle.get(key)
                if idle:
                    return idle.popleft()
        return self._start(key)

    def _recycle(self, container: _Container) -> None:
        """Waits for the agent's "ready" after its clean-up, then returns it to the pool."""
        try:
            wait_for(container, "ready", START_TIMEOUT_S)
        except (EOFError, TimeoutError, ProtocolError, OSError):
            self._discard(container)
            return
        with self._lock:
            idle = self._idle.setdefault(container.key, deque())
            if self._closed or len(idle) >= self.pool_size:
                keep = False
            else:
                idle.append(container)
                keep = True
        if not keep:
            self._discard(container)

    def warm(self, count: int, limits: Limits | None = None) -> int:
        """Starts ``count`` pool containers for ``limits`` now, in parallel; returns how many."""
        self._check()
        key = self._key(limits or Limits(), self.image)
        started = list(self._executor.map(lambda _: self._try_start(key), range(count)))
        with self._lock:
            idle = self._idle.setdefault(key, deque())
            for container in started:
                if container is not None:
                    idle.append(container)
        return sum(c is not None for c in started)

    def _try_start(self, key: tuple) -> _Container | None:
        try:
            return self._start(key)
        except InfrastructureError:
            return None

    # ---- runs

    def _info(self, container: _Container | None, fresh: bool) -> dict[str, Any]:
        return {
            "backend": self.name,
            "mode": "fresh-container" if fresh else "warm-pool",
            "image": self.image,
            "container": container.id[:12] if container is not None else None,
            "enforced": {
                "memory": "container cgroup (memory = memory-swap)",
                "pids": "container pids limit",
                "cpus": "container CPU quota",
                "cpu_s": "rlimit-cpu",
                "disk": "tmpfs size + rlimit-fsize",
                "nofile": "rlimit-nofile",
                "network": "network none",
                "wall": "agent deadline + docker kill from the host",
            },
            "notes": [],
        }

    def run(self, request: RunRequest) -> RunResult:
        """Runs one request in a container; never raises for what the program did."""
        if not isinstance(request, RunRequest):
            raise TypeError(f"expected a RunRequest, got {type(request).__name__}")
        limits = request.limits
        header, blob = run_frame(
            request, None, nproc=False, address_space_mb=limits.address_space_mb(memory_cgroup=True)
        )
        frame = encode_frame(header, blob)
        token = self._runs.acquire()
        try:
            try:
                self._check()
                container = self._take(self._key(limits, self.image), request.fresh)
            except InfrastructureError as e:
                return RunResult.failure(str(e), **self._info(None, request.fresh))
            info = self._info(container, request.fresh)
            collector = Collector(limits.output_bytes)
            start = time.monotonic()
            finished, host_killed = drive(
                container, frame, collector, start + host_deadline(limits.wall_s, len(frame))
            )
            wall = time.monotonic() - start
            oom = False
            if not finished:
                oom = container.oom_killed()
                self._executor.submit(self._discard, container)
            elif request.fresh or collector.final.get("error"):
                self._executor.submit(self._discard, container)
            else:
                self._executor.submit(self._recycle, container)
            return build_result(
                collector, wall_s=wall, info=info, host_killed=host_killed, oom_killed=oom
            )
        finally:
            self._runs.release(token)

    async def arun(self, request: RunRequest) -> RunResult:
        """Async twin of :meth:`run` (the Docker SDK blocks, so it runs in worker threads)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.run, request)

    # ---- sessions

    def session(
        self,
        kind: str = "python",
        *,
        limits: Limits | None = None,
        files: Mapping[str, bytes | str] | None = None,
        env: Mapping[str, str] | None = None,
        idle_timeout_s: float = 300.0,
        copy_from: str | None = None,
        image: str | None = None,
    ) -> AgentSession:
        """Opens a dedicated container that keeps state across calls.

        Args:
            kind: ``"python"`` (a persistent interpreter) or ``"shell"`` (bash commands in /work).
            limits: Limits of the session; ``wall_s`` is the default time per call.
            files: Files written to /work after ``copy_from``.
            env: Environment variables laid over the defaults.
            idle_timeout_s: The session is closed after this long without a call.
            copy_from: A directory of the image (e.g. a task image's repository) copied
                into /work when the session opens; :meth:`AgentSession.diff` compares to it.
            image: Run this image instead of the backend's.

        Raises:
            InfrastructureError: The container could not start.
        """
        if kind not in ("python", "shell"):
            raise ValueError(f"kind must be 'python' or 'shell', got {kind!r}")
        limits = Limits() if limits is None else limits
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        if (
            isinstance(idle_timeout_s, bool)
            or not isinstance(idle_timeout_s, (int, float))
            or idle_timeout_s <= 0
        ):
            raise ValueError(f"idle_timeout_s must be a positive number, got {idle_timeout_s!r}")
        if copy_from is not None and (
            not isinstance(copy_from, str) or not copy_from.startswith("/")
        ):
            raise ValueError(
                f"copy_from must be an absolute path inside the image, got {copy_from!r}"
            )
        files = check_files(files or {}, "files")
        environment = {**DEFAULT_ENV, **_check_env(env or {})}
        self._check()
        chosen = image or self.image
        container = self._start(self._key(limits, chosen))
        return AgentSession(
            container,
            kind=kind,
            limits=limits,
            env=environment,
            files=files,
            idle_timeout_s=float(idle_timeout_s),
            info={**self._info(container, True), "mode": f"session-{kind}"},
            copy_from=copy_from,
            on_close=lambda: self._discard_later(container),
            wire_flags={"nproc": False, "address_space_mb": limits.address_space_mb(True)},
        )

    def close(self) -> None:
        """Removes every container this backend started."""
        _shutdown(self.__dict__)

    def __enter__(self) -> DockerBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _shutdown(state: dict) -> None:
    state["_closed"] = True
    client = state.get("_client")
    with state["_lock"]:
        idle = state.get("_idle", {})
        containers = [c for queue in idle.values() for c in queue]
        idle.clear()
    for container in containers:
        container.close()
    live = list(state.get("_live", ()))
    state.get("_live", set()).clear()
    if client is not None:
        for container_id in live:
            try:
                client.api.remove_container(container_id, force=True)
            except Exception:
                pass
    executor = state.get("_executor")
    if executor is not None:
        executor.shutdown(wait=False, cancel_futures=True)
