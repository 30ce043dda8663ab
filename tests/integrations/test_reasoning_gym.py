"""reasoning-gym's datasets as Palaestra envs: every dataset passes check_env or is listed."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import numpy as np
import pytest

import palaestra
from palaestra.errors import ConformanceError, UnknownEnvError
from palaestra.integrations import reasoning_gym as rg

reasoning_gym = pytest.importorskip("reasoning_gym")

NAMES = rg.dataset_names()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "reasoning_gym.md"


@pytest.mark.parametrize("name", NAMES)
def test_every_dataset_passes_check_env_or_is_listed_with_its_reason(name):
    if name == "composite":
        with pytest.raises(ValueError, match="refused its config"):
            palaestra.make(f"rg:{name}")
        assert name in rg.NO_ORACLE
        return
    env = palaestra.make(f"rg:{name}")
    if name in rg.NO_ORACLE:
        with pytest.raises(ConformanceError, match="oracle"):
            palaestra.check_env(env, cross_process=False)
        return
    report = palaestra.check_env(env, cross_process=False)
    assert report.ok


@pytest.mark.parametrize("name", sorted(set(NAMES) - rg.SEEDED_AT_BUILD - {"composite"}))
def test_a_reseeded_copy_gives_the_item_a_fresh_build_gives(name):
    env = palaestra.make(f"rg:{name}")
    env.reset(seed=7)
    fresh = reasoning_gym.create_dataset(name, seed=env.data_.seed, size=1)[0]
    assert env.entry_["question"] == fresh["question"]
    assert env.entry_["answer"] == fresh["answer"]


@pytest.mark.parametrize("name", sorted(rg.SEEDED_AT_BUILD))
def test_datasets_seeded_at_build_would_repeat_one_item_if_reseeded(name):
    base = reasoning_gym.create_dataset(name, seed=0, size=1)
    reseeded = copy.copy(base)
    reseeded.seed = 12345
    fresh = reasoning_gym.create_dataset(name, seed=12345, size=1)
    assert reseeded[0]["question"] != fresh[0]["question"]


def test_no_oracle_list_and_docs_name_the_same_datasets():
    text = DOCS.read_text()
    for name, reason in rg.NO_ORACLE.items():
        assert f"`{name}`" in text
        assert reason
    assert set(rg.NO_ORACLE) <= set(NAMES)


def test_docs_flag_a_scorer_that_pays_for_a_hedge_and_not_one_that_does_not():
    hedges = DOCS.read_text().split("## Scorers that pay for hedged answers")[1].split("\n\n")[2]
    for name, flagged in (("basic_arithmetic", True), ("ab", False)):
        env = palaestra.make(f"rg:{name}")
        env.reset(seed=0)
        right = env.entry_["answer"]
        env.reset(seed=1)
        wrong = env.entry_["answer"]
        if wrong == right:
            wrong = f"{right}0"
        env.reset(seed=0)
        paid = max(
            env.data_.score_answer(text, env.entry_)
            for text in (f"{right} or {wrong}", f"{wrong} or {right}")
        )
        assert (paid > 0) == flagged
        assert (f"`{name}` (" in hedges) == flagged


def test_determinism_across_processes_with_a_dataset_that_seeds_numpy():
    palaestra.check_env(palaestra.make("rg:pool_matrix"), seeds=(0,))


def test_ids_config_and_errors():
    env = palaestra.make("rg:basic_arithmetic", min_terms=2, max_terms=2)
    assert env.palaestra_spec.id == "rg/basic_arithmetic-v0"
    assert palaestra.make("rg/basic_arithmetic-v0").dataset == "basic_arithmetic"
    observation, _ = env.reset(seed=3)
    assert rg.INSTRUCTION in observation[0]["content"]
    with pytest.raises(ValueError, match="rg:basic_arithmetic"):
        palaestra.make("rg:basic_arithmetc")
    with pytest.raises(ValueError, match="refused its config"):
        palaestra.make("rg:basic_arithmetic", no_such_field=1)
    with pytest.raises(ValueError, match="per episode"):
        palaestra.make("rg:basic_arithmetic", seed=1)
    with pytest.raises(UnknownEnvError):
        palaestra.make("rgbasic_arithmetic-v0")


def test_scoring_follows_the_datasets_scorer():
    env = palaestra.make("rg:basic_arithmetic")
    env.reset(seed=0)
    answer = env.entry_["answer"]
    _, reward, terminated, _, info = env.step(f"<think>{answer}?</think> <answer>{answer}</answer>")
    assert (reward, terminated, info["verdict"].status) == (1.0, True, palaestra.Status.CORRECT)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(answer)
    assert (reward, info["verdict"].status) == (0.0, palaestra.Status.NO_ANSWER)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(f"<answer>{answer}</answer><answer>{answer}1</answer>")
    assert reward == env.data_.score_answer(f"{answer}1", env.entry_)


def test_seeds_give_the_same_items_and_leave_global_generators_alone():
    random.seed(1)
    np.random.seed(1)
    before = (random.getstate(), np.random.get_state()[1].copy())
    env = palaestra.make("rg:pool_matrix")
    first = [env.reset(seed=s)[0][0]["content"] for s in range(3)]
    second = [palaestra.make("rg:pool_matrix").reset(seed=s)[0][0]["content"] for s in range(3)]
    assert first == second
    assert len(set(first)) == 3
    assert random.getstate() == before[0]
    assert (np.random.get_state()[1] == before[1]).all()


def test_a_scorer_that_raises_masks_the_episode(monkeypatch):
    env = palaestra.make("rg:basic_arithmetic")
    env.reset(seed=0)

    def broken(answer, entry):
        raise RuntimeError("scorer bug")

    monkeypatch.setattr(env.data_, "score_answer", broken)
    _, reward, terminated, truncated, info = env.step("<answer>1</answer>")
    assert info["mask"] is True and info["status"] == "error"
    assert (reward, terminated, truncated) == (0.0, False, True)
