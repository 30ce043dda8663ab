"""Star battle: place stars so that every row, column and region holds the same number.

The task:
    An n x n grid is split into n regions. Place stars so that every row, every column and
    every region holds exactly k stars (k = 1 or 2) and no two stars touch, not even
    diagonally. Every instance has exactly one solution (certified with z3, independently
    of the generator's solver).

Observation:
    One user message: the grid of region letters, k, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: n lines of n characters, ``*``
    for a star and ``.`` for an empty cell (``1``/``0`` are also read; spaces between cells
    are ignored). Checked by the rules, so any valid placement scores; with a unique
    solution that is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid placement, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; one star per line on grids of 5 to 9 (levels 1-8), two stars per line on
        grids of 8 and 9 (levels 9-10), with more even regions as the level rises.
    size: Grid side, 4 to 12.
    stars: Stars per row, column and region: 1 or 2 (2 needs a side of at least 8).
    evenness: Pareto shape of the regions' random growth rates, 0.5 to 10 (small: a mix of
        tiny and large regions, which pins the stars down sooner; large: regions of similar
        size).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import string
from collections import deque

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import parse_symbol_grid, z3_count
from palaestra.verdict import Verdict

LEVELS = {
    1: (5, 1, 1.5),
    2: (6, 1, 1.5),
    3: (6, 1, 3.0),
    4: (7, 1, 1.5),
    5: (7, 1, 2.0),
    6: (8, 1, 1.5),
    7: (8, 1, 3.0),
    8: (9, 1, 3.0),
    9: (8, 2, 3.0),
    10: (9, 2, 3.0),
}
"""(size, stars, evenness) by level. Grids of 10 and more with two stars are available through
the knobs but take the generator up to seconds."""

SYMBOLS = {"*": "*", "1": "*", ".": ".", "0": "."}
LABELS = string.ascii_uppercase
MAX_NODES = 5_000
SAMPLE = 8
"""Other solutions gathered per repair."""
TRIES = 3
"""Cells tried per repair."""
REPAIRS = 40
STARTS = 3
"""Starts with the configured evenness before falling back to uneven regions."""
"""Region repairs tried before the generator starts over with new stars."""


@dataclasses.dataclass(frozen=True)
class StarBattleConfig:
    """Knobs.

    Attributes:
        size: Grid side, 4 to 12.
        stars: Stars per row, column and region (1 or 2).
        evenness: Pareto shape of the regions' growth rates (larger: more even regions).
    """

    size: int = 8
    stars: int = 1
    evenness: float = 1.5

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 4 <= self.size <= 12:
            raise ValueError(f"size must be an integer from 4 to 12, got {self.size!r}")
        if self.stars not in (1, 2) or (self.stars == 2 and self.size < 8):
            raise ValueError(
                f"stars must be 1, or 2 with a size of at least 8, got stars={self.stars!r}, "
                f"size={self.size!r}"
            )
        if not isinstance(self.evenness, (int, float)) or not 0.5 <= self.evenness <= 10:
            raise ValueError(f"evenness must be a number from 0.5 to 10, got {self.evenness!r}")


@functools.cache
def row_patterns(n: int, k: int) -> tuple[int, ...]:
    """Every row of n cells with k stars, none side by side, as bitmasks."""
    out = []
    for cols in itertools.combinations(range(n), k):
        mask = sum(1 << c for c in cols)
        if not mask & (mask << 1):
            out.append(mask)
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _geometry(n: int) -> tuple[list[int], list[int]]:
    """(line masks: rows then columns; each cell's touching neighbours as a mask)."""
    lines = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    lines += [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    touch = []
    for r in range(n):
        for c in range(n):
            touch.append(
                sum(
                    1 << ((r + dr) * n + c + dc)
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n
                )
            )
    return lines, touch


class Search:
    """Search over cells as bitmasks.

    Search over cells as bitmasks: every row, column and region (a unit) needs k stars; a
    star rules out the cells it touches; a unit with as many open cells as stars missing
    takes them all, a full unit rules out the rest. Branches on a cell of the unit with the
    fewest open cells: star, or not.

    Attributes:
        solutions: Each solution as a list of row bitmasks, at most ``limit``.
        work: Search nodes.
    """

    def __init__(
        self, regions: list[list[int]], k: int, limit: int = 2, max_nodes: int = MAX_NODES
    ):
        self.n = n = len(regions)
        self.k = k
        self.limit = limit
        self.max_nodes = max_nodes
        self.work = 0
        self.exhausted = False
        self.solutions: list[list[int]] = []
        lines, self.touch = _geometry(n)
        groups = [0] * n
        for r in range(n):
            for c in range(n):
                groups[regions[r][c]] |= 1 << (r * n + c)
        self.units = lines + groups

    def run(self) -> list[list[int]]:
        """Searches every placement; stops at ``limit`` solutions or the node budget."""
        self._descend(0, 0)
        return self.solutions

    def _place(self, stars: int, out: int, cells: int) -> tuple[int, int] | None:
        while cells:
            bit = cells & -cells
            cells ^= bit
            if out & bit:
                return None
            stars |= bit
            out |= self.touch[bit.bit_length() - 1]
        return (None if stars & out else stars), out

    def _spread(self, cells: int) -> bool:
        """Whether two of ``cells`` do not touch."""
        rest = cells
        while rest:
            bit = rest & -rest
            rest ^= bit
            if cells & ~bit & ~self.touch[bit.bit_length() - 1]:
                return True
        return False

    def _descend(self, stars: int, out: int) -> None:
        self.work += 1
        if self.work > self.max_nodes:
            self.exhausted = True
            return
        k = self.k
        changed = True
        while changed:
            changed = False
            for unit in self.units:
                placed = (unit & stars).bit_count()
                open_ = unit & ~stars & ~out
                need = k - placed
                count = open_.bit_count()
                if need < 0 or count < need:
                    return
                if need == 2 and not self._spread(open_):
                    return
                if need == 0 and open_:
                    out |= open_
                    changed = True
                elif need and count == need:
                    placed_state = self._place(stars, out, open_)
                    if placed_state is None or placed_state[0] is None:
                        return
                    stars, out = placed_state
                    changed = True
        best, best_slack = 0, 10**9
        for unit in self.units:
            open_ = unit & ~stars & ~out
            need = k - (unit & stars).bit_count()
            slack = open_.bit_count() - need
            if open_ and need and slack < best_slack:
                best, best_slack = open_, slack
        if not best:
            n = self.n
            self.solutions.append([(stars >> (r * n)) & ((1 << n) - 1) for r in range(n)])
            return
        bit = best & -best
        placed_state = self._place(stars, out, bit)
        if placed_state is not None and placed_state[0] is not None:
            self._descend(*placed_state)
        if len(self.solutions) < self.limit and not self.exhausted:
            self._descend(stars, out | bit)


def random_stars(n: int, k: int, rng: np.random.Generator) -> list[int]:
    """A random placement of k stars per row and column with no two touching (row bitmasks)."""
    patterns = row_patterns(n, k)
    rows: list[int] = []
    counts = [0] * n

    def extend() -> bool:
        r = len(rows)
        if r == n:
            return True
        prev = rows[-1] if rows else 0
        blocked = prev | (prev << 1) | (prev >> 1)
        left = n - r - 1
        for index in rng.permutation(len(patterns)):
            pattern = patterns[int(index)]
            cols = [c for c in range(n) if pattern >> c & 1]
            if pattern & blocked or any(counts[c] >= k for c in cols):
                continue
            for c in cols:
                counts[c] += 1
            if all(k - counts[c] <= (left + 1) // 2 for c in range(n)):
                rows.append(pattern)
                if extend():
                    return True
                rows.pop()
            for c in cols:
                counts[c] -= 1
        return False

    extend()
    return rows


def _neighbours(n: int, cell: int) -> list[int]:
    r, c = divmod(cell, n)
    return [
        (r + dr) * n + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < n and 0 <= c + dc < n
    ]


def grow_regions(
    n: int, k: int, stars: list[int], evenness: float, rng: np.random.Generator
) -> list[int] | None:
    """N connected regions holding k of the stars each (cell -> region), or None if stuck."""
    owner = [-1] * (n * n)
    star_set = set(stars)
    seeds = [stars[int(i)] for i in rng.permutation(len(stars))[:n]]
    for g, cell in enumerate(seeds):
        owner[cell] = g
    if k == 2:
        # Each region walks to a free star along a shortest path through free, starless cells.
        for g in (int(i) for i in rng.permutation(n)):
            start = seeds[g]
            parent = {start: start}
            queue = deque([start])
            found = None
            while queue and found is None:
                cell = queue.popleft()
                for m in (int(x) for x in rng.permutation(_neighbours(n, cell))):
                    if m in parent or owner[m] >= 0:
                        continue
                    parent[m] = cell
                    if m in star_set:
                        found = m
                        break
                    queue.append(m)
            if found is None:
                return None
            cell = found
            while cell != start:
                owner[cell] = g
                cell = parent[cell]
    if any(owner[i] < 0 for i in star_set):
        return None
    # Fill the rest with regions growing at heavy-tailed random rates: a mix of small and
    # large regions leaves far fewer solutions than evenly grown blobs.
    weights = rng.pareto(evenness, n) + 0.05
    frontier: list[set[int]] = [set() for _ in range(n)]
    for cell in range(n * n):
        if owner[cell] >= 0:
            frontier[owner[cell]].update(m for m in _neighbours(n, cell) if owner[m] < 0)
    while True:
        open_regions = [g for g in range(n) if frontier[g]]
        if not open_regions:
            break
        p = np.array([weights[g] for g in open_regions])
        g = open_regions[int(rng.choice(len(open_regions), p=p / p.sum()))]
        choices = sorted(frontier[g])
        cell = choices[int(rng.integers(len(choices)))]
        owner[cell] = g
        for other in frontier:
            other.discard(cell)
        frontier[g].update(m for m in _neighbours(n, cell) if owner[m] < 0)
    return owner if all(o >= 0 for o in owner) else None


def _connected(n: int, cells: set[int]) -> bool:
    if not cells:
        return False
    start = min(cells)
    seen = {start}
    stack = [start]
    while stack:
        for m in _neighbours(n, stack.pop()):
            if m in cells and m not in seen:
                seen.add(m)
                stack.append(m)
    return len(seen) == len(cells)


class StarBattleTask(Task[StarBattleConfig]):
    """Place stars in rows, columns and regions."""

    name = "star_battle"
    Config = StarBattleConfig
    unique = True
    # 5x5 holds only 14 placements of one star per row and column with none touching.
    duplicate_allowance = {1: 0.03}

    @classmethod
    def level_config(cls, level: int) -> StarBattleConfig:
        """Larger grids, then two stars per line; more even regions within a size."""
        size, stars, evenness = LEVELS[level]
        return StarBattleConfig(size=size, stars=stars, evenness=evenness)

    def _puzzle(self, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """(star row bitmasks, region of each cell) with a unique solution.

        Even regions leave many solutions to repair away; after a few failed starts the
        regions are grown unevenly (evenness 1), which bounds the time spent.
        """
        n, k = self.config.size, self.config.stars
        for start in itertools.count():
            rows = random_stars(n, k, rng)
            stars = [r * n + c for r in range(n) for c in range(n) if rows[r] >> c & 1]
            owner = grow_regions(n, k, stars, self.config.evenness if start < STARTS else 1.0, rng)
            if owner is None:
                continue
            count, others = self._count(owner, rows, k)
            for _ in range(REPAIRS):
                if count == 0:
                    return rows, owner
                # Moving a star cell of other solutions into a neighbouring region gives that
                # region k + 1 stars in each of them, while ours are untouched. Try the cells
                # starred most often; keep the move that leaves the fewest other solutions.
                hits: dict[int, int] = {}
                for other in others:
                    for r in range(n):
                        for c in range(n):
                            if other[r] >> c & 1 and not rows[r] >> c & 1:
                                hits[r * n + c] = hits.get(r * n + c, 0) + 1
                best = None
                for cell in sorted(hits, key=lambda x: (-hits[x], x))[:TRIES]:
                    home = owner[cell]
                    rest = {i for i in range(n * n) if owner[i] == home and i != cell}
                    if not _connected(n, rest):
                        continue
                    for target in sorted({owner[m] for m in _neighbours(n, cell)} - {home}):
                        trial = owner[:]
                        trial[cell] = target
                        # Counting past the best so far is wasted work.
                        result = self._count(trial, rows, k, SAMPLE if best is None else best[0][0])
                        if best is None or result[0] < best[0][0]:
                            best = (result, trial)
                if best is None:
                    break
                (count, others), owner = best

    @staticmethod
    def _count(
        owner: list[int], rows: list[int], k: int, cap: int = 0
    ) -> tuple[int, list[list[int]]]:
        """Other solutions of a candidate puzzle.

        (other solutions found, up to ``cap`` or SAMPLE, counted as many when over budget;
        those found).
        """
        n = len(rows)
        cap = cap or SAMPLE
        search = Search([owner[r * n : (r + 1) * n] for r in range(n)], k, limit=cap + 1)
        others = [s for s in search.run() if s != rows]
        return (cap if search.exhausted else len(others)), others

    def generate(self, rng: np.random.Generator) -> Problem:
        """Random stars and regions grown around them, repaired until the solution is unique."""
        n, k = self.config.size, self.config.stars
        rows, owner = self._puzzle(rng)
        # Letters in reading order of first appearance, so equal puzzles read the same.
        order: dict[int, str] = {}
        for g in owner:
            order.setdefault(g, LABELS[len(order)])
        regions = ["".join(order[owner[r * n + c]] for c in range(n)) for r in range(n)]
        solution = ["".join("*" if rows[r] >> c & 1 else "." for c in range(n)) for r in range(n)]
        drawn = "\n".join(" ".join(row) for row in regions)
        word = "one star" if k == 1 else "two stars"
        prompt = (
            f"Solve this {n}x{n} star battle: the grid is split into {n} regions, drawn below as "
            "letters. Place "
            f"stars so that every row, every column and every region contains exactly {word}, and "
            "no two stars "
            f"touch each other, not even diagonally.\n\n{drawn}\n\n"
            f"Answer with the grid: {n} lines, one per row, each with {n} characters: * for a star "
            "and . for an "
            f"empty cell (for example, a row of 5 could be written as .*...). {ANSWER_FORMAT}"
        )
        return Problem(prompt, solution, {"regions": regions, "stars": k})

    def solve(self, problem: Problem) -> str:
        """The stars the regions were grown around."""
        return "\n".join(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """K stars in every row, column and region; no two stars touching."""
        regions, k = problem.data["regions"], problem.data["stars"]
        n = len(regions)
        grid, why = parse_symbol_grid(answer, n, n, SYMBOLS)
        if grid is None:
            return self.malformed(answer, problem, why)
        stars = [(r, c) for r in range(n) for c in range(n) if grid[r][c] == "*"]
        for r in range(n):
            if grid[r].count("*") != k:
                return self.wrong(
                    grid, problem, f"row {r + 1} has {grid[r].count('*')} stars, not {k}"
                )
        for c in range(n):
            count = sum(grid[r][c] == "*" for r in range(n))
            if count != k:
                return self.wrong(grid, problem, f"column {c + 1} has {count} stars, not {k}")
        for label in sorted({ch for row in regions for ch in row}):
            count = sum(regions[r][c] == label for r, c in stars)
            if count != k:
                return self.wrong(grid, problem, f"region {label} has {count} stars, not {k}")
        placed = set(stars)
        for r, c in stars:
            if any(
                (r + dr, c + dc) in placed for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc
            ):
                return self.wrong(
                    grid, problem, f"the star at row {r + 1}, column {c + 1} touches another"
                )
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts placements with z3 over the rules as stated in the prompt."""
        regions, k = problem.data["regions"], problem.data["stars"]
        n = len(regions)

        def build(z3):
            x = [[z3.Bool(f"s{r}_{c}") for c in range(n)] for r in range(n)]
            s = z3.Solver()
            groups = x + [[x[r][c] for r in range(n)] for c in range(n)]
            groups += [
                [x[r][c] for r in range(n) for c in range(n) if regions[r][c] == label]
                for label in sorted({ch for row in regions for ch in row})
            ]
            for group in groups:
                s.add(z3.PbEq([(v, 1) for v in group], k))
            for r in range(n):
                for c in range(n):
                    for dr, dc in ((0, 1), (1, -1), (1, 0), (1, 1)):
                        if 0 <= r + dr < n and 0 <= c + dc < n:
                            s.add(z3.Not(z3.And(x[r][c], x[r + dr][c + dc])))
            return s, [v for row in x for v in row]

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """One star moved along its row (its column then holds too many or too few)."""
        grid = problem.reference
        n = len(grid)
        out = []
        for r in (n // 2, 0, n - 1):
            row = grid[r]
            c = row.index("*")
            target = c + 1 if c + 1 < n and row[c + 1] == "." else c - 1
            moved = list(row)
            moved[c], moved[target] = ".", "*"
            out.append("\n".join(grid[:r] + ["".join(moved)] + grid[r + 1 :]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: 1/0, spaces between cells, a code fence."""
        grid = problem.reference
        return [
            "\n".join(row.replace("*", "1").replace(".", "0") for row in grid),
            "\n".join(" ".join(row) for row in grid),
            "```\n" + "\n".join(grid) + "\n```",
        ]

    def work(self, problem: Problem) -> float:
        """Search nodes of the row-by-row solver."""
        regions_text = problem.data["regions"]
        len(regions_text)
        labels = {
            label: g for g, label in enumerate(sorted({ch for row in regions_text for ch in row}))
        }
        regions = [[labels[ch] for ch in row] for row in regions_text]
        search = Search(regions, problem.data["stars"], limit=1, max_nodes=10**7)
        search.run()
        return float(search.work)


class StarBattleEnv(TaskEnv):
    """Place stars; see the module docstring."""

    task_class = StarBattleTask
