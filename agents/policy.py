"""The policy protocol: token ids in, token ids and log-probs out, async and batched.

Every backend (Hugging Face transformers, vLLM, an OpenAI-compatible server, scripted
policies) answers the same call:

    completions = await policy.generate([Request(prompt_ids, SamplingParams(n=4))])
    completions[0][k].token_ids, completions[0][k].logprobs, completions[0][k].finish_reason

A `Request` holds the exact prompt token ids (the rollout engine builds them once and only
ever extends them) and may carry a `TurnContext` naming the episode it belongs to: model
backends ignore it, scripted policies read the env from it, and the chat endpoint of an
HTTP server reads the messages from it.

Log-probs are those of the sampled tokens under the distribution they were drawn from:
``log_softmax(logits / temperature)`` before top-p/top-k truncation (``temperature`` 0
counts as 1). That is what a trainer recomputes with a forward pass.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from palaestra.errors import InfrastructureError

if TYPE_CHECKING:
    from palaestra.core import Env, Message, Wrapper

FinishReason = Literal["stop", "length", "abort"]
"""Why a completion ended: an end or stop token/string, the token limit, or an abort."""


class PolicyError(InfrastructureError):
    """A policy backend failed (server unreachable, engine dead, timeouts after retries).

    The rollout engine masks the episode: it is not the model's fault.
    """


@dataclasses.dataclass(frozen=True)
class SamplingParams:
    """How to sample one completion.

    Attributes:
        temperature: Softmax temperature; 0 means greedy.
        top_p: Nucleus sampling mass, in (0, 1].
        top_k: Keep the k most likely tokens (0: all).
        max_tokens: Most tokens generated per completion.
        stop: Strings that end the completion (they stay in the sampled tokens).
        stop_token_ids: Extra token ids that end the completion (the end-of-turn and end
            of text tokens always do).
        n: Completions per prompt.
        seed: Seeds this request's sampling (backends that support it); None uses the
            backend's own stream.
    """

    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    stop_token_ids: tuple[int, ...] = ()
    n: int = 1
    seed: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        object.__setattr__(self, "stop", tuple(self.stop))
        object.__setattr__(self, "stop_token_ids", tuple(int(t) for t in self.stop_token_ids))
        if (
            not isinstance(self.temperature, (int, float))
            or not math.isfinite(self.temperature)
            or self.temperature < 0
        ):
            raise ValueError(f"temperature must be a finite number >= 0, got {self.temperature!r}")
        if not isinstance(self.top_p, (int, float)) or not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p!r}")
        if not isinstance(self.top_k, int) or self.top_k < 0:
            raise ValueError(
                f"top_k must be an integer >= 0 (0 keeps every token), got {self.top_k!r}"
            )
        if not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, got {self.max_tokens!r}")
        if not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n must be a positive integer, got {self.n!r}")
        if not all(isinstance(s, str) and s for s in self.stop):
            raise ValueError(f"stop must hold non-empty strings, got {self.stop!r}")
        if self.seed is not None and (not isinstance(self.seed, int) or self.seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {self.seed!r}")

    @property
    def greedy(self) -> bool:
        """True when sampling picks the most likely token."""
        return self.temperature == 0

    def replace(self, **changes: Any) -> SamplingParams:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class TurnContext:
    """What a request knows about the episode it belongs to.

    Model backends ignore it. Scripted policies act from ``env``; the chat endpoint of an
    HTTP backend sends ``messages`` and ``tools``.

    Attributes:
        env: The env of the episode (wrapped as `palaestra.make` returned it).
        messages: The conversation so far (observations and actions).
        tools: The env's tool schemas.
        turn: The index of the turn being generated (0 for the first).
        episode_key: ``(group_id, sample_index)`` of the episode.
    """

    env: Env | Wrapper | None = None
    messages: tuple[Message, ...] = ()
    tools: tuple[dict[str, Any], ...] = ()
    turn: int = 0
    episode_key: tuple[str, int] | None = None


@dataclasses.dataclass(frozen=True)
class Request:
    """One prompt to complete.

    Attributes:
        prompt_ids: The exact token ids of the prompt.
        params: How to sample.
        context: The episode it belongs to, if any.
    """

    prompt_ids: Sequence[int]
    params: SamplingParams = SamplingParams()
    context: TurnContext | None = None


@dataclasses.dataclass
class Completion:
    """One sampled completion.

    Attributes:
        token_ids: The sampled token ids, including the end token when one was sampled.
        logprobs: The log-prob of each sampled token (same length as ``token_ids``).
        finish_reason: ``"stop"`` (an end token, stop token or stop string), ``"length"``
            (``max_tokens`` reached) or ``"abort"``.
        stop_reason: The stop string or token id that ended it, when known.
        text: The decoded text, when the backend has it (informational).
        message: The assistant message, when the backend parsed one (a chat endpoint
            returning native ``tool_calls``); the rollout engine then sends it as the
            action instead of decoding ``token_ids``.
        retokenized: True when the ids were not returned by the sampler but rebuilt by
            tokenizing text (a server that does not return token ids): they may differ
            from what was sampled.
    """

    token_ids: list[int]
    logprobs: list[float]
    finish_reason: FinishReason = "stop"
    stop_reason: str | int | None = None
    text: str | None = None
    message: dict[str, Any] | None = None
    retokenized: bool = False

    def __post_init__(self) -> None:
        if len(self.token_ids) != len(self.logprobs):
            raise ValueError(
                f"a completion needs one log-prob per token: {len(self.token_ids)} tokens, "
                f"{len(self.logprobs)} log-probs"
            )
        if self.finish_reason not in ("stop", "length", "abort"):
            raise ValueError(
                f"finish_reason must be 'stop', 'length' or 'abort', got {self.finish_reason!r}"
            )


@runtime_checkable
class Policy(Protocol):
    """Anything that completes token-id prompts.

    `generate` returns, for each request, ``request.params.n`` completions. It raises
    `PolicyError` when the backend fails (the rollout engine masks those episodes).
    """

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Completes every request."""
        ...


def check_requests(requests: Sequence[Request]) -> None:
    """Validates a batch of requests (shared by the backends).

    Raises:
        TypeError: A request is not a `Request` or its prompt is not a list of ints.
        ValueError: A prompt is empty.
    """
    if isinstance(requests, Request):
        raise TypeError("generate() takes a sequence of Requests; wrap a single one in a list")
    for request in requests:
        if not isinstance(request, Request):
            raise TypeError(f"generate() takes Requests, got {type(request).__name__}")
        if len(request.prompt_ids) == 0:
            raise ValueError("a request's prompt_ids are empty; template the conversation first")
