r"""Search backends over HTTP: Search-R1 retrieval servers and web-search APIs (httpx).

`RetrievalClient` speaks Search-R1's retrieval protocol::

    POST {url}/retrieve  {"queries": ["..."], "topk": 3, "return_scores": true}
    ->  {"result": [[{"document": {"id": "...", "contents": "\"Title\"\ntext"}, "score": 1.2}]]}

`WebSearchClient` calls a web-search API that answers ``GET {search_url}?q=...&k=...`` with
``{"results": [{"url": ..., "title": ..., "snippet": ...}]}`` (the parameter and key names are
arguments) and opens result URLs as HTML pages, read as text. ``palaestra search serve``
serves both protocols over the generated world.

Both share `HttpTransport`: a timeout per request, retries with exponential backoff on
timeouts, refused connections, 429 and 5xx answers, a rate limit, and an optional on-disk
cache keyed by the request. When the retries are spent the call raises `SearchBackendError`
(an infrastructure error: the episode is masked, never scored 0).

Threat model of `WebSearchClient.fetch`: the model chooses what to open, so only URLs a search
returned (or URLs on the search API's own host) are fetched; redirects are not followed.
It does not defend against a malicious search API.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from palaestra.envs.search.backends import (
    DEFAULT_PAGE_CHARS,
    Document,
    Hit,
    SearchBackend,
    SearchBackendError,
    snippet,
)


class HttpStatusError(ValueError):
    """The server answered with a 4xx status other than 429 (the request was refused)."""

    def __init__(self, status: int, url: str):
        super().__init__(f"{url} answered HTTP {status}")
        self.status = status


class HttpTransport:
    """Requests with a timeout, retries with backoff, a rate limit and an on-disk cache.

    Args:
        timeout_s: Seconds one request may take (connect and read).
        retries: Further attempts after a failed one (timeout, refused, 429, 5xx).
        backoff_s: The wait before the first retry; it doubles each retry.
        max_backoff_s: The longest wait between retries.
        rate_per_s: Requests started per second at most (None: no limit).
        cache_dir: A folder for cached answers keyed by the request (None: no cache).
        headers: Headers sent with every request (e.g. an API key).
    """

    def __init__(
        self,
        timeout_s: float = 10.0,
        retries: int = 3,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        rate_per_s: float | None = None,
        cache_dir: str | os.PathLike | None = None,
        headers: dict[str, str] | None = None,
    ):
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s!r}")
        if not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be an integer >= 0, got {retries!r}")
        if backoff_s < 0 or max_backoff_s < 0:
            raise ValueError("backoff_s and max_backoff_s must be >= 0")
        if rate_per_s is not None and not rate_per_s > 0:
            raise ValueError(f"rate_per_s must be positive or None, got {rate_per_s!r}")
        self.timeout_s, self.retries = timeout_s, retries
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        self.rate_per_s = rate_per_s
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._client = httpx.Client(
            timeout=timeout_s, headers=headers or {}, follow_redirects=False
        )
        self._lock = threading.Lock()
        self._next_start = 0.0

    def _wait_for_rate(self) -> None:
        if self.rate_per_s is None:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + 1.0 / self.rate_per_s
        if start > now:
            time.sleep(start - now)

    def _cache_path(self, key: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(key.encode()).hexdigest()
        return self.cache_dir / digest[:2] / f"{digest}.json"

    def request(
        self, method: str, url: str, *, params: dict | None = None, body: Any = None
    ) -> tuple[str, str]:
        """``(text, content type)`` of a successful answer, from the cache when it has it.

        Raises:
            HttpStatusError: A 4xx answer other than 429 (not retried).
            SearchBackendError: Every attempt failed.
        """
        key = json.dumps([method, url, params, body], sort_keys=True)
        path = self._cache_path(key)
        if path is not None and path.exists():
            cached = json.loads(path.read_text())
            return cached["text"], cached["type"]
        failure = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1)))
            self._wait_for_rate()
            try:
                response = self._client.request(method, url, params=params, json=body)
            except httpx.TimeoutException:
                failure = f"timed out after {self.timeout_s:g} s"
                continue
            except httpx.TransportError as e:
                failure = f"{type(e).__name__}: {e}"
                continue
            if response.status_code == 429 or response.status_code >= 500:
                failure = f"HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                raise HttpStatusError(response.status_code, url)
            text, kind = response.text, response.headers.get("content-type", "")
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                staging = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}")
                staging.write_text(json.dumps({"text": text, "type": kind}))
                os.replace(staging, path)
            return text, kind
        raise SearchBackendError(
            f"{method} {url} failed {self.retries + 1} times (last: {failure}); "
            "check that the server is up and reachable"
        )

    def request_json(
        self, method: str, url: str, *, params: dict | None = None, body: Any = None
    ) -> Any:
        """The decoded JSON answer (see `request`)."""
        text, _ = self.request(method, url, params=params, body=body)
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise SearchBackendError(f"{method} {url} did not answer JSON: {e}") from e

    def close(self) -> None:
        """Closes the connection pool."""
        self._client.close()


def _contents_title(contents: str) -> tuple[str, str]:
    # Search-R1 corpora store a passage as '"Title"\ntext'.
    first, _, rest = contents.partition("\n")
    if rest and len(first) >= 2 and first.startswith('"') and first.endswith('"'):
        return first[1:-1], rest
    return "", contents


class RetrievalClient(SearchBackend):
    """Any Search-R1-compatible retrieval server (``POST /retrieve``).

    The protocol has no way to open a document, so `open` serves the documents this
    client's searches returned.

    Args:
        url: The server's base URL, or its ``/retrieve`` URL.
        page_chars: Characters per page of an opened document.
        **transport: `HttpTransport` arguments (timeout_s, retries, rate_per_s, cache_dir...).
    """

    def __init__(self, url: str, page_chars: int = DEFAULT_PAGE_CHARS, **transport: Any):
        super().__init__(page_chars)
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"url must be an http(s) URL, got {url!r}")
        self.url = url if url.rstrip("/").endswith("/retrieve") else url.rstrip("/") + "/retrieve"
        self.transport = HttpTransport(**transport)
        self._seen: dict[str, Document] = {}

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The server's top ``k`` passages for ``query``."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        body = {"queries": [query], "topk": k, "return_scores": True}
        try:
            answer = self.transport.request_json("POST", self.url, body=body)
            rows = answer["result"][0]
        except HttpStatusError as e:
            raise SearchBackendError(f"the retrieval server refused the request: {e}") from e
        except (KeyError, IndexError, TypeError) as e:
            raise SearchBackendError(
                f"{self.url} did not answer in Search-R1's format ({{'result': [[...]]}})"
            ) from e
        hits = []
        for rank, row in enumerate(rows[:k]):
            document = row.get("document", row) if isinstance(row, dict) else {}
            contents = str(document.get("contents", document.get("text", "")))
            title, text = _contents_title(contents)
            title = str(document.get("title", title))
            doc_id = str(document.get("id", f"{query}#{rank}"))
            self._seen[doc_id] = Document(doc_id, title, text)
            score = float(row.get("score", 0.0)) if isinstance(row, dict) else 0.0
            hits.append(Hit(doc_id, title, text, score))
        return hits

    def fetch(self, doc_id: str) -> Document:
        """A document a search returned."""
        if doc_id not in self._seen:
            raise ValueError(f"{doc_id!r} is not a document a search returned")
        return self._seen[doc_id]

    def close(self) -> None:
        """Closes the connection pool."""
        self.transport.close()


class _TextOfHtml(HTMLParser):
    _SKIP = {"script", "style", "head", "nav", "form"}
    _BLOCKS = {"p", "div", "h1", "h2", "h3", "li", "br", "tr", "section", "article"}

    def __init__(self) -> None:
        super().__init__()
        self.title, self.pieces, self._skip, self._in_title = "", [], 0, False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._SKIP:
            self._skip += 1
        if tag in self._BLOCKS:
            self.pieces.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.pieces.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """``(title, text)`` of an HTML page: visible text, paragraphs separated by blank lines."""
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    paragraphs = ["".join(p).strip() for p in "".join(parser.pieces).split("\n\n")]
    text = "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())
    return parser.title.strip(), text


class WebSearchClient(SearchBackend):
    """A web-search API and the pages it finds, over HTTP.

    Args:
        search_url: The API's search endpoint.
        query_param: The query's parameter name.
        count_param: The result count's parameter name.
        results_key: The key of the result list in the JSON answer.
        page_chars: Characters per page of an opened document.
        **transport: `HttpTransport` arguments (timeout_s, retries, rate_per_s, cache_dir,
            headers...).
    """

    def __init__(
        self,
        search_url: str,
        *,
        query_param: str = "q",
        count_param: str = "k",
        results_key: str = "results",
        page_chars: int = DEFAULT_PAGE_CHARS,
        **transport: Any,
    ):
        super().__init__(page_chars)
        if not search_url.startswith(("http://", "https://")):
            raise ValueError(f"search_url must be an http(s) URL, got {search_url!r}")
        self.search_url = search_url
        self.query_param, self.count_param, self.results_key = (
            query_param,
            count_param,
            results_key,
        )
        self.transport = HttpTransport(**transport)
        self._hosts = {urlsplit(search_url).netloc}
        self._returned: set[str] = set()

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The API's top ``k`` results; a hit's ``doc_id`` is its URL."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        params = {self.query_param: query, self.count_param: k}
        try:
            answer = self.transport.request_json("GET", self.search_url, params=params)
            rows = answer[self.results_key]
        except HttpStatusError as e:
            raise SearchBackendError(f"the search API refused the request: {e}") from e
        except (KeyError, TypeError) as e:
            raise SearchBackendError(
                f"{self.search_url} answered without a {self.results_key!r} list"
            ) from e
        hits = []
        for row in rows[:k]:
            url = urljoin(self.search_url, str(row.get("url", "")))
            self._returned.add(url)
            title, text = str(row.get("title", "")), str(row.get("snippet", ""))
            hits.append(Hit(url, title, snippet(text), float(row.get("score", 0.0))))
        return hits

    def fetch(self, doc_id: str) -> Document:
        """The page at URL ``doc_id``, as text."""
        url = doc_id
        if url not in self._returned and urlsplit(url).netloc not in self._hosts:
            raise ValueError(f"{url!r} is not a page a search returned; open a result's URL")
        try:
            html, _ = self.transport.request("GET", url)
        except HttpStatusError as e:
            raise ValueError(f"the page could not be opened: {e}") from e
        title, text = html_to_text(html)
        return Document(url, title, text)

    def close(self) -> None:
        """Closes the connection pool."""
        self.transport.close()
