"""Word ladders: turn one word into another by changing one letter at a time, shortest way.

The task:
    "Change COLD into WARM one letter at a time; every word on the way must be an English
    word." Any shortest ladder scores: the checker verifies that every word is in the shipped
    English dictionary, that consecutive words differ in exactly one letter, and that the
    ladder is as short as a breadth-first search over that same dictionary says it can be.
    Puzzles are drawn from common words, and only where a shortest ladder runs through
    common words, so knowing everyday English is enough; the prompt says what counts as a
    word.

Observation:
    One user message: the two words, what counts as a word, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the ladder from the first word to
    the last, inclusive, separated by commas, spaces or arrows (``->``); any case.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid ladder of the shortest length, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; four-letter words, from two or three steps apart to nine to eleven steps apart.
    length, min_steps, max_steps: Override what the level sets.

Data:
    ``data/english.txt.gz`` (about 116,000 English words from SCOWL, ranked by commonness;
    see ``data/ENGLISH-LICENSE.txt``): every word counts, and the commonest (SCOWL size 35
    and below, American spelling) are drawn. v0 used ``data/words.txt`` (about 3,100 common
    words written for this project) for both.

Version history:
    v0: first version; only the hand-written list of about 3,100 words counted, and
        "shortest" was measured inside it (SWAN, SWAP, SLAP, FLAP, FLAW scored 0 against a
        seven-step ladder).
    v1: every word of the English dictionary counts and "shortest" is measured over it;
        puzzles are drawn from common words with a shortest ladder through common words;
        the prompt says what counts as a word.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import string
from collections import deque
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from palaestra.envs.tasks._words import (
    DICTIONARY_RULE,
    common_words,
    dictionary_of_length,
    words_of_length,
)
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

MAX_LADDER = 64
_SEPARATOR = re.compile(r"\s*(?:->|→|=>|,|\s)\s*")

VOCABULARIES: dict[str, Callable[[int], tuple[str, ...]]] = {
    "dictionary": dictionary_of_length,
    "common": common_words,
    "listed": words_of_length,
}
"""Word sets by name: the English dictionary (what counts), its common words (what is drawn),
and the hand-written list that v0 used for both."""


@functools.lru_cache(maxsize=8)
def graph(length: int, vocabulary: str = "dictionary") -> dict[str, tuple[str, ...]]:
    """One-letter-change neighbours of every word of ``length`` letters (via wildcard buckets)."""
    vocabulary_words = VOCABULARIES[vocabulary](length)
    buckets: dict[str, list[str]] = {}
    for word in vocabulary_words:
        for i in range(length):
            buckets.setdefault(word[:i] + "_" + word[i + 1 :], []).append(word)
    neighbours: dict[str, set[str]] = {w: set() for w in vocabulary_words}
    for group in buckets.values():
        for a in group:
            neighbours[a].update(b for b in group if b != a)
    return {w: tuple(sorted(n)) for w, n in neighbours.items()}


def bfs(
    start: str, length: int, vocabulary: str = "dictionary"
) -> tuple[dict[str, int], dict[str, str]]:
    """Distances from ``start`` over the word graph, and each word's BFS parent."""
    adjacency = graph(length, vocabulary)
    distance, parent = {start: 0}, {}
    queue = deque([start])
    while queue:
        word = queue.popleft()
        for nxt in adjacency[word]:
            if nxt not in distance:
                distance[nxt] = distance[word] + 1
                parent[nxt] = word
                queue.append(nxt)
    return distance, parent


def _variants(word: str, dictionary: frozenset[str]) -> list[str]:
    """Dictionary words one letter away, by trying every letter in every position."""
    out = []
    for i in range(len(word)):
        for c in string.ascii_lowercase:
            if c != word[i] and (candidate := word[:i] + c + word[i + 1 :]) in dictionary:
                out.append(candidate)
    return out


