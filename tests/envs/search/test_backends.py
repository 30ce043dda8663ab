"""The local index: queries read as tantivy's query parser reads them, and a kept index is
reused only for the corpus it was built from."""

from __future__ import annotations

import numpy as np

from palaestra.envs.search.backends import TITLE_BOOST, Document, LocalIndex, query_terms
from palaestra.envs.search.env import world_index

DOCUMENTS = [
    Document("a", "Velmo Arnley", "Velmo Arnley was born in Thildraiport. His birth year is 1790."),
    Document("b", "Velmo Arnlay", "Velmo Arnlay founded the Silver Guild. The year of his birth"),
    Document("c", "Thildraiport", "Thildraiport is a city where Velmo Arnley was born."),
]


def parser_hits(index: LocalIndex, query: str, k: int) -> list[tuple[int, float]]:
    """(ordinal, score) of the hits for the query tantivy's parser makes of ``query``."""
    parsed = index._index.parse_query(
        " ".join(query_terms(query)), ["title", "body"], field_boosts={"title": TITLE_BOOST}
    )
    found = index._searcher.search(parsed, k, count=False).hits
    ordinals = index._searcher.fast_field_values("ordinal", [address for _, address in found])
    return [(ordinal, score) for ordinal, (score, _) in zip(ordinals, found, strict=True)]


def test_queries_find_what_the_parsers_queries_find():
    index = world_index()
    ordinal_of = {doc_id: i for i, doc_id in enumerate(index.documents)}
    documents = list(index.documents.values())
    rng = np.random.default_rng(0)
    words = sorted({w for d in documents[:200] for w in query_terms(d.title + " " + d.text)})
    quirks = ["born_in", "a_b_", "_", "x" * 45, "AND", "title:born", '"quoted"', "-not", "É"]
    for _ in range(300):
        query = " ".join(rng.choice(words + quirks, size=rng.integers(1, 7)))
        k = int(rng.integers(1, 11))
        hits = [(ordinal_of[hit.doc_id], hit.score) for hit in index.search(query, k)]
        assert hits == parser_hits(index, query, k), query


def test_a_repeated_word_counts_once_and_an_underscore_joins_a_phrase():
    index = LocalIndex(DOCUMENTS)
    assert index.search("velmo velmo born", 3) == index.search("velmo born", 3)
    assert [hit.doc_id for hit in index.search("birth_year", 3)] == ["a"]
    assert {hit.doc_id for hit in index.search("birth year", 3)} == {"a", "b"}


def test_words_too_long_to_index_find_nothing_without_an_error():
    index = LocalIndex(DOCUMENTS)
    assert index.search("x" * 50 + " " + "y" * 50, 3) == []
    assert [hit.doc_id for hit in index.search("guild " + "x" * 50, 3)] == ["b"]


def test_a_kept_index_is_reused_for_its_corpus_and_rebuilt_for_another(tmp_path):
    path = tmp_path / "index"
    first = LocalIndex(DOCUMENTS, path=path).search("silver guild", 3)
    stamp = (path / "palaestra-index").read_text()
    assert LocalIndex(DOCUMENTS, path=path).search("silver guild", 3) == first
    assert (path / "palaestra-index").read_text() == stamp
    reordered = LocalIndex(DOCUMENTS[::-1], path=path)
    assert (path / "palaestra-index").read_text() != stamp
    assert reordered.search("silver guild", 3) == first
    assert [hit.doc_id for hit in reordered.search("thildraiport city", 1)] == ["c"]
