"""KenKen: complete a Latin square whose cages meet arithmetic targets.

The task:
    An n x n grid is split into cages. Each cage shows a target and an operation: the
    numbers in its cells must add up to (``+``), multiply to (``*``) the target, or, for a
    two-cell cage, differ by (``-``) or divide to (``/``) it, larger by smaller; a one-cell
    cage gives its number. Fill every cell with 1..n so that each row and column holds each
    number once. Every instance has exactly one solution (certified with z3, independently of
    the generator's solver). Numbers may repeat inside a cage when they are in different rows
    and columns.

Observation:
    One user message: the grid of cage letters, each cage's target and operation, and the
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
    level: 1-10; 3x3 with two-cell cages of ``+``/``-`` at level 1 up to 8x8 with cages of up
        to three cells (level 9) and 7x7 with cages of up to four (level 10), all four
        operations from level 4.
    size: Grid size, 3 to 8.
    max_cage: Largest cage, 2 to 6 cells.
    operations: The operations cages may use, a string drawn from ``+-*/`` (``+`` required).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import string

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import (
    DomainSearch,
    SearchLimit,
    Table,
    answer_grid,
    is_latin,
    latin_geometry,
    parse_number_grid,
    random_latin_square,
    z3_count,
    z3_latin,
)
from palaestra.verdict import Verdict

LEVELS = {
    1: (3, 2, "+-"),
    2: (4, 2, "+-"),
    3: (4, 3, "+-*"),
    4: (5, 3, "+-*/"),
    5: (5, 4, "+-*/"),
    6: (6, 3, "+-*/"),
    7: (6, 4, "+-*/"),
    8: (7, 3, "+-*/"),
    9: (8, 3, "+-*/"),
    10: (7, 4, "+-*/"),
}
"""(size, largest cage, operations) by level. Level 10 is 7x7 rather than 8x8 because cages of
four cells on 7x7 take the solver more work than cages of three on 8x8."""

LABELS = string.ascii_uppercase + string.ascii_lowercase
MAX_NODES = 2_000
"""Search budget of one uniqueness check; past it the generator splits a cage instead."""


@dataclasses.dataclass(frozen=True)
class KenKenConfig:
    """Knobs.

    Attributes:
        size: Grid size, 3 to 8.
        max_cage: Largest cage, 2 to 6 cells.
        operations: Allowed operations, drawn from ``+-*/`` and including ``+``.
    """

    size: int = 5
    max_cage: int = 3
    operations: str = "+-*/"

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 3 <= self.size <= 8:
            raise ValueError(f"size must be an integer from 3 to 8, got {self.size!r}")
        if not isinstance(self.max_cage, int) or not 2 <= self.max_cage <= 6:
            raise ValueError(f"max_cage must be an integer from 2 to 6, got {self.max_cage!r}")
        if (
            not isinstance(self.operations, str)
            or "+" not in self.operations
            or set(self.operations) - set("+-*/")
        ):
            raise ValueError(
                f"operations must be a string of + - * / that includes +, got {self.operations!r}"
            )


def cage_value(op: str, values: list[int]) -> int | None:
    """The cage's result under ``op``; None where ``-`` or ``/`` does not apply."""
    if op == "+":
        return sum(values)
    if op == "*":
        return math.prod(values)
    if op == "=":
        return values[0] if len(values) == 1 else None
    if len(values) != 2:
        return None
    big, small = max(values), min(values)
    if op == "-":
        return big - small
    return big // small if big % small == 0 else None


