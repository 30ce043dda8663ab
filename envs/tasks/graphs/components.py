"""Connected components and islands: group a graph's nodes, or measure a map's islands.

The task:
    Each instance is one of two kinds (``variant``):

    * graph: an undirected graph on nodes named by capital letters; give its connected
      components (which nodes can reach which).
    * grid: a map of land (``#``) and water (``.``); an island is a group of land cells
      joined through up, down, left or right neighbours; give the size of every island.

    The generator finds components by breadth-first search; the certificate by union-find.

Observation:
    One user message: the graph's edges or the map, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``:

    * graph: the components separated by ``|``, the nodes of a component separated by
      commas or spaces (``A, C | B | D, E``; a component may be wrapped in braces),
      components and nodes in any order. Every node exactly once; an unknown name or another
      word makes the answer malformed.
    * grid: the island sizes separated by commas, largest first (any order is accepted),
      one number per island.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for exactly the right components (or multiset of island
    sizes), else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 5 nodes or a 4x4 map at level 1 up to 24 nodes or a 12x12 map at level 10.
    variant: ``graph``, ``grid`` or ``both`` (each instance draws one).
    nodes: Number of graph nodes (3-26).
    side: Side of the square map (3-20).
    land: Share of land cells (0.1-0.9).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import (
    MAX_ANSWER_CHARS,
    clean,
    letter_labels,
    name_index,
    parse_int_list,
    parse_names,
)
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

VARIANTS = ("graph", "grid", "both")
LEVELS = {
    1: (5, 4),
    2: (6, 5),
    3: (8, 5),
    4: (10, 6),
    5: (12, 7),
    6: (14, 8),
    7: (16, 9),
    8: (18, 10),
    9: (21, 11),
    10: (24, 12),
}
"""(graph nodes, map side) by level."""


@dataclasses.dataclass(frozen=True)
class ConnectedComponentsConfig:
    """Knobs.

    Attributes:
        variant: ``graph``, ``grid`` or ``both``.
        nodes: Number of graph nodes (3-26).
        side: Side of the square map (3-20).
        land: Share of land cells (0.1-0.9).
    """

    variant: str = "both"
    nodes: int = 8
    side: int = 5
    land: float = 0.45

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if not isinstance(self.nodes, int) or not 3 <= self.nodes <= 26:
            raise ValueError(f"nodes must be an integer from 3 to 26, got {self.nodes!r}")
        if not isinstance(self.side, int) or not 3 <= self.side <= 20:
            raise ValueError(f"side must be an integer from 3 to 20, got {self.side!r}")
        if not isinstance(self.land, (int, float)) or not 0.1 <= self.land <= 0.9:
            raise ValueError(f"land must be a number from 0.1 to 0.9, got {self.land!r}")


def graph_components(nodes: list[str], edges: list[list[str]]) -> list[list[str]]:
    """Components by breadth-first search, each sorted, in order of their first node."""
    neighbours: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    seen: set[str] = set()
    out = []
    for start in nodes:
        if start in seen:
            continue
        group, frontier = [start], [start]
        seen.add(start)
        while frontier:
            nxt = []
            for node in frontier:
                for other in neighbours[node]:
                    if other not in seen:
                        seen.add(other)
                        group.append(other)
                        nxt.append(other)
            frontier = nxt
        out.append(sorted(group))
    return out


def island_sizes(rows: list[str]) -> list[int]:
    """Sizes of the 4-connected groups of ``#`` cells by breadth-first search, largest first."""
    h, w = len(rows), len(rows[0])
    seen = [[False] * w for _ in range(h)]
    sizes = []
    for r in range(h):
        for c in range(w):
            if rows[r][c] != "#" or seen[r][c]:
                continue
            seen[r][c] = True
            frontier, size = [(r, c)], 0
            while frontier:
                y, x = frontier.pop()
                size += 1
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < h and 0 <= nx < w and rows[ny][nx] == "#" and not seen[ny][nx]:
                        seen[ny][nx] = True
                        frontier.append((ny, nx))
            sizes.append(size)
    return sorted(sizes, reverse=True)


