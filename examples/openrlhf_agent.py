"""Palaestra envs in OpenRLHF: write the prompts and print the training command.

    pip install "palaestra[openrlhf]"          # on a GPU machine (flash-attn needs CUDA)
    python examples/openrlhf_agent.py [OUT.jsonl]

The prompts file needs only Palaestra; the command it prints runs OpenRLHF's PPO/GRPO
trainer (Ray, vLLM, DeepSpeed), which needs GPUs. Each prompt's label names the episode
(id, kwargs, seed); the agent function file is `palaestra/integrations/openrlhf.py` itself.
"""

import sys
from pathlib import Path

from palaestra.errors import MissingDependencyError
from palaestra.integrations._episodes import EpisodeSpec

path = Path(sys.argv[1] if len(sys.argv) > 1 else "palaestra_openrlhf.jsonl")
try:
    import palaestra.integrations.openrlhf as pal_openrlhf
except MissingDependencyError as e:
    sys.exit(f"{e}\n(The prompts file and the command need OpenRLHF's agent module.)")

rows = pal_openrlhf.rows(["GuessNumber-v0", "Countdown-v0"], n=256, seed=0)
print(f"wrote {pal_openrlhf.write_jsonl(path, rows)} prompts to {path}")
print("first episode:", EpisodeSpec.parse(rows[0]["label"]))
print(
    "train with:\n  python -m openrlhf.cli.train_ppo_ray --actor.model_name_or_path <model> "
    f"--data.prompt_dataset {path.resolve()} --data.input_key prompt --data.label_key label "
    "--data.apply_chat_template --rollout.n_samples_per_prompt 8 "
    f"--train.agent_func_path {pal_openrlhf.__file__} ...  # the rest of your usual flags"
)
