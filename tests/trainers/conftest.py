"""Fixtures for the trainer tests: the tiny tokenizer and a one-layer tiny model."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tokenizer():
    from palaestra.agents.tiny import tiny_tokenizer

    return tiny_tokenizer()


@pytest.fixture
def small_model(tokenizer):
    """A fresh one-layer tiny model (each test trains its own copy)."""
    from palaestra.agents.tiny import tiny_model

    return tiny_model(tokenizer, num_hidden_layers=1, hidden_size=64, intermediate_size=128)


@pytest.fixture
def make_config(tmp_path):
    """Builds a run small enough for a unit test (keyword arguments change fields)."""
    from palaestra.trainers.config import TrainConfig

    def build(**changes):
        values = dict(
            env_kwargs={"max_number": 8},
            output_dir=str(tmp_path / "run"),
            warmup_steps=2,
            warmup_tasks=4,
            steps=2,
            tasks_per_step=2,
            group_size=2,
            max_tokens=8,
            eval_tasks=2,
            plot=False,
            progress=False,
            seed=3,
        )
        values.update(changes)
        return TrainConfig(**values)

    return build
