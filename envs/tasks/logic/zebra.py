"""Zebra (Einstein) puzzles: place every attribute in a row of houses from clues.

The task:
    n houses stand in a row, numbered 1 to n from left to right. Each house has one value of
    each of m categories (colour, nationality, pet, ...), every value used once. Clues ("The
    Swede keeps a dog", "The tea drinker lives directly left of the green house", "The
    cyclist lives next to the Dane") pin down exactly one arrangement. Clues are added until
    the generator's propagation solver finds exactly one solution, then redundant clues are
    pruned (when ``prune`` is on); uniqueness is certified by z3.

Observation:
    One user message: the categories and their values, the numbered clues and the answer
    format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one entry per house,
    ``House k: value, value, ...`` (the word "House" is optional), entries on separate lines
    or separated by semicolons, houses in any order and values in any order within a house.
    Case and spacing are free. A house given twice, a missing value or an unknown word makes
    the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the arrangement satisfies every clue (with a unique
    solution: is the solution), else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3 houses and 2 categories at level 1 up to 6 houses and 5 categories at
        level 10, with more relative clues (next to, left of, somewhere left of, not) as the
        level rises.
    houses: Number of houses (2-7).
    categories: Number of categories (2-6).
    relative: Share of clues that are relative rather than direct (0-1).
    prune: Whether clues that are implied by the others are removed.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import MAX_ANSWER_CHARS, split_items, z3_count
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

CATEGORIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "colour": (
        "the person in the {} house",
        ("red", "green", "blue", "yellow", "white", "purple", "grey"),
    ),
    "nationality": (
        "the {}",
        ("Brit", "Swede", "Dane", "Norwegian", "German", "Spaniard", "Italian"),
    ),
    "pet": ("the {} owner", ("dog", "cat", "bird", "horse", "fish", "rabbit", "hamster")),
    "drink": ("the {} drinker", ("tea", "coffee", "milk", "juice", "water", "cocoa", "lemonade")),
    "hobby": (
        "the person who enjoys {}",
        ("chess", "tennis", "painting", "golf", "hiking", "cycling", "knitting"),
    ),
    "food": (
        "the person who likes {}",
        ("pizza", "pasta", "sushi", "curry", "tacos", "salad", "soup"),
    ),
}
"""Category -> (how a person with a value is named, the values).

