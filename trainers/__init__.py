"""GRPO and PPO training: advantage estimators, losses, and the loop behind `palaestra train`.

    from palaestra.trainers.config import TrainConfig
    from palaestra.trainers.loop import train

Importing `palaestra.trainers` imports neither torch nor transformers; the loop does.
"""
