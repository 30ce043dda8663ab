"""TRL's GRPOTrainer trains the tiny model through the adapter: groups, seeds, masks, updates."""

from __future__ import annotations

import inspect
import json

import pytest

import palaestra
from palaestra import datasets
from palaestra.agents.chat import ChatFormatter
from palaestra.agents.rollout import RolloutEngine, Task
from palaestra.agents.scripted import ReplayPolicy
from palaestra.integrations import trl as adapter
from palaestra.parsers import find_tags

trl = pytest.importorskip("trl")
torch = pytest.importorskip("torch")

GENERATIONS = 2


def config(tmp_path, **overrides):
    values = dict(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=GENERATIONS,
        max_steps=3,
        max_completion_length=8,
        learning_rate=1e-2,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        logging_steps=1,
        seed=0,
        disable_tqdm=True,
    )
    values.update(overrides)
    return trl.GRPOConfig(**values)


def text_length(completions, **_):
    """A second reward that differs between random samples, so advantages are not all zero."""
    return [len(adapter._completion_text(c)) / 100 for c in completions]


def snapshot(model):
    return [p.detach().clone() for p in model.parameters()]


def changed(model, before) -> bool:
    return any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def groups(values, size=GENERATIONS):
    return [values[i : i + size] for i in range(0, len(values), size)]


@pytest.mark.slow
def test_grpo_trains_on_a_multi_turn_game_with_a_seed_per_group(
    tmp_path, model, tokenizer, monkeypatch
):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    arguments = adapter.grpo_arguments("GuessNumber-v0", n=8, max_turns=3)
    rollout = arguments["rollout_func"]
    calls = []

    def recording(prompts, trainer):
        out = rollout(prompts, trainer)
        calls.append((out, list(rollout.episodes)))
        return out

    arguments["rollout_func"] = recording
    arguments["reward_funcs"].append(text_length)
    trainer = trl.GRPOTrainer(
        model=model, args=config(tmp_path), processing_class=tokenizer, **arguments
    )
    before = snapshot(model)
    trainer.train()

    assert len(calls) == 3  # one generation per step
    all_group_seeds = []
    for out, episodes in calls:
        for members in groups(out["seed"]):
            assert len(set(members)) == 1, "a group's members must share their seed"
            all_group_seeds.append(members[0])
        # The env mask is the rollout engine's: replay the sampled turns through a fresh
        # engine on the same seeds, and its masks and tokens are what TRL got.
        tasks = [
            Task("GuessNumber-v0", seed=e.seed, group_id=e.group_id)
            for e in episodes
            if e.sample_index == 0
        ]
        replayed = RolloutEngine(
            ReplayPolicy.from_episodes(episodes),
            ChatFormatter(tokenizer),
            samples_per_task=GENERATIONS,
            max_turns=3,
        ).run(tasks)
        replayed = {e.key: e for e in replayed}
        for i, episode in enumerate(episodes):
            again = replayed[episode.key]
            assert out["env_mask"][i] == again.loss_mask
            assert out["completion_ids"][i] == again.completion_ids
            assert out["prompt_ids"][i] == again.prompt_ids
            assert out["palaestra_return"][i] == pytest.approx(again.total_reward)
        # Multi-turn: env tokens (mask 0) sit between sampled turns (mask 1).
        assert any(0 in mask and 1 in mask for mask in out["env_mask"])
    assert len(set(all_group_seeds)) == len(all_group_seeds), "groups must not share seeds"
    assert changed(model, before)


