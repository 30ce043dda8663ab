"""A Ray env pool: envs on the nodes a cluster sets aside for them, leased like local envs.

    ray.init()  # address="auto" on a cluster started with `ray start --head`
    pool = EnvPool.create("envs", num_hosts=4, envs_per_host=64)
    env = palaestra.make("ray://envs/Sudoku-v0", level=3)  # or pool.make("Sudoku-v0", level=3)
    obs, info = env.reset(seed=0)

The pool is three kinds of object:

* **env hosts**, Ray actors that each hold up to ``envs_per_host`` envs. They ask for one
  unit of a custom resource (``palaestra_env`` by default) and no CPU, so they go only to
  the nodes that offer it (``ray start --resources='{"palaestra_env": 8}'``): CPU nodes,
  Docker nodes, never the GPU nodes unless those offer it too. Each host runs env calls in
  its own threads, so one hanging env holds one thread, not the host.
* **the pool**, a named actor (namespace ``palaestra``) on the node of the driver that
  created it, which hands out leases: a lease is a place on the least busy host, and a
  request for one waits while every place is taken (backpressure instead of an error).
  It replaces the hosts that die.
* **`PoolEnv`**, the `palaestra.Env` a lease gives: the same 5-tuple, ``info`` (verdicts
  arrive as `Verdict` objects, Ray pickles them), tools, limits, oracle and async twins, so
  the rollout engine, the trainer and `check_env` use it unchanged. The rollout engine
  takes a pool through its task ids: ``Task("ray://envs/Sudoku-v0", seed=s)``.

Failures never raise mid-episode and never read as a zero reward. A host that dies, a node
that leaves the cluster or an env call that does not answer within ``timeout_s`` ends the
episode with a truncated step, ``info["status"] = "error"`` and ``info["mask"] = True`` (as
`palaestra.remote` does for a lost server); only the episodes in flight on that host are
lost. The pool then starts a new host in the dead one's place, and the next `reset` takes
a new lease. Only `reset` raises (`InfrastructureError`) when no host answers twice.

Leases are released by `PoolEnv.close`; a driver that dies without closing its envs keeps
their places until the pool is shut down (`EnvPool.shutdown`, or the end of the job that
created it unless it is ``detached``).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any, NoReturn

from palaestra.core import Env
from palaestra.errors import InfrastructureError, require
from palaestra.proxy import LostLink, ProxyEnv

SCHEME = "ray://"
NAMESPACE = "palaestra"
DEFAULT_RESOURCE = "palaestra_env"
_LOST = "palaestra-lease-lost"


def _ray() -> Any:
    return require("ray", "ray", "the Ray env pool")


def is_pool_id(env_id: Any) -> bool:
    """Whether ``env_id`` names an id of a Ray pool (``ray://POOL/Name-vN``)."""
    return isinstance(env_id, str) and env_id.startswith(SCHEME)


def make(url: str, *, timeout_s: float = 300.0, **kwargs: Any) -> PoolEnv:
    """Leases an env from a running pool: ``make("ray://envs/Sudoku-v0", level=3)``.

    Args:
        url: ``ray://POOL/Name-vN``, POOL being the name given to `EnvPool.create`.
        timeout_s: Seconds one env call may take before its step is masked.
        **kwargs: Arguments of `palaestra.make`, checked on the host.

    Returns:
        The leased env.

    Raises:
        ValueError: The URL names no pool or no id, or Ray is not initialised.
        UnknownEnvError: The id is not registered on the hosts.
        UnknownArgumentError: The env does not accept an argument.
    """
    if not is_pool_id(url) or url[len(SCHEME) :].count("/") != 1:
        raise ValueError(f"a pool env id looks like ray://POOL/Name-vN, got {url!r}")
    name, env_id = url[len(SCHEME) :].split("/")
    if not name or not env_id:
        raise ValueError(f"the URL {url!r} needs both a pool name and an id: ray://POOL/Name-vN")
    return EnvPool.connect(name).make(env_id, timeout_s=timeout_s, **kwargs)


class EnvHost:
    """The env host actor: up to ``envs_per_host`` envs, each under a lease id.

    Runs as a threaded Ray actor; its methods are called by `PoolEnv` and `_Pool` only.
    """

    def __init__(self) -> None:
        self._envs: dict[int, Env] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def node_id(self) -> str:
        """The id of the node this host runs on."""
        return _ray().get_runtime_context().get_node_id()

    def open(self, env_id: Any, kwargs: dict[str, Any]) -> tuple[int, list[Any], Any, Any]:
        """Makes an env; returns its lease id, tools, turn cap and invalid-action allowance."""
        import palaestra

        env = palaestra.make(env_id, **kwargs)
        with self._lock:
            lease_id = next(self._ids)
            self._envs[lease_id] = env
        return lease_id, list(env.tools), env._max_turns, env._max_invalid

    def call(self, lease_id: int, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]):
        """Calls ``method`` of the leased env; `_LOST` when this host does not hold it."""
        env = self._envs.get(lease_id)
        if env is None:
            return _LOST
        return getattr(env, method)(*args, **kwargs)

    def release(self, lease_id: int) -> None:
        """Closes and forgets the leased env (unknown ids are fine: the env is gone)."""
        with self._lock:
            env = self._envs.pop(lease_id, None)
        if env is not None:
            env.close()


