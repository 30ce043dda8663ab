"""Search benchmark: the local BM25 index beside bm25s and rank_bm25, and oracle episodes."""
