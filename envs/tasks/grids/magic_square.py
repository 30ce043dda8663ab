"""Magic square: complete a partly filled normal magic square.

The task:
    An n x n grid (n = 3, 4 or 5) with some numbers given. Fill the empty cells so that the
    grid holds each of 1..n^2 once and every row, every column and both main diagonals add
    up to the magic sum n(n^2 + 1)/2. Several completions may exist; any of them scores
    (checked by the rules). Solvability is certified with z3, independently of the
    generator.

Observation:
    One user message: the grid (``.`` for an empty cell), the magic sum, and the answer
    format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: n lines of n numbers separated
    by spaces, commas or bars.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid completion, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3x3 at levels 1-2, 4x4 at 3-5, 5x5 at 6-10, with more empty cells as the
        level rises.
    size: 3, 4 or 5.
    blanks: Number of empty cells.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import (
    answer_grid,
    changed_given,
    format_number_grid,
    parse_number_grid,
    z3_count,
)
from palaestra.verdict import Verdict

LEVELS = {
    1: (3, 4),
    2: (3, 6),
    3: (4, 7),
    4: (4, 8),
    5: (4, 10),
    6: (5, 12),
    7: (5, 13),
    8: (5, 14),
    9: (5, 15),
    10: (5, 16),
}
"""(size, blanks) by level. More blanks on 5x5 are available through ``blanks``; past about
16 the completion search behind `work` and `alternatives` takes seconds."""

MAX_NODES = 200_000


@dataclasses.dataclass(frozen=True)
class MagicSquareConfig:
    """Knobs.

    Attributes:
        size: 3, 4 or 5.
        blanks: Empty cells, 1 to size^2.
    """

    size: int = 4
    blanks: int = 8

    def __post_init__(self) -> None:
        if self.size not in (3, 4, 5):
            raise ValueError(f"size must be 3, 4 or 5, got {self.size!r}")
        if not isinstance(self.blanks, int) or not 1 <= self.blanks <= self.size**2:
            raise ValueError(
                f"blanks must be an integer from 1 to {self.size**2}, got {self.blanks!r}"
            )


def magic_sum(n: int) -> int:
    """The common sum of a normal magic square of order n."""
    return n * (n * n + 1) // 2


def _lines(n: int) -> list[list[int]]:
    rows = [[r * n + c for c in range(n)] for r in range(n)]
    cols = [[r * n + c for r in range(n)] for c in range(n)]
    return rows + cols + [[i * n + i for i in range(n)], [i * n + n - 1 - i for i in range(n)]]


class Search:
    """Depth-first completion with line-sum bounds.

    Depth-first completion: a line with one empty cell forces it; a line's remaining sum
    must lie between the sums of its empty count of smallest and largest unused numbers.

    Attributes:
        solutions: Completed grids (row-major), at most ``limit``.
        work: Search nodes.
    """

    def __init__(self, n: int, limit: int = 1, max_nodes: int = MAX_NODES):
        self.n = n
        self.total = magic_sum(n)
        self.lines = _lines(n)
        self.of_cell = [
            [k for k, line in enumerate(self.lines) if cell in line] for cell in range(n * n)
        ]
        self.limit = limit
        self.max_nodes = max_nodes
        self.work = 0
        self.solutions: list[list[int]] = []

    def run(self, cells: list[int]) -> list[list[int]]:
        """Completes ``cells`` (row-major, 0 = empty); stops at ``limit`` or the node budget."""
        self._descend(cells[:])
        return self.solutions

    def _feasible(self, cells: list[int], unused: list[int]) -> int | None:
        """-1 if some line cannot be completed, else a forced empty cell or None."""
        forced = None
        free = set(unused)
        for line in self.lines:
            empty = [c for c in line if not cells[c]]
            need = self.total - sum(cells[c] for c in line)
            e = len(empty)
            if e == 0:
                if need:
                    return -1
                continue
            if e > len(unused) or need < sum(unused[:e]) or need > sum(unused[-e:]):
                return -1
            if e == 1 and forced is None:
                forced = empty[0]
            if e == 2 and not any(need - v != v and need - v in free for v in unused):
                return -1
        return forced

    def _descend(self, cells: list[int]) -> None:
        self.work += 1
        if len(self.solutions) >= self.limit or self.work > self.max_nodes:
            return
        used = set(cells)
        unused = [v for v in range(1, self.n * self.n + 1) if v not in used]
        forced = self._feasible(cells, unused)
        if forced == -1:
            return
        if not unused:
            self.solutions.append(cells[:])
            return
        if forced is not None:
            line = next(
                self.lines[k]
                for k in self.of_cell[forced]
                if sum(1 for c in self.lines[k] if not cells[c]) == 1
            )
            value = self.total - sum(cells[c] for c in line)
            if value in used or not 1 <= value <= self.n * self.n:
                return
            cells[forced] = value
            self._descend(cells)
            cells[forced] = 0
            return
        # Branch in the line closest to complete, so lines finish (and force cells) early.
        best = min(
            (line for line in self.lines if any(not cells[c] for c in line)),
            key=lambda line: sum(1 for c in line if not cells[c]),
        )
        cell = next(c for c in best if not cells[c])
        for value in unused:
            cells[cell] = value
            self._descend(cells)
            cells[cell] = 0
            if len(self.solutions) >= self.limit:
                return


@functools.cache
def diagonal_latin_squares(n: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every n x n Latin square over 0..n-1 whose two main diagonals are also permutations."""
    perms = list(itertools.permutations(range(n)))
    out = []

    def extend(rows: list[tuple[int, ...]]) -> None:
        if len(rows) == n:
            if (
                len({rows[i][i] for i in range(n)}) == n
                and len({rows[i][n - 1 - i] for i in range(n)}) == n
            ):
                out.append(tuple(rows))
            return
        for p in perms:
            if all(p[c] != row[c] for row in rows for c in range(n)):
                extend([*rows, p])

    extend([])
    return tuple(out)