class _Pool:
    """The named pool actor: the hosts, their leases, and the replacement of dead hosts."""

    def __init__(self, num_hosts: int, envs_per_host: int, host_options: dict[str, Any]):
        self._envs_per_host, self._host_options = envs_per_host, host_options
        self._hosts = [self._start_host() for _ in range(num_hosts)]
        self._generations = [0] * num_hosts
        self._leases = [0] * num_hosts
        self._restarts = 0
        self._freed: asyncio.Condition | None = None

    def _start_host(self) -> Any:
        return _ray().remote(EnvHost).options(**self._host_options).remote()

    def _condition(self) -> asyncio.Condition:
        # Made on first use: the actor's event loop does not run yet in __init__.
        if self._freed is None:
            self._freed = asyncio.Condition()
        return self._freed

    async def lease(self) -> tuple[int, int, Any]:
        """Waits for a free place; returns the host's index, generation and handle."""
        freed = self._condition()
        async with freed:
            await freed.wait_for(lambda: min(self._leases) < self._envs_per_host)
            index = min(range(len(self._hosts)), key=self._leases.__getitem__)
            self._leases[index] += 1
            return index, self._generations[index], self._hosts[index]

    async def release(self, index: int, generation: int) -> None:
        """Frees a place (a lease on a host since replaced was freed with it)."""
        if self._generations[index] != generation:
            return
        # Counted before the first await, so calls sent after this one see the place free.
        self._leases[index] -= 1
        freed = self._condition()
        async with freed:
            freed.notify()

    async def lost(self, index: int, generation: int) -> None:
        """A client lost its env on a host: replaces the host if it is dead."""
        ray = _ray()
        if self._generations[index] != generation:
            return
        try:
            await self._hosts[index].node_id.remote()
            return
        except ray.exceptions.RayActorError:
            pass
        if self._generations[index] != generation:  # another client replaced it meanwhile
            return
        self._hosts[index] = self._start_host()
        self._generations[index] += 1
        self._restarts += 1
        freed = self._condition()
        async with freed:
            self._leases[index] = 0  # the dead host's leases died with it
            freed.notify_all()

    def stats(self) -> dict[str, Any]:
        """Leases per host, places per host and hosts restarted so far."""
        return {
            "leases": list(self._leases),
            "envs_per_host": self._envs_per_host,
            "restarts": self._restarts,
        }

    def hosts(self) -> list[Any]:
        """The host handles, in index order."""
        return list(self._hosts)


