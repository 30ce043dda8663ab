"""vLLM policies: the offline engine and the async engine, in this process (GPU).

    policy = VLLMPolicy("Qwen/Qwen3-0.6B", gpu_memory_utilization=0.5)     # vllm.LLM
    policy = AsyncVLLMPolicy("Qwen/Qwen3-0.6B")                             # vllm AsyncLLM
    policy.update_weights(model.named_parameters())                         # after a trainer step

Both take token ids (``TokensPrompt``) and return vLLM's sampled ids and log-probs as
`Completion`s. vLLM is imported only when a policy is built (the ``vllm`` extra).

Log-probs: vLLM reports the log-probs of its *raw* distribution by default (before
temperature, top-k and top-p). At temperature 1 without truncation that is the
distribution sampled from; otherwise build the engine with
``logprobs_mode="processed_logprobs"`` so the log-probs are those after the sampler's
processing.

Weight updates from a trainer in the same process go through ``LLM.apply_model``
(``collective_rpc`` for the async engine): each worker's model loads the given tensors
with its own ``load_weights`` (which knows how to map a Hugging Face state dict onto vLLM's
fused layers), then the prefix cache is reset so no stale KV is reused. With vLLM's V1
engine the workers live in other processes unless ``VLLM_ENABLE_V1_MULTIPROCESSING=0``; the
tensors are then sent by pickling, which needs ``VLLM_ALLOW_INSECURE_SERIALIZATION=1``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from palaestra.agents.batching import RowBatcher
from palaestra.agents.policy import Completion, PolicyError, Request, SamplingParams, check_requests
from palaestra.errors import require


def vllm_sampling_params(
    params: SamplingParams, *, n: int | None = None, final_only: bool = False
) -> Any:
    """Our `SamplingParams` as vLLM's (one log-prob per token, stop strings kept in the output)."""
    vllm = require("vllm", "vllm", "the vLLM policy")
    kwargs: dict[str, Any] = dict(
        n=params.n if n is None else n,
        temperature=params.temperature,
        top_p=params.top_p,
        top_k=params.top_k if params.top_k > 0 else -1,
        max_tokens=params.max_tokens,
        stop=list(params.stop) or None,
        stop_token_ids=list(params.stop_token_ids) or None,
        seed=params.seed,
        logprobs=0,
        include_stop_str_in_output=True,
        skip_special_tokens=False,
    )
    if final_only:
        from vllm.sampling_params import RequestOutputKind

        kwargs["output_kind"] = RequestOutputKind.FINAL_ONLY
    return vllm.SamplingParams(**kwargs)


def completion_from_vllm(output: Any) -> Completion:
    """A vLLM ``CompletionOutput`` as a `Completion`.

    ``output.logprobs`` holds, per sampled token, a mapping from token id to an object
    with a ``logprob`` attribute (vLLM's ``Logprob``); the sampled token is always in it.
    """
    ids = [int(t) for t in output.token_ids]
    entries = output.logprobs
    logprobs: list[float] = []
    if entries is None:
        logprobs = [math.nan] * len(ids)
    else:
        if len(entries) != len(ids):
            raise PolicyError(f"vLLM returned {len(entries)} log-probs for {len(ids)} tokens")
        for token, entry in zip(ids, entries, strict=True):
            value = entry.get(token) if hasattr(entry, "get") else entry[token]
            logprobs.append(float(value.logprob if hasattr(value, "logprob") else value))
    finish = getattr(output, "finish_reason", None)
    reason = "length" if finish == "length" else "abort" if finish == "abort" else "stop"
    stop_reason = getattr(output, "stop_reason", None)
    return Completion(
        ids,
        logprobs,
        reason,
        stop_reason if isinstance(stop_reason, (str, int)) else None,
        text=getattr(output, "text", None),
    )


def _tokens_prompt(prompt_ids: Sequence[int]) -> Any:
    vllm = require("vllm", "vllm", "the vLLM policy")
    return vllm.TokensPrompt(prompt_token_ids=list(prompt_ids))


