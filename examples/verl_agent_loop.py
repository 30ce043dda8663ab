"""Palaestra envs in verl: write the Parquet rows and the agent-loop config, print the command.

    pip install "palaestra[verl]"              # verl brings its CUDA torch and vLLM/SGLang
    python examples/verl_agent_loop.py [OUT_DIR]

Writes ``episodes.parquet`` (any id, played by the ``palaestra`` agent loop),
``tasks.parquet`` (single-turn ids for verl's single-turn loop, scored by `compute_score`)
and ``palaestra_agent.yaml``; the command it prints runs verl's PPO/GRPO trainer, which
needs GPUs (its rollout servers are vLLM or SGLang).
"""

import sys
from pathlib import Path

from palaestra.errors import MissingDependencyError

out = Path(sys.argv[1] if len(sys.argv) > 1 else "palaestra_verl")
try:
    import palaestra.integrations.verl as pal_verl
except MissingDependencyError as e:
    sys.exit(f"{e}\n(The rows need verl's agent-loop module to be importable.)")

out.mkdir(parents=True, exist_ok=True)
episodes = pal_verl.episode_rows(["GuessNumber-v0", "TicTacToe-v0"], n=256, seed=0)
tasks = pal_verl.task_rows("Countdown-v0", n=512, seed=0)
print(f"{pal_verl.write_parquet(out / 'episodes.parquet', episodes)} episode rows")
print(f"{pal_verl.write_parquet(out / 'tasks.parquet', tasks)} task rows")
config = pal_verl.write_agent_loop_config(out / "palaestra_agent.yaml").resolve()
print(
    "multi-turn:\n  python -m verl.trainer.main_ppo "
    f"data.train_files={(out / 'episodes.parquet').resolve()} "
    "actor_rollout_ref.rollout.n=8 "
    f"actor_rollout_ref.rollout.agent.agent_loop_config_path={config} ...\n"
    "single-turn:\n  python -m verl.trainer.main_ppo "
    f"data.train_files={(out / 'tasks.parquet').resolve()} "
    "reward.custom_reward_function.path=pkg://palaestra.integrations.verl "
    "reward.custom_reward_function.name=compute_score ..."
)