def _orthogonal(a: Sequence[Sequence[int]], b: Sequence[Sequence[int]], n: int) -> bool:
    return len({(a[i][j], b[i][j]) for i in range(n) for j in range(n)}) == n * n


def random_magic(n: int, rng: np.random.Generator) -> list[int]:
    """A random normal magic square (row-major) of order 3, 4 or 5.

    Built as ``n * A + B + 1`` from two orthogonal Latin squares A, B whose diagonals are
    permutations too (every line then sums to the magic sum and every number appears once):
    for n = 4 from the 48 such squares, for n = 5 from linear ones ``(a*i + b*j) mod 5`` with
    their symbols permuted; n = 3 is the Lo Shu square. Then a random symmetry of the square,
    a random reordering of rows and columns that maps mirror lines to mirror lines, and
    possibly the complement ``n^2 + 1 - v``, all of which keep a square magic.
    """
    if n == 3:
        grid = [[2, 7, 6], [9, 5, 1], [4, 3, 8]]
    elif n == 4:
        squares = diagonal_latin_squares(4)
        a = squares[int(rng.integers(len(squares)))]
        mates = [b for b in squares if _orthogonal(a, b, 4)]
        b = mates[int(rng.integers(len(mates)))]
        grid = [[4 * a[i][j] + b[i][j] + 1 for j in range(4)] for i in range(4)]
    else:
        steps = [(p, q) for p in range(1, 5) for q in range(1, 5) if (p + q) % 5 and (p - q) % 5]
        (p, q) = steps[int(rng.integers(len(steps)))]
        mates = [(u, v) for u, v in steps if (p * v - q * u) % 5]
        (u, v) = mates[int(rng.integers(len(mates)))]
        sigma, tau = rng.permutation(5).tolist(), rng.permutation(5).tolist()
        grid = [
            [5 * sigma[(p * i + q * j) % 5] + tau[(u * i + v * j) % 5] + 1 for j in range(5)]
            for i in range(5)
        ]
    # Rows and columns reordered alike by a permutation that commutes with i -> n-1-i.
    pairs = [(i, n - 1 - i) for i in range(n // 2)]
    order = [pairs[int(k)] for k in rng.permutation(len(pairs))]
    order = [pair if rng.random() < 0.5 else pair[::-1] for pair in order]
    perm = list(range(n))
    for (i, _), (x, y) in zip(pairs, order, strict=False):
        perm[i], perm[n - 1 - i] = x, y
    grid = [[grid[perm[i]][perm[j]] for j in range(n)] for i in range(n)]
    for _ in range(int(rng.integers(4))):
        grid = [list(row) for row in zip(*grid[::-1], strict=False)]
    if rng.random() < 0.5:
        grid = [row[::-1] for row in grid]
    if rng.random() < 0.5:
        grid = [[n * n + 1 - v for v in row] for row in grid]
    return [v for row in grid for v in row]


def is_magic(grid: list[list[int]]) -> str:
    """``""`` when the grid is a normal magic square, else what fails."""
    n = len(grid)
    flat = [v for row in grid for v in row]
    if sorted(flat) != list(range(1, n * n + 1)):
        return f"the numbers are not 1 to {n * n}, each once"
    total = magic_sum(n)
    names = (
        [f"row {r + 1}" for r in range(n)]
        + [f"column {c + 1}" for c in range(n)]
        + ["the main diagonal", "the anti-diagonal"]
    )
    for name, line in zip(names, _lines(n), strict=False):
        if sum(flat[c] for c in line) != total:
            return f"{name} adds up to {sum(flat[c] for c in line)}, not {total}"
    return ""


class MagicSquareTask(Task[MagicSquareConfig]):
    """Complete a magic square."""

    name = "magic_square"
    Config = MagicSquareConfig
    unique = False
    # There are only 8 magic squares of order 3, so the 3x3 levels repeat puzzles:
    # 8 x C(9, 4) = 1008 and 8 x C(9, 6) = 672 distinct prompts.
    duplicate_allowance = {1: 0.08, 2: 0.15}

    @classmethod
    def level_config(cls, level: int) -> MagicSquareConfig:
        """Larger squares, more empty cells."""
        size, blanks = LEVELS[level]
        return MagicSquareConfig(size=size, blanks=blanks)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random magic square (see `random_magic`), then random cells emptied."""
        n = self.config.size
        square = random_magic(n, rng)
        cells = square[:]
        for cell in rng.permutation(n * n)[: self.config.blanks]:
            cells[int(cell)] = 0
        givens = [cells[r * n : (r + 1) * n] for r in range(n)]
        total = magic_sum(n)
        prompt = (
            f"Complete this {n}x{n} magic square: fill the empty cells (.) so that the grid "
            "contains each whole "
            f"number from 1 to {n * n} exactly once and every row, every column and both main "
            "diagonals add up "
            f"to {total}.\n\n{format_number_grid(givens)}\n\n"
            f"Answer with the completed grid: {n} lines, one per row, the numbers of a row "
            "separated by spaces "
            "(for example, a first row could be written as "
            f"{' '.join(str(v) for v in range(1, n + 1))}). {ANSWER_FORMAT}"
        )
        reference = [square[r * n : (r + 1) * n] for r in range(n)]
        return Problem(prompt, reference, {"size": n, "givens": givens})

    def solve(self, problem: Problem) -> str:
        """The square the givens were taken from."""
        return answer_grid(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """1..n^2 once each, every line at the magic sum, every given kept."""
        n = problem.data["size"]
        grid, why = parse_number_grid(answer, n, n, 1, n * n)
        if grid is None:
            return self.malformed(answer, problem, why)
        changed = changed_given(grid, problem.data["givens"])
        if changed:
            return self.wrong(grid, problem, changed)
        broken = is_magic(grid)
        if broken:
            return self.wrong(grid, problem, broken)
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts completions with z3 over the rules as stated in the prompt."""
        n = problem.data["size"]

        def build(z3):
            x = [z3.Int(f"m{i}") for i in range(n * n)]
            s = z3.Solver()
            s.add(*[z3.And(1 <= v, v <= n * n) for v in x], z3.Distinct(x))
            s.add([z3.Sum([x[c] for c in line]) == magic_sum(n) for line in _lines(n)])
            s.add(
                [
                    x[r * n + c] == v
                    for r, row in enumerate(problem.data["givens"])
                    for c, v in enumerate(row)
                    if v
                ]
            )
            return s, x

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """An empty cell changed (repeating another); a given changed; two cells swapped."""
        n = problem.data["size"]
        givens = problem.data["givens"]
        empties = [(r, c) for r in range(n) for c in range(n) if not givens[r][c]]
        filled = [(r, c) for r in range(n) for c in range(n) if givens[r][c]]
        out = []
        for r, c in empties[:2] + filled[:1]:
            mutant = [row[:] for row in problem.reference]
            mutant[r][c] = mutant[r][c] % (n * n) + 1
            out.append(answer_grid(mutant))
        swapped = [row[:] for row in problem.reference]
        swapped[0][0], swapped[0][1] = swapped[0][1], swapped[0][0]
        return out + [answer_grid(swapped)]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other completions (up to two) and other spellings of the reference."""
        n = problem.data["size"]
        cells = [v for row in problem.data["givens"] for v in row]
        others = [
            s
            for s in Search(n, limit=3, max_nodes=20_000).run(cells)
            if s != [v for row in problem.reference for v in row]
        ]
        out = [answer_grid([s[r * n : (r + 1) * n] for r in range(n)]) for s in others[:2]]
        grid = problem.reference
        return out + [
            "\n".join(",".join(map(str, row)) for row in grid),
            "```\n" + answer_grid(grid) + "\n```",
        ]

    def work(self, problem: Problem) -> float:
        """Search nodes of the completion search until the first completion."""
        n = problem.data["size"]
        search = Search(n, max_nodes=10**8)
        search.run([v for row in problem.data["givens"] for v in row])
        return float(search.work)


class MagicSquareEnv(TaskEnv):
    """Complete a magic square; see the module docstring."""

    task_class = MagicSquareTask