class VLLMPolicy:
    """vLLM's offline engine (``vllm.LLM``), with requests from concurrent episodes batched.

    Args:
        model: A model name or path (an ``LLM`` is built with ``engine_kwargs``), or an
            existing ``vllm.LLM``.
        max_batch_size: Requests per ``LLM.generate`` call at most (vLLM schedules within).
        batch_wait_s: How long to wait for more requests after the first.
        **engine_kwargs: Arguments for ``vllm.LLM`` (``gpu_memory_utilization``, ``dtype``,
            ``logprobs_mode``, ...).
    """

    def __init__(
        self,
        model: str | Any,
        *,
        max_batch_size: int = 1024,
        batch_wait_s: float = 0.0,
        **engine_kwargs: Any,
    ):
        vllm = require("vllm", "vllm", "the vLLM policy")
        if isinstance(model, str):
            self.llm = vllm.LLM(model=model, **engine_kwargs)
        else:
            if engine_kwargs:
                raise TypeError(
                    "engine_kwargs configure a new engine; they cannot apply to an existing LLM"
                )
            self.llm = model
        self._batcher: RowBatcher[Request] = RowBatcher(
            self._run, max_batch_size, batch_wait_s, "palaestra-vllm"
        )

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Completes every request (``n`` completions each)."""
        check_requests(requests)
        flat = await self._batcher.submit([row for request in requests for row in _split(request)])
        out, start = [], 0
        for request in requests:
            out.append(flat[start : start + request.params.n])
            start += request.params.n
        return out

    def _run(self, rows: list[Request]) -> list[Completion]:
        prompts = [_tokens_prompt(row.prompt_ids) for row in rows]
        params = [vllm_sampling_params(row.params, n=1) for row in rows]
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        return [completion_from_vllm(output.outputs[0]) for output in outputs]

    def update_weights(self, named_tensors: Iterable[tuple[str, Any]]) -> None:
        """Loads new weights (Hugging Face names) into every worker; resets the prefix cache."""
        weights = [(name, tensor.detach()) for name, tensor in named_tensors]

        def load(model: Any) -> None:
            model.load_weights(weights)

        self.llm.apply_model(load)
        self.llm.reset_prefix_cache()

    async def aclose(self) -> None:
        """Stops the running loop's batch worker (the engine stays up)."""
        await self._batcher.aclose()

    def close(self) -> None:
        """Stops the batch thread."""
        self._batcher.close()


def _split(request: Request) -> list[Request]:
    """One single-sample request per completion; seeds per sample from ``SeedSequence``."""
    params = request.params
    rows = []
    for k in range(params.n):
        seed = (
            None
            if params.seed is None
            else int(np.random.SeedSequence([params.seed, k]).generate_state(1)[0] >> 1)
        )
        rows.append(Request(request.prompt_ids, params.replace(n=1, seed=seed)))
    return rows


class AsyncVLLMPolicy:
    """vLLM's async engine (``AsyncLLM``): every request streams into its continuous batching.

    Args:
        model: A model name or path (an engine is built from ``AsyncEngineArgs`` with
            ``engine_kwargs``), or an existing ``AsyncLLM``.
        **engine_kwargs: Arguments for ``vllm.AsyncEngineArgs``.
    """

    def __init__(self, model: str | Any, **engine_kwargs: Any):
        vllm = require("vllm", "vllm", "the vLLM policy")
        if isinstance(model, str):
            from vllm.v1.engine.async_llm import AsyncLLM

            self.engine = AsyncLLM.from_engine_args(
                vllm.AsyncEngineArgs(model=model, **engine_kwargs)
            )
        else:
            if engine_kwargs:
                raise TypeError(
                    "engine_kwargs configure a new engine; they cannot apply to an existing engine"
                )
            self.engine = model
        self._ids = itertools.count()

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Completes every request (``n`` completions each)."""
        import asyncio

        check_requests(requests)
        return list(await asyncio.gather(*(self._one(request) for request in requests)))

    async def _one(self, request: Request) -> list[Completion]:
        params = vllm_sampling_params(request.params, final_only=True)
        final = None
        async for output in self.engine.generate(
            _tokens_prompt(request.prompt_ids), params, request_id=f"palaestra-{next(self._ids)}"
        ):
            final = output
        if final is None:
            raise PolicyError("the vLLM engine returned nothing for a request")
        return [completion_from_vllm(o) for o in sorted(final.outputs, key=lambda o: o.index)]

    async def update_weights(self, named_tensors: Iterable[tuple[str, Any]]) -> None:
        """Waits for running requests, loads new weights into every worker, resets the cache."""
        weights = [(name, tensor.detach().cpu()) for name, tensor in named_tensors]

        def load(worker: Any) -> None:
            worker.model_runner.model.load_weights(weights)

        await self.engine.pause_generation(mode="wait")
        try:
            await self.engine.collective_rpc(load)
            await self.engine.reset_prefix_cache()
        finally:
            await self.engine.resume_generation()

    def close(self) -> None:
        """Shuts the engine down."""
        self.engine.shutdown()
