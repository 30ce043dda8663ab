"""The OpenAI-compatible backend against a real HTTP server on loopback serving the tiny model."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from palaestra.agents.backends.hf import token_logprobs
from palaestra.agents.backends.openai import OpenAIPolicy
from palaestra.agents.policy import Completion, PolicyError, Request, SamplingParams, TurnContext
from palaestra.agents.rollout import RolloutEngine, Task


def _policy(server, **kwargs) -> OpenAIPolicy:
    kwargs.setdefault("timeout_s", 10.0)
    kwargs.setdefault("backoff_s", 0.01)
    kwargs.setdefault("seed", 0)
    return OpenAIPolicy(server.base_url, "tiny", **kwargs)


def _generate(policy, requests):
    async def main():
        try:
            return await policy.generate(requests)
        finally:
            await policy.aclose()

    return asyncio.run(main())


@pytest.fixture
def prompt(formatter):
    return formatter.prompt_ids([{"role": "user", "content": "Compute the value of 5 * 6."}])


@pytest.fixture(autouse=True)
def _no_leftover_failures(server):
    server.failures.clear()
    yield
    server.failures.clear()


def test_completions_return_the_sampled_ids_and_log_probs(server, prompt, model):
    policy = _policy(server)
    (group,) = _generate(
        policy, [Request(prompt, SamplingParams(max_tokens=12, n=2, temperature=0.7))]
    )
    assert len(group) == 2
    path, body = server.requests[-1]
    assert (
        path == "/v1/completions" and body["prompt"] == prompt and body["return_token_ids"] is True
    )
    recomputed = token_logprobs(model, [prompt + c.token_ids for c in group], temperature=0.7)
    for completion, row in zip(group, recomputed, strict=True):
        assert not completion.retokenized and completion.finish_reason in ("stop", "length")
        np.testing.assert_allclose(row[len(prompt) :], completion.logprobs, atol=1e-4)


def test_token_ids_from_token_strings_or_by_re_tokenizing(server, prompt, tokenizer):
    strings = _policy(server, extra_body={"return_token_ids": False})
    (group,) = _generate(strings, [Request(prompt, SamplingParams(max_tokens=6))])
    assert server.requests[-1][1]["return_token_ids"] is False
    assert not group[0].retokenized  # read from vLLM-style "token_id:N" token strings
    plain = _policy(server, vllm_extensions=False, tokenizer=tokenizer)
    (group,) = _generate(plain, [Request(prompt, SamplingParams(max_tokens=6))])
    assert group[0].retokenized
    assert len(group[0].logprobs) == len(group[0].token_ids)
    with pytest.raises(PolicyError, match="tokenizer="):
        _generate(
            _policy(server, vllm_extensions=False), [Request(prompt, SamplingParams(max_tokens=4))]
        )


@pytest.mark.parametrize("failure", ["500", "429", "truncate", "garbage", "hang"])
def test_transient_failures_are_retried(server, prompt, failure, monkeypatch):
    # A hung answer must outlast the client's timeout by far; the retried call has the
    # whole timeout to answer (a generation can take a while on a busy CPU).
    monkeypatch.setattr(server, "hang_s", 60.0)
    policy = _policy(server, timeout_s=2.0 if failure == "hang" else 10.0, max_retries=2)
    server.fail_next(failure)
    (group,) = _generate(policy, [Request(prompt, SamplingParams(max_tokens=4))])
    assert len(group) == 1 and len(group[0].token_ids) >= 1
    assert policy.retries == 1
    path, body = server.requests[-1]
    assert path == "/v1/completions" and body["prompt"] == prompt


def test_persistent_failures_and_refusals_raise_policy_errors(server, prompt):
    policy = _policy(server, max_retries=2)
    server.fail_next("500", "500", "500")
    before = len(server.requests)
    with pytest.raises(PolicyError, match="after 3 attempts.*HTTP 500"):
        _generate(policy, [Request(prompt, SamplingParams(max_tokens=4))])
    assert len(server.requests) - before == 3
    server.fail_next("400")
    before = len(server.requests)
    with pytest.raises(PolicyError, match="refused.*400"):
        _generate(policy, [Request(prompt, SamplingParams(max_tokens=4))])
    assert len(server.requests) - before == 1  # a refusal is not retried
    dead = OpenAIPolicy(
        "http://127.0.0.1:9/v1", "tiny", max_retries=1, backoff_s=0.01, timeout_s=1.0
    )
    with pytest.raises(PolicyError, match="ConnectError"):
        _generate(dead, [Request(prompt, SamplingParams(max_tokens=4))])


def test_a_rollout_over_http_records_exact_tokens(server, formatter, model):
    policy = _policy(server, max_concurrency=4)
    engine = RolloutEngine(
        policy, formatter, samples_per_task=2, max_turns=2, sampling=SamplingParams(max_tokens=16)
    )
    episodes = engine.run([Task("GuessNumber-v0", seed=0), Task("Arithmetic-v0", seed=1)])
    assert all(e.status == "ok" for e in episodes)
    recomputed = token_logprobs(model, [e.ids for e in episodes])
    for episode, row in zip(episodes, recomputed, strict=True):
        mask = np.array(episode.loss_mask, dtype=bool)
        np.testing.assert_allclose(
            np.array(row[len(episode.prompt_ids) :])[mask],
            np.array(episode.logprobs)[mask],
            atol=1e-4,
        )


def test_a_failing_server_masks_episodes_and_the_run_goes_on(server, formatter):
    policy = _policy(server, max_retries=0)
    server.fail_next("500")
    engine = RolloutEngine(
        policy, formatter, max_concurrency=1, sampling=SamplingParams(max_tokens=8)
    )
    episodes = engine.run([Task("Arithmetic-v0", seed=0), Task("Arithmetic-v0", seed=1)])
    failed, played = sorted(episodes, key=lambda e: e.status)  # "error" < "ok"
    assert (failed.status, played.status) == ("error", "ok")
    assert failed.mask and "HTTP 500" in failed.error and not played.mask


class _ToolCaller:
    """A sync policy for the server that always calls the calculator, then answers."""

    def __init__(self, formatter):
        self.formatter = formatter
        self.stop_ids = formatter.stop_ids
        self.turn = 0

    def generate_sync(self, requests):
        self.turn += 1
        if self.turn % 2:
            call = '{"name": "calculator", "arguments": {"expression": "2 * 3"}}'
            text = f"<tool_call>\n{call}\n</tool_call>"
        else:
            text = "<answer>0</answer>"
        ids = self.formatter.action_ids(text)
        return [[Completion(ids, [-0.25] * len(ids))] for _ in requests]


def test_the_chat_endpoint_sends_messages_and_reads_native_tool_calls(
    server_module, tokenizer, formatter
):
    server = server_module.PolicyServer(_ToolCaller(formatter), tokenizer).start()
    try:
        policy = OpenAIPolicy(server.base_url, "tiny", endpoint="chat", timeout_s=10.0)
        engine = RolloutEngine(
            policy, formatter, max_turns=2, sampling=SamplingParams(max_tokens=64)
        )
        (episode,) = engine.run([Task("Calculator-v0", seed=0)])
        assert episode.status == "ok", episode.error
        path, body = server.requests[0]
        assert path == "/v1/chat/completions" and body["messages"][0]["role"] == "user"
        assert body["tools"][0]["function"]["name"] == "calculator"
        call = episode.messages[1]
        assert call["tool_calls"][0]["function"]["name"] == "calculator"
        assert episode.messages[2] == {
            "role": "tool",
            "content": "6",
            "tool_call_id": "call_0",
            "name": "calculator",
        }
        assert episode.logprobs[episode.turn_spans[0][0]] == -0.25
        with pytest.raises(ValueError, match="TurnContext"):
            _generate(policy, [Request([1, 2], SamplingParams())])
        context = TurnContext(messages=({"role": "user", "content": "hi"},))
        (group,) = _generate(policy, [Request([1], SamplingParams(max_tokens=8), context)])
        assert not math.isnan(group[0].logprobs[0])
    finally:
        server.stop()


def test_arguments_are_validated():
    with pytest.raises(ValueError, match="endpoint"):
        OpenAIPolicy("http://x/v1", "m", endpoint="responses")
    with pytest.raises(ValueError, match="max_concurrency"):
        OpenAIPolicy("http://x/v1", "m", max_concurrency=0)
