"""Scripted policies behind the token protocol: oracle, random, replay, and added latency.

They answer `Policy.generate` like a model would, with token ids through a tokenizer, so
tests and benchmarks exercise the whole path (templating, masks, tool calls, the engine)
without a model:

* `OraclePolicy` plays each env's `oracle_action()`, tokenized as the template shows it.
* `RandomPolicy` samples random tokens from a seeded generator.
* `ReplayPolicy` replays recorded turns (actions, or exact ids and log-probs of episodes).
* `LatencyPolicy` wraps another policy and waits a fixed time per call (a simulated
  server), for benchmarks against the policy-bound ideal.

Their log-probs are those of the scripted choice: 0.0 (probability one) for the oracle
and replayed actions, uniform for random tokens.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.agents.chat import ChatFormatter
from palaestra.agents.policy import Completion, Policy, PolicyError, Request, check_requests

if TYPE_CHECKING:
    from palaestra.agents.rollout import Episode


def _fit(
    ids: list[int], logprobs: list[float], max_tokens: int, text: str | None = None
) -> Completion:
    """A completion cut to ``max_tokens`` (reported as ``"length"`` when cut)."""
    if len(ids) > max_tokens:
        return Completion(ids[:max_tokens], logprobs[:max_tokens], "length")
    return Completion(ids, logprobs, "stop", text=text)


class OraclePolicy:
    """Plays the env's oracle: ``env.oracle_action()``, tokenized as the template shows it.

    Args:
        formatter: The chat formatter of the tokenizer to speak through.
        threaded: Run ``oracle_action()`` in a worker thread (for oracles that search).
    """

    def __init__(self, formatter: ChatFormatter, *, threaded: bool = False):
        self.formatter = formatter
        self.threaded = threaded

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """One oracle turn per request (``n`` identical copies)."""
        check_requests(requests)
        out = []
        for request in requests:
            context = request.context
            if context is None or context.env is None:
                raise ValueError(
                    "OraclePolicy needs each request's context to name its env; run it through "
                    "the rollout engine, which passes the context"
                )
            env = context.env
            action = (
                await asyncio.to_thread(env.oracle_action) if self.threaded else env.oracle_action()
            )
            ids = self.formatter.action_ids(action, context.tools or None)
            completion = _fit(ids, [0.0] * len(ids), request.params.max_tokens)
            out.append([dataclasses.replace(completion) for _ in range(request.params.n)])
        return out


class RandomPolicy:
    """Random tokens: a uniform length, uniform non-special tokens, then the end token.

    Args:
        formatter: The chat formatter (gives the vocabulary and the end token).
        max_length: Longest random completion, in tokens (before the end token).
        seed: Seeds the policy's generator (a request's own ``params.seed`` wins).
    """

    def __init__(self, formatter: ChatFormatter, *, max_length: int = 32, seed: int | None = None):
        if not isinstance(max_length, int) or max_length < 1:
            raise ValueError(f"max_length must be a positive integer, got {max_length!r}")
        self.formatter = formatter
        self.max_length = max_length
        special = set(getattr(formatter.tokenizer, "all_special_ids", []) or []) | set(
            formatter.stop_ids
        )
        self.vocabulary = np.array([i for i in range(len(formatter.tokenizer)) if i not in special])
        self.rng = np.random.default_rng(np.random.SeedSequence(seed))
        self.logprob = -math.log(len(self.vocabulary))

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """``n`` random completions per request."""
        check_requests(requests)
        out = []
        for request in requests:
            params = request.params
            rng = (
                self.rng
                if params.seed is None
                else np.random.default_rng(np.random.SeedSequence(params.seed))
            )
            completions = []
            for _ in range(params.n):
                length = int(rng.integers(1, self.max_length + 1))
                ids = [int(t) for t in rng.choice(self.vocabulary, size=length)] + [
                    self.formatter.eot_id
                ]
                completions.append(_fit(ids, [self.logprob] * len(ids), params.max_tokens))
            out.append(completions)
        return out


Turn = Any  # an Action (str or assistant message) or a Completion (exact ids)


class ReplayPolicy:
    """Replays recorded turns: turn ``t`` of an episode is answered with recording ``t``.

    Args:
        turns: One recording for every episode (a list of turns), or recordings per
            episode keyed by ``(group_id, sample_index)``. A turn is an action (a string or
            an assistant message, tokenized through ``formatter``) or a `Completion` (its
            exact ids and log-probs).
        formatter: Needed when turns are actions.

    Raises:
        PolicyError: (from `generate`) an episode asks for a turn that was not recorded.
    """

    def __init__(
        self,
        turns: Sequence[Turn] | Mapping[tuple[str, int], Sequence[Turn]],
        formatter: ChatFormatter | None = None,
    ):
        self.turns = turns
        self.formatter = formatter
        recordings = turns.values() if isinstance(turns, Mapping) else [turns]
        needs_formatter = any(not isinstance(t, Completion) for r in recordings for t in r)
        if needs_formatter and formatter is None:
            raise ValueError("ReplayPolicy needs a formatter to tokenize recorded actions")

    @classmethod
    def from_episodes(cls, episodes: Sequence[Episode]) -> ReplayPolicy:
        """Replays episodes exactly (their sampled ids, log-probs and finish reasons)."""
        recordings: dict[tuple[str, int], list[Completion]] = {}
        for episode in episodes:
            recordings[episode.key] = [
                Completion(
                    episode.completion_ids[start:end],
                    episode.logprobs[start:end],
                    episode.finish_reasons[index]
                    if index < len(episode.finish_reasons)
                    else "stop",
                )
                for index, (start, end) in enumerate(episode.turn_spans)
            ]
        return cls(recordings)

    def _recording(self, request: Request) -> Sequence[Turn]:
        if not isinstance(self.turns, Mapping):
            return self.turns
        key = request.context.episode_key if request.context else None
        if key not in self.turns:
            raise PolicyError(f"ReplayPolicy has no recording for episode {key!r}")
        return self.turns[key]

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """The recorded turn of each request's episode (``n`` copies)."""
        check_requests(requests)
        out = []
        for request in requests:
            recording = self._recording(request)
            turn = request.context.turn if request.context else 0
            if turn >= len(recording):
                raise PolicyError(
                    f"the recording has {len(recording)} turns; turn {turn} was asked for"
                )
            item = recording[turn]
            if isinstance(item, Completion):
                completion = _fit(
                    list(item.token_ids), list(item.logprobs), request.params.max_tokens
                )
                if completion.finish_reason == "stop":
                    completion.finish_reason = item.finish_reason
            else:
                tools = request.context.tools if request.context else ()
                ids = self.formatter.action_ids(item, tools or None)
                completion = _fit(ids, [0.0] * len(ids), request.params.max_tokens)
            out.append([dataclasses.replace(completion) for _ in range(request.params.n)])
        return out


class LatencyPolicy:
    """Waits ``latency_s`` per `generate` call, then asks ``inner`` (a simulated server).

    Args:
        inner: The policy that answers.
        latency_s: Seconds per call.
    """

    def __init__(self, inner: Policy, latency_s: float):
        if not isinstance(latency_s, (int, float)) or latency_s < 0:
            raise ValueError(f"latency_s must be a number >= 0, got {latency_s!r}")
        self.inner = inner
        self.latency_s = float(latency_s)
        self.calls = 0

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Sleeps, then completes the requests with the inner policy."""
        self.calls += 1
        await asyncio.sleep(self.latency_s)
        return await self.inner.generate(requests)