def cage_tuples(n: int, op: str, target: int, cells: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The value tuples a cage allows.

    Every assignment of 1..n to the cage's cells that meets the target, with no number
    repeated in a row or column of the cage.
    """
    return _tuples(n, op, target, _clashes(n, cells))


def _clashes(n: int, cells: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each cell of a cage, the earlier cells in its row or column."""
    return tuple(
        tuple(j for j in range(i) if cells[j] // n == cells[i] // n or cells[j] % n == cells[i] % n)
        for i in range(len(cells))
    )


def _tuples(
    n: int, op: str, target: int, clash: tuple[tuple[int, ...], ...]
) -> list[tuple[int, ...]]:
    """`cage_tuples` for a cage whose cells clash as ``clash`` says (`_clashes`)."""
    out: list[tuple[int, ...]] = []
    k = len(clash)

    def extend(prefix: list[int]) -> None:
        i = len(prefix)
        if i == k:
            if cage_value(op, prefix) == target:
                out.append(tuple(prefix))
            return
        for v in range(1, n + 1):
            if any(prefix[j] == v for j in clash[i]):
                continue
            if op == "+" and sum(prefix) + v + (k - i - 1) > target:
                break
            if op == "*" and target % (math.prod(prefix) * v):
                continue
            prefix.append(v)
            extend(prefix)
            prefix.pop()

    extend([])
    return out


@functools.lru_cache(maxsize=4096)
def _table(n: int, op: str, target: int, cells: tuple[int, ...]) -> Table:
    return _shaped_table(n, op, target, _clashes(n, cells)).on(cells)


@functools.lru_cache(maxsize=4096)
def _shaped_table(n: int, op: str, target: int, clash: tuple[tuple[int, ...], ...]) -> Table:
    """A cage's table, shared by every cage whose cells clash alike.

    The tuples depend on the cells only through which of them share a row or column, so
    cages of one shape and clue share their table: enumerating the tuples was half of the
    generator's time at the top levels when cached by cells.
    """
    return Table(range(len(clash)), _tuples(n, op, target, clash), n)


def search(
    n: int,
    cages: list[tuple[str, int, tuple[int, ...]]],
    limit: int = 2,
    max_nodes: int = MAX_NODES,
) -> DomainSearch:
    """Searches the puzzle given as (operation, target, cells) cages."""
    full = (1 << n) - 1
    masks = [full] * (n * n)
    tables = []
    for op, target, cells in cages:
        if op == "=":
            masks[cells[0]] = 1 << (target - 1)
        else:
            tables.append(_table(n, op, target, cells))
    engine = DomainSearch(n, tables=tables, limit=limit, max_nodes=max_nodes, **latin_geometry(n))
    engine.run(masks)
    return engine


def _neighbours(n: int, cell: int) -> list[int]:
    r, c = divmod(cell, n)
    return [
        (r + dr) * n + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < n and 0 <= c + dc < n
    ]


def partition(n: int, max_cage: int, rng: np.random.Generator) -> list[list[int]]:
    """Random connected cages of 1 to ``max_cage`` cells (mostly 2 or more)."""
    owner = [-1] * (n * n)
    cages: list[list[int]] = []
    for start in (int(c) for c in rng.permutation(n * n)):
        if owner[start] >= 0:
            continue
        size = int(rng.integers(2, max_cage + 1))
        cage = [start]
        owner[start] = len(cages)
        while len(cage) < size:
            frontier = sorted({m for cell in cage for m in _neighbours(n, cell) if owner[m] < 0})
            if not frontier:
                break
            pick = frontier[int(rng.integers(len(frontier)))]
            owner[pick] = len(cages)
            cage.append(pick)
        cages.append(sorted(cage))
    # A cell left alone because its neighbours were taken joins a neighbouring cage with room.
    for k, cage in enumerate(cages):
        if len(cage) != 1 or rng.random() < 0.04:
            continue
        hosts = sorted(
            {owner[m] for m in _neighbours(n, cage[0]) if len(cages[owner[m]]) < max_cage}
        )
        if hosts:
            j = hosts[int(rng.integers(len(hosts)))]
            cages[j] = sorted(cages[j] + cage)
            owner[cage[0]] = j
            cages[k] = []
    return [cage for cage in cages if cage]


def choose_operation(
    values: list[int], operations: str, rng: np.random.Generator
) -> tuple[str, int]:
    """A random operation the cage supports, and its target."""
    if len(values) == 1:
        return "=", values[0]
    fits = [op for op in operations if cage_value(op, values) is not None]
    weights = np.array([3.0 if op in "-/" else 1.0 for op in fits])
    op = fits[int(rng.choice(len(fits), p=weights / weights.sum()))]
    return op, cage_value(op, values)


def _components(n: int, cells: list[int]) -> list[list[int]]:
    left, parts = set(cells), []
    while left:
        stack = [min(left)]
        part = []
        left.discard(stack[0])
        while stack:
            cell = stack.pop()
            part.append(cell)
            for m in _neighbours(n, cell):
                if m in left:
                    left.discard(m)
                    stack.append(m)
        parts.append(sorted(part))
    return parts


class KenKenTask(Task[KenKenConfig]):
    """Complete a KenKen grid."""

    name = "kenken"
    Config = KenKenConfig
    unique = True
    # 3x3 has only 12 Latin squares and few ways to cut it into cages of two cells.
    duplicate_allowance = {1: 0.05}

    @classmethod
    def level_config(cls, level: int) -> KenKenConfig:
        """Larger grids, larger cages, more operations."""
        size, max_cage, operations = LEVELS[level]
        return KenKenConfig(size=size, max_cage=max_cage, operations=operations)

    def _cages(
        self, n: int, solution: list[int], rng: np.random.Generator
    ) -> list[tuple[str, int, tuple[int, ...]]]:
        """Cages from a random partition, repaired until the solution is unique.

        A repair targets a cell where another solution differs: give its cage an operation
        that solution breaks, else move the cell into a neighbouring cage, else (and after
        many repairs) make the cell a one-cell cage, which always removes that solution.
        """
        ops = self.config.operations
        cages = []
        for cells in partition(n, self.config.max_cage, rng):
            op, target = choose_operation([solution[c] for c in cells], ops, rng)
            cages.append((op, target, tuple(cells)))
        for repairs in range(10_000):
            try:
                found = search(n, cages).solutions
                other = next((s for s in found if s != solution), None)
                if other is None:
                    return cages
            except SearchLimit:
                other = None
            differ = [i for i in range(n * n) if other is None or other[i] != solution[i]]
            pick = differ[int(rng.integers(len(differ)))]
            k = next(k for k, cage in enumerate(cages) if pick in cage[2])
            op, target, cells = cages[k]
            values = [solution[c] for c in cells]
            if other is not None:
                switches = [
                    o
                    for o in ops
                    if o != op
                    and cage_value(o, values) is not None
                    and cage_value(o, [other[c] for c in cells]) != cage_value(o, values)
                ]
                if switches:
                    o = switches[int(rng.integers(len(switches)))]
                    cages[k] = (o, cage_value(o, values), cells)
                    continue
            hosts = sorted(
                {
                    j
                    for j, cage in enumerate(cages)
                    if j != k
                    and len(cage[2]) < self.config.max_cage
                    and cage[0] != "="
                    and any(m in cage[2] for m in _neighbours(n, pick))
                }
            )
            rest = [c for c in cells if c != pick]
            if hosts and repairs < 30:
                j = hosts[int(rng.integers(len(hosts)))]
                grown = tuple(sorted((*cages[j][2], pick)))
                o, t = choose_operation([solution[c] for c in grown], ops, rng)
                cages[j] = (o, t, grown)
                del cages[k]
            else:
                cages[k] = ("=", solution[pick], (pick,))
            for part in _components(n, rest):
                o, t = choose_operation([solution[c] for c in part], ops, rng)
                cages.append((o, t, tuple(part)))
        raise RuntimeError("kenken: no unique cage set after 10,000 repairs")

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random Latin square, a random partition into cages, repaired until unique."""
        n = self.config.size
        square = random_latin_square(n, rng)
        solution = [v for row in square for v in row]
        cages = sorted(self._cages(n, solution, rng), key=lambda cage: cage[2][0])
        label = [""] * (n * n)
        lines = []
        for k, (op, target, cells) in enumerate(cages):
            for c in cells:
                label[c] = LABELS[k]
            where = " ".join(f"({c // n + 1},{c % n + 1})" for c in cells)
            rule = f"the cell holds {target}" if op == "=" else f"{target}{op}"
            lines.append(f"{LABELS[k]}: {rule}  [{where}]")
        drawn = "\n".join(" ".join(label[r * n : (r + 1) * n]) for r in range(n))
        prompt = (
            f"Solve this {n}x{n} KenKen: fill every cell with a number from 1 to {n} so that each "
            "row and each "
            f"column contains every number from 1 to {n} exactly once. The grid is split into "
            "cages, drawn "
            "below as letters. Each cage has a target and an operation: with + its numbers add up "
            "to the "
            "target, with * they multiply to it, with - (two cells) the larger minus the smaller "
            "is the target, "
            "with / (two cells) the larger divided by the smaller is the target. A number may "
            "repeat inside a "
            f"cage if the repeats are in different rows and columns.\n\n{drawn}\n\n"
            f"Cages (target and operation, then the cells as (row,column) from the top left):\n"
            + "\n".join(lines)
            + f"\n\nAnswer with the completed grid: {n} lines, one per row, "
            "the numbers of a row separated by spaces "
            "(for example, a first row could be written as "
            f"{' '.join(str(d) for d in range(1, n + 1))}). {ANSWER_FORMAT}"
        )
        reference = [solution[r * n : (r + 1) * n] for r in range(n)]
        data = {"size": n, "cages": [[op, target, list(cells)] for op, target, cells in cages]}
        return Problem(prompt, reference, data)

    def solve(self, problem: Problem) -> str:
        """The Latin square the puzzle was made from."""
        return answer_grid(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """A Latin square in which every cage meets its target."""
        n = problem.data["size"]
        grid, why = parse_number_grid(answer, n, n, 1, n)
        if grid is None:
            return self.malformed(answer, problem, why)
        broken = is_latin(grid, n)
        if broken:
            return self.wrong(grid, problem, broken)
        for k, (op, target, cells) in enumerate(problem.data["cages"]):
            if cage_value(op, [grid[c // n][c % n] for c in cells]) != target:
                return self.wrong(
                    grid,
                    problem,
                    f"cage {LABELS[k]} does not make {target}{'' if op == '=' else op}",
                )
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts solutions with z3.

        Counts solutions with z3 (one-hot cells); each cage allows exactly the value tuples
        that make its target, found by trying every tuple.
        """
        n = problem.data["size"]

        def build(z3):
            s, x = z3_latin(z3, n)
            for op, target, cells in problem.data["cages"]:
                allowed = [
                    t
                    for t in itertools.product(range(1, n + 1), repeat=len(cells))
                    if cage_value(op, list(t)) == target
                ]
                s.add(
                    z3.Or(
                        [
                            z3.And([x[c][v - 1] for c, v in zip(cells, t, strict=False)])
                            for t in allowed
                        ]
                        or [z3.BoolVal(False)]
                    )
                )
            return s, [b for cell in x for b in cell]

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """One cell changed (its row then repeats a number)."""
        n = problem.data["size"]
        out = []
        for r, c in ((0, 0), (n - 1, n - 1), (n // 2, 1)):
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
        cages = [(op, target, tuple(cells)) for op, target, cells in problem.data["cages"]]
        return float(search(problem.data["size"], cages, limit=1, max_nodes=10**7).work)


class KenKenEnv(TaskEnv):
    """Complete a KenKen; see the module docstring."""

    task_class = KenKenTask
