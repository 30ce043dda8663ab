"""The training loop: masks, first-minibatch ratio, dynamic sampling, checkpoints, resume."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import torch

from palaestra.agents import (
    ChatFormatter,
    Episode,
    OraclePolicy,
    RolloutEngine,
    Task,
    read_jsonl,
)
from palaestra.trainers import losses
from palaestra.trainers.batch import forward, shared_prefix, to_batch, token_array
from palaestra.trainers.loop import Trainer, drop_constant_groups, overlong_penalties, train
from palaestra.trainers.run import checkpoints


def _oracle_episodes(tokenizer, env_id, seeds, **kwargs):
    formatter = ChatFormatter(tokenizer)
    engine = RolloutEngine(OraclePolicy(formatter), formatter, check_drift=False)
    return engine.run([Task(env_id, seed=s, kwargs=kwargs) for s in seeds])


def _surrogate_with_every_term(logp, old, ref, advantages, mask, logits_for_entropy, entropy_mask):
    loss, _ = losses.clipped_surrogate(logp, old, advantages, mask, 0.2, 0.28, dual_clip=3.0)
    kl = losses.aggregate(losses.kl_estimate(logp, ref, "k3"), mask)
    return loss + 0.1 * kl - 0.01 * losses.entropy(logits_for_entropy, entropy_mask)


def test_gradient_at_masked_logits_is_exactly_zero_for_every_loss_term():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 7, 13, generator=generator, requires_grad=True)
    tokens = torch.randint(0, 13, (3, 7), generator=generator)
    mask = torch.tensor([[0, 1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 1, 0]])
    logp = losses.token_logprobs(logits, tokens)
    old = logp.detach() + 0.3 * torch.randn(3, 7, generator=generator)
    ref = logp.detach() - 0.2
    advantages = torch.randn(3, 7, generator=generator)
    _surrogate_with_every_term(logp, old, ref, advantages, mask, logits, mask).backward()
    assert torch.count_nonzero(logits.grad[mask == 0]) == 0
    assert torch.count_nonzero(logits.grad[mask == 1]) > 0


def test_trainer_forward_computes_logits_only_at_sampled_positions(tokenizer, small_model):
    episodes = _oracle_episodes(tokenizer, "Calculator-v0", [0, 1])
    assert any(m["role"] == "tool" for e in episodes for m in e.messages)
    batch = to_batch(episodes, tokenizer.pad_token_id, "cpu")
    logp, logits, _ = forward(small_model, batch, 1.0)
    assert logits.shape[0] == int(batch["mask"].sum())
    assert torch.all(logp[batch["mask"] == 0] == 0)


def test_shared_prefix_forward_equals_the_full_forward(tokenizer, small_model, monkeypatch):
    """Samples of a group share their prompt; computing it once changes no number."""
    from palaestra.trainers import batch as batching

    episodes = _oracle_episodes(tokenizer, "GuessNumber-v0", [0, 1], max_number=8)
    episodes += _oracle_episodes(tokenizer, "GuessNumber-v0", [0, 1, 2], max_number=16)
    batch = to_batch(episodes, tokenizer.pad_token_id, "cpu")
    length, first, inverse = shared_prefix(
        batch["input_ids"], batch["attention_mask"], batch["mask"] > 0
    )
    assert length == min(len(e.prompt_ids) for e in episodes)
    assert len(first) == 2 and inverse.tolist() == [inverse[0]] * 2 + [1 - inverse[0]] * 3
    head = torch.nn.Linear(small_model.config.hidden_size, 1)
    results = []
    for share in (True, False):
        if not share:
            monkeypatch.setattr(batching, "shared_prefix", lambda *_: None)
        small_model.zero_grad()
        logp, logits, values = forward(small_model, batch, 0.7, head)
        (logp.sum() + (values * batch["mask"]).sum()).backward()
        grads = [p.grad.clone() for p in small_model.parameters()]
        results.append((logp.detach(), logits.detach(), values.detach() * batch["mask"], grads))
    (logp, logits, values, grads), (logp2, logits2, values2, grads2) = results
    torch.testing.assert_close(logp, logp2, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(logits, logits2, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(values, values2, atol=1e-5, rtol=1e-5)
    for a, b in zip(grads, grads2, strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_the_shared_prefix_forward_raises_no_warning(tokenizer, small_model):
    """The prefix's KV cache goes to the model under the keyword its forward takes."""
    episodes = _oracle_episodes(tokenizer, "GuessNumber-v0", [5, 5, 6], max_number=8)
    batch = to_batch(episodes, tokenizer.pad_token_id, "cpu")
    assert shared_prefix(batch["input_ids"], batch["attention_mask"], batch["mask"] > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        logp, logits, _ = forward(small_model, batch, 1.0)
    assert logits.shape[0] == int(batch["mask"].sum()) and torch.all(logp <= 0)


def test_shared_prefix_declines_when_no_row_shares_or_a_row_has_no_sampled_token():
    ids = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    attention = torch.ones_like(ids)
    mask = torch.tensor([[0, 1, 1], [0, 1, 1]]) > 0
    assert shared_prefix(ids, attention, mask) is None  # two distinct prefixes
    ids[1, :2] = ids[0, :2]
    length, first, inverse = shared_prefix(ids, attention, mask)
    assert (length, first.tolist(), inverse.tolist()) == (2, [0], [0, 0])
    assert shared_prefix(ids, attention, torch.tensor([[0, 1, 1], [0, 0, 0]]) > 0) is None


def test_tool_output_changes_sampled_token_losses_only_through_context(tokenizer, small_model):
    (episode,) = _oracle_episodes(tokenizer, "Calculator-v0", [4])
    first_end = episode.turn_spans[0][1]
    changed = Episode.from_dict(episode.to_dict())
    # Rewrite every env/tool token after the first turn (same length, other ids).
    tool_positions = [
        i for i in range(first_end, len(episode.completion_ids)) if episode.loss_mask[i] == 0
    ]
    assert tool_positions, "the episode needs env or tool text after its first turn"
    for i in tool_positions:
        changed.completion_ids[i] = (episode.completion_ids[i] + 17) % 300 + 3
    a = to_batch([episode], tokenizer.pad_token_id, "cpu")
    b = to_batch([changed], tokenizer.pad_token_id, "cpu")
    assert torch.equal(a["mask"], b["mask"])
    offset = len(episode.prompt_ids) - 1
    assert torch.all(a["mask"][0, [offset + i for i in tool_positions]] == 0)  # no loss on tools
    with torch.no_grad():
        logp_a, _, _ = forward(small_model, a, 1.0)
        logp_b, _, _ = forward(small_model, b, 1.0)
    mask = a["mask"]
    advantages = torch.as_tensor(token_array([episode], [[1.0] * episode.num_turns], mask.shape[1]))
    old = logp_a - 0.05 * mask

    def loss_of(logp):
        return _surrogate_with_every_term(
            logp,
            old,
            old - 0.1,
            advantages,
            mask,
            torch.stack([logp, torch.zeros_like(logp)], -1),
            mask,
        )

    first_change = offset + tool_positions[0]
    # Causality: tokens before the rewritten text see the same context.
    assert torch.equal(logp_a[:, :first_change], logp_b[:, :first_change])
    # The rewritten context changes later sampled tokens' log-probs, hence the loss ...
    assert not torch.equal(logp_a * mask, logp_b * mask)
    assert loss_of(logp_a).item() != loss_of(logp_b).item()
    # ... and only that way: with the sampled positions' values held fixed, whatever sits
    # at masked positions contributes nothing.
    fixed = torch.where(mask > 0, logp_a, logp_b + 5.0)
    assert loss_of(fixed).item() == loss_of(logp_a).item()


@pytest.mark.parametrize("separate_pass", [True, False])
def test_first_minibatch_ratio_is_one(tokenizer, small_model, make_config, separate_pass):
    changes = dict(epochs=2, minibatch_size=2) if separate_pass else dict(epochs=1)
    config = make_config(tasks_per_step=2, group_size=2, micro_batch_size=1, **changes)
    trainer = Trainer(config, model=small_model, tokenizer=tokenizer)
    assert trainer.needs_old_pass(4) is separate_pass
    episodes, _ = trainer.collect()
    batch = trainer.prepare(episodes)
    stats = trainer.update(batch)
    assert stats["first_minibatch_ratio_error"] < 1e-5
    if separate_pass:
        gap = float(((batch["sampler_logp"] - batch["old_logp"]).abs() * batch["mask"]).max())
    else:
        gap = stats["sampler_logprob_gap"]
    assert gap < 1e-3  # the sampler's log-probs agree with the trainer's


def _fake(group, reward, index=0):
    return Episode(
        env_id="X", group_id=group, sample_index=index, turn_rewards=[reward], turn_spans=[(0, 1)]
    )


def test_drop_constant_groups():
    episodes = [
        _fake("a", 1.0),
        _fake("a", 1.0, 1),
        _fake("b", 0.0),
        _fake("b", 1.0, 1),
        _fake("c", 0.5),
    ]
    kept, dropped = drop_constant_groups(episodes)
    assert [e.group_id for e in kept] == ["b", "b"] and dropped == 2


def test_dynamic_sampling_keeps_only_informative_groups(tokenizer, small_model, make_config):
    config = make_config(dynamic_sampling=True, max_refills=2, tasks_per_step=3, group_size=3)
    trainer = Trainer(config, model=small_model, tokenizer=tokenizer)
    episodes, stats = trainer.collect()
    groups: dict[str, list[float]] = {}
    for e in episodes:
        groups.setdefault(e.group_id, []).append(e.total_reward)
    assert len(groups) <= 3
    assert all(len(r) == 3 and np.ptp(r) > 0 for r in groups.values())
    assert stats["rounds"] >= 1 and stats["episodes"] >= 9
    assert stats["episodes"] == 9 * stats["rounds"] or len(groups) == 3


def test_episodes_jsonl_records_each_episodes_step_and_verdict(tokenizer, small_model, make_config):
    config = make_config(
        env_id="Arithmetic-v0", env_kwargs={"level": 1}, warmup_steps=0, eval_every=0
    )
    train(config, model=small_model, tokenizer=tokenizer)
    records = [json.loads(line) for line in open(f"{config.output_dir}/episodes.jsonl")]
    rl_steps = [
        r["step"] for r in map(json.loads, open(f"{config.output_dir}/metrics.jsonl"))
        if r["phase"] == "rl"
    ]  # fmt: skip
    assert rl_steps == [1, 2]
    assert [r["step"] for r in records] == [1] * 4 + [2] * 4
    # The trainer's group ids ("{step - 1}.{round}.{task}:{seed}") agree with the field.
    assert all(r["group_id"].startswith(f"{r['step'] - 1}.0.") for r in records)
    for record in records:
        verdict = record["verdict"]
        assert verdict["verifier"] == "integer" and verdict["reason"]
        assert verdict["score"] == sum(record["turn_rewards"])
        assert (verdict["status"] == "correct") is record["success"]
    # Records stay episodes: the agents' reader takes the file back.
    assert [e.step for e in read_jsonl(f"{config.output_dir}/episodes.jsonl")] == [1] * 4 + [2] * 4


def test_overlong_penalty_grows_over_the_buffer():
    episode = Episode(
        env_id="X", loss_mask=[1] * 10 + [0] + [1] * 6, turn_spans=[(0, 10), (11, 17)]
    )
    # max_tokens 10, buffer 4: the penalty starts after 6 tokens, full at 10.
    assert overlong_penalties(episode, 10, 4, 0.5) == pytest.approx([-0.5, 0.0])
    episode.turn_spans = [(0, 8), (11, 17)]
    assert overlong_penalties(episode, 10, 4, 0.5) == pytest.approx([-0.25, 0.0])
    assert overlong_penalties(episode, 10, 0, 0.5) == [0.0, 0.0]


def test_token_advantages_sit_on_sampled_tokens_only():
    episode = Episode(
        env_id="X",
        prompt_ids=[1, 2, 3],
        completion_ids=[4, 5, 6, 7, 8, 9],
        loss_mask=[1, 1, 0, 0, 1, 1],
        turn_spans=[(0, 2), (4, 6)],
    )
    out = token_array([episode], [[0.5, -1.0]], 8)
    # completion index i is target index 2 + i
    assert out[0].tolist() == [0, 0, 0.5, 0.5, 0, 0, -1.0, -1.0]


def test_train_checkpoint_and_resume(tokenizer, make_config):
    from palaestra.agents.tiny import tiny_model

    def model():
        return tiny_model(tokenizer, num_hidden_layers=1, hidden_size=64, intermediate_size=128)

    config = make_config(steps=2, checkpoint_every=1, keep_checkpoints=2)
    first = train(config, model=model(), tokenizer=tokenizer)
    run = first.output_dir
    saved = checkpoints(config.output_dir)
    assert [p.name for p in saved] == ["step-000001", "step-000002"]
    assert (saved[-1] / "model" / "config.json").exists()
    assert (saved[-1] / "tokenizer" / "tokenizer.json").exists()
    weights = {
        k: v.clone()
        for k, v in torch.load(saved[-1] / "trainer_state.pt", weights_only=False)["model"].items()
    }

    import dataclasses

    resumed_config = dataclasses.replace(config, steps=3, resume=True)
    fresh = model()  # untrained weights: resuming must restore the checkpoint's
    trainer = Trainer(resumed_config, model=fresh, tokenizer=tokenizer)
    trainer.load(saved[-1])
    assert trainer.step == 2 and trainer.warm_done
    for name, value in fresh.state_dict().items():
        assert torch.equal(value, weights[name]), name
    assert trainer.optimizer.state_dict()["state"], "the optimizer state comes back"

    second = train(resumed_config, model=model(), tokenizer=tokenizer)
    records = [json.loads(line) for line in open(f"{run}/metrics.jsonl")]
    rl_steps = [r["step"] for r in records if r["phase"] == "rl"]
    assert rl_steps == [1, 2, 3]  # appended, not restarted
    assert sum(r["phase"] == "warmup" for r in records) == 2  # the warm start ran once
    assert [r["step"] for r in second.history] == [3]
    assert second.warm_start_eval == first.warm_start_eval
    assert checkpoints(config.output_dir)[-1].name == "step-000003"
    lines = open(f"{run}/episodes.jsonl").read().splitlines()
    assert len(lines) == 3 * config.episodes_per_step


def test_ppo_with_value_head_and_kl_runs(tokenizer, small_model, make_config):
    config = make_config(algorithm="ppo", kl_coef=0.05, steps=1, epochs=2, minibatch_size=2)
    result = train(config, model=small_model, tokenizer=tokenizer)
    (record,) = result.history
    assert record["value_loss"] >= 0
    assert "kl_ref" in record and record["kl_ref"] >= 0


@pytest.mark.parametrize("estimator", ["drgrpo", "rloo", "rebn", "turn_group", "gigpo"])
def test_every_estimator_trains_a_step(tokenizer, small_model, make_config, estimator):
    config = make_config(estimator=estimator, steps=1, warmup_steps=0, eval_tasks=0)
    result = train(config, model=small_model, tokenizer=tokenizer)
    assert len(result.history) == 1 and np.isfinite(result.history[0]["policy_loss"])
