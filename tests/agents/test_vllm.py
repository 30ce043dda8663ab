"""The vLLM backend: a clear error without vLLM, its output conversion, and the engines.

The engine tests need vLLM and a CUDA GPU; elsewhere they are skipped, saying which is
missing.
"""

from __future__ import annotations

import asyncio
import importlib.util
import math
from types import SimpleNamespace

import numpy as np
import pytest

from palaestra.agents.backends.hf import token_logprobs
from palaestra.agents.backends.vllm import AsyncVLLMPolicy, VLLMPolicy, completion_from_vllm
from palaestra.agents.policy import Request, SamplingParams
from palaestra.agents.rollout import RolloutEngine, Task
from palaestra.errors import MissingDependencyError


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
def test_a_missing_vllm_names_the_extra():
    for cls in (VLLMPolicy, AsyncVLLMPolicy):
        with pytest.raises(MissingDependencyError, match=r"palaestra\[vllm\]"):
            cls("some/model")


def test_vllm_outputs_become_completions():
    logprob = lambda value: SimpleNamespace(logprob=value, rank=1)  # noqa: E731
    output = SimpleNamespace(
        token_ids=(5, 9, 2),
        logprobs=[{5: logprob(-0.5), 7: logprob(-1.0)}, {9: logprob(-0.25)}, {2: logprob(-0.125)}],
        finish_reason="stop",
        stop_reason=None,
        text="ab",
    )
    completion = completion_from_vllm(output)
    assert completion.token_ids == [5, 9, 2] and completion.logprobs == [-0.5, -0.25, -0.125]
    assert (completion.finish_reason, completion.text) == ("stop", "ab")
    cut = completion_from_vllm(
        SimpleNamespace(token_ids=[4], logprobs=None, finish_reason="length", stop_reason="x")
    )
    assert cut.finish_reason == "length" and cut.stop_reason == "x" and math.isnan(cut.logprobs[0])


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


HAS_VLLM = importlib.util.find_spec("vllm") is not None
VLLM_GPU_MARKS = (
    pytest.mark.slow,
    pytest.mark.gpu,
    pytest.mark.skipif(
        not HAS_VLLM,
        reason='vllm is not installed here (pip install "palaestra[vllm]" on a machine with a '
        "CUDA GPU to run the vLLM engine tests)",
    ),
    # torch is imported for this check only where vLLM is installed.
    pytest.mark.skipif(
        HAS_VLLM and not _has_cuda(), reason="vLLM's engine needs a CUDA GPU; this machine has none"
    ),
)


def needs_vllm_gpu(test):
    """Marks a test slow and gpu, and skips it, saying why, without vLLM or a CUDA GPU."""
    for mark in VLLM_GPU_MARKS:
        test = mark(test)
    return test


def _complete(policy, request):
    async def main():
        try:
            return await policy.generate([request])
        finally:
            await policy.aclose()

    return asyncio.run(main())[0][0]


@pytest.fixture
def tiny_checkpoint(tmp_path, model, tokenizer):
    """The tiny model and its tokenizer in one folder, as vLLM loads them."""
    folder = tmp_path / "tiny"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@needs_vllm_gpu
def test_the_offline_engine_samples_exact_ids_and_log_probs_and_takes_new_weights(
    _, tiny_checkpoint, model, formatter, monkeypatch
):
    import torch

    # Weights are handed to the engine's workers in this process (see the module docstring).
    monkeypatch.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    monkeypatch.setenv("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")
    policy = VLLMPolicy(
        str(tiny_checkpoint),
        dtype="float32",
        gpu_memory_utilization=0.2,
        max_model_len=2048,
        enforce_eager=True,
        logprobs_mode="processed_logprobs",
        seed=0,
    )
    try:
        engine = RolloutEngine(
            policy,
            formatter,
            samples_per_task=2,
            max_turns=2,
            sampling=SamplingParams(max_tokens=16),
        )
        episodes = engine.run([Task("GuessNumber-v0", seed=0), Task("Arithmetic-v0", seed=1)])
        assert all(e.status == "ok" for e in episodes), [e.error for e in episodes]
        recomputed = token_logprobs(model, [e.ids for e in episodes])
        for episode, row in zip(episodes, recomputed, strict=True):
            mask = np.array(episode.loss_mask, dtype=bool)
            np.testing.assert_allclose(
                np.array(row[len(episode.prompt_ids) :])[mask],
                np.array(episode.logprobs)[mask],
                atol=1e-3,  # GPU kernels, not the CPU forward pass: same maths, other rounding
            )
        prompt = episodes[0].prompt_ids
        greedy = SamplingParams(max_tokens=8, temperature=0)
        before = _complete(policy, Request(prompt, greedy)).token_ids
        # Every logit equal after zeroing the weights: greedy decoding picks token 0.
        policy.update_weights((n, torch.zeros_like(p)) for n, p in model.named_parameters())
        after = _complete(policy, Request(prompt, greedy)).token_ids
        assert after != before and set(after) == {0}
    finally:
        policy.close()


@needs_vllm_gpu
def test_the_async_engine_samples_n_completions(tiny_checkpoint, formatter):
    policy = AsyncVLLMPolicy(
        str(tiny_checkpoint), dtype="float32", gpu_memory_utilization=0.2, max_model_len=2048
    )
    try:
        prompt = formatter.prompt_ids([{"role": "user", "content": "Compute 2 + 3."}])
        (group,) = asyncio.run(
            policy.generate([Request(prompt, SamplingParams(max_tokens=8, n=3, seed=1))])
        )
        assert len(group) == 3
        assert all(1 <= len(c.token_ids) == len(c.logprobs) <= 8 for c in group)
        assert all(c.logprobs[0] <= 0.0 for c in group)
    finally:
        policy.close()
