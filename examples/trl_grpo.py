"""GRPO with TRL on a Palaestra game, through the adapter (runs on a CPU with the tiny model).

    pip install -e ".[trl]"
    python examples/trl_grpo.py                       # GuessNumber-v0, the tiny model, 3 steps
    python examples/trl_grpo.py --env rg:basic_arithmetic --steps 10

The glue is the one line that builds the trainer: `grpo_arguments` gives the rollout function
(Palaestra's rollout engine, one seed per group, env tokens masked), the placeholder dataset
and the reward function. Pass your own model and tokenizer for real training, with a
``max_completion_length`` that fits a turn.
"""

from __future__ import annotations

import argparse
import os

from trl import GRPOConfig, GRPOTrainer

from palaestra.agents.tiny import load_tiny
from palaestra.integrations.trl import grpo_arguments


def main() -> None:
    """Runs the example with the command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="GuessNumber-v0")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--max-turns", type=int, default=3)
    parser.add_argument("--out", default="runs/trl_grpo")
    args = parser.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is experimental in TRL

    tokenizer, model = load_tiny()
    config = GRPOConfig(
        output_dir=args.out,
        per_device_train_batch_size=4,
        num_generations=2,
        max_steps=args.steps,
        max_completion_length=16,
        learning_rate=1e-3,
        report_to=[],
        save_strategy="no",
        logging_steps=1,
        use_cpu=True,
    )
    trainer = GRPOTrainer(
        model,
        args=config,
        processing_class=tokenizer,
        **grpo_arguments(args.env, n=64, max_turns=args.max_turns),
    )
    trainer.train()


if __name__ == "__main__":
    main()
