"""Ray env pool throughput with 1, 2 and 3 simulated env nodes (`ray.cluster_utils.Cluster`).

    python -m bench.serve.ray_pool [--seconds 5] [--clients 16]

Each row starts a fresh cluster on this machine: a head node (the driver's) and N env
nodes, each a raylet of its own with one CPU, a 100 MiB object store and one place for an
env host; the pool runs one host per node. ``--clients`` envs leased from the pool step
back to back (async twins, one event loop in the driver) for ``--seconds``; episodes that
end are reset. The simulated nodes share this machine's cores, so the rows show what the
pool's calls cost and how that cost spreads over hosts, not how a real cluster scales.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from rich.console import Console
from rich.table import Table

ENV_ID = "GuessNumber-v0"
NODE_ARGS = {"num_cpus": 1, "object_store_memory": 100 * 1024**2}


def action(i: int) -> str:
    """Guesses spread over the range (episodes end by limits), as in `bench.serve`."""
    return f"<guess>{(i * 37) % 64 + 1}</guess>"


async def steps_per_second(envs: list, seconds: float) -> tuple[float, int]:
    """Steps every env back to back for ``seconds``; returns steps/s and masked steps."""
    counts, masked = [0] * len(envs), [0]
    stop_at = time.monotonic() + seconds

    async def play(index: int) -> None:
        env = envs[index]
        await env.areset(seed=index)
        while time.monotonic() < stop_at:
            _, _, terminated, truncated, info = await env.astep(action(counts[index]))
            counts[index] += 1
            masked[0] += bool(info.get("mask"))
            if terminated or truncated:
                await env.areset(seed=index + counts[index])

    started = time.monotonic()
    await asyncio.gather(*(play(i) for i in range(len(envs))))
    return sum(counts) / (time.monotonic() - started), masked[0]


def pool_rate(nodes: int, clients: int, seconds: float) -> tuple[float, int, int]:
    """Steps/s through a pool with one host on each of ``nodes`` simulated env nodes.

    Returns:
        Steps/s, masked steps, and the distinct nodes the hosts ran on.
    """
    import ray
    from ray.cluster_utils import Cluster

    from palaestra.ray_pool import EnvPool

    cluster = Cluster(
        initialize_head=True, head_node_args={**NODE_ARGS, "include_dashboard": False}
    )
    try:
        for _ in range(nodes):
            cluster.add_node(**NODE_ARGS, resources={"palaestra_env": 1})
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
        pool = EnvPool.create("bench", num_hosts=nodes, envs_per_host=clients)
        placed = len(set(ray.get([host.node_id.remote() for host in pool.hosts()])))
        envs = [pool.make(ENV_ID) for _ in range(clients)]
        asyncio.run(steps_per_second(envs, 1.0))  # warm-up: workers, imports, connections
        rate, masked = asyncio.run(steps_per_second(envs, seconds))
        for env in envs:
            env.close()
        return rate, masked, placed
    finally:
        ray.shutdown()
        cluster.shutdown()


def rows(seconds: float, clients: int) -> list[tuple[str, str, str]]:
    """The table rows: (row, steps/s, note) for 1, 2 and 3 env nodes."""
    out = []
    for nodes in (1, 2, 3):
        rate, masked, placed = pool_rate(nodes, clients, seconds)
        note = f"{clients} envs, hosts on {placed} node{'s' * (placed > 1)}, {masked} masked"
        out.append((f"Ray pool steps/s, {nodes} env node{'s' * (nodes > 1)}", f"{rate:,.0f}", note))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Length of a steps/s run.")
    parser.add_argument("--clients", type=int, default=16, help="Envs stepping at once.")
    args = parser.parse_args()
    table = Table(title=f"Ray env pool, {ENV_ID}, {os.cpu_count()} CPUs")
    for column in ("row", "palaestra", "note"):
        table.add_column(column)
    for row in rows(args.seconds, args.clients):
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main()
