"""Search backends behind one interface: ``search(query, k)`` and ``open(doc, page)``.

    backend.search("Velmo Arnley birthplace", k=5)  # -> [Hit(doc_id, title, snippet, score)]
    backend.open("w000017", page=1)                 # -> Page(doc_id, title, page, pages, text)

`LocalIndex` is a BM25 index over a list of `Document`s, built with tantivy (a Rust search
engine; see ``bench/search`` for why tantivy rather than bm25s). The HTTP backends
(`RetrievalClient` for Search-R1 retrieval servers, `WebSearchClient` for web-search APIs)
live in `palaestra.envs.search.http`.

A backend that cannot answer (timeout, 5xx, connection refused) raises `SearchBackendError`,
an `InfrastructureError`: the env masks the episode instead of scoring it. A request that is
the model's mistake (an unknown document, a page past the end) raises `ValueError`, which
the model reads as an error message.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from palaestra.errors import InfrastructureError, MissingDependencyError

DEFAULT_PAGE_CHARS = 1_500
SNIPPET_CHARS = 240
TITLE_BOOST = 2.0
"""A query's words count twice in a title: a search for a name finds that name's article."""
MAX_CACHED_TERMS = 100_000
"""Words whose query clauses `LocalIndex` keeps; the cache starts over when it is full."""


class SearchBackendError(InfrastructureError):
    """A search backend failed (timeout, server error, connection refused)."""


@dataclasses.dataclass(frozen=True)
class Document:
    """A document of a corpus.

    Attributes:
        doc_id: Its id (for web backends, its URL).
        title: Its title.
        text: Its full text.
    """

    doc_id: str
    title: str
    text: str


class Hit(NamedTuple):
    """One search result.

    A named tuple: a query returns several, and frozen dataclasses cost a tenth of a local
    query to build.

    Attributes:
        doc_id: What `SearchBackend.open` takes to read the document.
        title: The document's title.
        snippet: The start of its text (the whole text for Search-R1 servers).
        score: The backend's relevance score.
    """

    doc_id: str
    title: str
    snippet: str
    score: float


@dataclasses.dataclass(frozen=True)
class Page:
    """One page of an opened document.

    Attributes:
        doc_id: The document's id.
        title: Its title.
        page: This page's number, from 1.
        pages: How many pages the document has.
        text: This page's text.
    """

    doc_id: str
    title: str
    page: int
    pages: int
    text: str


def paginate(text: str, page_chars: int = DEFAULT_PAGE_CHARS) -> list[str]:
    """Cuts ``text`` into pages of at most ``page_chars``, at whitespace where possible."""
    pages, start = [], 0
    while start < len(text):
        end = min(len(text), start + page_chars)
        if end < len(text):
            cut = text.rfind("\n", start, end)
            if cut <= start:
                cut = text.rfind(" ", start, end)
            end = cut if cut > start else end
        pages.append(text[start:end].strip())
        start = end
    return pages or [""]


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The start of ``text``, cut at a word boundary."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit] + " ..."


class SearchBackend:
    """The interface every backend implements: `search`, and `fetch` (which `open` pages).

    Args:
        page_chars: Characters per page of an opened document.
    """

    def __init__(self, page_chars: int = DEFAULT_PAGE_CHARS):
        if not isinstance(page_chars, int) or page_chars < 100:
            raise ValueError(f"page_chars must be an integer >= 100, got {page_chars!r}")
        self.page_chars = page_chars

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` best documents for ``query``, best first.

        Raises:
            SearchBackendError: The backend failed.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement search(query, k)")

    def fetch(self, doc_id: str) -> Document:
        """The whole document ``doc_id``.

        Raises:
            ValueError: No such document.
            SearchBackendError: The backend failed.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement fetch(doc_id)")

    def passage(self, hit: Hit) -> str:
        """The text a Search-R1 ``<information>`` block shows for ``hit`` (its snippet)."""
        return hit.snippet

    def open(self, doc_id: str, page: int = 1) -> Page:
        """Page ``page`` (from 1) of document ``doc_id``.

        Raises:
            ValueError: No such document or page.
            SearchBackendError: The backend failed.
        """
        document = self.fetch(doc_id)
        pages = paginate(document.text, self.page_chars)
        if not isinstance(page, int) or not 1 <= page <= len(pages):
            raise ValueError(f"{doc_id} has pages 1 to {len(pages)}, not {page!r}")
        return Page(document.doc_id, document.title, page, len(pages), pages[page - 1])

    def close(self) -> None:
        """Releases connections or files (nothing by default)."""


_WORD = re.compile(r"\w+")


def query_terms(query: str) -> list[str]:
    """The words of a query, lower-cased: query syntax (quotes, ``field:``, ``-``) is text."""
    return _WORD.findall(query.lower())


def _tantivy():
    try:
        import tantivy
    except ImportError as e:
        raise MissingDependencyError(
            'the local search index needs tantivy: pip install "palaestra[search]"'
        ) from e
    return tantivy


_INDEX_VERSION = "2"
"""Bumped when the on-disk index layout changes, so stale caches are rebuilt."""


