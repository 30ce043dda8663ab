"""Light Up (akari): place light bulbs so that every white cell is lit.

The task:
    A grid of white and black cells; some black cells carry a number 0-4. A bulb on a white
    cell lights its own cell and every white cell in its row and column up to the nearest
    black cell or the edge. Place bulbs so that every white cell is lit, no bulb lights
    another bulb, and each numbered black cell has exactly that many bulbs on the cells
    beside it (up, down, left, right). Every instance has exactly one solution (certified
    with z3, independently of the generator's solver). A few bulbs may be placed already.

Observation:
    One user message: the grid (``.`` white, ``#`` black, ``0``-``4`` numbered black, ``L`` a
    bulb placed already) and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the grid again with ``L`` on
    every bulb (``*`` is also read); black cells may be copied as shown or written ``#``;
    spaces between cells are ignored. Checked by the rules, so any valid placement scores;
    with a unique solution that is the solution.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a valid placement, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; grids of 5 to 10 cells a side, with fewer numbers as the level rises.
    size: Grid side, 4 to 12.
    black: Share of black cells (0.1 to 0.4).
    removal: Chance (0 to 1) that the generator tries to remove each number while the
        solution stays unique (1 gives a minimal set of numbers).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.grids._grids import parse_symbol_grid, z3_count
from palaestra.verdict import Verdict

LEVELS = {
    1: (5, 0.3),
    2: (6, 0.5),
    3: (6, 1.0),
    4: (7, 0.6),
    5: (7, 1.0),
    6: (8, 0.6),
    7: (8, 1.0),
    8: (9, 0.7),
    9: (9, 1.0),
    10: (10, 1.0),
}
"""(size, removal) by level."""

SYMBOLS = {".": ".", "l": "L", "*": "L", "#": "#", **{d: d for d in "01234"}}
UNKNOWN, BULB, DARK = 0, 1, 2
MAX_NODES = 5_000
ATTEMPTS = 4
"""Boards drawn before the last one is repaired (boards left with two solutions are redrawn)."""


@dataclasses.dataclass(frozen=True)
class LightUpConfig:
    """Knobs.

    Attributes:
        size: Grid side, 4 to 12.
        black: Share of black cells.
        removal: Chance that the generator tries to remove each number.
    """

    size: int = 7
    black: float = 0.2
    removal: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 4 <= self.size <= 12:
            raise ValueError(f"size must be an integer from 4 to 12, got {self.size!r}")
        if not isinstance(self.black, (int, float)) or not 0.1 <= self.black <= 0.4:
            raise ValueError(f"black must be a share from 0.1 to 0.4, got {self.black!r}")
        if not isinstance(self.removal, (int, float)) or not 0 <= self.removal <= 1:
            raise ValueError(f"removal must be a chance from 0 to 1, got {self.removal!r}")


class Board:
    """The geometry of a board.

    The geometry of a board: white cells, their row and column segments (maximal runs of
    white cells), what each white cell sees, and the white cells beside each numbered cell.
    """

    def __init__(self, rows: list[str]):
        self.rows = rows
        self.R, self.C = len(rows), len(rows[0])
        R, C = self.R, self.C
        self.white = [r * C + c for r in range(R) for c in range(C) if rows[r][c] == "."]
        self.segments: list[list[int]] = []
        self.across = [-1] * (R * C)
        self.down = [-1] * (R * C)
        for owner, lines in (
            (self.across, [[r * C + c for c in range(C)] for r in range(R)]),
            (self.down, [[r * C + c for r in range(R)] for c in range(C)]),
        ):
            for line in lines:
                run: list[int] = []
                for cell in [*line, -1]:
                    if cell >= 0 and rows[cell // C][cell % C] == ".":
                        run.append(cell)
                    elif run:
                        for member in run:
                            owner[member] = len(self.segments)
                        self.segments.append(run)
                        run = []
        self.sees = {
            cell: [cell]
            + [
                o
                for o in self.segments[self.across[cell]] + self.segments[self.down[cell]]
                if o != cell
            ]
            for cell in self.white
        }
        self.numbers: list[tuple[int, list[int]]] = []
        for r in range(R):
            for c in range(C):
                if rows[r][c] in "01234":
                    beside = [
                        (r + dr) * C + c + dc
                        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                        if 0 <= r + dr < R and 0 <= c + dc < C and rows[r + dr][c + dc] == "."
                    ]
                    self.numbers.append((int(rows[r][c]), beside))


class Search:
    """Depth-first search over bulbs.

    Depth-first search over bulbs: a segment holds at most one bulb, every white cell needs
    a bulb in its row or column segment, numbers count bulbs beside them; branching on the
    unlit cell with the fewest places a bulb could light it from.

    Attributes:
        solutions: Sorted bulb cells of each solution, at most ``limit``.
        work: Search nodes plus cells decided by propagation.
    """

    def __init__(self, board: Board, limit: int = 2, max_nodes: int = MAX_NODES):
        self.board = board
        self.limit = limit
        self.max_nodes = max_nodes
        self.nodes = 0
        self.work = 0
        self.exhausted = False
        self.solutions: list[list[int]] = []

    def _place(self, state: list[int], lit: list[bool], cell: int) -> bool:
        """Puts a bulb on ``cell``: its segments are lit and can hold no other bulb."""
        board = self.board
        state[cell] = BULB
        for seg in (board.across[cell], board.down[cell]):
            if lit[seg]:
                return False
            lit[seg] = True
            for other in board.segments[seg]:
                if state[other] == UNKNOWN:
                    state[other] = DARK
        return True

    def _options(self, state: list[int], lit: list[bool], cell: int) -> list[int] | None:
        """Where a bulb could light ``cell`` from; None if it is lit already."""
        board = self.board
        a, d = board.across[cell], board.down[cell]
        if lit[a] or lit[d]:
            return None
        return [o for o in board.sees[cell] if state[o] == UNKNOWN]

    def propagate(self, state: list[int], lit: list[bool]) -> bool:
        """Applies the rules until nothing changes; False on a contradiction."""
        board = self.board
        changed = True
        while changed:
            changed = False
            for need, beside in board.numbers:
                bulbs = open_ = 0
                for b in beside:
                    if state[b] == BULB:
                        bulbs += 1
                    elif state[b] == UNKNOWN:
                        open_ += 1
                if bulbs > need or bulbs + open_ < need:
                    return False
                if open_ and (bulbs == need or bulbs + open_ == need):
                    for b in beside:
                        if state[b] == UNKNOWN:
                            if bulbs == need:
                                state[b] = DARK
                            elif not self._place(state, lit, b):
                                return False
                    changed = True
                    self.work += open_
            for cell in board.white:
                options = self._options(state, lit, cell)
                if options is None:
                    continue
                if not options:
                    return False
                if len(options) == 1:
                    if not self._place(state, lit, options[0]):
                        return False
                    changed = True
                    self.work += 1
        return True

    def run(self, state: list[int], lit: list[bool]) -> list[list[int]]:
        """Searches from ``state`` and ``lit`` (modified), up to ``limit`` solutions."""
        self.nodes += 1
        self.work += 1
        if self.nodes > self.max_nodes:
            self.exhausted = True
            return self.solutions
        if not self.propagate(state, lit):
            return self.solutions
        best: list[int] | None = None
        for cell in self.board.white:
            options = self._options(state, lit, cell)
            if options is not None and (best is None or len(options) < len(best)):
                best = options
        if best is None:
            # Every cell is lit, so an undecided cell would see a bulb: it stays dark; the
            # numbers still need checking.
            if all(
                sum(state[b] == BULB for b in beside) == need for need, beside in self.board.numbers
            ):
                self.solutions.append([c for c in self.board.white if state[c] == BULB])
            return self.solutions
        for i, cell in enumerate(best):
            if len(self.solutions) >= self.limit or self.exhausted:
                break
            child, child_lit = state[:], lit[:]
            for earlier in best[:i]:
                child[earlier] = DARK
            if self._place(child, child_lit, cell):
                self.run(child, child_lit)
        return self.solutions


def solve_board(
    rows: list[str], given: Sequence[int] = (), limit: int = 2, max_nodes: int = MAX_NODES
) -> Search:
    """Searches a board (``.`` white, ``#`` black, digits numbered black) around given bulbs."""
    board = Board(rows)
    search = Search(board, limit=limit, max_nodes=max_nodes)
    state, lit = [UNKNOWN] * (board.R * board.C), [False] * len(board.segments)
    if all(search._place(state, lit, cell) for cell in given):
        search.run(state, lit)
    return search


def _other(
    rows: list[str], given: Sequence[int], bulbs: list[int]
) -> tuple[bool, list[int] | None]:
    """(unique, another solution or None); over budget counts as not unique."""
    search = solve_board(rows, given)
    others = [s for s in search.solutions if s != bulbs]
    return (not others and not search.exhausted), (others[0] if others else None)


def numbered_board(rows: list[str], bulbs: Sequence[int]) -> list[str]:
    """The board with every black cell numbered by the bulbs beside it."""
    R, C = len(rows), len(rows[0])
    lit = set(bulbs)
    out = []
    for r in range(R):
        line = ""
        for c in range(C):
            if rows[r][c] == ".":
                line += "."
            else:
                beside = [
                    (r + dr) * C + c + dc
                    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < R and 0 <= c + dc < C
                ]
                line += str(sum(b in lit for b in beside))
        out.append(line)
    return out


def lights_all(rows: list[str], bulbs: Sequence[int]) -> bool:
    """Whether the bulbs light every white cell without lighting each other."""
    board = Board(rows)
    placed = set(bulbs)
    return (
        all(cell in board.sees for cell in placed)
        and not any(s in placed for cell in placed for s in board.sees[cell][1:])
        and all(any(s in placed for s in board.sees[cell]) for cell in board.white)
    )


def with_bulbs(rows: list[str], bulbs: Sequence[int]) -> list[str]:
    """The board with ``L`` on the bulb cells."""
    C = len(rows[0])
    grid = [list(row) for row in rows]
    for cell in bulbs:
        grid[cell // C][cell % C] = "L"
    return ["".join(row) for row in grid]


class LightUpTask(Task[LightUpConfig]):
    """Place bulbs to light a grid."""

    name = "light_up"
    Config = LightUpConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> LightUpConfig:
        """Larger grids, then fewer numbers."""
        size, removal = LEVELS[level]
        return LightUpConfig(size=size, black=0.2, removal=removal)

    def _board(self, rng: np.random.Generator) -> tuple[list[str], list[int], list[int]]:
        """(board numbered in full, bulbs, given bulbs) whose bulbs are the only solution.

        A random board gets bulbs greedily (each on a cell still dark) and every black cell
        its count. If a few boards in a row have other solutions, the last one is repaired:
        a white cell holding a bulb in another solution becomes a numbered black cell where
        our bulbs still light the board, else one of our bulbs is given.
        """
        n = self.config.size
        for _ in range(ATTEMPTS):
            black = rng.random((n, n)) < self.config.black
            rows = ["".join("#" if b else "." for b in row) for row in black.tolist()]
            board = Board(rows)
            lit: set[int] = set()
            bulbs = []
            for cell in (board.white[int(k)] for k in rng.permutation(len(board.white))):
                if cell not in lit:
                    bulbs.append(cell)
                    lit.update(board.sees[cell])
            bulbs.sort()
            rows = numbered_board(rows, bulbs)
            unique, other = _other(rows, (), bulbs)
            if unique:
                return rows, bulbs, []
        given: list[int] = []
        while not unique:
            walls = [] if other is None else [c for c in other if c not in bulbs]
            for k in rng.permutation(len(walls)):
                cell = walls[int(k)]
                r, c = divmod(cell, n)
                trial = [list(row) for row in rows]
                trial[r][c] = "#"
                trial = numbered_board(["".join(row) for row in trial], bulbs)
                if lights_all(trial, bulbs):
                    rows = trial
                    break
            else:
                mine = [b for b in bulbs if b not in given and (other is None or b not in other)]
                given.append(mine[int(rng.integers(len(mine)))])
            unique, other = _other(rows, given, bulbs)
        return rows, bulbs, sorted(given)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A random board and greedy bulbs; numbers removed while the solution stays unique."""
        n = self.config.size
        rows, bulbs, given = self._board(rng)
        numbered = [(r, c) for r in range(n) for c in range(n) if rows[r][c] in "01234"]
        for k in rng.permutation(len(numbered)):
            if rng.random() >= self.config.removal:
                continue
            r, c = numbered[int(k)]
            trial = rows[:r] + [rows[r][:c] + "#" + rows[r][c + 1 :]] + rows[r + 1 :]
            if _other(trial, given, bulbs)[0]:
                rows = trial
        drawn = "\n".join(" ".join(row) for row in with_bulbs(rows, given))
        placed = " Bulbs already placed (L) must stay." if given else ""
        prompt = (
            f"Solve this {n}x{n} Light Up puzzle. Cells are white (.) or black (# or a number). "
            "Place light bulbs "
            "on white cells so that: every white cell is lit (a bulb lights its own cell and "
            "every white cell in "
            "its row and column up to the nearest black cell or the edge); no bulb is lit by "
            "another bulb; and "
            "each numbered black cell has exactly that many bulbs on the white cells directly "
            "above, below, left "
            f"and right of it.{placed}\n\n{drawn}\n\n"
            f"Answer with the grid: {n} lines, one per row, each with {n} characters: L for a "
            "bulb, . for a white "
            "cell without a bulb, and the black cells as shown (for example, a row of 5 could be "
            "written as "
            f"L.#.L). {ANSWER_FORMAT}"
        )
        return Problem(prompt, with_bulbs(rows, bulbs), {"board": rows, "given": given})

    def solve(self, problem: Problem) -> str:
        """The bulbs the board was made from."""
        return "\n".join(problem.reference)

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Black cells kept, every white cell lit, no bulb lit by another, every number met."""
        rows = problem.data["board"]
        n_rows, n_cols = len(rows), len(rows[0])
        grid, why = parse_symbol_grid(answer, n_rows, n_cols, SYMBOLS)
        if grid is None:
            return self.malformed(answer, problem, why)
        for r in range(n_rows):
            for c in range(n_cols):
                want, got = rows[r][c], grid[r][c]
                if want == "." and got not in ".L":
                    return self.wrong(
                        grid, problem, f"row {r + 1}, column {c + 1} is white but written {got!r}"
                    )
                if want != "." and got not in (want, "#"):
                    return self.wrong(
                        grid,
                        problem,
                        f"row {r + 1}, column {c + 1} is the black cell {want!r}, written {got!r}",
                    )
        board = Board(rows)
        bulbs = {r * n_cols + c for r in range(n_rows) for c in range(n_cols) if grid[r][c] == "L"}
        for cell in problem.data["given"]:
            if cell not in bulbs:
                return self.wrong(
                    grid,
                    problem,
                    f"the bulb given at row {cell // n_cols + 1}, column {cell % n_cols + 1} is "
                    "missing",
                )
        for cell in sorted(bulbs):
            if any(s in bulbs for s in board.sees[cell][1:]):
                return self.wrong(
                    grid,
                    problem,
                    f"the bulb at row {cell // n_cols + 1}, column {cell % n_cols + 1} is lit by "
                    "another",
                )
        for cell in board.white:
            if not any(s in bulbs for s in board.sees[cell]):
                return self.wrong(
                    grid,
                    problem,
                    f"row {cell // n_cols + 1}, column {cell % n_cols + 1} is not lit",
                )
        for need, beside in board.numbers:
            if sum(b in bulbs for b in beside) != need:
                return self.wrong(
                    grid,
                    problem,
                    f"a black cell numbered {need} has {sum(b in bulbs for b in beside)} bulbs "
                    "beside it",
                )
        return self.correct(grid, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Counts bulb placements with z3 over the rules as stated in the prompt."""
        rows = problem.data["board"]
        R, C = len(rows), len(rows[0])

        def build(z3):
            x = {
                (r, c): z3.Bool(f"b{r}_{c}")
                for r in range(R)
                for c in range(C)
                if rows[r][c] == "."
            }
            s = z3.Solver()

            def ray(r: int, c: int, dr: int, dc: int) -> list:
                out = []
                r, c = r + dr, c + dc
                while (r, c) in x:
                    out.append(x[r, c])
                    r, c = r + dr, c + dc
                return out

            for (r, c), v in x.items():
                seen = [w for d in ((-1, 0), (1, 0), (0, -1), (0, 1)) for w in ray(r, c, *d)]
                s.add(z3.Or([v, *seen]))
                s.add(z3.Implies(v, z3.Not(z3.Or(seen or [False]))))
            for r in range(R):
                for c in range(C):
                    if rows[r][c] in "01234":
                        beside = [
                            x[p] for p in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if p in x
                        ]
                        s.add(
                            z3.PbEq([(v, 1) for v in beside], int(rows[r][c]))
                            if beside
                            else z3.BoolVal(rows[r][c] == "0")
                        )
            s.add([x[divmod(cell, C)] for cell in problem.data["given"]])
            return s, list(x.values())

        return Certificate(z3_count(build))

    def mutations(self, problem: Problem) -> list[str]:
        """A bulb added on a lit cell (first in the top row); a bulb removed; a given removed."""
        grid = problem.reference
        C = len(grid[0])
        flat = "".join(grid)
        whites = sorted((i for i, ch in enumerate(flat) if ch == "."), key=lambda i: (i >= C, i))
        bulbs = [i for i, ch in enumerate(flat) if ch == "L"]
        out = []
        if whites:
            out.append(flat[: whites[0]] + "L" + flat[whites[0] + 1 :])
        for cell in bulbs[:1] + problem.data["given"][:1]:
            out.append(flat[:cell] + "." + flat[cell + 1 :])
        return ["\n".join(m[i : i + C] for i in range(0, len(m), C)) for m in out]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: * for bulbs, every black cell as #, spaces between cells."""
        grid = problem.reference
        hashed = ["".join("#" if ch in "01234" else ch for ch in row) for row in grid]
        return [
            "\n".join(row.replace("L", "*") for row in grid),
            "\n".join(hashed),
            "\n".join(" ".join(row) for row in grid),
        ]

    def work(self, problem: Problem) -> float:
        """The solver's search nodes plus cells decided by propagation."""
        return float(
            solve_board(problem.data["board"], problem.data["given"], limit=1, max_nodes=10**7).work
        )


class LightUpEnv(TaskEnv):
    """Place bulbs; see the module docstring."""

    task_class = LightUpTask
