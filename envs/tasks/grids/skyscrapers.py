"""Skyscrapers: a Latin square of building heights seen from its edges.

Skyscrapers: place buildings of heights 1..n so that the clues around the grid see the
right number of them.

The task:
    Every cell of an n x n grid holds a building of height 1..n, each height once per row
    and column. A clue outside the grid says how many buildings are visible looking along
    that row or column from that side: a building hides every shorter one behind it. Some
    cells may be given. Every instance has exactly one solution (certified by a search that
    branches on whole lines, independently of the generator's solver).

Observation:
    One user message: the grid with its clues (``.`` where there is none) and the answer
    format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: n lines of n heights (separated
    by spaces, commas or bars, or run together). Checked by the rules, so any valid
    completion scores; with a unique solution that is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid completion, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4x4 at levels 1-2, 5x5 at 3-5, 6x6 at 6-7, 7x7 at 8-10; within a size,
        more clues are removed as the level rises (level 10: a minimal set of clues).
    size: Grid size, 3 to 7.
    removal: Chance (0 to 1) that the generator tries to remove each clue while the
        solution stays unique (1 gives a minimal clue set).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import (
    DomainSearch,
    SearchLimit,
    Table,
    answer_grid,
    changed_given,
    is_latin,
    latin_geometry,
    parse_number_grid,
    random_latin_square,
)
from palaestra.verdict import Verdict

LEVELS = {
    1: (4, 0.5),
    2: (4, 1.0),
    3: (5, 0.4),
    4: (5, 0.7),
    5: (5, 1.0),
    6: (6, 0.5),
    7: (6, 1.0),
    8: (7, 0.4),
    9: (7, 0.7),
    10: (7, 1.0),
}
"""(size, removal) by level."""

SIDES = ("top", "bottom", "left", "right")
MAX_NODES = 5_000
"""Search budget of one uniqueness check; past it a clue stays."""


@dataclasses.dataclass(frozen=True)
class SkyscrapersConfig:
    """Knobs.

    Attributes:
        size: Grid size, 3 to 7.
        removal: Chance that the generator tries to remove each clue.
    """

    size: int = 5
    removal: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 3 <= self.size <= 7:
            raise ValueError(f"size must be an integer from 3 to 7, got {self.size!r}")
        if not isinstance(self.removal, (int, float)) or not 0 <= self.removal <= 1:
            raise ValueError(f"removal must be a chance from 0 to 1, got {self.removal!r}")


def visible(heights: list[int] | tuple[int, ...]) -> int:
    """How many buildings are seen from the front of the line."""
    seen, tallest = 0, 0
    for h in heights:
        if h > tallest:
            seen, tallest = seen + 1, h
    return seen


def line_cells(n: int, side: str, index: int) -> list[int]:
    """The cells of the line a clue looks along, front (the clue's side) first."""
    if side == "top":
        return [r * n + index for r in range(n)]
    if side == "bottom":
        return [r * n + index for r in reversed(range(n))]
    if side == "left":
        return [index * n + c for c in range(n)]
    return [index * n + c for c in reversed(range(n))]


@functools.cache
def _line_table(n: int, front: int, back: int, not_front: int = 0) -> Table:
    """The permutations of 1..n that fit a line's clues.

    The permutations of 1..n that show ``front`` and ``back`` (0: any) from the ends, and
    do not show ``not_front`` (0: no such rule) from the front.
    """
    perms = [
        p
        for p in itertools.permutations(range(1, n + 1))
        if (not front or visible(p) == front)
        and (not back or visible(p[::-1]) == back)
        and visible(p) != not_front
    ]
    return Table(range(n), perms, n)


def search(
    n: int,
    clues: dict[str, list[int]],
    givens: list[int],
    limit: int = 2,
    max_nodes: int = MAX_NODES,
    broken: tuple[str, int, int] | None = None,
) -> DomainSearch:
    """Searches the puzzle: clues by side (0 = none), row-major givens (0 = empty).

    ``broken = (side, index, value)`` asks for solutions that do not show ``value`` there.
    """
    tables = []
    for i in range(n):
        for front, back in (
            ("left", "right"),
            ("top", "bottom"),
            ("right", "left"),
            ("bottom", "top"),
        ):
            a, b = clues[front][i], clues[back][i]
            if broken is not None and broken[:2] == (front, i):
                tables.append(_line_table(n, 0, b, broken[2]).on(line_cells(n, front, i)))
            elif (
                front in ("left", "top")
                and (a or b)
                and not (broken is not None and broken[:2] == (back, i))
            ):
                tables.append(_line_table(n, a, b).on(line_cells(n, front, i)))
    engine = DomainSearch(n, tables=tables, limit=limit, max_nodes=max_nodes, **latin_geometry(n))
    full = (1 << n) - 1
    engine.run([1 << (v - 1) if v else full for v in givens])
    return engine


def _other(
    n: int, clues: dict[str, list[int]], givens: list[int], solution: list[int]
) -> tuple[bool, list[int] | None]:
    """(unique, another solution or None); over budget counts as not unique."""
    try:
        found = search(n, clues, givens).solutions
    except SearchLimit:
        return False, None
    others = [s for s in found if s != solution]
    return not others, (others[0] if others else None)


def draw(n: int, clues: dict[str, list[int]], givens: list[list[int]]) -> str:
    """The grid inside its clues, ``.`` for no clue or an empty cell."""

    def mark(v: int) -> str:
        return str(v) if v else "."

    edge = "  +" + "-" * (2 * n + 1) + "+"
    lines = ["    " + " ".join(mark(v) for v in clues["top"]), edge]
    for r in range(n):
        cells = " ".join(mark(v) for v in givens[r])
        lines.append(f"{mark(clues['left'][r])} | {cells} | {mark(clues['right'][r])}")
    lines += [edge, "    " + " ".join(mark(v) for v in clues["bottom"])]
    return "\n".join(lines)


class SkyscrapersTask(Task[SkyscrapersConfig]):
    """Place skyscrapers to match the visibility clues."""

    name = "skyscrapers"
    Config = SkyscrapersConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> SkyscrapersConfig:
        """Larger grids, then fewer clues."""
        size, removal = LEVELS[level]
        return SkyscrapersConfig(size=size, removal=removal)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random Latin square and its clues (plus givens if needed), thinned while unique."""
        n = self.config.size
        square = random_latin_square(n, rng)
        solution = [v for row in square for v in row]
        clues = {
            side: [visible([solution[c] for c in line_cells(n, side, i)]) for i in range(n)]
            for side in SIDES
        }
        givens = [0] * (n * n)
        while True:
            unique, other = _other(n, clues, givens, solution)
            if unique:
                break
            differ = [
                i
                for i in range(n * n)
                if other is None or (other[i] != solution[i] and not givens[i])
            ]
            cell = differ[int(rng.integers(len(differ)))]
            givens[cell] = solution[cell]
        order = [(side, i) for side in SIDES for i in range(n)]
        for k in rng.permutation(len(order)):
            side, i = order[int(k)]
            if rng.random() >= self.config.removal:
                continue
            # The clue can go when no solution shows another count there (each other
            # solution would): a search with the clue broken is far cheaper than counting.
            value = clues[side][i]
            clues[side][i] = 0
            try:
                kept = bool(search(n, clues, givens, limit=1, broken=(side, i, value)).solutions)
            except SearchLimit:
                kept = True
            if kept:
                clues[side][i] = value
        grid = [givens[r * n : (r + 1) * n] for r in range(n)]
        given_note = " The digits inside the grid are given heights." if any(givens) else ""
        prompt = (
            f"Solve this {n}x{n} skyscrapers puzzle: put a building of height 1 to {n} in every "
            "cell so that "
            f"each row and each column contains every height from 1 to {n} exactly once. A number "
            "outside "
            "the grid says how many buildings are visible looking along that row or column from "
            "that side; "
            "a taller building hides every shorter one behind it. A . outside the grid means no "
            f"clue.{given_note}\n\n"
            f"{draw(n, clues, grid)}\n\n"
            f"Answer with the heights: {n} lines, one per row from the top, the heights of a row "
            "separated by "
            "spaces (for example, a first row could be written as "
            f"{' '.join(str(d) for d in range(1, n + 1))}). "
            f"{ANSWER_FORMAT}"
        )
        reference = [solution[r * n : (r + 1) * n] for r in range(n)]
        return Problem(prompt, reference, {"size": n, "clues": clues, "givens": grid})

    def solve(self, problem: Problem) -> str:
        """The Latin square the puzzle was made from."""
        return answer_grid(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """A Latin square that keeps the givens and shows every clue."""
        n = problem.data["size"]
        grid, why = parse_number_grid(answer, n, n, 1, n)
        if grid is None:
            return self.malformed(answer, problem, why)
        changed = changed_given(grid, problem.data["givens"])
        if changed:
            return self.wrong(grid, problem, changed)
        broken = is_latin(grid, n)
        if broken:
            return self.wrong(grid, problem, broken)
        flat = [v for row in grid for v in row]
        for side in SIDES:
            for i, clue in enumerate(problem.data["clues"][side]):
                seen = visible([flat[c] for c in line_cells(n, side, i)])
                if clue and seen != clue:
                    return self.wrong(
                        grid, problem, f"the {side} clue {clue} at position {i + 1} sees {seen}"
                    )
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions with a search that branches on whole lines.

        Counts solutions with a search that branches on whole lines: each clued line keeps
        the permutations (from `itertools.permutations`) that show its clues and fit the
        cells' values; the search fixes the clued line with the fewest left, then single
        cells. Unlike the generator's solver it has no hidden singles and no per-value tables.
        """
        n = problem.data["size"]
        clues = problem.data["clues"]
        perms = list(itertools.permutations(range(1, n + 1)))
        lines = []
        for front, back in (("left", "right"), ("top", "bottom")):
            for i in range(n):
                a, b = clues[front][i], clues[back][i]
                if a or b:
                    fits = [
                        p
                        for p in perms
                        if (not a or visible(p) == a) and (not b or visible(p[::-1]) == b)
                    ]
                    lines.append((line_cells(n, front, i), fits))
        units = [[r * n + c for c in range(n)] for r in range(n)] + [
            [r * n + c for r in range(n)] for c in range(n)
        ]
        full = set(range(1, n + 1))
        start_cells = [{v} if v else set(full) for row in problem.data["givens"] for v in row]
        count = 0

        def settle(cells: list[set[int]], options: list[list[tuple[int, ...]]]) -> bool:
            changed = True
            while changed:
                changed = False
                for k, (where, _) in enumerate(lines):
                    kept = [
                        p
                        for p in options[k]
                        if all(v in cells[c] for c, v in zip(where, p, strict=False))
                    ]
                    if not kept:
                        return False
                    options[k] = kept
                    for i, c in enumerate(where):
                        values = {p[i] for p in kept}
                        if values != cells[c]:
                            cells[c] = cells[c] & values
                            changed = True
                for unit in units:
                    for c in unit:
                        if len(cells[c]) == 1:
                            for d in unit:
                                if d != c and cells[d] & cells[c]:
                                    cells[d] = cells[d] - cells[c]
                                    changed = True
                    if set().union(*(cells[c] for c in unit)) != full or any(
                        not cells[c] for c in unit
                    ):
                        return False
            return True

        def descend(cells: list[set[int]], options: list[list[tuple[int, ...]]]) -> None:
            nonlocal count
            if count >= 2 or not settle(cells, options):
                return
            open_lines = [k for k in range(len(lines)) if len(options[k]) > 1]
            if open_lines:
                k = min(open_lines, key=lambda j: len(options[j]))
                for p in options[k]:
                    child = [set(c) for c in cells]
                    for c, v in zip(lines[k][0], p, strict=False):
                        child[c] = {v}
                    descend(child, [list(o) for o in options])
                return
            undecided = [c for c in range(n * n) if len(cells[c]) > 1]
            if not undecided:
                grid = [[next(iter(cells[r * n + c])) for c in range(n)] for r in range(n)]
                if self.check(answer_grid(grid), problem).correct:
                    count += 1
                return
            c = min(undecided, key=lambda d: len(cells[d]))
            for v in sorted(cells[c]):
                child = [set(x) for x in cells]
                child[c] = {v}
                descend(child, [list(o) for o in options])

        descend(start_cells, [fits for _, fits in lines])
        return Certificate(min(count, 2))

    def mutations(self, problem: Problem) -> list[str]:
        """One cell changed (its row then repeats a height)."""
        n = problem.data["size"]
        out = []
        for r, c in ((0, 0), (n - 1, n - 1), (n // 2, 1)):
            mutant = [row[:] for row in problem.reference]
            mutant[r][c] = mutant[r][c] % n + 1
            out.append(answer_grid(mutant))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: heights run together, commas, a code fence."""
        grid = problem.reference
        return [
            "\n".join("".join(map(str, row)) for row in grid),
            "\n".join(",".join(map(str, row)) for row in grid),
            "```\n" + answer_grid(grid) + "\n```",
        ]

    def work(self, problem: Problem) -> float:
        """The solver's search nodes plus values fixed by propagation."""
        n = problem.data["size"]
        givens = [v for row in problem.data["givens"] for v in row]
        return float(search(n, problem.data["clues"], givens, limit=1, max_nodes=10**7).work)


class SkyscrapersEnv(TaskEnv):
    """Place skyscrapers; see the module docstring."""

    task_class = SkyscrapersTask
