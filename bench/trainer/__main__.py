"""Trainer benchmark: tokens/s of a GRPO step, ours beside TRL's GRPOTrainer, in one run.

    python -m bench.trainer [--steps 4] [--prompts 8] [--group 4] [--max-tokens 32] [--threads 1]

Both trainers get the same tiny model (fresh copies of the cached weights), the same
tokenizer, the same prompts (the opening messages of GuessNumber-v0 seeds, as single-turn
tasks), the same batch (prompts x group completions per step, one optimiser step over the
whole batch, no KL, no reference model, no gradient checkpointing) and the same sampling
(temperature 1, at most ``--max-tokens`` tokens, no stop strings), with the same number of
torch threads (``--threads``). A step is
generation plus the loss forward/backward plus the optimiser step.

Each step is timed twice: wall-clock seconds and the process's CPU seconds (user + system,
all threads). tokens/s = completion tokens per step / seconds per step, over the steps after
the first (warm-up) of each trainer. On an idle machine the two agree (one thread: CPU
seconds ~ wall seconds); on a loaded one the wall clock mostly measures the queue for a
core, and the CPU-time ratio is the one to quote.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time


def _prompts(count: int) -> list[dict]:
    import palaestra

    out = []
    for seed in range(count):
        env = palaestra.make("GuessNumber-v0", max_number=16)
        observation, _ = env.reset(seed=seed)
        out.append({"prompt": [dict(m) for m in observation], "seed": seed})
    return out


def _guess_reward(completions, **_):
    import re

    out = []
    for completion in completions:
        text = completion[0]["content"] if isinstance(completion, list) else completion
        out.append(1.0 if re.search(r"<guess>\d+</guess>", text) else 0.0)
    return out


def bench_ours(args, model, tokenizer) -> dict:
    from palaestra.trainers.config import TrainConfig
    from palaestra.trainers.loop import Trainer

    with tempfile.TemporaryDirectory() as folder:
        config = TrainConfig(
            output_dir=folder, env_kwargs={"max_number": 16}, estimator="grpo", warmup_steps=0,
            tasks_per_step=args.prompts, group_size=args.group, max_tokens=args.max_tokens,
            max_turns=1, stop="", micro_batch_size=args.prompts * args.group, eval_tasks=0,
            plot=False, progress=False, threads=args.threads, lr=1e-6,
        )  # fmt: skip
        trainer = Trainer(config, model=model, tokenizer=tokenizer)
        walls, cpus, tokens = [], [], []
        for _ in range(args.steps):
            wall, cpu = time.perf_counter(), time.process_time()
            record = trainer.rl_step().metrics
            cpus.append(time.process_time() - cpu)
            walls.append(time.perf_counter() - wall)
            tokens.append(record["sampled_tokens"])
        trainer.policy.close()
    return _summary("palaestra", walls, cpus, tokens)


def bench_trl(args, model, tokenizer) -> dict:
    import datasets
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    data = datasets.Dataset.from_list(_prompts(args.prompts))
    walls: list[float] = []
    cpus: list[float] = []

    class Clock(TrainerCallback):
        def on_step_begin(self, *_, **__):
            self.wall, self.cpu = time.perf_counter(), time.process_time()

        def on_step_end(self, *_, **__):
            cpus.append(time.process_time() - self.cpu)
            walls.append(time.perf_counter() - self.wall)

    with tempfile.TemporaryDirectory() as folder:
        config = GRPOConfig(
            output_dir=folder, per_device_train_batch_size=args.prompts * args.group,
            num_generations=args.group, max_completion_length=args.max_tokens,
            max_steps=args.steps, beta=0.0, num_iterations=1, learning_rate=1e-6,
            temperature=1.0, logging_steps=1, report_to="none", save_strategy="no",
            use_cpu=True, bf16=False, gradient_checkpointing=False, shuffle_dataset=False, seed=0,
        )  # fmt: skip
        trainer = GRPOTrainer(
            model=model, reward_funcs=_guess_reward, args=config, train_dataset=data,
            processing_class=tokenizer, callbacks=[Clock()],
        )  # fmt: skip
        trainer.train()
        logs = [h for h in trainer.state.log_history if "completions/mean_length" in h]
    tokens = [h["completions/mean_length"] * args.prompts * args.group for h in logs]
    return _summary("TRL GRPOTrainer", walls, cpus, tokens)


def _summary(name: str, walls: list[float], cpus: list[float], tokens: list[float]) -> dict:
    if len(walls) > 1:  # drop the warm-up step
        walls, cpus, tokens = walls[1:], cpus[1:], tokens[1:]
    per_step = statistics.mean(tokens)
    wall, cpu = statistics.mean(walls), statistics.mean(cpus)
    return {
        "trainer": name,
        "wall s/step": wall,
        "CPU s/step": cpu,
        "tokens/step": per_step,
        "tokens/s (wall)": per_step / wall,
        "tokens/s (CPU)": per_step / cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--group", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from palaestra.agents.tiny import tiny_model, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    load_before = os.getloadavg()[0]
    rows = [
        bench_ours(args, tiny_model(tokenizer), tokenizer),
        bench_trl(args, tiny_model(tokenizer), tokenizer),
    ]
    print(
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; {os.cpu_count()} "
        f"cores; {args.prompts} prompts x {args.group} samples, <= {args.max_tokens} tokens, "
        f"{args.steps} steps (first dropped), {args.threads} torch thread(s)"
    )
    columns = ["wall s/step", "CPU s/step", "tokens/step", "tokens/s (wall)", "tokens/s (CPU)"]
    print("| trainer | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for row in rows:
        cells = [f"{row[c]:.2f}" if "s/step" in c else f"{row[c]:.0f}" for c in columns]
        print(f"| {row['trainer']} | " + " | ".join(cells) + " |")
    for clock in ("wall", "CPU"):
        ratio = rows[0][f"tokens/s ({clock})"] / rows[1][f"tokens/s ({clock})"]
        print(f"speed-up ({clock} time): {ratio:.2f}x")


if __name__ == "__main__":
    main()