class ConnectedComponentsTask(Task[ConnectedComponentsConfig]):
    """Find connected components or islands."""

    name = "connected_components"
    Config = ConnectedComponentsConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> ConnectedComponentsConfig:
        """More nodes and a larger map with the level."""
        nodes, side = LEVELS[level]
        return ConnectedComponentsConfig(nodes=nodes, side=side)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A graph made of hidden groups (each a random tree plus extra edges), or a random map."""
        variant = self.config.variant
        if variant == "both":
            variant = ("graph", "grid")[int(rng.integers(2))]
        return self._graph(rng) if variant == "graph" else self._grid(rng)

    def _graph(self, rng: np.random.Generator) -> Problem:
        n = self.config.nodes
        names = letter_labels(rng, n)
        groups_wanted = int(rng.integers(max(2, n // 4), max(3, n // 2) + 1))
        labels = [int(g) for g in rng.integers(0, groups_wanted, size=n)]
        pairs: set[tuple[str, str]] = set()
        for g in range(groups_wanted):
            members = [names[i] for i in range(n) if labels[i] == g]
            order = [members[int(i)] for i in rng.permutation(len(members))]
            for i in range(1, len(order)):
                pairs.add(tuple(sorted((order[i], order[int(rng.integers(i))]))))  # type: ignore[arg-type]
            for _ in range(len(members) // 3):
                a, b = (order[int(i)] for i in rng.integers(0, len(order), size=2))
                if a != b:
                    pairs.add(tuple(sorted((a, b))))  # type: ignore[arg-type]
        edges = [list(p) for p in sorted(pairs)]
        edges = [edges[int(i)] for i in rng.permutation(len(edges))]
        components = graph_components(names, edges)
        lines = ", ".join(f"{a}-{b}" for a, b in edges) if edges else "none"
        prompt = (
            f"A graph has the nodes {', '.join(names)} and the undirected edges {lines}.\n\n"
            "Find its connected components "
            "(groups of nodes that can reach each other along edges). "
            "List every component with its nodes separated by commas, "
            "and separate components with '|', e.g. "
            "<answer>P, R | Q | S, T, U</answer>. Components and nodes may be in any order. "
            + ANSWER_FORMAT
        )
        return Problem(prompt, components, {"kind": "graph", "nodes": names, "edges": edges})

    def _grid(self, rng: np.random.Generator) -> Problem:
        side = self.config.side
        while True:
            cells = rng.random((side, side)) < self.config.land
            rows = ["".join("#" if x else "." for x in row) for row in cells]
            sizes = island_sizes(rows)
            if sizes:
                break
        picture = "\n".join(rows)
        prompt = (
            f"This map is {side} rows by {side} columns; # is land and . is water:\n{picture}\n\n"
            "An island is a group of land cells connected through their up, down, left or right "
            "neighbours (not diagonally). Give the size (number of cells) of every island, "
            "largest first, separated by commas, e.g. <answer>7, 4, 4, 1</answer>. " + ANSWER_FORMAT
        )
        return Problem(prompt, sizes, {"kind": "grid", "rows": rows})

    def solve(self, problem: Problem) -> str:
        """Breadth-first search."""
        data = problem.data
        if data["kind"] == "grid":
            return ", ".join(str(s) for s in island_sizes(data["rows"]))
        return " | ".join(
            ", ".join(group) for group in graph_components(data["nodes"], data["edges"])
        )

    def check(self, answer: str, problem: Problem) -> Verdict:
        """The same partition of the nodes, or the same multiset of island sizes."""
        data = problem.data
        if data["kind"] == "grid":
            sizes = parse_int_list(answer, brackets="none")
            if sizes is None or any(s < 1 for s in sizes):
                return self.malformed(answer, problem, "expected island sizes separated by commas")
            expected = island_sizes(data["rows"])
            if sorted(sizes, reverse=True) != expected:
                return self.wrong(
                    sizes, problem, f"there are {len(expected)} islands; the sizes differ"
                )
            return self.correct(sizes, problem)
        if len(answer) > MAX_ANSWER_CHARS:
            return self.malformed(answer, problem, "the answer is too long")
        index = name_index(data["nodes"])
        groups = []
        for part in re.split(r"\|", clean(answer)):
            group = parse_names(part.strip().strip("{}[]() "), index, r"\s*,\s*|\s+")
            if group is None:
                return self.malformed(
                    answer, problem, "expected components of node names separated by '|'"
                )
            groups.append(sorted(group))
        listed = sorted(n for g in groups for n in g)
        if listed != sorted(data["nodes"]):
            return self.wrong(groups, problem, "every node must appear in exactly one component")
        expected = graph_components(data["nodes"], data["edges"])
        if sorted(groups) != sorted(expected):
            return self.wrong(
                groups, problem, f"the graph has {len(expected)} components; these groups differ"
            )
        return self.correct(groups, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Union-find over the edges (or the land cells) must give the reference."""
        data = problem.data
        parent: dict[Any, Any] = {}

        def find(x: Any) -> Any:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: Any, b: Any) -> None:
            parent[find(a)] = find(b)

        if data["kind"] == "grid":
            rows = data["rows"]
            land = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
            for r, c in land:
                find((r, c))
                for nr, nc in ((r + 1, c), (r, c + 1)):
                    if nr < len(rows) and nc < len(rows[0]) and rows[nr][nc] == "#":
                        union((r, c), (nr, nc))
            counts: dict[Any, int] = {}
            for cell in land:
                counts[find(cell)] = counts.get(find(cell), 0) + 1
            return Certificate(
                1 if sorted(counts.values(), reverse=True) == list(problem.reference) else 0
            )
        for node in data["nodes"]:
            find(node)
        for a, b in data["edges"]:
            union(a, b)
        groups: dict[Any, list[str]] = {}
        for node in data["nodes"]:
            groups.setdefault(find(node), []).append(node)
        found = sorted(sorted(g) for g in groups.values())
        return Certificate(1 if found == sorted(problem.reference) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """Wrong answers close to the reference.

        Grid: a size off by one, an island dropped or added. Graph: a node moved to another
        group, the first two groups merged, the largest group split.
        """
        reference = problem.reference
        if problem.data["kind"] == "grid":
            sizes = list(reference)
            return [
                ", ".join(str(s) for s in [sizes[0] + 1, *sizes[1:]]),
                ", ".join(str(s) for s in sizes[:-1]) if len(sizes) > 1 else "0",
                ", ".join(str(s) for s in [*sizes, 1]),
            ]
        groups = [list(g) for g in reference]
        out = []
        if len(groups) > 1:
            moved = [list(g) for g in groups]
            node = moved[0].pop()
            moved[1].append(node)
            out.append(" | ".join(", ".join(g) for g in moved if g))
            out.append(
                " | ".join([", ".join(groups[0] + groups[1])] + [", ".join(g) for g in groups[2:]])
            )
        big = max(groups, key=len)
        if len(big) > 1:
            split = [g for g in groups if g is not big] + [big[:1], big[1:]]
            out.append(" | ".join(", ".join(g) for g in split))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other orders and spellings."""
        reference = problem.reference
        if problem.data["kind"] == "grid":
            return [
                ", ".join(str(s) for s in reversed(reference)),
                " ".join(str(s) for s in reference),
            ]
        return [
            " | ".join(" ".join(reversed(g)).lower() for g in reversed(reference)),
            "|".join("{" + ",".join(g) + "}" for g in reference),
        ]

    def work(self, problem: Problem) -> float:
        """Nodes plus edges visited, or map cells visited."""
        data = problem.data
        if data["kind"] == "grid":
            return float(len(data["rows"]) ** 2)
        return float(len(data["nodes"]) + len(data["edges"]))


class ConnectedComponentsEnv(TaskEnv):
    """Connected components and islands; see the module docstring."""

    task_class = ConnectedComponentsTask