class EnvPool:
    """A handle on a named pool of env hosts (see the module docstring).

    Make one with `EnvPool.create` (once per cluster) or `EnvPool.connect` (any driver).

    Attributes:
        name: The pool's name; ``ray://NAME/Id-v0`` ids lease from it.
        actor: The pool actor.
    """

    def __init__(self, name: str, actor: Any):
        self.name, self.actor = name, actor

    @classmethod
    def create(
        cls,
        name: str = "envs",
        *,
        num_hosts: int = 1,
        envs_per_host: int = 64,
        resource: str | None = DEFAULT_RESOURCE,
        detached: bool = False,
        host_options: dict[str, Any] | None = None,
    ) -> EnvPool:
        """Starts a pool of ``num_hosts`` env hosts under ``name``.

        Args:
            name: The pool's name (unique in the cluster).
            num_hosts: Env host actors.
            envs_per_host: Envs each host holds at most; more lease requests wait.
            resource: The custom resource a node must offer to host envs (one unit per
                host); None places hosts anywhere.
            detached: Keep the pool after this driver exits (`shutdown` ends it).
            host_options: More Ray actor options for the hosts (``runtime_env``, ...).

        Returns:
            The pool.

        Raises:
            ValueError: Bad sizes, Ray not initialised, or a pool of that name exists.
        """
        ray = _ray()
        if not isinstance(num_hosts, int) or num_hosts < 1:
            raise ValueError(f"num_hosts must be a positive integer, got {num_hosts!r}")
        if not isinstance(envs_per_host, int) or envs_per_host < 1:
            raise ValueError(f"envs_per_host must be a positive integer, got {envs_per_host!r}")
        _require_initialised(ray)
        options: dict[str, Any] = {
            "num_cpus": 0,
            # A hung env call holds one thread; twice the places leaves room for the rest.
            "max_concurrency": 2 * envs_per_host + 4,
            "max_restarts": 0,
            **({"resources": {resource: 1}} if resource else {}),
            **(host_options or {}),
        }
        try:
            ray.get_actor(name, namespace=NAMESPACE)
        except ValueError:
            pass
        else:
            raise ValueError(f"a pool named {name!r} exists; connect to it or pick another name")
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        # The pool lives on the creating driver's node: an env node that leaves the cluster
        # must take only its hosts with it, never the leases of every host.
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        actor = (
            ray.remote(_Pool)
            .options(
                name=name,
                namespace=NAMESPACE,
                num_cpus=0,
                lifetime="detached" if detached else None,
                scheduling_strategy=here,
            )
            .remote(num_hosts, envs_per_host, options)
        )
        ray.get(actor.stats.remote())
        return cls(name, actor)

    @classmethod
    def connect(cls, name: str) -> EnvPool:
        """The running pool called ``name``.

        Raises:
            ValueError: Ray is not initialised or no pool has that name.
        """
        ray = _ray()
        _require_initialised(ray)
        try:
            return cls(name, ray.get_actor(name, namespace=NAMESPACE))
        except ValueError:
            raise ValueError(
                f"no env pool named {name!r} in this Ray cluster; create it with "
                f"EnvPool.create({name!r}, ...)"
            ) from None

    def id(self, env_id: str) -> str:
        """The id that leases ``env_id`` from this pool (for `palaestra.make` and `Task`)."""
        return f"{SCHEME}{self.name}/{env_id}"

    def make(self, env_id: Any, *, timeout_s: float = 300.0, **kwargs: Any) -> PoolEnv:
        """Leases an env (waiting while the pool is full); see `make`."""
        return PoolEnv(self, env_id, kwargs, timeout_s=timeout_s)

    def stats(self) -> dict[str, Any]:
        """Leases per host, places per host and hosts restarted so far."""
        return _ray().get(self.actor.stats.remote())

    def hosts(self) -> list[Any]:
        """The env host actors, in index order."""
        return _ray().get(self.actor.hosts.remote())

    def shutdown(self) -> None:
        """Stops the hosts and the pool; envs leased from it answer masked steps after."""
        ray = _ray()
        for host in self.hosts():
            ray.kill(host)
        ray.kill(self.actor)


def _require_initialised(ray: Any) -> None:
    if not ray.is_initialized():
        raise ValueError(
            "Ray is not initialised: call ray.init() first (ray.init(address='auto') on a "
            "cluster started with `ray start --head`)"
        )


