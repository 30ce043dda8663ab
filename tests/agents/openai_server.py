"""A small OpenAI-compatible server on loopback, serving a policy, with injectable failures.

It speaks ``/v1/completions`` (a prompt of token ids or text), ``/v1/chat/completions``
(messages and tools, templated with the tokenizer; Hermes tool calls parsed into native
``tool_calls``) and ``/v1/models``, with vLLM's extensions for token ids
(``return_token_ids``, ``return_tokens_as_token_ids``). Tests queue failures for the next
requests: ``"500"``, ``"429"``, ``"400"``, ``"hang"`` (answer after ``hang_s``),
``"truncate"`` (a reply cut short, then the connection closes) and ``"garbage"`` (200 with
a body that is not JSON).
"""

from __future__ import annotations

import collections
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from palaestra.agents.policy import Request, SamplingParams
from palaestra.parsers import get_parser


class _QuietServer(ThreadingHTTPServer):
    """Drops clients that hang up (a timed-out client is what the failure tests cause)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class PolicyServer:
    """Serves ``policy`` (an `HFPolicy`, used through `generate_sync`) on 127.0.0.1.

    Args:
        policy: The policy answering requests.
        tokenizer: Its tokenizer (for text prompts, chat templating and decoding).
        model_name: The name in ``/v1/models``.
        hang_s: How long a ``"hang"`` failure waits before answering.
    """

    def __init__(self, policy: Any, tokenizer: Any, model_name: str = "tiny", hang_s: float = 3.0):
        self.policy = policy
        self.tokenizer = tokenizer
        self.model_name = model_name
        self.hang_s = hang_s
        self.failures: collections.deque[str] = collections.deque()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._generate_lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                if self.path.rstrip("/") == "/v1/models":
                    self._send(
                        200,
                        {"object": "list", "data": [{"id": server.model_name, "object": "model"}]},
                    )
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "the body is not JSON"}})
                    return
                with server._lock:
                    server.requests.append((self.path, body))
                    failure = server.failures.popleft() if server.failures else None
                if failure is not None and self._fail(failure):
                    return
                try:
                    # One request at a time: the model and its tokenizer are not shared
                    # between threads.
                    if self.path == "/v1/completions":
                        with server._generate_lock:
                            payload = server.completions(body)
                    elif self.path == "/v1/chat/completions":
                        with server._generate_lock:
                            payload = server.chat(body)
                    else:
                        self._send(404, {"error": {"message": f"no route {self.path}"}})
                        return
                except (KeyError, TypeError, ValueError) as e:
                    self._send(400, {"error": {"message": f"{type(e).__name__}: {e}"}})
                    return
                self._send(200, payload)

            def _fail(self, failure: str) -> bool:
                if failure == "500":
                    self._send(500, {"error": {"message": "injected server error"}})
                elif failure == "429":
                    self._send(
                        429, {"error": {"message": "injected rate limit"}}, {"Retry-After": "0"}
                    )
                elif failure == "400":
                    self._send(400, {"error": {"message": "injected bad request"}})
                elif failure == "hang":
                    if server._stop.wait(server.hang_s):
                        self.close_connection = True  # the server is stopping: drop it
                        return True
                    return False
                elif failure == "truncate":
                    data = json.dumps({"choices": [{"text": "x" * 64}]}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                elif failure == "garbage":
                    data = b"<html>upstream error</html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                else:
                    raise ValueError(f"unknown failure {failure!r}")
                return True

            def _send(
                self, status: int, payload: Any, headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, name="policy-server", daemon=True
        )

    @property
    def base_url(self) -> str:
        """The API root, ``http://127.0.0.1:PORT/v1``."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def fail_next(self, *failures: str) -> None:
        """Queues failures for the next requests, in order."""
        with self._lock:
            self.failures.extend(failures)

    def start(self) -> PolicyServer:
        """Starts serving in a background thread."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stops serving (hanging handlers are released)."""
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    # --- endpoints -------------------------------------------------------------------------

    def _params(self, body: dict[str, Any]) -> SamplingParams:
        stop = body.get("stop") or ()
        return SamplingParams(
            temperature=float(body.get("temperature", 1.0)),
            top_p=float(body.get("top_p", 1.0)),
            top_k=max(0, int(body.get("top_k", 0) or 0)),
            max_tokens=int(body.get("max_tokens", 16)),
            stop=(stop,) if isinstance(stop, str) else tuple(stop),
            stop_token_ids=tuple(body.get("stop_token_ids") or ()),
            n=int(body.get("n", 1)),
            seed=body.get("seed"),
        )

    def _sample(self, prompt: list[int], params: SamplingParams):
        return self.policy.generate_sync([Request(prompt, params)])[0]

    def _decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(
            ids, skip_special_tokens=False, clean_up_tokenization_spaces=False
        )

    def completions(self, body: dict[str, Any]) -> dict[str, Any]:
        """``/v1/completions``."""
        prompt = body["prompt"]
        if isinstance(prompt, str):
            prompt = self.tokenizer.encode(prompt, add_special_tokens=False)
        if not isinstance(prompt, list) or not all(isinstance(t, int) for t in prompt):
            raise ValueError("prompt must be a string or a list of token ids")
        as_ids = bool(body.get("return_tokens_as_token_ids"))
        choices = []
        for index, completion in enumerate(self._sample(prompt, self._params(body))):
            tokens = [
                f"token_id:{t}" if as_ids else self._decode([t]) for t in completion.token_ids
            ]
            choice = {
                "index": index,
                "text": self._decode(completion.token_ids),
                "finish_reason": completion.finish_reason,
                "stop_reason": completion.stop_reason,
                "logprobs": {"tokens": tokens, "token_logprobs": completion.logprobs},
            }
            if body.get("return_token_ids"):
                choice["token_ids"] = completion.token_ids
            choices.append(choice)
        return {
            "id": f"cmpl-{len(self.requests)}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": choices,
        }

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """``/v1/chat/completions`` (Hermes tool calls become native ``tool_calls``)."""
        text = self.tokenizer.apply_chat_template(
            body["messages"], tools=body.get("tools"), add_generation_prompt=True, tokenize=False
        )
        prompt = self.tokenizer.encode(text, add_special_tokens=False)
        as_ids = bool(body.get("return_tokens_as_token_ids"))
        end_ids = set(self.policy.stop_ids)
        choices = []
        for index, completion in enumerate(self._sample(prompt, self._params(body))):
            visible = [t for t in completion.token_ids if t not in end_ids]
            content = self._decode(visible)
            message: dict[str, Any] = {"role": "assistant", "content": content}
            parsed = get_parser("hermes").parse({"role": "assistant", "content": content})
            if parsed.tool_calls:
                message = {
                    "role": "assistant",
                    "content": parsed.content or None,
                    "tool_calls": [c.to_openai() for c in parsed.tool_calls],
                }
            # OpenAI's schema requires top_logprobs on every entry (clients built on its
            # types, such as verifiers', refuse a reply without it).
            entries = [
                {
                    "token": f"token_id:{t}" if as_ids else self._decode([t]),
                    "logprob": lp,
                    "top_logprobs": [],
                }
                for t, lp in zip(completion.token_ids, completion.logprobs, strict=True)
            ]
            choice = {
                "index": index,
                "message": message,
                "finish_reason": "tool_calls" if parsed.tool_calls else completion.finish_reason,
                "logprobs": {"content": entries},
            }
            if body.get("return_token_ids"):
                choice["token_ids"] = completion.token_ids
            choices.append(choice)
        payload = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": choices,
        }
        if body.get("return_token_ids"):
            payload["prompt_token_ids"] = prompt
        return payload