Values are unique across categories.
"""

LEVELS = {
    1: (3, 2, 0.2),
    2: (3, 3, 0.3),
    3: (4, 2, 0.4),
    4: (4, 3, 0.4),
    5: (4, 4, 0.5),
    6: (5, 3, 0.6),
    7: (5, 4, 0.6),
    8: (5, 4, 0.8),
    9: (5, 5, 0.7),
    10: (6, 5, 0.8),
}
"""(houses, categories, share of relative clues) by level."""

RELATIVE = ("left", "next", "before", "not_same", "not_pos")
DIRECT = ("same", "pos")

_ENTRY = re.compile(r"^(?:house\s*)?(\d{1,2})\s*[:=\-]\s*(.+)$", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class ZebraConfig:
    """Knobs.

    Attributes:
        houses: Number of houses (2-7).
        categories: Number of categories (2-6).
        relative: Share of clues drawn from the relative kinds (0-1).
        prune: Remove clues implied by the others.
    """

    houses: int = 4
    categories: int = 3
    relative: float = 0.5
    prune: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.houses, int) or not 2 <= self.houses <= 7:
            raise ValueError(f"houses must be an integer from 2 to 7, got {self.houses!r}")
        if not isinstance(self.categories, int) or not 2 <= self.categories <= len(CATEGORIES):
            raise ValueError(
                f"categories must be an integer from 2 to {len(CATEGORIES)}, "
                f"got {self.categories!r}"
            )
        if not isinstance(self.relative, (int, float)) or not 0 <= self.relative <= 1:
            raise ValueError(f"relative must be a number from 0 to 1, got {self.relative!r}")
        if not isinstance(self.prune, bool):
            raise ValueError(f"prune must be True or False, got {self.prune!r}")


# --- the generator's solver: bitmask domains with propagation -------------------------------
#
# An item is (category, value index), flattened to category * n + value. dom[item] is the
# bitmask of houses the item may still be in.


def holds(clue: list[Any], where: list[int]) -> bool:
    """Whether ``clue`` is true when item i is in house ``where[i]`` (0-based)."""
    kind, a = clue[0], clue[1]
    if kind == "pos":
        return where[a] == clue[2]
    if kind == "not_pos":
        return where[a] != clue[2]
    b = clue[2]
    if kind == "same":
        return where[a] == where[b]
    if kind == "not_same":
        return where[a] != where[b]
    if kind == "left":
        return where[a] + 1 == where[b]
    if kind == "next":
        return abs(where[a] - where[b]) == 1
    if kind == "before":
        return where[a] < where[b]
    raise ValueError(f"unknown clue kind {kind!r}")


class _Propagator:
    """Narrows house domains to a fixpoint of the clues and the permutation rule.

    A worklist of clues whose items changed (and of categories to recheck) keeps each pass
    to what can still change.
    """

    def __init__(self, clues: list[list[Any]], n: int, m: int):
        self.clues, self.n, self.m, self.full = clues, n, m, (1 << n) - 1
        self.watch: list[list[int]] = [[] for _ in range(n * m)]
        for index, clue in enumerate(clues):
            self.watch[clue[1]].append(index)
            if clue[0] not in ("pos", "not_pos"):
                self.watch[clue[2]].append(index)

    def _narrow(self, clue: list[Any], da: int, db: int) -> tuple[int, int]:
        kind, full = clue[0], self.full
        if kind == "pos":
            return da & (1 << clue[2]), db
        if kind == "not_pos":
            return da & ~(1 << clue[2]), db
        if kind == "same":
            return da & db, da & db
        if kind == "not_same":
            if da & (da - 1) == 0:
                db &= ~da
            if db & (db - 1) == 0:
                da &= ~db
            return da, db
        if kind == "left":
            return da & (db >> 1), db & (da << 1) & full
        if kind == "next":
            return da & ((db << 1) | (db >> 1)) & full, db & ((da << 1) | (da >> 1)) & full
        # before: a strictly left of the last house b may take; b right of a's first.
        new_a = da & ((1 << (db.bit_length() - 1)) - 1) if db else 0
        low = (da & -da).bit_length() if da else self.n
        return new_a, db & ~((1 << low) - 1)

    def run(self, dom: list[int], changed: list[int] | None = None) -> bool:
        """Narrows ``dom`` in place; False when some item has no house left."""
        n, watch = self.n, self.watch
        if changed is None:
            pending, categories = set(range(len(self.clues))), set(range(self.m))
        else:
            pending = {c for i in changed for c in watch[i]}
            categories = {i // n for i in changed}
        while pending or categories:
            while pending:
                clue = self.clues[pending.pop()]
                a = clue[1]
                if clue[0] in ("pos", "not_pos"):
                    updates: tuple[tuple[int, int], ...] = ((a, self._narrow(clue, dom[a], 0)[0]),)
                else:
                    b = clue[2]
                    na, nb = self._narrow(clue, dom[a], dom[b])
                    updates = ((a, na), (b, nb))
                for item, new in updates:
                    if new != dom[item]:
                        if not new:
                            return False
                        dom[item] = new
                        pending.update(watch[item])
                        categories.add(item // n)
            if categories:
                start = categories.pop() * n
                # One category is a permutation: a placed item's house is no one else's, and a
                # house only one item can take gets it.
                placed = once = twice = 0
                for d in dom[start : start + n]:
                    if d & (d - 1) == 0:
                        if placed & d:
                            return False
                        placed |= d
                    twice |= once & d
                    once |= d
                if once != self.full:
                    return False
                only = once & ~twice
                for item in range(start, start + n):
                    d = dom[item]
                    if d & (d - 1):
                        new = d & ~placed
                        if new & only:
                            new &= only
                        if new != d:
                            if not new:
                                return False
                            dom[item] = new
                            pending.update(watch[item])
                            categories.add(start // n)
        return True


def solve_all(clues: list[list[Any]], n: int, m: int, cap: int = 2) -> list[list[int]]:
    """Solutions (house of each item) found by propagation and branching, up to ``cap``."""
    found: list[list[int]] = []
    propagator = _Propagator(clues, n, m)

    def search(dom: list[int]) -> None:
        open_items = [i for i, d in enumerate(dom) if d & (d - 1)]
        if not open_items:
            where = [d.bit_length() - 1 for d in dom]
            if all(holds(c, where) for c in clues):
                found.append(where)
            return
        item = min(open_items, key=lambda i: bin(dom[i]).count("1"))
        d = dom[item]
        while d and len(found) < cap:
            bit = d & -d
            d ^= bit
            child = list(dom)
            child[item] = bit
            if propagator.run(child, [item]):
                search(child)

    root = [(1 << n) - 1] * (n * m)
    if propagator.run(root):
        search(root)
    return found


class ZebraTask(Task[ZebraConfig]):
    """Solve a zebra puzzle."""

    name = "zebra"
    Config = ZebraConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> ZebraConfig:
        """More houses, categories and relative clues with the level."""
        houses, categories, relative = LEVELS[level]
        return ZebraConfig(houses=houses, categories=categories, relative=relative)

    def _clue(self, rng: np.random.Generator, where: list[int]) -> list[Any]:
        """A random clue that is true of the solution ``where``."""
        n, m = self.config.houses, self.config.categories
        while True:
            kinds = RELATIVE if rng.random() < self.config.relative else DIRECT
            kind = kinds[int(rng.integers(len(kinds)))]
            a = int(rng.integers(n * m))
            if kind in ("pos", "not_pos"):
                house = where[a] if kind == "pos" else int(rng.integers(n))
                clue = [kind, a, house]
            else:
                b = int(rng.integers(n * m))
                if b // n == a // n:
                    continue  # two values of one category: never the same house, nothing to say
                clue = [kind, a, b]
            if holds(clue, where):
                return clue

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random arrangement; clues ruling out a rival solution until none is left; pruning."""
        n, m = self.config.houses, self.config.categories
        chosen = sorted(int(c) for c in rng.choice(len(CATEGORIES), size=m, replace=False))
        categories = [list(CATEGORIES)[c] for c in chosen]
        values = []
        for c in categories:
            picked = sorted(
                int(v) for v in rng.choice(len(CATEGORIES[c][1]), size=n, replace=False)
            )
            values.append([CATEGORIES[c][1][v] for v in picked])
        where = [0] * (n * m)
        for c in range(m):
            for v, house in enumerate(rng.permutation(n)):
                where[c * n + v] = int(house)
        clues: list[list[Any]] = []
        while True:
            found = solve_all(clues, n, m)
            if len(found) == 1:
                break
            rival = found[0] if found[0] != where else found[1]
            clue = self._clue(rng, where)
            while holds(clue, rival):
                clue = self._clue(rng, where)
            clues.append(clue)
        clues_all = list(clues)
        if self.config.prune:
            for index in rng.permutation(len(clues)):
                clue = clues_all[int(index)]
                trial = [c for c in clues if c is not clue]
                if len(solve_all(trial, n, m)) == 1:
                    clues = trial
        order = rng.permutation(len(clues))
        clues = [clues[int(i)] for i in order]
        solution = {
            str(h + 1): sorted(values[i // n][i % n] for i in range(n * m) if where[i] == h)
            for h in range(n)
        }
        data = {"houses": n, "categories": categories, "values": values, "clues": clues}
        return Problem(self._prompt(data), solution, data)

    def _prompt(self, data: dict[str, Any]) -> str:
        n, categories, values = data["houses"], data["categories"], data["values"]
        lines = [f"- {c}: {', '.join(vals)}" for c, vals in zip(categories, values, strict=True)]
        clue_lines = [f"{i + 1}. {self._render(c, data)}" for i, c in enumerate(data["clues"])]
        example = "\n".join(f"House {h}: value, value" for h in (1, 2))
        return (
            f"There are {n} houses in a row, numbered 1 to {n} from left to right. "
            "In each house lives one person, "
            "and each house has exactly one value from each category below; "
            "every value belongs to exactly one house.\n"
            + "\n".join(lines)
            + "\n\nClues:\n"
            + "\n".join(clue_lines)
            + "\n\n'Directly left of' means in the house numbered one less; "
            "'next to' means in a neighbouring house. "
            "Find the value of every category for every house. "
            "Write one line per house, the house number then its values separated by commas, "
            f"like\n{example}\n{ANSWER_FORMAT}"
        )

    @staticmethod
    def _render(clue: list[Any], data: dict[str, Any]) -> str:
        n, categories, values = data["houses"], data["categories"], data["values"]

        def person(item: int) -> str:
            return CATEGORIES[categories[item // n]][0].format(values[item // n][item % n])

        kind, a = clue[0], clue[1]
        if kind == "pos":
            text = f"{person(a)} lives in house {clue[2] + 1}."
        elif kind == "not_pos":
            text = f"{person(a)} does not live in house {clue[2] + 1}."
        else:
            b = person(clue[2])
            text = {
                "same": f"{person(a)} is {b}.",
                "not_same": f"{person(a)} is not {b}.",
                "left": f"{person(a)} lives directly left of {b}.",
                "next": f"{person(a)} lives next to {b}.",
                "before": f"{person(a)} lives somewhere to the left of {b}.",
            }[kind]
        return text[0].upper() + text[1:]

    def _parse(self, answer: str, problem: Problem) -> tuple[list[int] | None, str]:
        """The house (0-based) of every item, or None and the reason."""
        data = problem.data
        n, values = data["houses"], data["values"]
        index = {v.lower(): c * n + i for c, vals in enumerate(values) for i, v in enumerate(vals)}
        if len(answer) > MAX_ANSWER_CHARS:
            return None, "the answer is too long"
        entries = split_items(answer.strip().removesuffix("."), r"[;\n]")
        if entries is None:
            return None, "expected one 'House k: values' entry per line"
        where = [-1] * (n * len(values))
        seen: set[int] = set()
        for entry in entries:
            match = _ENTRY.match(entry)
            if not match:
                return None, f"{entry[:40]!r} is not of the form 'House k: value, value'"
            house = int(match.group(1))
            if not 1 <= house <= n or house in seen:
                return None, f"house {house} is out of range or given twice"
            seen.add(house)
            names = split_items(match.group(2).strip().removesuffix("."), r",")
            if names is None or len(names) != len(values):
                return None, f"house {house} needs exactly {len(values)} values, one per category"
            for name in names:
                item = index.get(name.lower())
                if item is None or where[item] != -1:
                    return None, f"{name[:20]!r} is not a value of the puzzle or is placed twice"
                where[item] = house - 1
        if len(seen) != n:
            return None, f"all {n} houses must be given"
        for c in range(len(values)):
            if len({where[c * n + i] for i in range(n)}) != n:
                return None, f"one house holds two {data['categories'][c]} values"
        return where, ""

    def solve(self, problem: Problem) -> str:
        """Propagation and branching."""
        data = problem.data
        n, m, values = data["houses"], len(data["categories"]), data["values"]
        where = solve_all(data["clues"], n, m, cap=1)[0]
        lines = []
        for h in range(n):
            items = [values[i // n][i % n] for i in range(n * m) if where[i] == h]
            lines.append(f"House {h + 1}: {', '.join(items)}")
        return "\n".join(lines)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """A full arrangement (one value per category per house) that satisfies every clue."""
        where, why = self._parse(answer, problem)
        if where is None:
            return self.malformed(answer, problem, why)
        for i, clue in enumerate(problem.data["clues"]):
            if not holds(clue, where):
                return self.wrong(
                    answer,
                    problem,
                    f"clue {i + 1} is not satisfied: {self._render(clue, problem.data)}",
                )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """z3 over integer house variables counts solutions (up to 2)."""
        data = problem.data
        n, m = data["houses"], len(data["categories"])

        def build(z3):
            house = [z3.Int(f"h{i}") for i in range(n * m)]
            solver = z3.Solver()
            for h in house:
                solver.add(h >= 0, h < n)
            for c in range(m):
                solver.add(z3.Distinct(house[c * n : c * n + n]))
            for clue in data["clues"]:
                kind, a = clue[0], house[clue[1]]
                if kind == "pos":
                    solver.add(a == clue[2])
                elif kind == "not_pos":
                    solver.add(a != clue[2])
                else:
                    b = house[clue[2]]
                    solver.add(
                        {
                            "same": a == b,
                            "not_same": a != b,
                            "left": a + 1 == b,
                            "before": a < b,
                            "next": z3.Or(a + 1 == b, b + 1 == a),
                        }[kind]
                    )
            return solver, house

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """Two houses swap their value of one category (for each category)."""
        reference = self.solve(problem)
        lines = reference.split("\n")
        out = []
        for vals in problem.data["values"]:
            # The houses of the first two values of this category swap them.
            first, second = vals[0], vals[1]
            swapped = []
            for line in lines:
                head, items = line.split(": ")
                parts = [
                    second if v == first else first if v == second else v for v in items.split(", ")
                ]
                swapped.append(f"{head}: {', '.join(parts)}")
            out.append("\n".join(swapped))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Houses in reverse order separated by semicolons, values reversed, other case."""
        lines = self.solve(problem).split("\n")
        reordered = []
        for line in reversed(lines):
            head, items = line.split(": ")
            reordered.append(f"{head.lower()}: {', '.join(reversed(items.split(', ')))}")
        upper = [line.upper().replace("HOUSE ", "") for line in lines]
        return ["; ".join(reordered), "\n".join(upper)]

    def work(self, problem: Problem) -> float:
        """Clues times cells of the solution grid (each clue is read against every cell)."""
        data = problem.data
        return float(len(data["clues"]) * data["houses"] * len(data["categories"]))


class ZebraEnv(TaskEnv):
    """Zebra puzzles; see the module docstring."""

    task_class = ZebraTask
