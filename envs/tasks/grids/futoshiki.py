"""Futoshiki: complete a Latin square under inequalities between neighbouring cells.

The task:
    An n x n grid, some cells given, some pairs of side-by-side cells joined by ``<`` or
    ``>`` (and, between rows, ``^`` or ``v``). Fill every cell with 1..n so that each row and
    column holds each number once and every inequality holds. Every instance has exactly one
    solution (certified with z3, independently of the generator's solver).

Observation:
    One user message: the drawn grid, the same inequalities as a list of cell pairs, and the
    answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: n lines of n numbers (separated
    by spaces, commas or bars, or run together). Checked by the rules, so any valid
    completion scores; with a unique solution that is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid completion, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 4x4 at level 1 up to 7x7 at level 10, with fewer givens as the level rises.
    size: Grid size, 3 to 8.
    inequalities: Share of neighbouring pairs shown before clues are added for uniqueness.
    extra_givens: Givens revealed beyond the near-minimal clue set (easier puzzles).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import (
    DomainSearch,
    SearchLimit,
    answer_grid,
    changed_given,
    is_latin,
    latin_geometry,
    parse_number_grid,
    random_latin_square,
    z3_count,
    z3_latin,
)
from palaestra.verdict import Verdict

LEVELS = {
    1: (4, 4),
    2: (4, 2),
    3: (5, 4),
    4: (5, 2),
    5: (5, 0),
    6: (6, 3),
    7: (6, 1),
    8: (6, 0),
    9: (7, 2),
    10: (7, 0),
}
"""(size, extra givens) by level."""

MAX_NODES = 20_000
"""Search budget of one uniqueness check; past it the generator adds a given instead."""


@dataclasses.dataclass(frozen=True)
class FutoshikiConfig:
    """Knobs.

    Attributes:
        size: Grid size, 3 to 8.
        inequalities: Share (0 to 1) of neighbouring pairs shown before clues are added.
        extra_givens: Givens revealed beyond the near-minimal clue set.
    """

    size: int = 5
    inequalities: float = 0.3
    extra_givens: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 3 <= self.size <= 8:
            raise ValueError(f"size must be an integer from 3 to 8, got {self.size!r}")
        if not isinstance(self.inequalities, (int, float)) or not 0 <= self.inequalities <= 1:
            raise ValueError(f"inequalities must be a share from 0 to 1, got {self.inequalities!r}")
        if not isinstance(self.extra_givens, int) or not 0 <= self.extra_givens <= self.size**2:
            raise ValueError(
                f"extra_givens must be an integer from 0 to {self.size**2}, got "
                f"{self.extra_givens!r}"
            )


def search(
    n: int,
    givens: list[int],
    less: list[tuple[int, int]],
    limit: int = 2,
    max_nodes: int = MAX_NODES,
) -> DomainSearch:
    """Searches the puzzle (row-major givens, 0 = empty; ``a < b`` for each pair of cells)."""
    engine = DomainSearch(n, limit=limit, max_nodes=max_nodes, less=less, **latin_geometry(n))
    full = (1 << n) - 1
    engine.run([1 << (v - 1) if v else full for v in givens])
    return engine


def _unique(
    n: int, givens: list[int], less: list[tuple[int, int]], solution: list[int]
) -> tuple[bool, list[int] | None]:
    """(unique, another solution or None); over budget counts as not unique."""
    try:
        found = search(n, givens, less).solutions
    except SearchLimit:
        return False, None
    others = [s for s in found if s != solution]
    return not others, (others[0] if others else None)


def make_clues(
    n: int, solution: list[int], share: float, rng: np.random.Generator
) -> tuple[list[int], list[tuple[int, int]]]:
    """Random inequalities, clues added until unique, then clues dropped while unique."""
    pairs = [(r * n + c, r * n + c + 1) for r in range(n) for c in range(n - 1)]
    pairs += [(r * n + c, (r + 1) * n + c) for r in range(n - 1) for c in range(n)]
    oriented = [(a, b) if solution[a] < solution[b] else (b, a) for a, b in pairs]
    less = [p for p, keep in zip(oriented, rng.random(len(oriented)) < share, strict=False) if keep]
    givens = [0] * (n * n)
    while True:
        unique, other = _unique(n, givens, less, solution)
        if unique:
            break
        if other is None:
            free = [i for i in range(n * n) if not givens[i]]
            cell = free[int(rng.integers(len(free)))]
            givens[cell] = solution[cell]
            continue
        # A clue the other solution breaks: an unused inequality it reverses, or a given.
        killers = [p for p in oriented if p not in less and other[p[0]] > other[p[1]]]
        if killers and rng.random() < 0.7:
            less.append(killers[int(rng.integers(len(killers)))])
        else:
            differ = [i for i in range(n * n) if other[i] != solution[i]]
            cell = differ[int(rng.integers(len(differ)))]
            givens[cell] = solution[cell]
    # A clue can go when no solution breaks it (every other solution would have to): search
    # with the clue reversed, which is far cheaper than counting solutions without it.
    clues = [("less", p) for p in less] + [("given", i) for i in range(n * n) if givens[i]]
    full = (1 << n) - 1
    for k in (int(k) for k in rng.permutation(len(clues))):
        kind, what = clues[k]
        masks = [1 << (v - 1) if v else full for v in givens]
        if kind == "less":
            trial = [p for p in less if p != what] + [(what[1], what[0])]
        else:
            trial = less
            masks[what] = full & ~(1 << (givens[what] - 1))
        engine = DomainSearch(n, limit=1, max_nodes=MAX_NODES, less=trial, **latin_geometry(n))
        try:
            if engine.run(masks):
                continue
        except SearchLimit:
            continue
        if kind == "less":
            less = [p for p in less if p != what]
        else:
            givens[what] = 0
    return givens, sorted(less)


def draw(n: int, givens: list[list[int]], less: list[list[int]]) -> str:
    """The grid: ``.`` empty, ``<``/``>`` between columns, ``^``/``v`` between rows."""
    relation = {}
    for a, b in less:
        relation[a, b] = "<"
        relation[b, a] = ">"
    lines = []
    for r in range(n):
        cells = [str(givens[r][c]) if givens[r][c] else "." for c in range(n)]
        row = cells[0]
        for c in range(1, n):
            row += f" {relation.get((r * n + c - 1, r * n + c), ' ')} {cells[c]}"
        lines.append(row.rstrip())
        if r < n - 1:
            marks = []
            for c in range(n):
                sign = relation.get((r * n + c, (r + 1) * n + c))
                marks.append({"<": "^", ">": "v"}.get(sign, " "))
            lines.append("   ".join(marks).rstrip())
    return "\n".join(lines)


def _name(n: int, cell: int) -> str:
    return f"({cell // n + 1},{cell % n + 1})"


class FutoshikiTask(Task[FutoshikiConfig]):
    """Complete a Latin square under inequalities."""

    name = "futoshiki"
    Config = FutoshikiConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> FutoshikiConfig:
        """Larger grids, then fewer givens."""
        size, extra = LEVELS[level]
        return FutoshikiConfig(size=size, inequalities=0.3, extra_givens=extra)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random Latin square and a near-minimal set of clues that pins it down."""
        n = self.config.size
        square = random_latin_square(n, rng)
        solution = [v for row in square for v in row]
        givens, less = make_clues(n, solution, self.config.inequalities, rng)
        free = [i for i in range(n * n) if not givens[i]]
        for cell in rng.permutation(free)[: self.config.extra_givens]:
            givens[int(cell)] = solution[int(cell)]
        grid = [givens[r * n : (r + 1) * n] for r in range(n)]
        pairs = [list(p) for p in less]
        listed = (
            ", ".join(
                f"{_name(n, a)} < {_name(n, b)}" if a < b else f"{_name(n, b)} > {_name(n, a)}"
                for a, b in sorted(less, key=min)
            )
            or "none"
        )
        prompt = (
            f"Solve this {n}x{n} futoshiki: fill every empty cell (.) with a number from 1 to {n} "
            "so that each "
            f"row and each column contains every number from 1 to {n} exactly once, and every "
            "inequality "
            "holds. Between two cells of a row, < and > compare the left cell with the right one; "
            "between "
            "two rows, ^ means the upper cell is smaller than the lower one and v means it is "
            "larger.\n\n"
            f"{draw(n, grid, pairs)}\n\n"
            "The same inequalities as a list, cells given as (row,column) from the top left: "
            f"{listed}.\n\n"
            f"Answer with the completed grid: {n} lines, one per row, the numbers of a row "
            "separated by "
            "spaces (for example, a first row could be written as "
            f"{' '.join(str(d) for d in range(1, n + 1))}). "
            f"{ANSWER_FORMAT}"
        )
        reference = [solution[r * n : (r + 1) * n] for r in range(n)]
        return Problem(prompt, reference, {"size": n, "givens": grid, "less": pairs})

    def solve(self, problem: Problem) -> str:
        """The Latin square the puzzle was made from."""
        return answer_grid(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """A Latin square that keeps the givens and satisfies every inequality."""
        n = problem.data["size"]
        grid, why = parse_number_grid(answer, n, n, 1, n)
        if grid is None:
            return self.malformed(answer, problem, why)
        changed = changed_given(grid, problem.data["givens"], name=lambda r, c: _name(n, r * n + c))
        if changed:
            return self.wrong(grid, problem, changed)
        broken = is_latin(grid, n)
        if broken:
            return self.wrong(grid, problem, broken)
        for a, b in problem.data["less"]:
            if not grid[a // n][a % n] < grid[b // n][b % n]:
                return self.wrong(grid, problem, f"{_name(n, a)} < {_name(n, b)} does not hold")
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions with z3 over the rules as stated in the prompt (one-hot cells)."""
        n = problem.data["size"]

        def build(z3):
            s, x = z3_latin(z3, n, problem.data["givens"])
            for a, b in problem.data["less"]:
                for v in range(n):
                    s.add(
                        z3.Implies(
                            x[a][v],
                            z3.Or([x[b][w] for w in range(v + 1, n)] or [z3.BoolVal(False)]),
                        )
                    )
            return s, [b for cell in x for b in cell]

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """One empty cell changed (a row then repeats a number); one given changed."""
        n = problem.data["size"]
        givens = problem.data["givens"]
        empties = [(r, c) for r in range(n) for c in range(n) if not givens[r][c]]
        filled = [(r, c) for r in range(n) for c in range(n) if givens[r][c]]
        out = []
        for r, c in empties[:3] + filled[:1]:
            mutant = [row[:] for row in problem.reference]
            mutant[r][c] = mutant[r][c] % n + 1
            out.append(answer_grid(mutant))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: numbers run together, commas, a code fence."""
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
        return float(
            search(
                n, givens, [tuple(p) for p in problem.data["less"]], limit=1, max_nodes=10**7
            ).work
        )


class FutoshikiEnv(TaskEnv):
    """Complete a futoshiki; see the module docstring."""

    task_class = FutoshikiTask
