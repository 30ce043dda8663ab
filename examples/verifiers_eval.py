"""Evaluate a Palaestra env with PrimeIntellect's verifiers against an OpenAI-compatible server.

    pip install -e ".[verifiers]"
    python examples/verifiers_eval.py --base-url http://127.0.0.1:8000/v1 --model my-model
    vf-eval palaestra -a '{"id": "GuessNumber-v0"}'      # the same env from verifiers' CLI

Run it from a directory without a ``verifiers/`` folder (not the repository root, where the
source of ``palaestra.verifiers`` would shadow the installed package). The glue is
``vf.load_environment("palaestra", id=...)``: verifiers imports the module ``palaestra`` and
calls its ``load_environment``.
"""

from __future__ import annotations

import argparse
import os

import verifiers as vf


def main() -> None:
    """Runs the example with the command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="GuessNumber-v0")
    parser.add_argument("--base-url", required=True, help="the server's API root, .../v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--examples", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=256)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "unused")

    env = vf.load_environment("palaestra", id=args.env, num_examples=args.examples)
    client = vf.ClientConfig(api_base_url=args.base_url, api_key_var="OPENAI_API_KEY")
    outputs = env.evaluate_sync(
        client, model=args.model, sampling_args={"max_tokens": args.max_tokens}
    )["outputs"]
    rewards = [o["reward"] for o in outputs]
    print(f"{args.env}: {len(rewards)} episodes, mean reward {sum(rewards) / len(rewards):.3f}")


if __name__ == "__main__":
    main()
