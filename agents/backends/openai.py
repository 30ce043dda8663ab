"""A policy served by any OpenAI-compatible HTTP server (vLLM, SGLang, TGI, llama.cpp, ...).

    policy = OpenAIPolicy("http://localhost:8000/v1", "my-model", tokenizer=tokenizer)

Two endpoints:

* ``endpoint="completions"`` (the default) sends the exact prompt token ids
  (``"prompt": [ids]``), so the episode stays token in / token out;
* ``endpoint="chat"`` sends the episode's messages and tools (from the request's
  `TurnContext`) and lets the server template them; the server's template then decides
  the prompt tokens, and a server-side tool parser may return native ``tool_calls``, which
  become the action.

Token ids and log-probs come back where the server offers them. With
``vllm_extensions=True`` (the default) the request asks vLLM for them
(``return_token_ids``, ``return_tokens_as_token_ids``, ``skip_special_tokens=False``,
``include_stop_str_in_output``); servers without them answer with text, which is then
re-tokenized with ``tokenizer`` and flagged ``Completion.retokenized`` (the ids may differ
from what was sampled; log-probs missing from the answer are NaN).

Calls are bounded (``max_concurrency`` in flight), timed out (``timeout_s``), and retried
with jittered exponential backoff on connection errors, timeouts, truncated or unreadable
replies, 429 (honouring ``Retry-After``) and 5xx; other 4xx answers fail at once. A call
that still fails raises `PolicyError`, which masks the episode.
"""

from __future__ import annotations

import asyncio
import json
import math
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from palaestra.agents.policy import Completion, PolicyError, Request, check_requests

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_TOKEN_ID_PREFIX = "token_id:"


class _Client:
    def __init__(self, client: Any, semaphore: asyncio.Semaphore):
        self.client = client
        self.semaphore = semaphore


