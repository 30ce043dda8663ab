"""Regex membership: does a small regular expression match a whole string?

The task:
    "Does the regular expression (ab|c)*a+ match the entire string ababaa?" -> ``yes``. The
    semantics are Python's ``re.fullmatch``: the whole string must match, not a substring.
    Patterns use literals, ``.``, character classes (``[ab]``, ``[^c]``), alternation ``|``,
    grouping and the quantifiers ``*``, ``+``, ``?`` and ``{m,n}``. Half the strings match.

Observation:
    One user message: the pattern, the string and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: ``yes`` or ``no``.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the answer is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from five-symbol patterns over ``abc`` with concatenation and alternation to
        patterns of a dozen symbols over ``abcd`` with every construct and strings of twenty
        or more letters.
    alphabet_size, size, features, max_repeat, min_length: Override what the level sets
        (``features``: a tuple drawn from `FEATURES`).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks.answers import parse_yes_no
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

FEATURES = ("alt", "star", "class", "plus", "opt", "count", "dot", "negclass")
MAX_STRING = 40

Node = tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class RegexMembershipConfig:
    """Knobs.

    Attributes:
        alphabet_size: Letters used, from ``a`` (2 to 4).
        size: Leaves (literals, classes, dots) in the pattern (2 to 30).
        features: Constructs besides concatenation (a tuple drawn from `FEATURES`).
        max_repeat: Most repetitions a quantifier contributes when strings are sampled.
        min_length: Shortest string asked about.
    """

    alphabet_size: int = 2
    size: int = 3
    features: tuple[str, ...] = ("alt",)
    max_repeat: int = 2
    min_length: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.alphabet_size, int) or not 2 <= self.alphabet_size <= 4:
            raise ValueError(
                f"alphabet_size must be an integer from 2 to 4, got {self.alphabet_size!r}"
            )
        if not isinstance(self.size, int) or not 2 <= self.size <= 30:
            raise ValueError(f"size must be an integer from 2 to 30, got {self.size!r}")
        features = tuple(self.features) if isinstance(self.features, (list, tuple)) else None
        if features is None or any(f not in FEATURES for f in features):
            raise ValueError(
                f"features must be a tuple drawn from {FEATURES}, got {self.features!r}"
            )
        object.__setattr__(self, "features", features)
        if not isinstance(self.min_length, int) or not 1 <= self.min_length <= 30:
            raise ValueError(f"min_length must be an integer from 1 to 30, got {self.min_length!r}")
        if not isinstance(self.max_repeat, int) or not 1 <= self.max_repeat <= 6:
            raise ValueError(f"max_repeat must be an integer from 1 to 6, got {self.max_repeat!r}")


def _leaf(rng: np.random.Generator, alphabet: str, features: tuple[str, ...]) -> Node:
    kinds = (
        ["lit", "lit", "lit"] + ["class"] * ("class" in features) + ["dot"] * ("dot" in features)
    )
    kinds += ["negclass"] * ("negclass" in features)
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "lit":
        return ("lit", alphabet[int(rng.integers(len(alphabet)))])
    if kind == "dot":
        return ("dot",)
    chosen = sorted(alphabet[int(i)] for i in rng.choice(len(alphabet), size=2, replace=False))
    return ("class", "".join(chosen), kind == "negclass")


def _quantified(node: Node) -> bool:
    if node[0] in ("star", "plus", "opt", "count"):
        return True
    return node[0] in ("cat", "alt") and any(_quantified(p) for p in node[1])


def _build(rng: np.random.Generator, size: int, alphabet: str, features: tuple[str, ...]) -> Node:
    """A random pattern tree with ``size`` leaves.

    Quantifiers never nest (star height at most one): patterns like ``(a*)*`` make
    backtracking engines, Python's ``re`` among them, take exponential time.
    """
    if size == 1:
        node = _leaf(rng, alphabet, features)
    else:
        left = int(rng.integers(1, size))
        parts = (
            _build(rng, left, alphabet, features),
            _build(rng, size - left, alphabet, features),
        )
        node = ("alt", parts) if "alt" in features and rng.random() < 0.3 else ("cat", parts)
    quantifiers = [q for q in ("star", "plus", "opt", "count") if q in features]
    if quantifiers and rng.random() < 0.3 and not _quantified(node):
        q = quantifiers[int(rng.integers(len(quantifiers)))]
        if q == "count":
            m = int(rng.integers(0, 3))
            node = ("count", node, m, m + int(rng.integers(1, 3)))
        else:
            node = (q, node)
    return node


def render(node: Node) -> str:
    """The pattern text in Python ``re`` syntax."""
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "dot":
        return "."
    if kind == "class":
        return f"[{'^' if node[2] else ''}{node[1]}]"
    if kind == "cat":
        return "".join(f"({render(p)})" if p[0] == "alt" else render(p) for p in node[1])
    if kind == "alt":
        return "|".join(render(p) for p in node[1])
    inner = render(node[1])
    if node[1][0] not in ("lit", "dot", "class"):
        inner = f"({inner})"
    suffix = {"star": "*", "plus": "+", "opt": "?"}.get(kind) or f"{{{node[2]},{node[3]}}}"
    return inner + suffix


def full_match(node: Node, s: str) -> bool:
    """Whether ``node`` matches all of ``s`` (the set-based matcher, memoised per call)."""
    return len(s) in ends(node, s, 0, {})


def ends(node: Node, s: str, i: int, memo: dict[tuple[int, int], frozenset[int]]) -> frozenset[int]:
    """Positions where a match of ``node`` starting at ``i`` can end (a set-based matcher)."""
    key = (id(node), i)
    if key not in memo:
        memo[key] = _ends(node, s, i, memo)
    return memo[key]


def _ends(
    node: Node, s: str, i: int, memo: dict[tuple[int, int], frozenset[int]]
) -> frozenset[int]:
    kind = node[0]
    if kind in ("lit", "dot", "class"):
        if i >= len(s):
            return frozenset()
        c = s[i]
        ok = (
            kind == "dot"
            or (kind == "lit" and c == node[1])
            or (kind == "class" and (c in node[1]) != node[2])
        )
        return frozenset({i + 1}) if ok else frozenset()
    if kind == "cat":
        current = frozenset({i})
        for part in node[1]:
            current = frozenset(j for k in current for j in ends(part, s, k, memo))
        return current
    if kind == "alt":
        return frozenset().union(*(ends(p, s, i, memo) for p in node[1]))
    if kind == "opt":
        return frozenset({i}) | ends(node[1], s, i, memo)
    if kind == "count":
        low, high = node[2], node[3]
        reached = {i} if low == 0 else set()
        frontier = frozenset({i})
        for count in range(1, high + 1):
            frontier = frozenset(j for k in frontier for j in ends(node[1], s, k, memo))
            if count >= low:
                reached |= frontier
        return frozenset(reached)
    # star and plus: every position reachable after one or more repetitions (a closure).
    visited: set[int] = set()
    frontier = {i}
    while frontier:
        frontier = {j for k in frontier for j in ends(node[1], s, k, memo)} - visited
        visited |= frontier
    return frozenset(visited | ({i} if kind == "star" else set()))


def sample(rng: np.random.Generator, node: Node, alphabet: str, max_repeat: int) -> str:
    """A random string the pattern matches."""
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "dot":
        return alphabet[int(rng.integers(len(alphabet)))]
    if kind == "class":
        allowed = [c for c in alphabet if (c in node[1]) != node[2]]
        return allowed[int(rng.integers(len(allowed)))]
    if kind == "cat":
        return "".join(sample(rng, p, alphabet, max_repeat) for p in node[1])
    if kind == "alt":
        return sample(rng, node[1][int(rng.integers(2))], alphabet, max_repeat)
    low, high = {"star": (0, max_repeat), "plus": (1, max_repeat), "opt": (0, 1)}.get(kind, (0, 0))
    if kind == "count":
        low, high = node[2], node[3]
    return "".join(
        sample(rng, node[1], alphabet, max_repeat) for _ in range(int(rng.integers(low, high + 1)))
    )


class RegexMembershipTask(Task[RegexMembershipConfig]):
    """Regular expression membership."""

    name = "regex_membership"
    Config = RegexMembershipConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> RegexMembershipConfig:
        """Bigger patterns and alphabets, more constructs, longer strings."""
        size, alphabet = (
            (5, 5, 5, 6, 6, 7, 8, 9, 10, 12)[level - 1],
            (3, 3, 3, 3, 3, 3, 4, 4, 4, 4)[level - 1],
        )
        features = FEATURES[: (1, 2, 3, 5, 6, 6, 7, 8, 8, 8)[level - 1]]
        repeat = (2, 2, 2, 3, 3, 3, 3, 4, 4, 4)[level - 1]
        shortest = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12)[level - 1]
        return RegexMembershipConfig(
            alphabet_size=alphabet,
            size=size,
            features=features,
            max_repeat=repeat,
            min_length=shortest,
        )

    def generate(self, rng: np.random.Generator) -> Problem:
        """A pattern; a sampled string, or (half the time) a one-letter edit of one that fails.

        Candidate edits are screened with ``re`` (fast); the label is the tree matcher's.
        """
        cfg = self.config
        alphabet = "abcd"[: cfg.alphabet_size]
        want = bool(rng.random() < 0.5)
        while True:
            node = _build(rng, cfg.size, alphabet, cfg.features)
            text = sample(rng, node, alphabet, cfg.max_repeat)
            if not cfg.min_length <= len(text) <= MAX_STRING:
                continue
            compiled = re.compile(render(node))
            if not want:
                for _ in range(10):
                    i = int(rng.integers(len(text) + 1))
                    edit = int(rng.integers(3))
                    letter = alphabet[int(rng.integers(len(alphabet)))]
                    if edit < 2:
                        candidate = text[:i] + letter + text[i + (edit == 0) :]
                    else:
                        candidate = text[:i] + text[i + 1 :]
                    if compiled.fullmatch(candidate) is None:
                        text = candidate
                        break
            if not cfg.min_length <= len(text) <= MAX_STRING:
                continue
            matched = full_match(node, text)
            if matched == want:
                break
        pattern = render(node)
        prompt = (
            f"Does the regular expression {pattern} match the entire string {text}? Use Python's "
            "re.fullmatch semantics: the whole string must match the pattern, not just a part of "
            "it. ( ) groups, | is alternation, [ ] is a character class ([^ ] negated), . is any "
            "character, and *, +, ? and {m,n} repeat the item before them. Answer yes or no. "
            f"{ANSWER_FORMAT}"
        )
        return Problem(
            prompt,
            "yes" if matched else "no",
            {"pattern": pattern, "string": text, "size": cfg.size},
        )

    def solve(self, problem: Problem) -> str:
        """A set-of-end-positions matcher over the pattern tree."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Yes or no."""
        said = parse_yes_no(answer)
        if said is None:
            return self.malformed(answer, problem, "answer yes or no")
        if said != (problem.reference == "yes"):
            return self.wrong(answer, problem, "wrong")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Python's ``re.fullmatch`` on the printed pattern."""
        matched = re.fullmatch(problem.data["pattern"], problem.data["string"]) is not None
        return Certificate(1 if matched == (problem.reference == "yes") else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The other answer."""
        return ["no" if problem.reference == "yes" else "yes"]

    def alternatives(self, problem: Problem) -> list[str]:
        """Capitalised, with a full stop."""
        return [problem.reference.capitalize(), problem.reference.upper() + "."]

    def work(self, problem: Problem) -> float:
        """Pattern leaves times string positions (the matcher's table)."""
        return float(problem.data["size"] * (len(problem.data["string"]) + 1))


class RegexMembershipEnv(TaskEnv):
    """Regular expression membership; see the module docstring."""

    task_class = RegexMembershipTask