def shortest_ladders(
    start: str, target: str, cap: int = 2, vocabulary: str = "dictionary"
) -> tuple[int | None, list[list[str]]]:
    """(distance, up to ``cap`` shortest ladders), by layered search (independent of `graph`)."""
    dictionary = frozenset(VOCABULARIES[vocabulary](len(start)))
    parents: dict[str, list[str]] = {start: []}
    layer = [start]
    distance = 0
    while layer and target not in parents:
        distance += 1
        nxt: dict[str, list[str]] = {}
        for word in layer:
            for v in _variants(word, dictionary):
                if v not in parents:
                    nxt.setdefault(v, []).append(word)
        parents.update(nxt)
        layer = sorted(nxt)
    if target not in parents:
        return None, []
    ladders: list[list[str]] = []

    def walk(word: str, tail: list[str]) -> None:
        if len(ladders) >= cap:
            return
        if word == start:
            ladders.append([start, *tail])
            return
        for parent in sorted(parents[word]):
            walk(parent, [word, *tail])

    walk(target, [])
    return distance, ladders


def one_letter_apart(a: str, b: str) -> bool:
    """Same length, exactly one position differs."""
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


@dataclasses.dataclass(frozen=True)
class WordLadderConfig:
    """Knobs.

    Attributes:
        length: Letters per word (3 or 4).
        min_steps: Fewest steps of the shortest ladder.
        max_steps: Most steps of the shortest ladder.
    """

    length: int = 3
    min_steps: int = 2
    max_steps: int = 2

    def __post_init__(self) -> None:
        if self.length not in (3, 4):
            raise ValueError(
                f"length must be 3 or 4 (the well-connected word lengths), got {self.length!r}"
            )
        if (
            not isinstance(self.min_steps, int)
            or not isinstance(self.max_steps, int)
            or not 1 <= self.min_steps <= self.max_steps <= 12
        ):
            raise ValueError(
                "need integers 1 <= min_steps <= max_steps <= 12, "
                f"got {self.min_steps!r}, {self.max_steps!r}"
            )