@pytest.mark.slow
def test_grpo_trains_on_single_turn_rows(tmp_path, model, tokenizer, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    rows = list(datasets.rows(["Countdown-v0"], n=6, seed=0))
    arguments = adapter.grpo_arguments(rows)
    seen = []

    def recording_reward(completions, **columns):
        seen.append((columns["seed"], columns["index"], columns["problem"]))
        return adapter.row_reward(completions, **columns)

    recording_reward.__name__ = "row_reward"
    arguments["reward_funcs"] = [recording_reward, text_length]
    trainer = trl.GRPOTrainer(
        model=model, args=config(tmp_path), processing_class=tokenizer, **arguments
    )
    before = snapshot(model)
    trainer.train()

    assert len(seen) == 3
    items = []
    for seeds, indexes, problems in seen:
        for members in groups(list(zip(seeds, indexes, problems, strict=True))):
            assert len(set(members)) == 1, "a group's members must share their item"
            items.append(members[0][:2])
    # Each step's groups are distinct items (TRL samples rows without replacement per epoch).
    for step in groups(items, 2):
        assert len(set(step)) == len(step)
    assert changed(model, before)


def test_rollout_output_keeps_masked_episodes_in_place_with_no_reward_and_no_mask():
    from palaestra.agents.rollout import Episode

    ok = Episode(
        "X-v0",
        seed=1,
        group_id="g",
        prompt_ids=[1, 2],
        completion_ids=[3, 4, 5],
        loss_mask=[1, 0, 1],
        logprobs=[-0.5, 0.0, -0.25],
        turn_rewards=[0.5, 0.25],
    )
    failed = Episode(
        "X-v0",
        seed=1,
        group_id="g",
        sample_index=1,
        prompt_ids=[1, 2],
        completion_ids=[3],
        loss_mask=[1],
        logprobs=[-0.1],
        status="error",
        mask=True,
    )
    empty = Episode(
        "X-v0", seed=1, group_id="g", sample_index=2, prompt_ids=[1, 2], status="timeout", mask=True
    )
    out = adapter.episode_fields([ok, failed, empty], end_id=9)
    assert out["env_mask"] == [[1, 0, 1], [0], [0]]
    assert out["completion_ids"] == [[3, 4, 5], [3], [9]]
    assert out["logprobs"][2] == [0.0]
    assert out["palaestra_return"] == [0.75, None, None]
    assert out["status"] == ["ok", "error", "timeout"]
    assert adapter.episode_return([[], [], []], out["palaestra_return"]) == [0.75, None, None]


def test_group_seeds_differ_between_groups_and_calls():
    seeds = {adapter.group_seed(0, call, group) for call in range(4) for group in range(8)}
    assert len(seeds) == 32
    assert adapter.group_seed(0, 1, 2) == adapter.group_seed(0, 1, 2)


def test_rollout_refuses_settings_the_trainer_owns():
    with pytest.raises(ValueError, match="num_generations"):
        adapter.PalaestraRollout("GuessNumber-v0", samples_per_task=4)
    with pytest.raises(ValueError, match="max_turns"):
        adapter.PalaestraRollout("GuessNumber-v0", max_turns=0)


def test_row_reward_scores_like_the_row_and_rejects_plain_datasets():
    rows = list(datasets.rows(["Countdown-v0"], n=2, seed=0))
    hf = datasets.to_hf_dataset(rows)
    columns = {k: hf[k] for k in hf.column_names if k != "prompt"}
    completions = [[{"role": "assistant", "content": r["oracle"]}] for r in rows]
    assert adapter.row_reward(completions, **columns) == [1.0, 1.0]
    assert adapter.row_reward(["no answer", "no answer"], **columns) == [0.0, 0.0]
    with pytest.raises(ValueError, match="to_hf_dataset"):
        adapter.row_reward(["x"], answer=["1"])


def test_environment_factory_plays_the_calculator_with_its_oracle():
    from transformers.utils import get_json_schema

    env_class = adapter.environment_factory("Calculator-v0")
    env = env_class()
    reference = palaestra.make("Calculator-v0")
    reference.reset(seed=5)
    methods = {
        name: getattr(env, name)
        for name, _ in inspect.getmembers(env_class, predicate=inspect.isfunction)
        if not name.startswith("_") and name not in ("reset", "get_reward")
    }
    assert set(methods) == {t["function"]["name"] for t in reference.tools} | {"submit"}
    for name, method in methods.items():  # transformers reads each tool's schema from them
        schema = get_json_schema(method)
        assert schema["function"]["name"] == name
    prompt = env.reset(seed=5, prompt=[])
    assert prompt == reference.reset(seed=5)[0][0]["content"]
    # Play the env's own oracle through the generated methods.
    while not env.done:
        action = env.env.oracle_action()
        calls = find_tags(action, "tool_call")
        if calls:
            call = json.loads(calls[0].body)
            getattr(env, call["name"])(**call["arguments"])
        else:
            env.submit(find_tags(action, "answer")[0].body)
    assert env.get_reward() == pytest.approx(env.env.best_return())
    assert env.get_reward() > 0


@pytest.mark.slow
def test_grpo_trains_with_the_generated_environment_factory(
    tmp_path, model, tokenizer, monkeypatch
):
    import copy

    from datasets import Dataset
    from trl.chat_template_utils import qwen3_template

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    # TRL parses tool calls with a response template it picks for the chat templates it
    # knows; the tiny model's template writes Qwen-style tool calls, so name it by hand.
    tokenizer = copy.deepcopy(tokenizer)
    tokenizer.response_template = qwen3_template
    resets = []

    class Recording(adapter.environment_factory("Calculator-v0")):
        def reset(self, **row):
            resets.append(row["seed"])
            return super().reset(**row)

    rows = Dataset.from_dict(
        {"prompt": [[{"role": "user", "content": "Solve:"}]] * 8, "seed": list(range(8))}
    )
    trainer = trl.GRPOTrainer(
        model=model,
        args=config(tmp_path, max_steps=2, max_completion_length=16, max_tool_calling_iterations=2),
        processing_class=tokenizer,
        train_dataset=rows,
        reward_funcs=[text_length],
        environment_factory=Recording,
    )
    before = snapshot(model)
    trainer.train()

    assert len(resets) == 2 * 4  # two steps of 4 rollouts, one reset each
    for step in groups(resets, 4):
        pairs = groups(step)
        assert all(len(set(members)) == 1 for members in pairs)  # a group shares its row's seed
        assert len({members[0] for members in pairs}) == len(pairs)
    # get_reward is a reward source TRL logs under the class name.
    assert any("rewards/Recording/mean" in entry for entry in trainer.state.log_history)
    assert changed(model, before)


def test_environment_factory_refuses_envs_without_tools():
    with pytest.raises(ValueError, match="no tools"):
        adapter.environment_factory("GuessNumber-v0")
