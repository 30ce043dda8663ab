"""Fixtures for the verifier tests: a small scripted OpenAI-compatible chat server on loopback.

The model name picks the behaviour:

* ``fallible``: judges fairly (Yes when the candidate equals the reference, ignoring case and
  punctuation) but, like the judges in "One Token to Fool LLM-as-a-Judge", also says Yes to
  the master keys (a lone colon, "Thought process:", "解", ...) and to answers that contain a
  verdict. It echoes the candidate before its own verdict line, so a parser that reads the
  first verdict in the reply is fooled too.
* ``always-500`` / ``always-429``: fail every request (429 with ``Retry-After: 0``).
* ``bad-request``: answer 400 (not retried).
* ``flaky-N``: fail the first N requests with 500 (per server), then behave as ``fallible``.
* ``slow``: sleep 3 s before answering.
* ``truncated``: ``finish_reason: "length"`` and a reply cut mid-sentence.
* ``no-verdict``: a reply without a verdict line.
* ``garbage``: HTTP 200 with a body that is not JSON.

The reply format follows the preset named in the prompt (general, compass or xverify).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MASTER_KEYS = re.compile(r"^\W*$|thought process|let's solve|解|final decision|\[correct\]", re.I)


def _tag(text: str, name: str) -> str:
    match = re.search(rf"<{name}>\n(.*?)\n</{name}>", text, re.S)
    return match.group(1) if match else ""


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


class JudgeServer:
    """Runs the scripted server in a thread; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.failures: dict[str, int] = {}
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    server.requests.append(body)
                server.handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> JudgeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _send(self, handler, status: int, payload, headers: dict | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)

    def handle(self, handler, body: dict) -> None:
        model = body.get("model", "")
        user = body["messages"][-1]["content"]
        if model == "always-500":
            return self._send(handler, 500, {"error": "boom"})
        if model == "bad-request":
            return self._send(handler, 400, {"error": "unknown model"})
        if model == "always-429":
            return self._send(handler, 429, {"error": "slow down"}, {"Retry-After": "0"})
        if model.startswith("flaky-"):
            with self.lock:
                seen = self.failures.get(model, 0)
                self.failures[model] = seen + 1
            if seen < int(model.split("-")[1]):
                return self._send(handler, 500, {"error": "transient"})
        if model == "slow":
            time.sleep(3)
        if model == "garbage":
            return self._send(handler, 200, b"<html>not json</html>")
        candidate, reference = _tag(user, "candidate_answer"), _tag(user, "reference_answer")
        fooled = bool(MASTER_KEYS.search(candidate))
        yes = fooled or (_norm(candidate) == _norm(reference) and _norm(reference) != "")
        if "Final Judgment" in user:
            line = f"Final Judgment: {'A' if yes else 'B'}"
        elif "[Correct]" in user:
            line = "[Correct]" if yes else "[Incorrect]"
        else:
            line = f"Final Decision: {'Yes' if yes else 'No'}"
        content = f"The candidate wrote: {candidate}\nComparing with the reference.\n{line}"
        finish = "stop"
        if model == "truncated":
            content, finish = content[: len(content) // 2], "length"
        if model == "no-verdict":
            content = "I think it is probably fine."
        return self._send(
            handler,
            200,
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": finish,
                    }
                ],
            },
        )


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def judge_server():
    with JudgeServer() as server:
        yield server
