"""The transformers policy: batched sampling, finish reasons, seeds, and exact log-probs."""

from __future__ import annotations

import asyncio
import warnings

import numpy as np
import pytest
import torch

from palaestra.agents.backends.hf import HFPolicy, token_logprobs
from palaestra.agents.policy import Completion, Request, SamplingParams
from palaestra.agents.rollout import RolloutEngine, Task


@pytest.fixture(scope="module")
def policy(model, tokenizer):
    return HFPolicy(model, tokenizer, seed=0, max_batch_size=8)


@pytest.fixture(scope="module")
def prompt(formatter):
    return formatter.prompt_ids([{"role": "user", "content": "Compute the value of 3 + 4."}])


def test_n_completions_per_request_with_their_log_probs(policy, prompt):
    out = policy.generate_sync(
        [
            Request(prompt, SamplingParams(max_tokens=12, n=3)),
            Request(prompt[:9], SamplingParams(max_tokens=5)),
        ]
    )
    assert [len(group) for group in out] == [3, 1]
    for completion in out[0] + out[1]:
        assert isinstance(completion, Completion)
        assert 1 <= len(completion.token_ids) == len(completion.logprobs)
        assert all(lp <= 0.0 for lp in completion.logprobs)
        assert completion.finish_reason in ("stop", "length")
    assert all(len(c.token_ids) <= 5 for c in out[1])


def test_finish_reasons_length_stop_token_and_stop_string(policy, prompt, tokenizer):
    long = policy.generate_sync([Request(prompt, SamplingParams(max_tokens=3, temperature=0))])[0][
        0
    ]
    greedy_next = long.token_ids[0]
    assert long.finish_reason == "length" and len(long.token_ids) == 3
    stopped = policy.generate_sync(
        [
            Request(
                prompt, SamplingParams(max_tokens=3, temperature=0, stop_token_ids=(greedy_next,))
            )
        ]
    )[0][0]
    assert stopped.token_ids == [greedy_next]
    assert (stopped.finish_reason, stopped.stop_reason) == ("stop", greedy_next)
    text = tokenizer.decode(long.token_ids, skip_special_tokens=False)
    stop = text[:1]
    by_string = policy.generate_sync(
        [Request(prompt, SamplingParams(max_tokens=3, temperature=0, stop=(stop,)))]
    )[0][0]
    assert (by_string.finish_reason, by_string.stop_reason) == ("stop", stop)
    assert by_string.token_ids == long.token_ids[: len(by_string.token_ids)]


def test_sampling_with_a_kv_cache_raises_no_warning(model, tokenizer, prompt):
    """The cache goes to the model under the keyword its forward takes, so the shared prefill
    and the decode steps warn about no deprecated argument."""
    policy = HFPolicy(model, tokenizer, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = policy.generate_sync([Request(prompt, SamplingParams(max_tokens=4, n=2))])
    assert len(out[0]) == 2 and all(1 <= len(c.token_ids) <= 4 for c in out[0])


def test_greedy_and_top_k_one_agree_and_seeds_reproduce(policy, prompt, model, tokenizer):
    greedy = policy.generate_sync([Request(prompt, SamplingParams(max_tokens=8, temperature=0))])[
        0
    ][0]
    top1 = policy.generate_sync(
        [Request(prompt, SamplingParams(max_tokens=8, temperature=1.0, top_k=1))]
    )[0][0]
    assert greedy.token_ids == top1.token_ids
    state = torch.random.get_rng_state()
    seeded = SamplingParams(max_tokens=10, temperature=1.0, top_p=0.9, seed=7, n=2)
    a = policy.generate_sync([Request(prompt, seeded)])[0]
    b = HFPolicy(model, tokenizer, seed=123).generate_sync([Request(prompt, seeded)])[0]
    assert [c.token_ids for c in a] == [c.token_ids for c in b]
    assert torch.equal(torch.random.get_rng_state(), state), (
        "sampling touched torch's global generator"
    )
    same_a = HFPolicy(model, tokenizer, seed=5).generate_sync(
        [Request(prompt, SamplingParams(max_tokens=10))]
    )
    same_b = HFPolicy(model, tokenizer, seed=5).generate_sync(
        [Request(prompt, SamplingParams(max_tokens=10))]
    )
    assert same_a[0][0].token_ids == same_b[0][0].token_ids


def test_sampled_log_probs_equal_a_forward_pass(policy, prompt, model):
    params = SamplingParams(max_tokens=24, temperature=0.8)
    prompts = [prompt, prompt[: len(prompt) // 2], prompt + prompt[:5]]
    out = policy.generate_sync([Request(p, params) for p in prompts])
    sequences = [p + group[0].token_ids for p, group in zip(prompts, out, strict=True)]
    recomputed = token_logprobs(model, sequences, temperature=0.8, pad_id=policy.pad_id)
    for p, group, row in zip(prompts, out, recomputed, strict=True):
        np.testing.assert_allclose(row[len(p) :], group[0].logprobs, atol=1e-4)


def test_concurrent_calls_are_batched(model, tokenizer, prompt):
    policy = HFPolicy(model, tokenizer, seed=0, max_batch_size=16)

    async def main():
        calls = [
            policy.generate([Request(prompt, SamplingParams(max_tokens=4))]) for _ in range(12)
        ]
        results = await asyncio.gather(*calls)
        await policy.aclose()
        return results

    results = asyncio.run(main())
    assert len(results) == 12 and all(len(r[0][0].token_ids) >= 1 for r in results)
    assert policy._batcher.batches < 12
    policy.close()


def test_rollout_log_probs_match_a_forward_pass_over_each_episode(model, tokenizer, formatter):
    """The acceptance check: recomputed log-probs equal the sampled ones within 1e-4 (fp32)."""
    policy = HFPolicy(model, tokenizer, seed=0, max_batch_size=8)
    engine = RolloutEngine(
        policy,
        formatter,
        samples_per_task=2,
        sampling=SamplingParams(max_tokens=20),
        seed=3,
        max_turns=3,
    )
    episodes = engine.run([Task("GuessNumber-v0", seed=1), Task("Arithmetic-v0", seed=2)])
    assert all(e.status == "ok" for e in episodes)
    recomputed = token_logprobs(model, [e.ids for e in episodes], pad_id=policy.pad_id)
    for episode, row in zip(episodes, recomputed, strict=True):
        mask = np.array(episode.loss_mask, dtype=bool)
        assert mask.sum() == sum(end - start for start, end in episode.turn_spans) > 0
        ours = np.array(episode.logprobs)[mask]
        theirs = np.array(row[len(episode.prompt_ids) :])[mask]
        np.testing.assert_allclose(theirs, ours, atol=1e-4)
    again = RolloutEngine(
        HFPolicy(model, tokenizer, seed=99),
        formatter,
        samples_per_task=2,
        sampling=SamplingParams(max_tokens=20),
        seed=3,
        max_turns=3,
        max_concurrency=1,
    )
    repeat = again.run([Task("GuessNumber-v0", seed=1), Task("Arithmetic-v0", seed=2)])
    assert [e.ids for e in repeat] == [e.ids for e in episodes], (
        "seeded rollouts depend on scheduling"
    )


def test_a_prompt_longer_than_the_model_is_rejected(policy):
    with pytest.raises(ValueError, match="positions"):
        policy.generate_sync(
            [Request([5] * (policy.max_positions + 1), SamplingParams(max_tokens=2))]
        )