class PoolEnv(ProxyEnv):
    """An env leased from an `EnvPool` (see the module docstring).

    Attributes:
        pool: The pool.
        env_id: The leased id (or spec).
        kwargs: The arguments the env was made with.
    """

    def __init__(
        self, pool: EnvPool, env_id: Any, kwargs: dict[str, Any], *, timeout_s: float = 300.0
    ):
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s!r}")
        self._ray = _ray()
        self.pool, self.env_id, self.kwargs = pool, env_id, dict(kwargs)
        self._timeout_s = timeout_s
        self._lease: tuple[int, int, Any, int] | None = None
        self._tools: list[dict[str, Any]] = []
        for attempt in range(2):  # a dead host is replaced when _open reports it: try again
            try:
                self._open()
                break
            except self._ray.exceptions.RayActorError as e:
                if attempt == 1:
                    raise InfrastructureError(f"{env_id}: no env host answered: {e}") from None

    # --- leases ----------------------------------------------------------------------------

    @property
    def linked(self) -> bool:
        """Whether the env holds a lease."""
        return self._lease is not None

    def _open(self) -> None:
        index, generation, host = self._ray.get(self.pool.actor.lease.remote())
        try:
            opened = self._ray.get(host.open.remote(self.env_id, self.kwargs))
        except BaseException as e:
            self._unlease(index, generation, e)
        self._opened(index, generation, host, opened)

    def _link(self) -> None:
        try:
            self._open()
        except self._ray.exceptions.RayActorError as e:
            raise LostLink(f"the env host died: {e}") from None

    async def _alink(self) -> None:
        try:
            index, generation, host = await self.pool.actor.lease.remote()
            try:
                opened = await host.open.remote(self.env_id, self.kwargs)
            except BaseException as e:
                self._unlease(index, generation, e)
        except self._ray.exceptions.RayActorError as e:
            raise LostLink(f"the env host died: {e}") from None
        self._opened(index, generation, host, opened)

    def _unlease(self, index: int, generation: int, error: BaseException) -> NoReturn:
        """Frees a place whose env could not be made, and raises why."""
        self.pool.actor.release.remote(index, generation)
        if isinstance(error, self._ray.exceptions.RayTaskError):
            raise error.cause from None  # the env's own error (unknown id, bad kwargs)
        if isinstance(error, self._ray.exceptions.RayActorError):
            self.pool.actor.lost.remote(index, generation)
        raise error

    def _opened(self, index: int, generation: int, host: Any, opened: Any) -> None:
        lease_id, self._tools, max_turns, max_invalid = opened
        self._lease = (index, generation, host, lease_id)
        self.set_limits(max_turns=max_turns, max_invalid=max_invalid)

    def _unlink(self) -> None:
        self._drop_lease(lost=True)

    def _drop_lease(self, lost: bool) -> None:
        """Gives the lease back (telling the pool when its host failed); never waits."""
        if self._lease is None:
            return
        index, generation, host, lease_id = self._lease
        self._lease = None
        try:
            host.release.remote(lease_id)
            if lost:
                self.pool.actor.lost.remote(index, generation)
            self.pool.actor.release.remote(index, generation)
        except self._ray.exceptions.RayError:
            pass  # the pool itself is gone; there is nothing to give back to

    # --- calls -----------------------------------------------------------------------------

    def _ref(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _, _, host, lease_id = self._lease
        return host.call.remote(lease_id, method, args, kwargs)

    def _request(self, method: str, *args: Any, **kwargs: Any) -> Any:
        ref = self._ref(method, args, kwargs)
        try:
            return self._answer(self._ray.get(ref, timeout=self._timeout_s))
        except self._ray.exceptions.GetTimeoutError:
            raise LostLink(f"{method} got no answer within {self._timeout_s:g} s") from None
        except self._ray.exceptions.RayActorError as e:
            raise LostLink(f"the env host died: {e}") from None
        except self._ray.exceptions.RayTaskError as e:
            raise e.cause from None

    async def _arequest(self, method: str, *args: Any, **kwargs: Any) -> Any:
        ref = self._ref(method, args, kwargs)
        try:
            return self._answer(await asyncio.wait_for(ref, self._timeout_s))
        except asyncio.TimeoutError:  # not yet the builtin TimeoutError on Python 3.10
            raise LostLink(f"{method} got no answer within {self._timeout_s:g} s") from None
        except self._ray.exceptions.RayActorError as e:
            raise LostLink(f"the env host died: {e}") from None
        except self._ray.exceptions.RayTaskError as e:
            raise e.cause from None

    @staticmethod
    def _answer(value: Any) -> Any:
        if isinstance(value, str) and value == _LOST:
            raise LostLink("the env host restarted and no longer holds this env")
        return value

    # --- snapshots and closing -------------------------------------------------------------

    def get_state(self) -> dict[str, Any]:
        """The leased env's snapshot (Ray pickles it)."""
        return self._ask("get_state")

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores a snapshot taken by `get_state`."""
        self._ask("set_state", state)

    def close(self) -> None:
        """Gives the lease back (twice is fine)."""
        self._drop_lease(lost=False)

    def __repr__(self) -> str:
        lease = "none" if self._lease is None else f"host {self._lease[0]}"
        return f"<PoolEnv {self.pool.name}/{self.env_id} lease={lease}>"
