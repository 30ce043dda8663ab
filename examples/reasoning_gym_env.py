"""A reasoning-gym dataset as a Palaestra env: play its oracle, check it, export rows.

    pip install -e ".[rg]"
    python examples/reasoning_gym_env.py --dataset basic_arithmetic

The glue is the id: ``palaestra.make("rg:<dataset>", **config)`` with reasoning-gym's own
config fields; everything that takes ids (rollouts, rows, the trainer) takes it.
"""

from __future__ import annotations

import argparse

import palaestra
from palaestra import datasets


def main() -> None:
    """Runs the example with the command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="basic_arithmetic")
    args = parser.parse_args()

    env = palaestra.make(f"rg:{args.dataset}")
    observation, _ = env.reset(seed=0)
    print(observation[0]["content"])
    _, reward, terminated, _, info = env.step(env.oracle_action())
    print(f"oracle: reward {reward}, {info['verdict'].status.value}")
    print(palaestra.check_env(env, cross_process=False))
    rows = list(datasets.rows([f"rg:{args.dataset}"], n=3, seed=0))
    print(f"{len(rows)} rows, first reference: {rows[0]['reference']!r}")


if __name__ == "__main__":
    main()
