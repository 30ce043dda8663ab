"""Graph colouring: colour the nodes with at most k colours so no edge joins two alike.

The task:
    An undirected graph on nodes named by capital letters and a number of colours k. Give
    every node a colour 1..k so that the two ends of every edge differ. The graph is built
    around a hidden k-colouring (edges only between different hidden classes, plus a k-clique
    so that fewer colours never suffice). Any proper colouring scores. The certificate is an
    independent backtracking search (most-constrained node first).

Observation:
    One user message: the nodes, the edges, k and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: every node with a colour,
    ``A = 1, B = 2, ...`` (``:`` also accepted), separated by commas, semicolons or line
    breaks, in any order. A node given twice, a missing node, a colour outside 1..k or any
    other word makes the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a proper colouring with colours 1..k, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 5 nodes and 2 colours at level 1 up to 24 nodes and 5 colours at level 10.
    nodes: Number of nodes (3-26).
    colours: Number of colours k (2-6).
    density: Probability of an edge between nodes of different hidden classes (0.1-1).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks._logic import letter_labels, name_index, parse_assignment
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LEVELS = {
    1: (5, 2, 0.6),
    2: (6, 3, 0.5),
    3: (7, 3, 0.5),
    4: (8, 3, 0.5),
    5: (10, 3, 0.5),
    6: (12, 4, 0.5),
    7: (14, 4, 0.5),
    8: (16, 4, 0.55),
    9: (20, 4, 0.55),
    10: (24, 5, 0.5),
}
"""(nodes, colours, density) by level."""


@dataclasses.dataclass(frozen=True)
class GraphColoringConfig:
    """Knobs.

    Attributes:
        nodes: Number of nodes (3-26).
        colours: Number of colours k (2-6, at most ``nodes``).
        density: Probability of an edge between nodes of different hidden classes (0.1-1).
    """

    nodes: int = 7
    colours: int = 3
    density: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.nodes, int) or not 3 <= self.nodes <= 26:
            raise ValueError(f"nodes must be an integer from 3 to 26, got {self.nodes!r}")
        if not isinstance(self.colours, int) or not 2 <= self.colours <= min(6, self.nodes):
            raise ValueError(
                f"colours must be an integer from 2 to min(6, nodes), got {self.colours!r}"
            )
        if not isinstance(self.density, (int, float)) or not 0.1 <= self.density <= 1:
            raise ValueError(f"density must be a number from 0.1 to 1, got {self.density!r}")


def colourings(
    nodes: list[str], edges: list[list[str]], k: int, limit: int, budget: int = 200_000
) -> tuple[list[dict[str, int]], int]:
    """Up to ``limit`` proper k-colourings by backtracking (most-constrained node first).

    Colour symmetry is broken (a node may only open the next unused colour), so the
    colourings found differ as partitions. Returns them and the number of search nodes.
    """
    neighbours: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    colour: dict[str, int] = {}
    found: list[dict[str, int]] = []
    visited = 0

    def search(used: int) -> None:
        nonlocal visited
        visited += 1
        if len(found) >= limit or visited > budget:
            return
        if len(colour) == len(nodes):
            found.append(dict(colour))
            return

        # The uncoloured node with the fewest colours left (ties: most neighbours).
        def options(n: str) -> list[int]:
            taken = {colour[m] for m in neighbours[n] if m in colour}
            return [c for c in range(1, min(k, used + 1) + 1) if c not in taken]

        node = min(
            (n for n in nodes if n not in colour),
            key=lambda n: (len(options(n)), -len(neighbours[n]), n),
        )
        for c in options(node):
            colour[node] = c
            search(max(used, c))
            del colour[node]

    search(0)
    return found, visited


class GraphColoringTask(Task[GraphColoringConfig]):
    """Colour a graph with at most k colours."""

    name = "graph_coloring"
    Config = GraphColoringConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> GraphColoringConfig:
        """More nodes and colours with the level."""
        nodes, colours, density = LEVELS[level]
        return GraphColoringConfig(nodes=nodes, colours=colours, density=density)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A hidden k-colouring; edges across classes; a k-clique of class representatives."""
        cfg = self.config
        names = letter_labels(rng, cfg.nodes)
        extra = rng.integers(1, cfg.colours + 1, size=cfg.nodes - cfg.colours)
        classes = list(range(1, cfg.colours + 1)) + [int(c) for c in extra]
        hidden = {
            name: classes[int(i)] for name, i in zip(names, rng.permutation(cfg.nodes), strict=True)
        }
        pairs: set[tuple[str, str]] = set()
        representatives = [
            next(n for n in names if hidden[n] == c) for c in range(1, cfg.colours + 1)
        ]
        for i, a in enumerate(representatives):
            for b in representatives[i + 1 :]:
                pairs.add((a, b))
        coins = rng.random(cfg.nodes * cfg.nodes)
        for i, a in enumerate(names):
            for j, b in enumerate(names[i + 1 :], start=i + 1):
                if hidden[a] != hidden[b] and coins[i * cfg.nodes + j] < cfg.density:
                    pairs.add((a, b))
        edges = [list(p) for p in sorted(pairs)]
        edges = [edges[int(i)] for i in rng.permutation(len(edges))]
        lines = ", ".join(f"{a}-{b}" for a, b in edges)
        prompt = (
            f"A graph has the nodes {', '.join(names)} and the edges {lines}.\n\n"
            f"Colour every node with one of the colours 1 to {cfg.colours} "
            "so that the two ends of every edge have different colours. "
            "Give every node's colour as 'node = colour', separated by commas, e.g. "
            "<answer>P = 1, Q = 2</answer>. Any valid colouring is accepted. " + ANSWER_FORMAT
        )
        return Problem(prompt, hidden, {"nodes": names, "edges": edges, "colours": cfg.colours})

    def solve(self, problem: Problem) -> str:
        """The hidden colouring."""
        return ", ".join(f"{n} = {c}" for n, c in problem.reference.items())

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every node coloured 1..k, the ends of every edge different."""
        data = problem.data
        allowed = {str(c): c for c in range(1, data["colours"] + 1)}
        parsed, why = parse_assignment(answer, name_index(data["nodes"]), allowed)
        if parsed is None:
            return self.malformed(answer, problem, why)
        for a, b in data["edges"]:
            if parsed[a] == parsed[b]:
                return self.wrong(
                    parsed, problem, f"{a} and {b} are joined and both have colour {parsed[a]}"
                )
        return self.correct(parsed, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Backtracking finds a proper k-colouring (the hidden one is not used)."""
        data = problem.data
        found, _ = colourings(data["nodes"], data["edges"], data["colours"], limit=1)
        return Certificate(len(found))

    def mutations(self, problem: Problem) -> list[str]:
        """One node takes a neighbour's colour; one node takes colour k + 1."""
        data = problem.data
        colour = dict(problem.reference)
        out = []
        for a, b in data["edges"][:4]:
            clash = dict(colour, **{a: colour[b]})
            out.append(", ".join(f"{n} = {c}" for n, c in clash.items()))
        first = next(iter(colour))
        out.append(
            ", ".join(
                f"{n} = {data['colours'] + 1 if n == first else c}" for n, c in colour.items()
            )
        )
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Colours 1 and 2 swapped, other colourings the search finds, other spellings."""
        data = problem.data
        colour = problem.reference
        swap = {1: 2, 2: 1}
        out = ["; ".join(f"{n}: {swap.get(c, c)}" for n, c in reversed(list(colour.items())))]
        found, _ = colourings(data["nodes"], data["edges"], data["colours"], limit=3)
        out += [", ".join(f"{n.lower()}={c[n]}" for n in data["nodes"]) for c in found]
        return out

    def work(self, problem: Problem) -> float:
        """Nodes times colours plus edges (each edge checked once per colour tried)."""
        data = problem.data
        return float(len(data["nodes"]) * data["colours"] + len(data["edges"]))


class GraphColoringEnv(TaskEnv):
    """Graph colouring; see the module docstring."""

    task_class = GraphColoringTask
