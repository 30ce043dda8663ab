"""Search benchmark: the local index (tantivy) beside bm25s and rank_bm25, in one run.

    python -m bench.search [--queries 1000] [--large 100000] [--rank-bm25-queries 50]

Rows, for the shipped world (3,000 articles) and a large one (``--large`` articles):
    * index build time and the process's resident-memory growth while building;
    * single-query throughput and p50/p99 latency over the same queries (an article title
      plus a relation word, as an agent searches), one query at a time as an env issues
      them. rank_bm25 scores every document in Python, so on the large world it runs only
      the first ``--rank-bm25-queries`` queries (the same ones the others start with);
    * throughput by wall clock and by this thread's CPU time: on a shared, loaded machine
      the wall clock also counts the time other processes hold the core;
    * for tantivy, also its own search call alone (queries built beforehand, no hits read
      back): the floor under ``LocalIndex.search``.
Then oracle episode latency (p50/p99, local index and over loopback HTTP) and the mean reward
of the no-search baseline. Ratios are against the other libraries measured in this run.

Needs the ``search`` and ``bench`` extras: pip install -e ".[search,bench]".
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import time

import numpy as np


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class Tantivy:
    name = "tantivy (palaestra)"

    def __init__(self, documents):
        from palaestra.envs.search.backends import LocalIndex

        self.index = LocalIndex(documents)

    def search(self, query: str) -> list[str]:
        return [hit.doc_id for hit in self.index.search(query, 5)]

    def search_call(self, queries: list[str]) -> tuple[list[float], list[float]]:
        """Wall-clock and CPU seconds of tantivy's own search call alone, the queries built
        beforehand and no hits read back: the floor under `LocalIndex.search`."""
        built = [self.index._query(query) for query in queries]
        walls, cpus, _ = timed(
            lambda query: self.index._searcher.search(query, 5, count=False), built
        )
        return walls, cpus


class Bm25s:
    name = "bm25s"

    def __init__(self, documents):
        import bm25s

        self.ids = [d.doc_id for d in documents]
        self.retriever = bm25s.BM25()
        corpus = [words(d.title + " " + d.text) for d in documents]
        self.retriever.index(
            bm25s.tokenize([" ".join(c) for c in corpus], show_progress=False), show_progress=False
        )
        self.bm25s = bm25s

    def search(self, query: str) -> list[str]:
        tokens = self.bm25s.tokenize([query], show_progress=False)
        found, _ = self.retriever.retrieve(tokens, k=5, show_progress=False)
        return [self.ids[i] for i in found[0]]


class RankBm25:
    name = "rank_bm25"

    def __init__(self, documents):
        from rank_bm25 import BM25Okapi

        self.ids = [d.doc_id for d in documents]
        self.bm25 = BM25Okapi([words(d.title + " " + d.text) for d in documents])

    def search(self, query: str) -> list[str]:
        scores = self.bm25.get_scores(words(query))
        return [self.ids[i] for i in np.argsort(-scores)[:5]]


def timed(search, queries) -> tuple[list[float], list[float], list]:
    """Each query's wall-clock seconds, CPU seconds (of this thread: on a shared machine, the
    time other processes take the core is left out), and what ``search`` returned."""
    walls, cpus, results = [], [], []
    for query in queries:
        cpu = time.thread_time()  # a system call of about 1 us, outside the wall-clock time
        wall = time.perf_counter()
        results.append(search(query))
        walls.append(time.perf_counter() - wall)
        cpus.append(time.thread_time() - cpu)
    return walls, cpus, results


def percentiles(seconds: list[float]) -> tuple[float, float]:
    p50, p99 = np.percentile(np.array(seconds) * 1000, [50, 99])
    return float(p50), float(p99)


def bench_corpus(articles: int, n_queries: int, rank_queries: int | None) -> None:
    from palaestra.envs.search.backends import Document
    from palaestra.envs.search.world import generate_world

    start = time.perf_counter()
    world = generate_world(0, articles)
    documents = [Document(a.doc_id, a.title, a.text) for a in world.articles]
    print(f"\n== {articles:,} articles (generated in {time.perf_counter() - start:.1f} s) ==")
    rng = np.random.default_rng(np.random.SeedSequence([articles, 7]))
    relations = ["born", "founded", "capital", "member", "population", "headquarters"]
    picks = rng.choice(len(documents), size=n_queries)
    queries = [f"{documents[i].title} {relations[i % len(relations)]}" for i in picks]
    rates, cpu_rates, medians = {}, {}, {}
    print(
        f"{'library':22}{'build s':>9}{'RSS +MB':>9}{'queries':>9}{'q/s':>10}{'CPU q/s':>10}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'top-1 ok':>9}"
    )
    for library in (Tantivy, Bm25s, RankBm25):
        gc.collect()
        before, start = rss_mb(), time.perf_counter()
        index = library(documents)
        build, grown = time.perf_counter() - start, rss_mb() - before
        subset = (
            queries if library is not RankBm25 or rank_queries is None else queries[:rank_queries]
        )
        walls, cpus, results = timed(index.search, subset)
        correct = sum(
            bool(found) and found[0] == documents[doc].doc_id
            for found, doc in zip(results, picks, strict=False)
        )
        name = library.name
        rates[name], cpu_rates[name] = len(subset) / sum(walls), len(subset) / sum(cpus)
        medians[name], p99 = percentiles(walls)
        print(
            f"{name:22}{build:9.2f}{grown:9.0f}{len(subset):9d}{rates[name]:10.0f}"
            f"{cpu_rates[name]:10.0f}{medians[name]:9.3f}{p99:9.3f}{correct / len(subset):9.2f}"
        )
        if library is Tantivy:
            walls, cpus = index.search_call(queries)
            p50, p99 = percentiles(walls)
            print(
                f"{'  its search call':22}{'':18}{len(walls):9d}{len(walls) / sum(walls):10.0f}"
                f"{len(cpus) / sum(cpus):10.0f}{p50:9.3f}{p99:9.3f}"
            )
        del index
    ours = "tantivy (palaestra)"
    for other in ("bm25s", "rank_bm25"):
        print(
            f"tantivy / {other}: {rates[ours] / rates[other]:.1f}x q/s, "
            f"{cpu_rates[ours] / cpu_rates[other]:.1f}x CPU q/s, "
            f"{medians[other] / medians[ours]:.1f}x p50 "
            f"(goal: >= {'1' if other == 'bm25s' else '50'}x)"
        )


def bench_episodes(episodes: int) -> None:
    import palaestra
    from palaestra.envs.search.env import world_index
    from palaestra.envs.search.server import SearchServer

    print("\n== episodes (shipped world) ==")
    with SearchServer(world_index()) as server:
        cases = [
            ("SearchQA-v0", {}),
            ("MultiHopQA-v0", {}),
            ("MultiHopQA-v0", {"backend": "web", "url": server.url}),
            ("MultiHopQATags-v0", {"backend": "retrieval", "url": server.url}),
        ]
        for env_id, kwargs in cases:
            env = palaestra.make(env_id, **kwargs)
            latencies, rewards, turns = [], [], 0
            for seed in range(episodes):
                start = time.perf_counter()
                env.reset(seed=seed)
                done, total = False, 0.0
                while not done:
                    _, reward, terminated, truncated, _ = env.step(env.unwrapped.oracle_action())
                    total, done, turns = total + reward, terminated or truncated, turns + 1
                latencies.append(time.perf_counter() - start)
                rewards.append(total)
            p50, p99 = percentiles(latencies)
            backend = kwargs.get("backend", "local")
            print(
                f"oracle {env_id:18} {backend:9} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  "
                f"{turns / episodes:.1f} turns  mean reward {np.mean(rewards):.3f}"
            )
            env.close()
    for env_id in ("SearchQA-v0", "MultiHopQA-v0"):
        env = palaestra.make(env_id)
        rewards = []
        for seed in range(episodes):
            env.reset(seed=seed)
            _, reward, *_ = env.step(env.unwrapped.no_search_action())
            rewards.append(reward)
        print(
            f"no-search baseline {env_id:18} mean reward {np.mean(rewards):.3f} "
            f"over {episodes} questions"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--rank-bm25-queries", type=int, default=50)
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args()
    bench_corpus(3_000, args.queries, None)
    if args.large:
        bench_corpus(args.large, args.queries, args.rank_bm25_queries)
    bench_episodes(args.episodes)


if __name__ == "__main__":
    main()