class LocalIndex(SearchBackend):
    """BM25 over documents held in memory, indexed with tantivy.

    Args:
        documents: The corpus; ids must be unique.
        path: A folder to keep the index in: reused when it holds an index of this
            version, else built there (atomically, so concurrent builders do not collide).
            None builds the index in memory.
        page_chars: Characters per page of an opened document.
    """

    def __init__(
        self,
        documents: Iterable[Document],
        path: str | os.PathLike | None = None,
        page_chars: int = DEFAULT_PAGE_CHARS,
    ):
        super().__init__(page_chars)
        self.documents: dict[str, Document] = {}
        for document in documents:
            if document.doc_id in self.documents:
                raise ValueError(f"document id {document.doc_id!r} appears twice in the corpus")
            self.documents[document.doc_id] = document
        # tantivy knows a document by its position in this list (a fast field, read for all
        # hits in one call): reading stored documents back cost more than the search itself.
        self._by_ordinal = list(self.documents.values())
        tantivy = _tantivy()
        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("ordinal", fast=True)
        builder.add_text_field("title", stored=False)
        builder.add_text_field("body", stored=False)
        schema = builder.build()
        self._tantivy, self._schema = tantivy, schema
        if path is None:
            self._index = tantivy.Index(schema)
            self._write(self._index)
        else:
            self._index = self._open_or_build(tantivy, schema, Path(path))
        self._index.reload()
        self._searcher = self._index.searcher()
        self._lock = threading.Lock()
        # Built once per word and per document, then reused (queries repeat their words,
        # searches their documents): building them cost a third of a query.
        self._clauses: dict[str, list] = {}
        self._snippets: dict[int, str] = {}

    def _write(self, index) -> None:
        tantivy = _tantivy()
        writer = index.writer(heap_size=128_000_000, num_threads=1)
        for ordinal, document in enumerate(self._by_ordinal):
            entry = tantivy.Document(title=document.title, body=document.text)
            entry.add_unsigned("ordinal", ordinal)
            writer.add_document(entry)
        writer.commit()
        writer.wait_merging_threads()

    def _open_or_build(self, tantivy, schema, path: Path):
        marker = path / "palaestra-index"
        # The ordinals are positions in this corpus: an index of other ids, or of the same
        # ids in another order, is rebuilt.
        ids = hashlib.sha256("\n".join(self.documents).encode()).hexdigest()
        stamp = f"{_INDEX_VERSION} {len(self.documents)} {ids}"
        if marker.exists() and marker.read_text() == stamp:
            return tantivy.Index.open(str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=path.parent))
        try:
            index = tantivy.Index(schema, path=str(staging))
            self._write(index)
            (staging / "palaestra-index").write_text(stamp)
            shutil.rmtree(path, ignore_errors=True)
            try:
                staging.rename(path)
            except OSError:  # another process finished first; its index is the same
                shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return tantivy.Index.open(str(path))

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` best documents by BM25 over titles (boosted) and text."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        tantivy_query = self._query(query)
        if tantivy_query is None:
            return []
        with self._lock:
            # count=False: the total number of matches is never shown, and counting them
            # doubles the cost of a query.
            found = self._searcher.search(tantivy_query, k, count=False).hits
            addresses = [address for _, address in found]
            ordinals = self._searcher.fast_field_values("ordinal", addresses)
        hits = []
        for (score, _), ordinal in zip(found, ordinals, strict=True):
            document = self._by_ordinal[ordinal]
            text = self._snippets.get(ordinal)
            if text is None:
                text = self._snippets[ordinal] = snippet(document.text)
            hits.append(Hit(document.doc_id, document.title, text, float(score)))
        return hits

    def _query(self, query: str):
        """The tantivy query for ``query``: any of its words in a title (boosted) or the text.

        Built from the words directly, as tantivy's query parser builds it (parsing cost a
        sixth of a search). None when the query has no words.
        """
        terms = query_terms(query)
        if not terms:
            return None
        if "_" in query:
            # tantivy's tokenizer splits words at "_" and its parser searches the parts as a
            # phrase ("birth_year" is "birth year"); rare enough to leave to the parser.
            return self._index.parse_query(
                " ".join(terms), ["title", "body"], field_boosts={"title": TITLE_BOOST}
            )
        clauses = []
        for term in dict.fromkeys(terms):  # the parser counts a repeated word once
            clauses += self._clauses.get(term) or self._term_clauses(term)
        return self._tantivy.Query.boolean_query(clauses)

    def _term_clauses(self, term: str) -> list:
        """The clauses that search ``term`` in a title (boosted) or the text.

        Kept for reuse, up to `MAX_CACHED_TERMS` words.
        """
        tantivy_query, should = self._tantivy.Query, self._tantivy.Occur.Should
        # "freq", as the parser does: BM25 reads term frequencies, not positions.
        title = tantivy_query.term_query(self._schema, "title", term, "freq")
        body = tantivy_query.term_query(self._schema, "body", term, "freq")
        clauses = [(should, tantivy_query.boost_query(title, TITLE_BOOST)), (should, body)]
        if len(self._clauses) >= MAX_CACHED_TERMS:
            self._clauses.clear()
        self._clauses[term] = clauses
        return clauses

    def passage(self, hit: Hit) -> str:
        """The document's whole text, as a Search-R1 retrieval server returns it."""
        return self.documents[hit.doc_id].text

    def fetch(self, doc_id: str) -> Document:
        """The document with id ``doc_id``."""
        document = self.documents.get(doc_id)
        if document is None:
            raise ValueError(f"no document has id {doc_id!r}; use an id a search returned")
        return document
