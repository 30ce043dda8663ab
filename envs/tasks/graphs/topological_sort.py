"""Topological order: order tasks so every prerequisite comes first, or show a cycle.

The task:
    Tasks named by capital letters and prerequisites "X must come before Y" (a directed
    graph). If the prerequisites allow an order, give any order of all tasks that respects
    them; if they contain a cycle (about two instances in five), say so and give a cycle as
    the witness. Any valid order and any valid cycle score. The generator runs Kahn's
    algorithm; the certificate finds cycles by depth-first search.

Observation:
    One user message: the tasks, the prerequisites and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: either every task once, in
    order, separated by commas (or ``->``, or spaces), or the word ``cycle`` followed by the
    tasks of a cycle in order (``cycle: B, E, D`` meaning B before E before D before B; the
    first task may be repeated at the end). Case free. Unknown names or other words make the
    answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid order (when there is no cycle) or a valid cycle,
    else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4 tasks at level 1 up to 20 tasks with about 2 prerequisites each at level
        10; a cycle is planted with probability ``cycle_rate``.
    nodes: Number of tasks (3-26).
    density: Prerequisites per task (0.5-4).
    cycle_rate: Probability of planting a cycle (0-1).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import heapq
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import (
    MAX_ANSWER_CHARS,
    clean,
    letter_labels,
    name_index,
    parse_names,
)
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

LEVELS = {
    1: (4, 1.0, 0.3),
    2: (5, 1.2, 0.3),
    3: (6, 1.3, 0.35),
    4: (7, 1.4, 0.35),
    5: (8, 1.5, 0.4),
    6: (10, 1.6, 0.4),
    7: (12, 1.7, 0.4),
    8: (14, 1.8, 0.4),
    9: (17, 1.9, 0.4),
    10: (20, 2.0, 0.4),
}
"""(tasks, prerequisites per task, cycle probability) by level."""

SEPARATORS = r"\s*(?:->|→|,)\s*|\s+"
_CYCLE = re.compile(r"^cycle\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)


@dataclasses.dataclass(frozen=True)
class TopologicalSortConfig:
    """Knobs.

    Attributes:
        nodes: Number of tasks (3-26).
        density: Prerequisites per task (0.5-4).
        cycle_rate: Probability of planting a cycle (0-1).
    """

    nodes: int = 6
    density: float = 1.3
    cycle_rate: float = 0.35

    def __post_init__(self) -> None:
        if not isinstance(self.nodes, int) or not 3 <= self.nodes <= 26:
            raise ValueError(f"nodes must be an integer from 3 to 26, got {self.nodes!r}")
        if not isinstance(self.density, (int, float)) or not 0.5 <= self.density <= 4:
            raise ValueError(f"density must be a number from 0.5 to 4, got {self.density!r}")
        if not isinstance(self.cycle_rate, (int, float)) or not 0 <= self.cycle_rate <= 1:
            raise ValueError(f"cycle_rate must be a number from 0 to 1, got {self.cycle_rate!r}")


def kahn(nodes: list[str], edges: list[list[str]], largest_first: bool = False) -> list[str]:
    """Kahn's algorithm with alphabetical tie-breaking; fewer than all nodes if there is a cycle."""
    indegree = {n: 0 for n in nodes}
    after: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        after[a].append(b)
        indegree[b] += 1

    def key(n: str) -> Any:
        return -ord(n[0]) if largest_first else n

    ready = [(key(n), n) for n in nodes if indegree[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, node = heapq.heappop(ready)
        order.append(node)
        for other in after[node]:
            indegree[other] -= 1
            if indegree[other] == 0:
                heapq.heappush(ready, (key(other), other))
    return order


def find_cycle(nodes: list[str], edges: list[list[str]]) -> list[str]:
    """A cycle among the nodes Kahn's algorithm cannot place (walking back along prerequisites)."""
    placed = set(kahn(nodes, edges))
    stuck = [n for n in nodes if n not in placed]
    if not stuck:
        return []
    before: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        if a not in placed:
            before[b].append(a)
    # Every stuck node has a stuck prerequisite, so walking back must repeat a node.
    walk, seen = [stuck[0]], {stuck[0]: 0}
    while True:
        node = sorted(before[walk[-1]])[0]
        if node in seen:
            cycle = walk[seen[node] :]
            return list(reversed(cycle))
        seen[node] = len(walk)
        walk.append(node)


class TopologicalSortTask(Task[TopologicalSortConfig]):
    """Order tasks by their prerequisites, or find a cycle."""

    name = "topological_sort"
    Config = TopologicalSortConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> TopologicalSortConfig:
        """More tasks and prerequisites with the level."""
        nodes, density, cycle_rate = LEVELS[level]
        return TopologicalSortConfig(nodes=nodes, density=density, cycle_rate=cycle_rate)

    def generate(self, rng: np.random.Generator) -> Problem:
        """Edges forward along a hidden order; sometimes a chain closed into a cycle."""
        cfg = self.config
        names = letter_labels(rng, cfg.nodes)
        hidden = [names[int(i)] for i in rng.permutation(cfg.nodes)]
        pairs: set[tuple[str, str]] = set()
        possible = cfg.nodes * (cfg.nodes - 1) // 2
        target = min(possible, max(cfg.nodes - 1, round(cfg.density * cfg.nodes)))
        while len(pairs) < target:
            i, j = sorted(int(x) for x in rng.choice(cfg.nodes, size=2, replace=False))
            pairs.add((hidden[i], hidden[j]))
        if rng.random() < cfg.cycle_rate:
            length = int(rng.integers(2, min(6, cfg.nodes) + 1))
            chain = sorted(int(x) for x in rng.choice(cfg.nodes, size=length, replace=False))
            for i, j in zip(chain, chain[1:], strict=False):
                pairs.add((hidden[i], hidden[j]))
            pairs.add((hidden[chain[-1]], hidden[chain[0]]))
        edges = [list(p) for p in sorted(pairs)]
        edges = [edges[int(i)] for i in rng.permutation(len(edges))]
        order = kahn(names, edges)
        if len(order) == cfg.nodes:
            reference = {"kind": "order", "nodes": order}
        else:
            reference = {"kind": "cycle", "nodes": find_cycle(names, edges)}
        lines = "\n".join(f"{a} must come before {b}." for a, b in edges)
        prompt = (
            f"There are {cfg.nodes} tasks: {', '.join(names)}. The rules:\n{lines}\n\n"
            "Give an order of all the tasks in which every task comes after the tasks "
            "that must come before it: "
            "list every task once, separated by commas, e.g. <answer>Q, P, R</answer>. "
            "If the rules contain a cycle so that no such order exists, "
            "answer the word cycle followed by the tasks of one cycle in order instead, "
            "e.g. <answer>cycle: P, R, Q</answer> (P before R before Q before P). "
            "Any valid order or cycle is accepted. " + ANSWER_FORMAT
        )
        return Problem(prompt, reference, {"nodes": names, "edges": edges})

    def solve(self, problem: Problem) -> str:
        """Kahn's algorithm; on a cycle, walk back through the tasks it could not place."""
        data = problem.data
        order = kahn(data["nodes"], data["edges"])
        if len(order) == len(data["nodes"]):
            return ", ".join(order)
        return "cycle: " + ", ".join(find_cycle(data["nodes"], data["edges"]))

    def check(self, answer: str, problem: Problem) -> Verdict:
        """A permutation respecting every rule, or a closed chain of rules."""
        data = problem.data
        names, edges = data["nodes"], data["edges"]
        if len(answer) > MAX_ANSWER_CHARS:
            return self.malformed(answer, problem, "the answer is too long")
        body = clean(answer)
        cycle = _CYCLE.match(body)
        listed = parse_names(cycle.group(1) if cycle else body, name_index(names), SEPARATORS)
        if listed is None:
            return self.malformed(
                answer,
                problem,
                "expected task names separated by commas (after 'cycle:' for a cycle)",
            )
        rules = {(a, b) for a, b in edges}
        if cycle:
            if len(listed) > 2 and listed[0] == listed[-1]:
                listed = listed[:-1]
            if len(set(listed)) != len(listed) or len(listed) < 2:
                return self.wrong(
                    listed, problem, "a cycle lists at least two distinct tasks once each"
                )
            for a, b in zip(listed, listed[1:] + listed[:1], strict=True):
                if (a, b) not in rules:
                    return self.wrong(listed, problem, f"no rule says {a} must come before {b}")
            return self.correct(["cycle", *listed], problem)
        if sorted(listed) != sorted(names):
            return self.wrong(listed, problem, "the order must list every task exactly once")
        position = {n: i for i, n in enumerate(listed)}
        for a, b in edges:
            if position[a] > position[b]:
                return self.wrong(listed, problem, f"{a} must come before {b}")
        return self.correct(listed, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Depth-first search with three colours decides acyclicity; the reference must be valid."""
        data = problem.data
        after: dict[str, list[str]] = {n: [] for n in data["nodes"]}
        for a, b in data["edges"]:
            after[a].append(b)
        colour = {n: 0 for n in data["nodes"]}
        has_cycle = False
        for root in data["nodes"]:
            if colour[root]:
                continue
            stack = [(root, iter(after[root]))]
            colour[root] = 1
            while stack:
                node, children = stack[-1]
                child = next(children, None)
                if child is None:
                    colour[node] = 2
                    stack.pop()
                elif colour[child] == 1:
                    has_cycle = True
                elif colour[child] == 0:
                    colour[child] = 1
                    stack.append((child, iter(after[child])))
        expected = "cycle" if has_cycle else "order"
        ok = (
            problem.reference["kind"] == expected
            and self.check(self.solve(problem), problem).correct
        )
        return Certificate(1 if ok else 0)

    def _reference_text(self, problem: Problem) -> str:
        ref = problem.reference
        return ("cycle: " if ref["kind"] == "cycle" else "") + ", ".join(ref["nodes"])

    def mutations(self, problem: Problem) -> list[str]:
        """Order: a rule broken, a task dropped. Cycle: one task dropped, reversed, or an order."""
        data = problem.data
        ref = problem.reference
        nodes = list(ref["nodes"])
        candidates = []
        if ref["kind"] == "order":
            for a, b in data["edges"][:3]:
                moved = [n for n in nodes if n != b]
                moved.insert(moved.index(a), b)
                candidates.append(", ".join(moved))
            candidates.append(", ".join(nodes[:-1]))
        else:
            for i in range(len(nodes)):
                if len(nodes) > 2:
                    candidates.append("cycle: " + ", ".join(nodes[:i] + nodes[i + 1 :]))
            candidates.append("cycle: " + ", ".join(reversed(nodes)))
            candidates.append(", ".join(sorted(data["nodes"])))
        return [c for c in dict.fromkeys(candidates) if self.check(c, problem).score < 1]

    def alternatives(self, problem: Problem) -> list[str]:
        """Another valid order (or a rotation of the cycle), and other spellings."""
        data = problem.data
        ref = problem.reference
        if ref["kind"] == "order":
            other = kahn(data["nodes"], data["edges"], largest_first=True)
            return [", ".join(other), " -> ".join(ref["nodes"]).lower()]
        nodes = ref["nodes"]
        rotated = nodes[1:] + nodes[:1]
        return ["Cycle " + " -> ".join(rotated), "CYCLE: " + ", ".join(nodes + nodes[:1])]

    def work(self, problem: Problem) -> float:
        """Kahn's algorithm: tasks plus rules."""
        data = problem.data
        return float(len(data["nodes"]) + len(data["edges"]))


class TopologicalSortEnv(TaskEnv):
    """Topological order or cycle; see the module docstring."""

    task_class = TopologicalSortTask
