"""``palaestra search serve``: the generated world as a small web site and retrieval server.

    GET  /                     a home page with a search form
    GET  /search?q=...&k=5     results as an HTML page
    GET  /api/search?q=...&k=5 results as JSON: {"results": [{"url", "title", "snippet", "score"}]}
    GET  /wiki/<doc_id>        an article as an HTML page (citations are links)
    POST /retrieve             Search-R1's retrieval protocol over the same index

"Web" episodes (`WebSearchClient`) and Search-R1 episodes (`RetrievalClient`) fetch real pages
over loopback through it. ``latency_s`` and ``error_rate`` make it slow or failing on purpose,
to test how a training run copes with a misbehaving retriever.

The server runs in threads of the calling process (the standard library's
``ThreadingHTTPServer``); it binds to loopback unless told otherwise and serves only the
corpus it was given.
"""

from __future__ import annotations

import html
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

import numpy as np

from palaestra.envs.search.backends import LocalIndex

MAX_K = 50
MAX_BODY_BYTES = 1 << 20


def _page(title: str, body: str) -> bytes:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"</head><body><nav><a href='/'>Home</a></nav>{body}</body></html>"
    ).encode()


class SearchServer:
    """Serves a `LocalIndex` over HTTP (see the module docstring).

    Args:
        index: The corpus and its index.
        host: The address to bind (loopback by default).
        port: The port (0: any free port).
        latency_s: Seconds every answer waits before it is sent.
        error_rate: Share of requests answered with HTTP 503, drawn from ``seed``.
        seed: Seeds the error draws.
    """

    def __init__(
        self,
        index: LocalIndex,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        latency_s: float = 0.0,
        error_rate: float = 0.0,
        seed: int = 0,
    ):
        if latency_s < 0:
            raise ValueError(f"latency_s must be >= 0, got {latency_s!r}")
        if not 0 <= error_rate <= 1:
            raise ValueError(f"error_rate must be in [0, 1], got {error_rate!r}")
        self.index = index
        self.latency_s, self.error_rate = latency_s, error_rate
        self._rng = np.random.default_rng(np.random.SeedSequence([seed]))
        self._rng_lock = threading.Lock()
        self._titles = {d.title: d.doc_id for d in index.documents.values()}
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle's algorithm the second waits
            # for the client's delayed acknowledgement (40 ms per request on Linux).
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # a request log per search would drown the trainer's output

            def setup(self) -> None:
                super().setup()
                with server._connections_lock:
                    server._connections.add(self.connection)

            def finish(self) -> None:
                with server._connections_lock:
                    server._connections.discard(self.connection)
                super().finish()

            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                server._answer(self, "GET")

            def do_POST(self) -> None:  # noqa: N802
                server._answer(self, "POST")

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:8123``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> SearchServer:
        """Serves in a background thread; returns self."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serves in this thread until interrupted."""
        self._httpd.serve_forever()

    def stop(self) -> None:
        """Stops serving: refuses new connections and cuts the open keep-alive ones."""
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._connections_lock:
            for connection in self._connections:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed by the client
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> SearchServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- requests ----------------------------------------------------------------------------

    def _answer(self, request: BaseHTTPRequestHandler, method: str) -> None:
        # The body is read before anything else: an unread body would be parsed as the next
        # request on this keep-alive connection.
        length = int(request.headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            request.close_connection = True
            return self._json(request, 413, {"error": "request body too large"})
        body = request.rfile.read(length) if length else b""
        if self.latency_s:
            time.sleep(self.latency_s)
        if self.error_rate:
            with self._rng_lock:
                failing = self._rng.random() < self.error_rate
            if failing:
                return self._send(request, 503, "text/plain", b"injected failure")
        parts = urlsplit(request.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            if method == "POST" and parts.path == "/retrieve":
                return self._retrieve(request, body)
            if method == "GET" and parts.path == "/":
                return self._send(request, 200, "text/html", self._home())
            if method == "GET" and parts.path in ("/search", "/api/search"):
                hits = self.index.search(query.get("q", ""), self._k(query.get("k", "5")))
                if parts.path == "/api/search":
                    rows = [
                        {
                            "url": f"{self.url}/wiki/{h.doc_id}",
                            "title": h.title,
                            "snippet": h.snippet,
                            "score": h.score,
                        }
                        for h in hits
                    ]
                    return self._json(request, 200, {"results": rows})
                return self._send(
                    request, 200, "text/html", self._results(query.get("q", ""), hits)
                )
            if method == "GET" and parts.path.startswith("/wiki/"):
                doc_id = unquote(parts.path[len("/wiki/") :])
                if doc_id not in self.index.documents:
                    return self._send(request, 404, "text/plain", b"no such article")
                return self._send(request, 200, "text/html", self._article(doc_id))
        except ValueError as e:
            return self._json(request, 400, {"error": str(e)})
        return self._send(request, 404, "text/plain", b"not found")

    @staticmethod
    def _k(raw: Any) -> int:
        try:
            k = int(raw)
        except (TypeError, ValueError):
            raise ValueError(f"k must be an integer, got {raw!r}") from None
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be from 1 to {MAX_K}, got {k}")
        return k

    def _retrieve(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        try:
            payload = json.loads(body or b"{}")
            queries = payload["queries"]
            if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
                raise ValueError("queries must be a list of strings")
            k = self._k(payload.get("topk", 3))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            return self._json(request, 400, {"error": f"bad /retrieve request: {e}"})
        scores = bool(payload.get("return_scores", False))
        result = []
        for query in queries:
            rows = []
            for hit in self.index.search(query, k):
                text = self.index.documents[hit.doc_id].text
                document = {"id": hit.doc_id, "contents": f'"{hit.title}"\n{text}'}
                rows.append({"document": document, "score": hit.score} if scores else document)
            result.append(rows)
        return self._json(request, 200, {"result": result})

    def _home(self) -> bytes:
        form = (
            "<h1>The encyclopedia</h1><form action='/search'><input name='q'>"
            f"<button>Search</button></form><p>{len(self.index.documents)} articles.</p>"
        )
        return _page("The encyclopedia", form)

    def _results(self, query: str, hits: list) -> bytes:
        items = "".join(
            f"<li><a href='/wiki/{quote(h.doc_id)}'>{html.escape(h.title)}</a>"
            f"<p>{html.escape(h.snippet)}</p></li>"
            for h in hits
        )
        return _page(
            f"Search: {query}", f"<h1>Results for {html.escape(query)}</h1><ol>{items}</ol>"
        )

    def _article(self, doc_id: str) -> bytes:
        document = self.index.documents[doc_id]
        paragraphs = []
        for paragraph in document.text.split("\n\n"):
            escaped = html.escape(paragraph)
            if paragraph.startswith("See also: "):
                links = [
                    f"<a href='/wiki/{quote(self._titles[t])}'>{html.escape(t)}</a>"
                    if t in self._titles
                    else html.escape(t)
                    for t in paragraph[len("See also: ") :].rstrip(".").split("; ")
                ]
                escaped = "See also: " + "; ".join(links) + "."
            paragraphs.append(f"<p>{escaped}</p>")
        body = f"<article><h1>{html.escape(document.title)}</h1>{''.join(paragraphs)}</article>"
        return _page(document.title, body)

    @staticmethod
    def _send(request: BaseHTTPRequestHandler, status: int, kind: str, body: bytes) -> None:
        request.send_response(status)
        request.send_header("content-type", f"{kind}; charset=utf-8")
        request.send_header("content-length", str(len(body)))
        request.end_headers()
        try:
            request.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            request.close_connection = True  # the client gave up waiting (its timeout)

    def _json(self, request: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        self._send(request, status, "application/json", json.dumps(payload).encode())
