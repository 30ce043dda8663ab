"""A Hugging Face transformers policy: batched sampling with per-token log-probs (CPU works).

    policy = HFPolicy(model, tokenizer, max_batch_size=32, seed=0)
    completions = await policy.generate([Request(prompt_ids, SamplingParams(n=4))])

Requests from concurrent episodes are gathered into batches (`RowBatcher`): whatever is
queued (up to ``max_batch_size`` rows) runs as one left-padded batch on a dedicated thread,
so the event loop keeps running while the model works. Sampling is a plain decode loop over
the model's forward with a KV cache:

* rows with the same prompt (a request's ``n`` samples) share one prefill of the cache;
* temperature, top-p and top-k per row; greedy when the temperature is 0; tokens are drawn
  by inverse CDF (one uniform per row);
* the log-prob reported for a token is ``log_softmax(logits / T)`` at that token (T = 1
  when greedy), before top-p/top-k truncation: what `token_logprobs` recomputes;
* stop tokens (the model's end tokens and the request's), stop strings (checked on the
  decoded tail) and ``max_tokens`` end a row, which is then dropped from the batch;
* randomness comes from the policy's own `torch.Generator` (or a per-request seed), never
  from torch's global generator.

The model is used in place: a trainer in the same process that updates its parameters
changes what the policy samples next (do not step the optimizer during a rollout).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.agents.batching import RowBatcher
from palaestra.agents.policy import Completion, Request, SamplingParams, check_requests
from palaestra.errors import require


@dataclasses.dataclass
class _Row:
    prompt: list[int]
    params: SamplingParams
    seed: int | None


class HFPolicy:
    """Samples from a `transformers` causal LM, batching concurrent requests.

    Args:
        model: A causal LM (e.g. `palaestra.agents.tiny.tiny_model()`), used in place.
        tokenizer: Its tokenizer (needed for stop strings).
        max_batch_size: Rows per forward pass at most.
        batch_wait_s: How long the batch worker waits for more requests after the first
            (0 waits one event-loop turn, enough for every ready episode to join).
        seed: Seeds the policy's generator (None draws fresh entropy).
        stop_token_ids: Tokens that end every completion, besides the model's
            ``eos_token_id`` (its generation config's).
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        max_batch_size: int = 32,
        batch_wait_s: float = 0.0,
        seed: int | None = None,
        stop_token_ids: Sequence[int] = (),
    ):
        torch = require("torch", "torch", "the transformers policy")
        if not isinstance(max_batch_size, int) or max_batch_size < 1:
            raise ValueError(f"max_batch_size must be a positive integer, got {max_batch_size!r}")
        if batch_wait_s < 0:
            raise ValueError(f"batch_wait_s must be >= 0, got {batch_wait_s!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.max_batch_size = max_batch_size
        self.batch_wait_s = float(batch_wait_s)
        self.device = next(model.parameters()).device
        config = model.config
        pad = getattr(tokenizer, "pad_token_id", None) if tokenizer is not None else None
        self.pad_id = int(pad if pad is not None else (getattr(config, "pad_token_id", None) or 0))
        eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        if eos is None:
            eos = getattr(config, "eos_token_id", None)
        eos_ids = [eos] if isinstance(eos, int) else list(eos or [])
        self.stop_ids = frozenset(int(t) for t in [*eos_ids, *stop_token_ids])
        self.max_positions = int(getattr(config, "max_position_embeddings", 1 << 30))
        entropy = np.random.SeedSequence(seed).generate_state(2)
        self._generator = torch.Generator(device=self.device).manual_seed(
            int(entropy[0]) << 32 | int(entropy[1])
        )
        self._batcher: RowBatcher[_Row] = RowBatcher(
            self._decode, max_batch_size, batch_wait_s, "palaestra-hf"
        )

    # --- the protocol --------------------------------------------------------------------

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Completes every request (``n`` rows each), batched with concurrent calls."""
        check_requests(requests)
        rows = [self._rows(request) for request in requests]
        flat = await self._batcher.submit([row for group in rows for row in group])
        out, start = [], 0
        for group in rows:
            out.append(flat[start : start + len(group)])
            start += len(group)
        return out

    def generate_sync(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """The blocking twin of `generate` (batched by ``max_batch_size``)."""
        check_requests(requests)
        rows = [
            (index, row) for index, request in enumerate(requests) for row in self._rows(request)
        ]
        results: list[list[Completion]] = [[] for _ in requests]
        for start in range(0, len(rows), self.max_batch_size):
            chunk = rows[start : start + self.max_batch_size]
            completions = self._decode([row for _, row in chunk])
            for (index, _), completion in zip(chunk, completions, strict=True):
                results[index].append(completion)
        return results

    async def aclose(self) -> None:
        """Stops the running loop's batch worker (the model stays loaded)."""
        await self._batcher.aclose()

    def close(self) -> None:
        """Stops the batch thread."""
        self._batcher.close()

    # --- rows ----------------------------------------------------------------------------

    def _rows(self, request: Request) -> list[_Row]:
        params = request.params
        if params.seed is None:
            seeds: list[int | None] = [None] * params.n
        else:
            seeds = [
                int(np.random.SeedSequence([params.seed, k]).generate_state(1)[0])
                for k in range(params.n)
            ]
        if len(request.prompt_ids) >= self.max_positions:
            raise ValueError(
                f"the prompt has {len(request.prompt_ids)} tokens; the model takes at most "
                f"{self.max_positions} positions"
            )
        return [_Row(list(request.prompt_ids), params, seed) for seed in seeds]

    # --- sampling ------------------------------------------------------------------------

    def _decode(self, rows: list[_Row]) -> list[Completion]:
        torch = require("torch", "torch", "the transformers policy")
        from transformers import DynamicCache

        with torch.inference_mode():
            batch = len(rows)
            # Rows with the same prompt (the n samples of a request) share one prefill; the
            # cache and the last logits are then copied to each of them.
            distinct: dict[tuple[int, ...], int] = {}
            inverse = [distinct.setdefault(tuple(r.prompt), len(distinct)) for r in rows]
            prompts = list(distinct)
            width = max(len(p) for p in prompts)
            input_ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
            attention = torch.zeros((len(prompts), width), dtype=torch.long)
            for i, prompt in enumerate(prompts):
                input_ids[i, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long)
                attention[i, width - len(prompt) :] = 1
            input_ids, attention = input_ids.to(self.device), attention.to(self.device)
            positions = (attention.cumsum(-1) - 1).clamp(min=0)
            cache = DynamicCache()
            out = self.model(
                input_ids=input_ids,
                attention_mask=attention,
                position_ids=positions,
                use_cache=True,
                logits_to_keep=1,
                **cache_argument(self.model, cache),
            )
            logits = out.logits[:, -1, :].float()
            if len(prompts) < batch:
                index = torch.tensor(inverse, dtype=torch.long, device=self.device)
                cache.batch_select_indices(index)
                logits, attention, positions = logits[index], attention[index], positions[index]
            sampler = _Sampler(rows, self._generator, self.device)
            tokens: list[list[int]] = [[] for _ in rows]
            logprobs: list[list[float]] = [[] for _ in rows]
            done: list[Completion | None] = [None] * batch
            active = list(range(batch))  # row index of each line of the batch
            last_position = positions[:, -1:]
            stop_texts = [r.params.stop for r in rows]
            tail_tokens = [
                max((len(s.encode("utf-8")) for s in stops), default=0) + 1 for stops in stop_texts
            ]
            while True:
                chosen, chosen_logprobs = sampler.sample(logits, active)
                keep = []
                for line, row_index in enumerate(active):
                    token, logprob = int(chosen[line]), float(chosen_logprobs[line])
                    tokens[row_index].append(token)
                    logprobs[row_index].append(logprob)
                    finished = self._finished(
                        rows[row_index],
                        tokens[row_index],
                        stop_texts[row_index],
                        tail_tokens[row_index],
                    )
                    if finished is not None:
                        reason, stop_reason = finished
                        done[row_index] = Completion(
                            tokens[row_index], logprobs[row_index], reason, stop_reason
                        )
                    else:
                        keep.append(line)
                if not keep:
                    break
                next_ids = chosen.view(-1, 1)
                if len(keep) < len(active):
                    index = torch.tensor(keep, dtype=torch.long, device=self.device)
                    cache.batch_select_indices(index)
                    attention, last_position, next_ids = (
                        attention[index],
                        last_position[index],
                        next_ids[index],
                    )
                    active = [active[line] for line in keep]
                    sampler.select(keep)
                attention = torch.cat([attention, attention.new_ones((len(active), 1))], dim=1)
                last_position = last_position + 1
                out = self.model(
                    input_ids=next_ids,
                    attention_mask=attention,
                    position_ids=last_position,
                    use_cache=True,
                    **cache_argument(self.model, cache),
                )
                logits = out.logits[:, -1, :].float()
        return [c for c in done if c is not None]

    def _finished(
        self, row: _Row, tokens: list[int], stops: tuple[str, ...], tail: int
    ) -> tuple[str, str | int | None] | None:
        token = tokens[-1]
        if token in self.stop_ids or token in row.params.stop_token_ids:
            return "stop", token
        if stops:
            text = self._decode_tail(tokens[-tail:])
            for stop in stops:
                if stop in text:
                    return "stop", stop
        if (
            len(tokens) >= row.params.max_tokens
            or len(row.prompt) + len(tokens) >= self.max_positions
        ):
            return "length", None
        return None

    def _decode_tail(self, ids: list[int]) -> str:
        if self.tokenizer is None:
            raise ValueError("stop strings need the policy's tokenizer: HFPolicy(model, tokenizer)")
        return self.tokenizer.decode(
            ids, skip_special_tokens=False, clean_up_tokenization_spaces=False
        )


class _Sampler:
    """Per-row temperature, top-p, top-k and seeds, vectorised over the live rows."""

    def __init__(self, rows: list[_Row], generator: Any, device: Any):
        import torch

        self.torch = torch
        self.generator = generator
        self.device = device
        self.temperature = torch.tensor(
            [r.params.temperature or 1.0 for r in rows], device=device
        ).view(-1, 1)
        self.greedy = torch.tensor([r.params.greedy for r in rows], device=device)
        self.top_p = torch.tensor([r.params.top_p for r in rows], device=device)
        self.top_k = torch.tensor([r.params.top_k for r in rows], device=device)
        self.generators = [
            torch.Generator(device=device).manual_seed(r.seed) if r.seed is not None else None
            for r in rows
        ]

    def select(self, keep: list[int]) -> None:
        """Keeps the given lines of the batch (rows that are still generating)."""
        index = self.torch.tensor(keep, dtype=self.torch.long, device=self.device)
        self.temperature, self.greedy = self.temperature[index], self.greedy[index]
        self.top_p, self.top_k = self.top_p[index], self.top_k[index]
        self.generators = [self.generators[line] for line in keep]

    def sample(self, logits: Any, active: list[int]) -> tuple[Any, Any]:
        """Draws one token per line; returns the tokens and their log-probs."""
        torch = self.torch
        scaled = logits / self.temperature
        logp = torch.log_softmax(scaled, dim=-1)
        filtered = scaled
        if bool((self.top_k > 0).any()):
            k_max = int(self.top_k.max())
            top = torch.topk(filtered, min(k_max, filtered.shape[-1]), dim=-1).values
            k = self.top_k.clamp(min=1, max=top.shape[-1]) - 1
            threshold = top.gather(1, k.view(-1, 1))
            threshold = torch.where(
                (self.top_k > 0).view(-1, 1), threshold, torch.full_like(threshold, -math.inf)
            )
            filtered = filtered.masked_fill(filtered < threshold, -math.inf)
        if bool((self.top_p < 1).any()):
            ordered, order = torch.sort(filtered, descending=True, dim=-1)
            probs = torch.softmax(ordered, dim=-1)
            before = probs.cumsum(dim=-1) - probs
            drop = before > self.top_p.view(-1, 1)
            filtered = filtered.scatter(1, order, ordered.masked_fill(drop, -math.inf))
        chosen = torch.argmax(logits, dim=-1)
        sampled_lines = [i for i in range(len(active)) if not bool(self.greedy[i])]
        if sampled_lines:
            # Inverse-CDF sampling: one uniform per line (from its own generator when it has
            # one), one cumulative sum and search for the batch; torch.multinomial costs
            # about 20x more on CPU. A token of probability 0 is never drawn.
            uniform = torch.empty((len(active), 1), device=self.device)
            shared = [i for i in sampled_lines if self.generators[i] is None]
            if shared:
                index = torch.tensor(shared, dtype=torch.long, device=self.device)
                uniform[index] = torch.rand(
                    (len(shared), 1), generator=self.generator, device=self.device
                )
            for i in sampled_lines:
                if self.generators[i] is not None:
                    uniform[i] = torch.rand(1, generator=self.generators[i], device=self.device)
            index = torch.tensor(sampled_lines, dtype=torch.long, device=self.device)
            cdf = torch.softmax(filtered[index], dim=-1).cumsum(dim=-1)
            drawn = torch.searchsorted(cdf, uniform[index] * cdf[:, -1:], right=True)
            chosen[index] = drawn.clamp(max=cdf.shape[-1] - 1).view(-1)
        return chosen, logp.gather(1, chosen.view(-1, 1)).view(-1)


def cache_argument(model: Any, cache: Any) -> dict[str, Any]:
    """The keyword argument that hands ``model`` a KV cache to fill and read.

    transformers renamed ``past_key_values`` to ``cache`` (the old name warns on every call
    and is going away); the model's own ``forward`` says which name it takes.
    """
    return {_cache_keyword(type(model)): cache}


@functools.cache
def _cache_keyword(model_class: type) -> str:
    parameters = inspect.signature(model_class.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def token_logprobs(
    model: Any,
    sequences: Sequence[Sequence[int]],
    *,
    temperature: float = 1.0,
    pad_id: int = 0,
    batch_size: int = 16,
) -> list[list[float]]:
    """Teacher-forced log-probs: ``out[i][t] = log p(seq[t] | seq[:t])`` (``out[i][0] = 0``).

    This is the forward pass a trainer runs over an episode; on the sampled positions it
    equals what `HFPolicy` reported when sampling at the same temperature.
    """
    torch = require("torch", "torch", "log-probs")
    if temperature <= 0:
        temperature = 1.0
    device = next(model.parameters()).device
    results: list[list[float]] = []
    with torch.inference_mode():
        for start in range(0, len(sequences), batch_size):
            chunk = [list(s) for s in sequences[start : start + batch_size]]
            width = max(len(s) for s in chunk)
            ids = torch.full((len(chunk), width), pad_id, dtype=torch.long)
            attention = torch.zeros((len(chunk), width), dtype=torch.long)
            for i, sequence in enumerate(chunk):
                ids[i, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
                attention[i, : len(sequence)] = 1
            ids, attention = ids.to(device), attention.to(device)
            logits = model(input_ids=ids, attention_mask=attention).logits.float()
            logp = torch.log_softmax(logits[:, :-1] / temperature, dim=-1)
            picked = logp.gather(2, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
            for i, sequence in enumerate(chunk):
                results.append([0.0, *picked[i, : len(sequence) - 1].tolist()])
    return results