class WordLadderTask(Task[WordLadderConfig]):
    """Shortest word ladders."""

    name = "word_ladder"
    Config = WordLadderConfig
    unique = False
    # Level 10 (9 to 11 steps, with no shorter way through rarer words) has about 9,700 ordered
    # pairs of common four-letter words; over a third of the 1,200 start words have only one
    # or two partners, so 150 draws repeat a pair 1-4% of the time.
    duplicate_allowance = {10: 0.04}
    counted: ClassVar[str] = "dictionary"
    """The words that count, and over which "shortest" is measured (a `VOCABULARIES` name)."""
    drawn: ClassVar[str] = "common"
    """The words the two ends and the reference ladder are made of."""
    source: ClassVar[str] = "the dictionary"
    """How a rejection names the counted words."""

    @classmethod
    def level_config(cls, level: int) -> WordLadderConfig:
        """Longer ladders over four-letter words."""
        length, low, high = {
            1: (4, 2, 3),
            2: (4, 3, 3),
            3: (4, 3, 4),
            4: (4, 4, 4),
            5: (4, 4, 5),
            6: (4, 5, 5),
            7: (4, 5, 6),
            8: (4, 6, 7),
            9: (4, 7, 9),
            10: (4, 9, 11),
        }[level]
        return WordLadderConfig(length=length, min_steps=low, max_steps=high)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random start, a word at the wanted distance, the BFS path between them.

        Both ends and the path are drawn words, and the target is only taken where the
        shortest ladder over the counted words is no shorter than over the drawn ones.
        """
        cfg = self.config
        candidates = [w for w, n in graph(cfg.length, self.drawn).items() if n]
        while True:
            start = candidates[int(rng.integers(len(candidates)))]
            distance, parent = bfs(start, cfg.length, self.drawn)
            shortest, _ = bfs(start, cfg.length, self.counted)
            far = sorted(
                w
                for w, d in distance.items()
                if cfg.min_steps <= d <= cfg.max_steps and shortest[w] == d
            )
            if far:
                break
        target = far[int(rng.integers(len(far)))]
        ladder = [target]
        while ladder[-1] != start:
            ladder.append(parent[ladder[-1]])
        ladder.reverse()
        steps = distance[target]
        data = {"start": start, "target": target, "steps": steps}
        return Problem(self.prompt(start, target), ", ".join(w.upper() for w in ladder), data)

    def prompt(self, start: str, target: str) -> str:
        """The question, with what counts as a word."""
        a, b = start.upper(), target.upper()
        return (
            f"Change {a} into {b} by changing one letter at a time. Every word along the way must "
            f"be an English word of {len(start)} letters: {DICTIONARY_RULE}. Give a shortest "
            "ladder (the fewest changes; one through common words exists): the words from "
            f"{a} to {b} inclusive, separated by commas (for example CAT, COT, DOT). "
            f"{ANSWER_FORMAT}"
        )

    def solve(self, problem: Problem) -> str:
        """A shortest ladder from breadth-first search over the word graph."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Starts and ends right, dictionary words only, one letter per step, shortest length."""
        d = problem.data
        ladder = [w.lower() for w in _SEPARATOR.split(answer.strip().rstrip(".")) if w]
        if not ladder or len(ladder) > MAX_LADDER or not all(w.isalpha() for w in ladder):
            return self.malformed(answer, problem, "not a list of words")
        if ladder[0] != d["start"] or ladder[-1] != d["target"]:
            return self.wrong(
                answer, problem, f"the ladder must run from {d['start']} to {d['target']}"
            )
        dictionary = frozenset(VOCABULARIES[self.counted](len(d["start"])))
        for word in ladder:
            if word not in dictionary:
                return self.wrong(answer, problem, f"{word} is not in {self.source}")
        for a, b in zip(ladder, ladder[1:], strict=False):
            if not one_letter_apart(a, b):
                return self.wrong(answer, problem, f"{a} -> {b} is not a one-letter change")
        if len(ladder) - 1 != d["steps"]:
            return self.wrong(
                answer, problem, f"{len(ladder) - 1} steps; the shortest ladder has {d['steps']}"
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """The layered search's distance must match; counts shortest ladders up to two."""
        d = problem.data
        steps, ladders = shortest_ladders(d["start"], d["target"], 2, self.counted)
        return Certificate(len(ladders) if steps == d["steps"] else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """A middle word dropped, a middle word replaced by a non-word, the ladder reversed."""
        ladder = problem.reference.split(", ")
        out = [", ".join([*ladder[:1], *ladder[2:]]), ", ".join(reversed(ladder))]
        if len(ladder) > 2:
            middle = ladder[1]
            out.append(", ".join([ladder[0], middle[:-1] + "Q", *ladder[2:]]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other shortest ladders over the counted words, arrows, lower case."""
        d = problem.data
        _, ladders = shortest_ladders(d["start"], d["target"], 4, self.counted)
        out = [" -> ".join(problem.reference.split(", ")), problem.reference.lower()]
        reference = problem.reference.lower().split(", ")
        return out + [", ".join(ladder) for ladder in ladders if ladder != reference]

    def work(self, problem: Problem) -> float:
        """Words the breadth-first search settles before it reaches the target."""
        d = problem.data
        distance, _ = bfs(d["start"], len(d["start"]), self.counted)
        return float(sum(1 for v in distance.values() if v <= d["steps"]))


class WordLadderEnv(TaskEnv):
    """Shortest word ladders; see the module docstring."""

    task_class = WordLadderTask


class WordLadderV0Task(WordLadderTask):
    """Version 0, kept so that ``WordLadder-v0`` generates and scores as recorded.

    Only the hand-written list of about 3,100 words counts, and "shortest" is measured
    inside it, while the prompt asks for "common English words".
    """

    counted = "listed"
    drawn = "listed"
    source = "the word list"

    def prompt(self, start: str, target: str) -> str:
        """The v0 question."""
        a, b = start.upper(), target.upper()
        return (
            f"Change {a} into {b} by changing one letter at a time. Every word along the way must "
            "be a common English word of the same length. Give a shortest ladder: the words from "
            f"{a} to {b} inclusive, separated by commas (for example CAT, COT, DOT). "
            f"{ANSWER_FORMAT}"
        )


class WordLadderV0Env(TaskEnv):
    """``WordLadder-v0``: shortest ladders within the hand-written word list."""

    task_class = WordLadderV0Task
