"""Hamiltonian path: visit every node of a graph exactly once along its edges.

The task:
    An undirected graph on nodes named by capital letters. Give a path that visits every node
    exactly once, moving only along edges; it may start and end anywhere. Every instance has
    one by construction (a hidden path is laid first, then extra edges); any valid path
    scores. The certificate is a depth-first search (fewest onward moves first) that ignores
    the hidden path.

Observation:
    One user message: the nodes, the edges and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the nodes in visiting order,
    separated by ``->`` (also accepted: ``-``, commas or spaces); case free. Unknown names or
    other words make the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every node appears once and consecutive nodes are
    joined by edges, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4 nodes at level 1 up to 18 nodes at level 10, with about 0.5 to 0.9 extra
        edges per node (distractors that lead into dead ends).
    nodes: Number of nodes (3-26).
    density: Extra edges per node beyond the hidden path (0-3).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks._logic import letter_labels, name_index, parse_names
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LEVELS = {
    1: (4, 0.5),
    2: (5, 0.6),
    3: (6, 0.7),
    4: (7, 0.8),
    5: (8, 0.8),
    6: (10, 0.9),
    7: (12, 0.9),
    8: (14, 0.9),
    9: (16, 0.9),
    10: (18, 0.9),
}
"""(nodes, extra edges per node) by level."""

SEPARATORS = r"\s*(?:->|→|-|,)\s*|\s+"
SEARCH_BUDGET = 500_000
"""Depth-first steps the certificate may take before giving up."""


@dataclasses.dataclass(frozen=True)
class HamiltonianPathConfig:
    """Knobs.

    Attributes:
        nodes: Number of nodes (3-26).
        density: Extra edges per node beyond the hidden path (0-3).
    """

    nodes: int = 6
    density: float = 0.7

    def __post_init__(self) -> None:
        if not isinstance(self.nodes, int) or not 3 <= self.nodes <= 26:
            raise ValueError(f"nodes must be an integer from 3 to 26, got {self.nodes!r}")
        if not isinstance(self.density, (int, float)) or not 0 <= self.density <= 3:
            raise ValueError(f"density must be a number from 0 to 3, got {self.density!r}")


def hamiltonian_paths(
    nodes: list[str], edges: list[list[str]], limit: int
) -> tuple[list[list[str]], int]:
    """Up to ``limit`` Hamiltonian paths by depth-first search (fewest onward moves first).

    Returns the paths (each found once per direction it was reached in) and the steps taken.
    """
    neighbours: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    found: list[list[str]] = []
    steps = 0
    path: list[str] = []
    visited: set[str] = set()

    def extend() -> None:
        nonlocal steps
        steps += 1
        if len(found) >= limit or steps > SEARCH_BUDGET:
            return
        if len(path) == len(nodes):
            found.append(list(path))
            return
        options = [m for m in neighbours[path[-1]] if m not in visited]
        options.sort(key=lambda m: (sum(1 for x in neighbours[m] if x not in visited), m))
        for m in options:
            path.append(m)
            visited.add(m)
            extend()
            visited.discard(m)
            path.pop()

    # Ends of the path are likely among the low-degree nodes: start there.
    for start in sorted(nodes, key=lambda n: (len(neighbours[n]), n)):
        path[:] = [start]
        visited.clear()
        visited.add(start)
        extend()
        if len(found) >= limit or steps > SEARCH_BUDGET:
            break
    return found, steps


class HamiltonianPathTask(Task[HamiltonianPathConfig]):
    """Find a Hamiltonian path."""

    name = "hamiltonian_path"
    Config = HamiltonianPathConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> HamiltonianPathConfig:
        """More nodes with the level."""
        nodes, density = LEVELS[level]
        return HamiltonianPathConfig(nodes=nodes, density=density)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A hidden path through all nodes, plus random extra edges."""
        cfg = self.config
        names = letter_labels(rng, cfg.nodes)
        hidden = [names[int(i)] for i in rng.permutation(cfg.nodes)]
        pairs = {tuple(sorted(p)) for p in zip(hidden, hidden[1:], strict=False)}
        possible = cfg.nodes * (cfg.nodes - 1) // 2
        target = min(possible, cfg.nodes - 1 + round(cfg.density * cfg.nodes))
        while len(pairs) < target:
            a, b = (names[int(i)] for i in rng.choice(cfg.nodes, size=2, replace=False))
            pairs.add(tuple(sorted((a, b))))
        edges = [list(p) for p in sorted(pairs)]
        edges = [edges[int(i)] for i in rng.permutation(len(edges))]
        lines = ", ".join(f"{a}-{b}" for a, b in edges)
        prompt = (
            f"A graph has the nodes {', '.join(names)} and the undirected edges {lines}.\n\n"
            "Find a path that visits every node exactly once, moving only along edges "
            "(it may start and end at any nodes). "
            "Give the nodes in order separated by '->', e.g. <answer>P -> Q -> R</answer>. "
            "Any valid path is accepted. " + ANSWER_FORMAT
        )
        return Problem(prompt, hidden, {"nodes": names, "edges": edges})

    def solve(self, problem: Problem) -> str:
        """The hidden path."""
        return " -> ".join(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every node once, consecutive nodes joined by edges."""
        data = problem.data
        path = parse_names(answer, name_index(data["nodes"]), SEPARATORS)
        if path is None:
            return self.malformed(answer, problem, "expected node names separated by '->'")
        if sorted(path) != sorted(data["nodes"]):
            return self.wrong(path, problem, "the path must visit every node exactly once")
        joined = {frozenset(e) for e in data["edges"]}
        for a, b in zip(path, path[1:], strict=False):
            if frozenset((a, b)) not in joined:
                return self.wrong(path, problem, f"there is no edge between {a} and {b}")
        return self.correct(path, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Depth-first search from scratch."""
        data = problem.data
        found, _ = hamiltonian_paths(data["nodes"], data["edges"], limit=1)
        return Certificate(len(found))

    def mutations(self, problem: Problem) -> list[str]:
        """Two nodes swapped, the last node dropped, a node repeated (only those that are wrong)."""
        path = list(problem.reference)
        candidates = []
        for i in range(len(path) - 1):
            for j in range(i + 2, len(path)):
                swapped = list(path)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                candidates.append(swapped)
                if len(candidates) > 6:
                    break
        candidates += [path[:-1], path + [path[-2]]]
        out = []
        for candidate in candidates:
            text = " -> ".join(candidate)
            if self.check(text, problem).score < 1 and text not in out:
                out.append(text)
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """The path reversed, other paths the search finds, other spellings."""
        data = problem.data
        found, _ = hamiltonian_paths(data["nodes"], data["edges"], limit=3)
        out = [" -> ".join(reversed(problem.reference))]
        out += [", ".join(p) for p in found]
        out.append(" ".join(n.lower() for n in problem.reference))
        return out

    def work(self, problem: Problem) -> float:
        """Nodes times edges (a depth-first step weighs the moves out of a node)."""
        data = problem.data
        return float(len(data["nodes"]) * len(data["edges"]))


class HamiltonianPathEnv(TaskEnv):
    """Hamiltonian path; see the module docstring."""

    task_class = HamiltonianPathTask
