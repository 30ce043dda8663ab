"""A simulated Ray cluster on this machine (`ray.cluster_utils.Cluster`), kept small.

Each node is a raylet of its own with one CPU and a 100 MiB object store; env nodes offer
the ``palaestra_env`` resource that env hosts ask for, the head offers none (it stands for
the trainer's GPU node).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OBJECT_STORE_BYTES = 100 * 1024**2
SUPPORT_DIR = str(Path(__file__).resolve().parent.parent)


def node_args(env_places: int = 0) -> dict[str, Any]:
    """Arguments of a small node offering ``env_places`` units of ``palaestra_env``."""
    args: dict[str, Any] = {"num_cpus": 1, "object_store_memory": OBJECT_STORE_BYTES}
    if env_places:
        args["resources"] = {"palaestra_env": env_places}
    return args


@contextlib.contextmanager
def ray_cluster(*env_places: int) -> Iterator[tuple[Any, list[Any]]]:
    """A head node and one env node per entry of ``env_places``; Ray is initialised on it.

    Yields:
        The cluster and its env nodes (for `Cluster.remove_node`).
    """
    import ray
    from ray.cluster_utils import Cluster

    # Env hosts import test envs (tests_support) by entry point: workers inherit this path.
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [SUPPORT_DIR, saved]))
    cluster = Cluster(
        initialize_head=True, head_node_args={**node_args(), "include_dashboard": False}
    )
    try:
        nodes = [cluster.add_node(**node_args(places)) for places in env_places]
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
        yield cluster, nodes
    finally:
        ray.shutdown()
        cluster.shutdown()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
