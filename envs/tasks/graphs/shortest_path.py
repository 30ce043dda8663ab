"""Shortest path: find a shortest route between two towns of a weighted road map.

The task:
    A connected undirected graph with positive integer edge lengths, nodes named by capital
    letters. Find a path from S to T of least total length. Any shortest path scores: the
    checker follows the path edge by edge and compares its length with the optimum. The
    generator runs Dijkstra; the certificate recomputes the distance with Bellman-Ford.

Observation:
    One user message: the edges with their lengths, the two endpoints and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the nodes of the path from S to
    T in order, separated by ``->`` (also accepted: ``-``, commas or spaces); case free. A
    name that is not a node, or any other word, makes the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a path from S to T along edges whose length is the
    shortest distance, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 5 nodes at level 1 up to 24 nodes with denser roads and longer lengths at
        level 10. The endpoints are chosen so the shortest route has several edges.
    nodes: Number of nodes (3-26).
    density: Extra edges beyond a spanning tree, per node (0-3).
    max_length: Largest edge length (1-99).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import heapq
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import letter_labels, name_index, parse_names
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LEVELS = {
    1: (5, 0.4, 5),
    2: (6, 0.5, 6),
    3: (7, 0.6, 8),
    4: (8, 0.7, 9),
    5: (10, 0.8, 9),
    6: (12, 0.9, 12),
    7: (14, 1.0, 15),
    8: (16, 1.1, 15),
    9: (20, 1.2, 20),
    10: (24, 1.3, 20),
}
"""(nodes, extra edges per node, largest length) by level."""

SEPARATORS = r"\s*(?:->|→|-|,)\s*|\s+"


@dataclasses.dataclass(frozen=True)
class ShortestPathConfig:
    """Knobs.

    Attributes:
        nodes: Number of nodes (3-26).
        density: Extra edges beyond a spanning tree, per node (0-3).
        max_length: Largest edge length (1-99).
    """

    nodes: int = 7
    density: float = 0.6
    max_length: int = 8

    def __post_init__(self) -> None:
        if not isinstance(self.nodes, int) or not 3 <= self.nodes <= 26:
            raise ValueError(f"nodes must be an integer from 3 to 26, got {self.nodes!r}")
        if not isinstance(self.density, (int, float)) or not 0 <= self.density <= 3:
            raise ValueError(f"density must be a number from 0 to 3, got {self.density!r}")
        if not isinstance(self.max_length, int) or not 1 <= self.max_length <= 99:
            raise ValueError(f"max_length must be an integer from 1 to 99, got {self.max_length!r}")


def adjacency(edges: list[list[Any]]) -> dict[str, dict[str, int]]:
    """Node -> neighbour -> length."""
    out: dict[str, dict[str, int]] = {}
    for a, b, w in edges:
        out.setdefault(a, {})[b] = w
        out.setdefault(b, {})[a] = w
    return out


def dijkstra(adj: dict[str, dict[str, int]], source: str) -> tuple[dict[str, int], int]:
    """Shortest distances from ``source`` and the number of edge relaxations made."""
    dist = {source: 0}
    heap = [(0, source)]
    done: set[str] = set()
    relaxations = 0
    while heap:
        d, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        for other, w in adj[node].items():
            relaxations += 1
            if d + w < dist.get(other, 1 << 60):
                dist[other] = d + w
                heapq.heappush(heap, (d + w, other))
    return dist, relaxations


def shortest_paths(
    adj: dict[str, dict[str, int]], source: str, target: str, limit: int
) -> list[list[str]]:
    """Up to ``limit`` distinct shortest paths, walking back from the target along tight edges."""
    dist, _ = dijkstra(adj, source)
    out: list[list[str]] = []

    def back(node: str, suffix: list[str]) -> None:
        if len(out) >= limit:
            return
        if node == source:
            out.append([node, *suffix])
            return
        for prev in sorted(adj[node]):
            if prev in dist and dist[prev] + adj[node][prev] == dist[node]:
                back(prev, [node, *suffix])

    back(target, [])
    return out


class ShortestPathTask(Task[ShortestPathConfig]):
    """Find a shortest path."""

    name = "shortest_path"
    Config = ShortestPathConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> ShortestPathConfig:
        """More nodes, denser roads and longer lengths with the level."""
        nodes, density, max_length = LEVELS[level]
        return ShortestPathConfig(nodes=nodes, density=density, max_length=max_length)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random spanning tree plus extra edges; endpoints far apart along a shortest route."""
        cfg = self.config
        names = letter_labels(rng, cfg.nodes)
        order = [names[int(i)] for i in rng.permutation(cfg.nodes)]
        pairs: set[tuple[str, str]] = set()
        for i in range(1, cfg.nodes):
            other = order[int(rng.integers(i))]
            pairs.add(tuple(sorted((order[i], other))))  # type: ignore[arg-type]
        possible = cfg.nodes * (cfg.nodes - 1) // 2
        target_edges = min(possible, cfg.nodes - 1 + round(cfg.density * cfg.nodes))
        while len(pairs) < target_edges:
            a, b = (names[int(i)] for i in rng.choice(cfg.nodes, size=2, replace=False))
            pairs.add(tuple(sorted((a, b))))  # type: ignore[arg-type]
        edges = [[a, b, int(rng.integers(1, cfg.max_length + 1))] for a, b in sorted(pairs)]
        edges = [edges[int(i)] for i in rng.permutation(len(edges))]
        adj = adjacency(edges)
        source = names[int(rng.integers(cfg.nodes))]
        dist, _ = dijkstra(adj, source)
        hops = {
            node: len(shortest_paths(adj, source, node, 1)[0]) - 1
            for node in names
            if node != source
        }
        most = max(hops.values())
        far = [node for node in sorted(hops) if hops[node] >= max(2, most - 1)] or [
            n for n in sorted(hops) if hops[n] == most
        ]
        target = far[int(rng.integers(len(far)))]
        path = shortest_paths(adj, source, target, 1)[0]
        lines = "\n".join(f"{a} - {b}: {w}" for a, b, w in edges)
        prompt = (
            f"A road map has {cfg.nodes} towns ({', '.join(names)}) "
            "and these two-way roads, each written "
            f"'town - town: length':\n{lines}\n\n"
            f"Find a shortest route from {source} to {target}. "
            f"Give the towns on the route in order, from {source} to {target}, "
            "separated by '->', e.g. <answer>P -> Q -> R</answer>. Any shortest route is accepted. "
            + ANSWER_FORMAT
        )
        data = {
            "nodes": names,
            "edges": edges,
            "source": source,
            "target": target,
            "distance": dist[target],
        }
        return Problem(prompt, path, data)

    def solve(self, problem: Problem) -> str:
        """Dijkstra, then one shortest path walked back along tight edges."""
        data = problem.data
        path = shortest_paths(adjacency(data["edges"]), data["source"], data["target"], 1)[0]
        return " -> ".join(path)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """From the source to the target along edges, with the shortest total length."""
        data = problem.data
        path = parse_names(answer, name_index(data["nodes"]), SEPARATORS)
        if path is None:
            return self.malformed(answer, problem, "expected town names separated by '->'")
        if path[0] != data["source"] or path[-1] != data["target"]:
            return self.wrong(
                path,
                problem,
                f"the route must start at {data['source']} and end at {data['target']}",
            )
        adj = adjacency(data["edges"])
        length = 0
        for a, b in zip(path, path[1:], strict=False):
            if b not in adj[a]:
                return self.wrong(path, problem, f"there is no road between {a} and {b}")
            length += adj[a][b]
        if length != data["distance"]:
            return self.wrong(
                path, problem, f"the route is {length} long; the shortest is {data['distance']}"
            )
        return self.correct(path, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Bellman-Ford recomputes the distance; the reference must be a path of that length."""
        data = problem.data
        dist = {node: 1 << 60 for node in data["nodes"]}
        dist[data["source"]] = 0
        for _ in range(len(data["nodes"]) - 1):
            for a, b, w in data["edges"]:
                dist[b] = min(dist[b], dist[a] + w)
                dist[a] = min(dist[a], dist[b] + w)
        ok = (
            dist[data["target"]] == data["distance"]
            and self.check(" -> ".join(problem.reference), problem).correct
        )
        return Certificate(1 if ok else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The route reversed, one stop changed, one stop skipped (only those that are wrong)."""
        data = problem.data
        path = list(problem.reference)
        candidates = [list(reversed(path))]
        for i in range(1, len(path) - 1):
            candidates.append(path[:i] + path[i + 1 :])
            for node in data["nodes"]:
                if node not in path:
                    candidates.append(path[:i] + [node] + path[i + 1 :])
                    break
        candidates.append(path + [path[-2], path[-1]])
        out = []
        for candidate in candidates:
            text = " -> ".join(candidate)
            if self.check(text, problem).score < 1 and text not in out:
                out.append(text)
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other shortest paths, and other spellings."""
        data = problem.data
        paths = shortest_paths(adjacency(data["edges"]), data["source"], data["target"], 4)
        out = [" -> ".join(p) for p in paths if p != problem.reference][:3]
        out.append(", ".join(n.lower() for n in problem.reference))
        out.append("-".join(problem.reference))
        return out

    def work(self, problem: Problem) -> float:
        """Dijkstra's edge relaxations from the source."""
        data = problem.data
        return float(dijkstra(adjacency(data["edges"]), data["source"])[1])


class ShortestPathEnv(TaskEnv):
    """Shortest path; see the module docstring."""

    task_class = ShortestPathTask