class OpenAIPolicy:
    """Completes requests through an OpenAI-compatible server with httpx.

    Args:
        base_url: The API root, e.g. ``"http://localhost:8000/v1"``.
        model: The model name the server knows.
        endpoint: ``"completions"`` (token ids in) or ``"chat"`` (messages in).
        tokenizer: Re-tokenizes text when the server returns no token ids.
        api_key: Sent as a bearer token.
        max_concurrency: Requests in flight at once.
        timeout_s: Seconds for one HTTP request (connect, read and write).
        max_retries: Retries after the first attempt.
        backoff_s: The first retry's delay; it doubles each time (with jitter).
        max_backoff_s: The longest delay between retries.
        vllm_extensions: Ask for token ids and exact stop handling with vLLM's extra fields.
        extra_body: More fields for every request body.
        seed: Seeds the retry jitter.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        endpoint: str = "completions",
        tokenizer: Any = None,
        api_key: str | None = None,
        max_concurrency: int = 64,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        vllm_extensions: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ):
        if endpoint not in ("completions", "chat"):
            raise ValueError(f"endpoint must be 'completions' or 'chat', got {endpoint!r}")
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if timeout_s <= 0 or backoff_s < 0 or max_backoff_s < 0:
            raise ValueError("timeout_s must be > 0; backoff_s and max_backoff_s >= 0")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.endpoint = endpoint
        self.tokenizer = tokenizer
        self.api_key = api_key
        self.max_concurrency = max_concurrency
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.vllm_extensions = vllm_extensions
        self.extra_body = dict(extra_body or {})
        self.rng = np.random.default_rng(np.random.SeedSequence(seed))
        self.retries = 0
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Client] = (
            weakref.WeakKeyDictionary()
        )

    # --- the protocol --------------------------------------------------------------------

    async def generate(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Completes every request, concurrently."""
        check_requests(requests)
        return list(await asyncio.gather(*(self._one(request) for request in requests)))

    async def aclose(self) -> None:
        """Closes the running loop's HTTP client (a later call opens a new one)."""
        holder = self._clients.pop(asyncio.get_running_loop(), None)
        if holder is not None:
            await holder.client.aclose()

    # --- one request ---------------------------------------------------------------------

    def _client(self) -> _Client:
        import httpx

        loop = asyncio.get_running_loop()
        holder = self._clients.get(loop)
        if holder is None:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=headers,
                timeout=httpx.Timeout(self.timeout_s),
                limits=httpx.Limits(
                    max_connections=self.max_concurrency,
                    max_keepalive_connections=self.max_concurrency,
                ),
            )
            holder = _Client(client, asyncio.Semaphore(self.max_concurrency))
            self._clients[loop] = holder
        return holder

    def _body(self, request: Request) -> tuple[str, dict[str, Any]]:
        params = request.params
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "n": params.n,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if params.seed is not None:
            body["seed"] = params.seed
        if self.vllm_extensions:
            body.update(
                return_token_ids=True,
                return_tokens_as_token_ids=True,
                skip_special_tokens=False,
                include_stop_str_in_output=True,
            )
            if params.top_k:
                body["top_k"] = params.top_k
            if params.stop_token_ids:
                body["stop_token_ids"] = list(params.stop_token_ids)
        if self.endpoint == "completions":
            body.update(prompt=list(request.prompt_ids), logprobs=1)
            path = "/completions"
        else:
            context = request.context
            if context is None or not context.messages:
                raise ValueError(
                    "the chat endpoint needs the conversation: requests must carry a TurnContext "
                    "with messages (the rollout engine adds it)"
                )
            body.update(messages=[dict(m) for m in context.messages], logprobs=True)
            if context.tools:
                body["tools"] = [dict(t) for t in context.tools]
            path = "/chat/completions"
        body.update(self.extra_body)
        return path, body

    async def _one(self, request: Request) -> list[Completion]:
        path, body = self._body(request)
        payload = await self._post(path, body)
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices:
            raise PolicyError(f"the server's answer has no choices: {str(payload)[:200]}")
        choices = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
        completions = [self._completion(choice) for choice in choices]
        if len(completions) != request.params.n:
            raise PolicyError(
                f"asked for {request.params.n} completions, the server returned {len(completions)}"
            )
        return completions

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        import httpx

        holder = self._client()
        last_error = "no attempt was made"
        for attempt in range(self.max_retries + 1):
            delay: float | None = None
            try:
                async with holder.semaphore:
                    response = await holder.client.post(path, json=body)
                if response.status_code == 200:
                    try:
                        payload = response.json()
                    except (json.JSONDecodeError, UnicodeDecodeError) as e:
                        last_error = f"unreadable reply ({type(e).__name__}: {e})"
                    else:
                        if isinstance(payload, dict):
                            return payload
                        last_error = f"the reply is {type(payload).__name__}, not an object"
                elif response.status_code in RETRY_STATUS:
                    last_error = f"HTTP {response.status_code}: {response.text[:200]}"
                    delay = _retry_after(response.headers.get("retry-after"))
                else:
                    raise PolicyError(
                        f"the server refused the request (HTTP {response.status_code}): "
                        f"{response.text[:300]}"
                    )
            except httpx.TimeoutException as e:
                last_error = f"timed out after {self.timeout_s} s ({type(e).__name__})"
            except httpx.TransportError as e:
                last_error = f"{type(e).__name__}: {e}"
            if attempt == self.max_retries:
                break
            self.retries += 1
            if delay is None:
                delay = min(self.max_backoff_s, self.backoff_s * 2**attempt) * (
                    0.5 + float(self.rng.random())
                )
            await asyncio.sleep(min(delay, self.max_backoff_s))
        raise PolicyError(
            f"{self.base_url}{path} failed after {self.max_retries + 1} attempts: {last_error}"
        )

    # --- reading answers -------------------------------------------------------------------

    def _completion(self, choice: Any) -> Completion:
        if not isinstance(choice, dict):
            raise PolicyError(f"a choice must be an object, got {type(choice).__name__}")
        finish = choice.get("finish_reason")
        reason = "length" if finish == "length" else "abort" if finish == "abort" else "stop"
        logprob_entries: list[Any] = []
        message: dict[str, Any] | None = None
        if self.endpoint == "completions":
            text = choice.get("text") or ""
            block = choice.get("logprobs") or {}
            tokens = block.get("tokens") or []
            values = block.get("token_logprobs") or []
            pairs = zip(tokens, values, strict=False)
            logprob_entries = [{"token": t, "logprob": v} for t, v in pairs]
        else:
            raw = choice.get("message") or {}
            text = raw.get("content") or ""
            if raw.get("tool_calls"):
                message = {
                    "role": "assistant",
                    "content": raw.get("content"),
                    "tool_calls": raw["tool_calls"],
                }
            logprob_entries = list((choice.get("logprobs") or {}).get("content") or [])
        ids = choice.get("token_ids")
        retokenized = False
        if not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
            ids = _ids_from_tokens(logprob_entries)
        if ids is None:
            if self.tokenizer is None:
                raise PolicyError(
                    "the server returned no token ids; pass tokenizer= to re-tokenize its text "
                    "(the ids may then differ from what was sampled)"
                )
            ids = list(self.tokenizer.encode(text, add_special_tokens=False))
            retokenized = True
        logprobs = [
            float(entry["logprob"])
            if isinstance(entry, dict) and entry.get("logprob") is not None
            else math.nan
            for entry in logprob_entries
        ]
        if len(logprobs) != len(ids):
            logprobs = [math.nan] * len(ids)
        stop_reason = choice.get("stop_reason")
        return Completion(
            list(ids),
            logprobs,
            reason,
            stop_reason if isinstance(stop_reason, (str, int)) else None,
            text=text,
            message=message,
            retokenized=retokenized,
        )


def _ids_from_tokens(entries: Sequence[Any]) -> list[int] | None:
    """Token ids from vLLM's ``token_id:N`` token strings, if every entry has one."""
    if not entries:
        return None
    ids = []
    for entry in entries:
        token = entry.get("token") if isinstance(entry, dict) else None
        if not isinstance(token, str) or not token.startswith(_TOKEN_ID_PREFIX):
            return None
        try:
            ids.append(int(token[len(_TOKEN_ID_PREFIX) :]))
        except ValueError:
            return None
    return ids


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
