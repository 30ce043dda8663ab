"""N-queens: complete a placement of n queens on an n x n board, some already placed.

The task:
    Place n queens on an n x n board so that no two share a row, a column or a diagonal,
    keeping the queens already placed. Many placements may be valid; any of them scores
    (checked by the rules). Solvability is certified by an exact-cover counter independent
    of the generator's search.

Observation:
    One user message: the board with the placed queens (``Q``) and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: n lines of n characters, ``Q``
    for a queen and ``.`` for an empty square (``q``, ``1``/``0`` are also read; spaces
    between squares are ignored).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid placement that keeps the given queens, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; boards of 5 to 14 squares a side with 1 to 5 queens placed; on the boards
        up to 8x8 (levels 1-4) more queens are placed until the completion is unique.
    size: Board side, 4 to 20.
    placed: Queens placed in advance, 0 to ``size - 1``.
    pinned: Place further queens until only one completion is left.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import exact_cover_count, parse_symbol_grid
from palaestra.verdict import Verdict

LEVELS = {
    1: (5, 1, True),
    2: (6, 1, True),
    3: (7, 2, True),
    4: (8, 2, True),
    5: (9, 3, False),
    6: (10, 3, False),
    7: (11, 3, False),
    8: (12, 4, False),
    9: (13, 4, False),
    10: (14, 5, False),
}
"""(size, placed, pinned) by level. Small boards are pinned so that a puzzle is not solved
by the answer of another puzzle with the same board."""

SYMBOLS = {"q": "Q", "1": "Q", ".": ".", "0": "."}
MAX_NODES = 200_000


@dataclasses.dataclass(frozen=True)
class NQueensConfig:
    """Knobs.

    Attributes:
        size: Board side, 4 to 20.
        placed: Queens placed in advance.
        pinned: Place further queens until only one completion is left.
    """

    size: int = 8
    placed: int = 2
    pinned: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 4 <= self.size <= 20:
            raise ValueError(f"size must be an integer from 4 to 20, got {self.size!r}")
        if not isinstance(self.placed, int) or not 0 <= self.placed < self.size:
            raise ValueError(f"placed must be an integer from 0 to size - 1, got {self.placed!r}")
        if not isinstance(self.pinned, bool):
            raise ValueError(f"pinned must be True or False, got {self.pinned!r}")


class Search:
    """Row-by-row search with column and diagonal bitmasks; fixed rows keep their queen.

    Attributes:
        solutions: Each solution as the queen's column per row, at most ``limit``.
        work: Search nodes.
    """

    def __init__(
        self,
        n: int,
        fixed: dict[int, int],
        limit: int = 1,
        rng: np.random.Generator | None = None,
        max_nodes: int = MAX_NODES,
    ):
        self.n = n
        self.fixed = fixed
        self.limit = limit
        self.rng = rng
        self.max_nodes = max_nodes
        self.work = 0
        self.solutions: list[list[int]] = []

    def run(self) -> list[list[int]]:
        """Searches; stops at ``limit`` solutions or the node budget."""
        self._descend(0, 0, 0, 0, [])
        return self.solutions

    def _descend(self, r: int, cols: int, diag: int, anti: int, placed: list[int]) -> None:
        self.work += 1
        if r == self.n:
            self.solutions.append(placed[:])
            return
        if r in self.fixed:
            order = [self.fixed[r]]
        elif self.rng is not None:
            order = [int(c) for c in self.rng.permutation(self.n)]
        else:
            order = list(range(self.n))
        for c in order:
            if len(self.solutions) >= self.limit or self.work > self.max_nodes:
                return
            if cols >> c & 1 or diag >> (r + c) & 1 or anti >> (r - c + self.n) & 1:
                continue
            placed.append(c)
            self._descend(
                r + 1, cols | 1 << c, diag | 1 << (r + c), anti | 1 << (r - c + self.n), placed
            )
            placed.pop()


def board(n: int, queens: dict[int, int]) -> list[str]:
    """Rows of the board with ``Q`` on the queens."""
    return ["".join("Q" if queens.get(r) == c else "." for c in range(n)) for r in range(n)]


class NQueensTask(Task[NQueensConfig]):
    """Complete an n-queens placement."""

    name = "n_queens"
    Config = NQueensConfig
    unique = False
    # Small boards hold few placements: 5x5 has 10 solutions and 6x6 only 4, so the pinned
    # puzzles of levels 1-2 number a few dozen, and those of 7x7 and 8x8 a few hundred.
    duplicate_allowance = {1: 0.7, 2: 0.95, 3: 0.25, 4: 0.1}

    @classmethod
    def level_config(cls, level: int) -> NQueensConfig:
        """Larger boards, more queens placed."""
        size, placed, pinned = LEVELS[level]
        return NQueensConfig(size=size, placed=placed, pinned=pinned)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random solution (search in random column order); some of its queens are placed."""
        n = self.config.size
        found: list[list[int]] = []
        while not found:  # a random column order rarely needs more than a few thousand nodes
            found = Search(n, {}, rng=rng).run()
        solution = found[0]
        order = [int(r) for r in rng.permutation(n)]
        given = {r: solution[r] for r in order[: self.config.placed]}
        for r in order[self.config.placed :]:
            if not self.config.pinned or len(Search(n, given, limit=2).run()) == 1:
                break
            given[r] = solution[r]
        drawn = "\n".join(" ".join(row) for row in board(n, given))
        count = (
            "no queen is"
            if not given
            else ("1 queen is" if len(given) == 1 else f"{len(given)} queens are")
        )
        prompt = (
            f"Place {n} queens on this {n}x{n} board so that no two queens share a row, a column "
            "or a diagonal. "
            f"{count[0].upper() + count[1:]} already placed (Q) and must stay where they "
            f"are.\n\n{drawn}\n\n"
            f"Answer with the full board: {n} lines, one per row, each with {n} characters: Q for "
            "a queen and . "
            "for an empty square (for example, a row of 5 could be written as ..Q..). "
            f"{ANSWER_FORMAT}"
        )
        reference = board(n, dict(enumerate(solution)))
        return Problem(
            prompt, reference, {"size": n, "given": [[r, c] for r, c in sorted(given.items())]}
        )

    def solve(self, problem: Problem) -> str:
        """The placement the given queens were taken from."""
        return "\n".join(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """N queens, one per row and column, none sharing a diagonal, the given ones kept."""
        n = problem.data["size"]
        grid, why = parse_symbol_grid(answer, n, n, SYMBOLS)
        if grid is None:
            return self.malformed(answer, problem, why)
        for r, c in problem.data["given"]:
            if grid[r][c] != "Q":
                return self.wrong(
                    grid, problem, f"the given queen at row {r + 1}, column {c + 1} is missing"
                )
        queens = [(r, c) for r in range(n) for c in range(n) if grid[r][c] == "Q"]
        if len(queens) != n:
            return self.wrong(grid, problem, f"{len(queens)} queens, not {n}")
        for name, key in (
            ("row", lambda q: q[0]),
            ("column", lambda q: q[1]),
            ("diagonal", lambda q: q[0] + q[1]),
            ("diagonal", lambda q: q[0] - q[1]),
        ):
            if len({key(q) for q in queens}) != n:
                return self.wrong(grid, problem, f"two queens share a {name}")
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts completions with Algorithm X (rows, columns once; diagonals at most once)."""
        n = problem.data["size"]
        rows = {
            (r, c): [("row", r), ("col", c), ("diag", r + c), ("anti", r - c)]
            for r in range(n)
            for c in range(n)
        }
        primary = [("row", r) for r in range(n)] + [("col", c) for c in range(n)]
        secondary = [("diag", d) for d in range(2 * n - 1)] + [
            ("anti", d) for d in range(-n + 1, n)
        ]
        chosen = [tuple(q) for q in problem.data["given"]]
        return Certificate(exact_cover_count(primary, rows, chosen, cap=2, secondary=secondary))

    def mutations(self, problem: Problem) -> list[str]:
        """A free queen moved one square along its row; a queen removed; a given queen moved."""
        grid = problem.reference
        n = len(grid)
        given_rows = {r for r, _ in problem.data["given"]}
        out = []
        for r in [r for r in range(n) if r not in given_rows][:2] + sorted(given_rows)[:1]:
            c = grid[r].index("Q")
            target = c + 1 if c + 1 < n else c - 1
            moved = list("." * n)
            moved[target] = "Q"
            out.append("\n".join(grid[:r] + ["".join(moved)] + grid[r + 1 :]))
        out.append("\n".join(grid[:-1] + ["." * n]))
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Other valid completions (up to two) and other spellings of the reference."""
        n = problem.data["size"]
        fixed = {r: c for r, c in problem.data["given"]}
        others = [board(n, dict(enumerate(s))) for s in Search(n, fixed, limit=3).run()]
        out = ["\n".join(b) for b in others if b != problem.reference][:2]
        grid = problem.reference
        return out + [
            "\n".join(" ".join(row) for row in grid),
            "\n".join(row.replace("Q", "1").replace(".", "0") for row in grid),
        ]

    def work(self, problem: Problem) -> float:
        """Search nodes of the row-by-row solver until the first completion."""
        n = problem.data["size"]
        search = Search(n, {r: c for r, c in problem.data["given"]}, max_nodes=10**8)
        search.run()
        return float(search.work)


class NQueensEnv(TaskEnv):
    """Complete an n-queens placement; see the module docstring."""

    task_class = NQueensTask
