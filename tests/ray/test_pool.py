"""The Ray env pool on a simulated three-node cluster, with hosts killed, nodes removed and
envs hanging: every episode completes or comes back masked, and completed ones equal the
local run of the same seeds."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import ray
from tests_support.ray import ray_cluster

import palaestra
from palaestra.errors import UnknownEnvError
from palaestra.registration import EnvSpec

IDS = ["Arithmetic-v0", "GuessNumber-v0"]
SEEDS = range(4)


@pytest.fixture(scope="module")
def formatter():
    from palaestra.agents.chat import ChatFormatter
    from palaestra.agents.tiny import tiny_tokenizer

    return ChatFormatter(tiny_tokenizer())


def tasks(prefix: str):
    from palaestra.agents.rollout import Task

    return [Task(f"{prefix}{env_id}", seed=seed) for env_id in IDS for seed in SEEDS]


def play(policy, formatter, prefix: str, env_pool=None):
    from palaestra.agents.rollout import RolloutEngine

    engine = RolloutEngine(
        policy, formatter, max_concurrency=4, check_drift=False, env_pool=env_pool
    )
    return engine.run(tasks(prefix))


def leases(pool, expected: list[int]) -> list[int]:
    """The pool's lease counts once they reach ``expected`` (leases are given back without
    waiting, so a count read right after may not have them yet); the last read otherwise."""
    deadline = time.monotonic() + 60
    while (seen := pool.stats()["leases"]) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return seen


def same_episode(ours, theirs) -> bool:
    fields = ("messages", "prompt_ids", "completion_ids", "loss_mask", "turn_rewards", "success")
    return all(getattr(ours, f) == getattr(theirs, f) for f in fields)


class FaultAt:
    """The oracle policy, which runs ``fault()`` once, before answering its ``at``-th call.

    The episodes asking for that turn hold leased envs, so a fault that kills their hosts
    is certain to hit episodes in flight.
    """

    def __init__(self, formatter, at: int, fault):
        from palaestra.agents.scripted import OraclePolicy

        self.oracle, self.at, self.fault, self.calls = OraclePolicy(formatter), at, fault, 0

    async def generate(self, requests):
        self.calls += 1
        if self.calls == self.at:
            self.fault()
        return await self.oracle.generate(requests)


def check_against_local(episodes, local) -> int:
    """Asserts none is lost and each is masked or equals the local one; returns the masked."""
    assert len(episodes) == len(local) == len(IDS) * len(SEEDS)
    masked = 0
    for ours, theirs in zip(episodes, local, strict=True):
        assert ours.seed == theirs.seed and ours.env_id.endswith(theirs.env_id)
        if ours.mask:
            assert ours.status == "error" and ours.error, ours
            masked += 1
        else:
            assert ours.status == "ok" and ours.success
            assert same_episode(ours, theirs)
    return masked


def test_pool_episodes_equal_local_ones_and_pass_the_checker(formatter):
    from palaestra.agents.scripted import OraclePolicy
    from palaestra.ray_pool import EnvPool

    local = play(OraclePolicy(formatter), formatter, "")
    with ray_cluster(2, 2) as (cluster, _):
        pool = EnvPool.create("envs", num_hosts=4, envs_per_host=2)
        nodes = set(ray.get([host.node_id.remote() for host in pool.hosts()]))
        head = cluster.head_node.node_id
        assert len(nodes) == 2 and head not in nodes  # only the nodes offering the resource
        episodes = play(OraclePolicy(formatter), formatter, f"ray://{pool.name}/")
        assert check_against_local(episodes, local) == 0
        assert leases(pool, [0, 0, 0, 0]) == [0, 0, 0, 0]  # every lease came back
        palaestra.check_env(palaestra.make(pool.id("Arithmetic-v0")))
        # The same through the engine's one argument, the records keeping the plain ids.
        pooled = play(OraclePolicy(formatter), formatter, "", env_pool=pool)
        assert check_against_local(pooled, local) == 0
        assert [e.env_id for e in pooled] == [e.env_id for e in local]


def test_a_killed_host_masks_only_its_episodes_and_is_restarted(formatter):
    from palaestra.agents.scripted import OraclePolicy
    from palaestra.ray_pool import EnvPool

    local = play(OraclePolicy(formatter), formatter, "")
    with ray_cluster(2, 2):
        pool = EnvPool.create("envs", num_hosts=2, envs_per_host=4)

        def kill_hosts():
            for host in pool.hosts():
                ray.kill(host)

        episodes = play(FaultAt(formatter, 3, kill_hosts), formatter, pool.id(""))
        assert check_against_local(episodes, local) >= 1
        again = play(OraclePolicy(formatter), formatter, pool.id(""))
        assert check_against_local(again, local) == 0
        assert pool.stats()["restarts"] == 2  # each host was replaced once
        ray.get([host.node_id.remote() for host in pool.hosts()], timeout=120)


def test_a_removed_node_masks_its_episodes_and_hosts_move(formatter):
    from palaestra.agents.scripted import OraclePolicy
    from palaestra.ray_pool import EnvPool

    local = play(OraclePolicy(formatter), formatter, "")
    with ray_cluster(2, 2) as (cluster, env_nodes):
        pool = EnvPool.create("envs", num_hosts=2, envs_per_host=4)
        first = ray.get(pool.hosts()[0].node_id.remote())
        doomed = next(node for node in env_nodes if node.node_id == first)
        survivor = next(node for node in env_nodes if node is not doomed)

        episodes = play(
            FaultAt(formatter, 3, lambda: cluster.remove_node(doomed)), formatter, pool.id("")
        )
        assert check_against_local(episodes, local) >= 1
        assert pool.stats()["restarts"] >= 1
        nodes = set(ray.get([host.node_id.remote() for host in pool.hosts()]))
        assert nodes == {survivor.node_id}
        again = play(OraclePolicy(formatter), formatter, pool.id(""))
        assert check_against_local(again, local) == 0


def test_a_hanging_env_gives_a_masked_step_and_its_host_serves_on():
    from palaestra.ray_pool import EnvPool

    spec = EnvSpec("RayHang-v0", "tests_support.envs:BrokenHangEnv", tags=("single-turn",))
    with ray_cluster(1, 1):
        pool = EnvPool.create("envs", num_hosts=1, envs_per_host=2, resource=None)
        hanging, other = pool.make(spec, timeout_s=2.0), pool.make(spec)
        hanging.reset(seed=0)
        other.reset(seed=0)
        _, reward, terminated, truncated, info = asyncio.run(hanging.astep(""))
        assert info["status"] == "error" and info["mask"] and truncated and not terminated
        assert reward == 0.0 and "no answer" in info["error"]
        _, reward, terminated, _, info = other.step(other.oracle_action())
        assert terminated and reward == 1.0 and not info.get("mask")
        hanging.reset(seed=1)  # a new lease: the pool gave the hung one back
        assert leases(pool, [2]) == [2] and pool.stats()["restarts"] == 0
        _, reward, _, _, _ = hanging.step(hanging.oracle_action())
        assert reward == 1.0


def test_leases_wait_for_a_free_place_and_ids_go_through_make():
    from palaestra.ray_pool import EnvPool, PoolEnv

    with ray_cluster(1):
        pool = EnvPool.create("small", num_hosts=1, envs_per_host=1)
        first = palaestra.make("ray://small/GuessNumber-v0", max_turns=3)
        assert isinstance(first, PoolEnv) and first._max_turns == 3
        second: list[PoolEnv] = []
        waiter = threading.Thread(target=lambda: second.append(pool.make("GuessNumber-v0")))
        waiter.start()
        waiter.join(timeout=3)
        assert waiter.is_alive() and not second  # the pool is full: the lease waits
        first.close()
        waiter.join(timeout=120)
        assert len(second) == 1 and leases(pool, [1]) == [1]
        second[0].close()
        with pytest.raises(UnknownEnvError):
            pool.make("NoSuchEnv-v0")
        assert leases(pool, [0]) == [0]
        with pytest.raises(ValueError, match="no env pool named 'other'"):
            palaestra.make("ray://other/GuessNumber-v0")
        with pytest.raises(ValueError, match="exists"):
            EnvPool.create("small")


def test_without_ray_initialised_the_error_says_what_to_do():
    from palaestra.ray_pool import EnvPool

    with pytest.raises(ValueError, match="ray.init"):
        EnvPool.connect("envs")
