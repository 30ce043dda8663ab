"""Shared pieces of the grid-puzzle families.

Shared pieces of the grid-puzzle families: strict grid parsers, formatting, random Latin
squares, an exact-cover counter and a z3 model counter for the independent certificates.

The parsers are strict about content and lenient only about spelling that cannot change a
grid's meaning: a surrounding code fence, separators between cells (spaces, commas, ``|``),
separator-only lines (``------+------``) and letter case. Anything else in the answer slot
(a second grid, words, ``or``) makes the answer malformed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

MAX_GRID_CHARS = 1_000
"""Answers longer than this are refused before parsing (the shared extraction caps at 1,000)."""

_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?|\n?\s*```\s*$")
_RULE = re.compile(r"^[\s\-+|=_:]+$")
_CELL_SPLIT = re.compile(r"[\s,|]+")

Grid = list[list[int]]


def grid_lines(text: str) -> list[str] | None:
    """The non-empty content lines of a grid answer (fence and rule lines removed), or None."""
    if len(text) > MAX_GRID_CHARS:
        return None
    text = _FENCE.sub("", text.strip())
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if not line or (_RULE.match(line) and re.search(r"[-=_]", line)):
            continue
        lines.append(line)
    return lines


def parse_number_grid(
    text: str, rows: int, cols: int, low: int, high: int
) -> tuple[Grid | None, str]:
    """Reads ``rows`` lines of ``cols`` integers in ``[low, high]``.

    Cells are separated by spaces, commas or bars; where every value has one digit, a row may
    also be written without separators (``1234``).

    Returns:
        The grid and ``""``, or None and the reason the text is not such a grid.
    """
    lines = grid_lines(text)
    if lines is None:
        return None, f"the answer is longer than {MAX_GRID_CHARS} characters"
    if len(lines) != rows:
        return None, f"expected {rows} rows, one per line, got {len(lines)} lines"
    grid = []
    for i, line in enumerate(lines):
        tokens = [t for t in _CELL_SPLIT.split(line) if t]
        if len(tokens) == 1 and cols > 1 and high <= 9 and len(tokens[0]) == cols:
            tokens = list(tokens[0])
        if len(tokens) != cols:
            return None, f"row {i + 1} has {len(tokens)} cells, expected {cols}"
        row = []
        for token in tokens:
            if not token.isascii() or not token.isdigit() or len(token) > 4:
                return None, f"row {i + 1}: {token[:12]!r} is not a whole number"
            value = int(token)
            if not low <= value <= high:
                return None, f"row {i + 1}: {value} is outside {low}..{high}"
            row.append(value)
        grid.append(row)
    return grid, ""


def parse_symbol_grid(
    text: str, rows: int, cols: int, symbols: Mapping[str, str]
) -> tuple[list[str] | None, str]:
    """Reads ``rows`` lines of ``cols`` one-character cells drawn from ``symbols``.

    Args:
        text: The answer slot.
        rows: The grid's number of rows.
        cols: The grid's number of columns.
        symbols: Accepted characters (lower case) mapped to their canonical spelling.

    Returns:
        The rows as canonical strings and ``""``, or None and the reason.
    """
    lines = grid_lines(text)
    if lines is None:
        return None, f"the answer is longer than {MAX_GRID_CHARS} characters"
    if len(lines) != rows:
        return None, f"expected {rows} rows, one per line, got {len(lines)} lines"
    out = []
    for i, line in enumerate(lines):
        cells = _CELL_SPLIT.sub("", line).lower()
        if len(cells) != cols:
            return None, f"row {i + 1} has {len(cells)} cells, expected {cols}"
        bad = next((c for c in cells if c not in symbols), None)
        if bad is not None:
            return (
                None,
                f"row {i + 1}: {bad!r} is not one of {' '.join(sorted(set(symbols.values())))}",
            )
        out.append("".join(symbols[c] for c in cells))
    return out, ""


def format_number_grid(grid: Sequence[Sequence[int]], empty: str = ".") -> str:
    """Rows on lines, cells separated by spaces, 0 written as ``empty``; right-aligned columns."""
    width = max(len(str(v)) for row in grid for v in row)
    return "\n".join(" ".join((str(v) if v else empty).rjust(width) for v in row) for row in grid)


def answer_grid(grid: Sequence[Sequence[int]]) -> str:
    """A solved number grid as the answer is written: rows on lines, cells separated by spaces."""
    return "\n".join(" ".join(str(v) for v in row) for row in grid)


def changed_given(
    grid: Sequence[Sequence[Any]],
    givens: Sequence[Sequence[Any]],
    *,
    empty: Any = None,
    name: Callable[[int, int], str] | None = None,
) -> str:
    """``""`` when ``grid`` keeps every given, else the first given it changed.

    Args:
        grid: The answer's grid.
        givens: The puzzle's grid, with its givens.
        empty: What marks a cell without a given (None: any falsy value, such as 0).
        name: Names a cell from its row and column (default ``row r, column c``, from 1).
    """
    for r, row in enumerate(givens):
        for c, given in enumerate(row):
            if (not given if empty is None else given == empty) or grid[r][c] == given:
                continue
            where = name(r, c) if name is not None else f"row {r + 1}, column {c + 1}"
            return f"the given {given} at {where} was changed"
    return ""


def is_latin(grid: Sequence[Sequence[int]], n: int) -> str:
    """``""`` when every row and column holds 1..n once, else the first violation."""
    want = set(range(1, n + 1))
    for i, row in enumerate(grid):
        if set(row) != want:
            return f"row {i + 1} does not hold each of 1..{n} once"
    for j in range(n):
        if {grid[i][j] for i in range(n)} != want:
            return f"column {j + 1} does not hold each of 1..{n} once"
    return ""


def random_latin_square(n: int, rng: np.random.Generator) -> Grid:
    """A random n x n Latin square over 1..n, row by row.

    Each row is a random perfect matching of columns to unused symbols (Kuhn's augmenting
    paths in random order); a Latin rectangle always extends (Hall), so there is no
    backtracking.
    """
    used = [set() for _ in range(n)]  # symbols already in each column
    grid: Grid = []
    for _ in range(n):
        match_symbol: dict[int, int] = {}  # symbol -> column
        for col in (int(c) for c in rng.permutation(n)):
            order = [int(s) for s in rng.permutation(n)]

            def augment(
                c: int,
                seen: set[int],
                order: list[int] = order,
                match_symbol: dict[int, int] = match_symbol,
            ) -> bool:
                for s in order:
                    if s in used[c] or s in seen:
                        continue
                    seen.add(s)
                    if s not in match_symbol or augment(match_symbol[s], seen):
                        match_symbol[s] = c
                        return True
                return False

            augment(col, set())
        row = [0] * n
        for s, c in match_symbol.items():
            row[c] = s + 1
            used[c].add(s)
        grid.append(row)
    return grid


def relabel(grid: Sequence[Sequence[int]], rng: np.random.Generator, n: int) -> Grid:
    """The grid with its symbols 1..n permuted at random."""
    perm = [0, *(int(v) + 1 for v in rng.permutation(n))]
    return [[perm[v] for v in row] for row in grid]


def exact_cover_count(
    columns: Iterable[Any],
    rows: Mapping[Any, Sequence[Any]],
    chosen: Iterable[Any] = (),
    cap: int = 2,
    secondary: Iterable[Any] = (),
) -> int:
    """Counts exact covers (Knuth's Algorithm X over dicts of sets), stopping at ``cap``.

    Args:
        columns: The primary columns: each must be covered exactly once.
        rows: Each candidate row and the columns it covers.
        chosen: Rows forced into every cover (the givens).
        cap: Stop counting here.
        secondary: Columns covered at most once.

    Returns:
        The number of covers found, at most ``cap``; 0 if the forced rows clash.
    """
    primary = set(columns)
    cols: dict[Any, set[Any]] = {c: set() for c in primary}
    for c in secondary:
        cols.setdefault(c, set())
    for r, cs in rows.items():
        for c in cs:
            cols[c].add(r)

    def select(r: Any) -> list[list[Any]]:
        removed = []
        for j in rows[r]:
            for i in cols[j]:
                for k in rows[i]:
                    if k != j:
                        cols[k].discard(i)
            removed.append(cols.pop(j))
        return removed

    def deselect(r: Any, removed: list[list[Any]]) -> None:
        for j in reversed(rows[r]):
            cols[j] = removed.pop()
            for i in cols[j]:
                for k in rows[i]:
                    if k != j:
                        cols[k].add(i)

    for r in chosen:
        if any(j not in cols or r not in cols[j] for j in rows[r]):
            return 0
        select(r)

    def search() -> int:
        open_primary = [c for c in cols if c in primary]
        if not open_primary:
            return 1
        c = min(open_primary, key=lambda k: len(cols[k]))
        found = 0
        for r in list(cols[c]):
            removed = select(r)
            found += search()
            deselect(r, removed)
            if found >= cap:
                break
        return found

    return min(search(), cap)


class Table:
    """A table constraint: the value tuples a group of cells may take together.

    Kept as bitsets over the tuples' indices: ``support[i][v]`` holds the tuples with value
    ``v`` at position ``i``, so filtering by the cells' domains is a few big-integer ANDs.
    """

    __slots__ = ("cells", "support", "count")

    def __init__(self, cells: Sequence[int], tuples: Iterable[Sequence[int]], n: int):
        self.cells = tuple(cells)
        self.support = [[0] * (n + 1) for _ in self.cells]
        self.count = 0
        for index, values in enumerate(tuples):
            bit = 1 << index
            for i, v in enumerate(values):
                self.support[i][v] |= bit
            self.count += 1

    def on(self, cells: Sequence[int]) -> Table:
        """The same tuples on other cells (the supports are shared, not copied)."""
        table = Table.__new__(Table)
        table.cells, table.support, table.count = tuple(cells), self.support, self.count
        return table


def peers_of(units: Sequence[Sequence[int]], size: int) -> list[tuple[int, ...]]:
    """Each cell's peers: the other cells of every unit it belongs to."""
    peers: list[set[int]] = [set() for _ in range(size)]
    for unit in units:
        for cell in unit:
            peers[cell].update(unit)
    return [tuple(sorted(p - {cell})) for cell, p in enumerate(peers)]


def units_of(units: Sequence[Sequence[int]], size: int) -> list[tuple[int, ...]]:
    """The indices of the units each cell belongs to."""
    out: list[list[int]] = [[] for _ in range(size)]
    for k, unit in enumerate(units):
        for cell in unit:
            out[cell].append(k)
    return [tuple(u) for u in out]


class SearchLimit(Exception):
    """The search spent its node budget before it could decide."""


class DomainSearch:
    """Depth-first search over cell domains for Latin-like puzzles.

    A domain is a bitmask (bit ``v - 1`` for value ``v``). Every unit holds each of 1..n
    exactly once (rows, columns, boxes); tables constrain groups of cells and ``less`` pairs
    ``(a, b)`` say cell a < cell b. Propagation applies naked singles, hidden singles, bounds
    on the pairs and generalised arc consistency on the tables; the search branches on a cell
    with the fewest values left.

    Attributes:
        solutions: The solutions found (row-major values), at most ``limit``.
        work: Search nodes plus values fixed by propagation.
    """

    def __init__(
        self,
        n: int,
        units: Sequence[Sequence[int]],
        tables: Sequence[Table] = (),
        limit: int = 2,
        max_nodes: int = 1_000_000,
        peers: Sequence[Sequence[int]] | None = None,
        size: int | None = None,
        less: Sequence[tuple[int, int]] = (),
        unit_of: Sequence[Sequence[int]] | None = None,
    ):
        self.n = n
        self.full = (1 << n) - 1
        self.units = units
        self.size = size if size is not None else n * n
        self.peers = peers if peers is not None else peers_of(units, self.size)
        self.unit_of = unit_of if unit_of is not None else units_of(units, self.size)
        self.tables = tables
        self.less = less
        self.limit = limit
        self.max_nodes = max_nodes
        self.nodes = 0
        self.work = 0
        self.solutions: list[list[int]] = []

    def _tables(
        self,
        masks: list[int],
        state: list[int],
        seen: list[tuple[int, ...] | None],
        dirty: set[int],
    ) -> bool:
        """GAC over the tables; False on a contradiction. Units of shrunk cells become dirty.

        ``seen[t]`` holds table t's cell domains when it was last filtered: unchanged domains
        cannot rule out more tuples, so the table is skipped.
        """
        unit_of = self.unit_of
        for t, table in enumerate(self.tables):
            now = tuple(masks[cell] for cell in table.cells)
            if now == seen[t]:
                continue
            cand = state[t]
            for i, cell in enumerate(table.cells):
                m = masks[cell]
                allowed = 0
                support = table.support[i]
                while m:
                    bit = m & -m
                    allowed |= support[bit.bit_length()]
                    m ^= bit
                cand &= allowed
            if cand == 0:
                return False
            if cand != state[t]:
                state[t] = cand
                for i, cell in enumerate(table.cells):
                    m = masks[cell]
                    keep = 0
                    support = table.support[i]
                    while m:
                        bit = m & -m
                        if support[bit.bit_length()] & cand:
                            keep |= bit
                        m ^= bit
                    if keep != masks[cell]:
                        masks[cell] = keep
                        dirty.update(unit_of[cell])
            seen[t] = tuple(masks[cell] for cell in table.cells)
        return True

    def _bounds(self, masks: list[int], dirty: set[int]) -> bool:
        """Bounds consistency on the ``less`` pairs, to a fixpoint; False on a contradiction."""
        unit_of = self.unit_of
        changed = True
        while changed:
            changed = False
            for a, b in self.less:
                ma, mb = masks[a], masks[b]
                na = ma & ((1 << (mb.bit_length() - 1)) - 1)
                if not na:
                    return False
                nb = mb & ~((1 << (na & -na).bit_length()) - 1)
                if not nb:
                    return False
                if na != ma:
                    masks[a] = na
                    dirty.update(unit_of[a])
                    changed = True
                if nb != mb:
                    masks[b] = nb
                    dirty.update(unit_of[b])
                    changed = True
        return True

    def propagate(
        self,
        masks: list[int],
        state: list[int],
        seen: list[tuple[int, ...] | None],
        stack: list[int],
        dirty: set[int],
    ) -> bool:
        """Applies singles, bounds and tables until nothing changes; False on a contradiction.

        Args:
            masks: The domains (modified).
            state: The tables' candidate sets (modified).
            seen: The tables' cell domains when last filtered (modified).
            stack: Fixed cells whose value is still to be removed from their peers.
            dirty: Units that changed since their last hidden-single scan.
        """
        peers, units, full, unit_of = self.peers, self.units, self.full, self.unit_of
        done = [m & (m - 1) == 0 for m in masks]
        while True:
            while stack:
                cell = stack.pop()
                bit = masks[cell]
                if bit == 0:
                    return False
                for p in peers[cell]:
                    m = masks[p]
                    if m & bit:
                        m &= ~bit
                        masks[p] = m
                        if m == 0:
                            return False
                        dirty.update(unit_of[p])
                        if m & (m - 1) == 0:
                            done[p] = True
                            stack.append(p)
                            self.work += 1
            while dirty:
                unit = units[dirty.pop()]
                once = twice = 0
                for cell in unit:
                    m = masks[cell]
                    twice |= once & m
                    once |= m
                if once != full:
                    return False
                hidden = once & ~twice
                if hidden:
                    for cell in unit:
                        m = masks[cell] & hidden
                        if m and not done[cell]:
                            if m & (m - 1):
                                return False
                            masks[cell] = m
                            done[cell] = True
                            stack.append(cell)
                            self.work += 1
                if stack:
                    break
            if stack:
                continue
            if self.less and not self._bounds(masks, dirty):
                return False
            if self.tables and not self._tables(masks, state, seen, dirty):
                return False
            for cell, m in enumerate(masks):
                if not done[cell] and m & (m - 1) == 0:
                    if m == 0:
                        return False
                    done[cell] = True
                    stack.append(cell)
                    self.work += 1
            if not stack and not dirty:
                return True

    def run(
        self,
        masks: list[int],
        state: list[int] | None = None,
        cell: int | None = None,
        seen: list[tuple[int, ...] | None] | None = None,
    ) -> list[list[int]]:
        """Searches from ``masks`` (modified); returns the solutions found so far.

        Args:
            masks: The domains.
            state: The tables' candidate sets (None at the root).
            cell: The cell just fixed by branching (None at the root: everything is checked).
            seen: The tables' cell domains when last filtered (None at the root).

        Raises:
            SearchLimit: More than ``max_nodes`` nodes were needed.
        """
        if state is None:
            # -1 (all bits set) differs from every real candidate set, so the first pass
            # narrows the domains even where no tuple has been ruled out yet.
            state = [-1] * len(self.tables)
            seen = [None] * len(self.tables)
        self.nodes += 1
        self.work += 1
        if self.nodes > self.max_nodes:
            raise SearchLimit(f"more than {self.max_nodes} search nodes")
        if cell is None:
            stack = [i for i, m in enumerate(masks) if m & (m - 1) == 0]
            dirty = set(range(len(self.units)))
        else:
            stack, dirty = [cell], set(self.unit_of[cell])
        if not self.propagate(masks, state, seen, stack, dirty):
            return self.solutions
        best, best_count = -1, 99
        for i, m in enumerate(masks):
            if m & (m - 1):
                count = m.bit_count()
                if count < best_count:
                    best, best_count = i, count
                    if count == 2:
                        break
        if best < 0:
            self.solutions.append([m.bit_length() for m in masks])
            return self.solutions
        m = masks[best]
        while m and len(self.solutions) < self.limit:
            bit = m & -m
            m ^= bit
            child = masks[:]
            child[best] = bit
            self.run(child, state[:], best, seen[:])
        return self.solutions


def latin_units(n: int) -> list[tuple[int, ...]]:
    """The rows and columns of an n x n grid as row-major cell tuples."""
    return [tuple(r * n + c for c in range(n)) for r in range(n)] + [
        tuple(r * n + c for r in range(n)) for c in range(n)
    ]


@functools.cache
def latin_geometry(n: int) -> dict[str, Any]:
    """The keyword arguments of `DomainSearch` for an n x n Latin square.

    The keyword arguments of `DomainSearch` for an n x n Latin square: its units (rows and
    columns), each cell's peers and each cell's units, computed once per size.
    """
    units = latin_units(n)
    return {"units": units, "peers": peers_of(units, n * n), "unit_of": units_of(units, n * n)}


UNKNOWN, ON, OFF = 0, 1, 2
"""Cell states of `LineSearch` (ON: shaded or 1; OFF: blank or 0)."""


class Patterns:
    """The patterns a line may take, indexed for fast filtering.

    The patterns a line may take (bitmasks, bit i: cell i ON), indexed for fast filtering:
    ``on[i]``/``off[i]`` are bitsets over the patterns' indices with cell i ON/OFF.
    """

    __slots__ = ("patterns", "index", "on", "off", "all")

    def __init__(self, patterns: Sequence[int], length: int):
        self.patterns = tuple(patterns)
        self.index = {p: k for k, p in enumerate(self.patterns)}
        self.on = [0] * length
        self.off = [0] * length
        for k, p in enumerate(self.patterns):
            for i in range(length):
                if p >> i & 1:
                    self.on[i] |= 1 << k
                else:
                    self.off[i] |= 1 << k
        self.all = (1 << len(self.patterns)) - 1


@functools.lru_cache(maxsize=256)
def _line_index(
    lines: tuple[tuple[int, ...], ...], size: int, distinct: tuple[tuple[int, ...], ...]
) -> tuple[list[list[int]], dict[int, tuple[int, ...]]]:
    """The lines through each cell, and each line's distinct group."""
    crossing: list[list[int]] = [[] for _ in range(size)]
    for k, cells in enumerate(lines):
        for cell in cells:
            crossing[cell].append(k)
    return crossing, {k: g for g in distinct for k in g}


class LineSearch:
    """Line-by-line propagation with branching.

    Line-by-line propagation with branching, for puzzles whose rows and columns each take
    one of a known list of patterns (nonograms, binairo).

    Each line keeps the patterns that fit what is known; cells ON in all of them or in none
    are fixed, and the crossing lines are revisited. Lines of a ``distinct`` group may not end
    up with the same pattern. The search branches on the first unknown cell (or a random one,
    with random values, when given ``rng``: that draws a random solution) and counts
    solutions up to ``limit``.

    Attributes:
        solutions: The solutions found, as row-major lists of ON/OFF.
        work: Line revisions plus search nodes.
        exhausted: The node budget ran out before the search could decide.
    """

    def __init__(
        self,
        lines: Sequence[tuple[Sequence[int], Patterns]],
        size: int,
        limit: int = 2,
        max_nodes: int = 5_000,
        distinct: Sequence[Sequence[int]] = (),
        rng: np.random.Generator | None = None,
    ):
        self.lines = lines
        self.crossing, self.group = _line_index(
            tuple(tuple(cells) for cells, _ in lines), size, tuple(tuple(g) for g in distinct)
        )
        self.limit = limit
        self.max_nodes = max_nodes
        self.rng = rng
        self.nodes = 0
        self.work = 0
        self.solutions: list[list[int]] = []
        self.exhausted = False

    def _pattern(self, state: list[int], k: int) -> int | None:
        """The line's pattern if every cell is known, else None."""
        value = 0
        for i, cell in enumerate(self.lines[k][0]):
            if state[cell] == UNKNOWN:
                return None
            if state[cell] == ON:
                value |= 1 << i
        return value

    def propagate(self, state: list[int], dirty: set[int], done: dict[int, int]) -> bool:
        """Narrows lines until nothing changes; False on a contradiction.

        ``done`` maps each line found finished to its pattern (for the distinct groups).
        """
        while dirty:
            k = dirty.pop()
            self.work += 1
            cells, pats = self.lines[k]
            cand = pats.all
            unknown = []
            for i, cell in enumerate(cells):
                v = state[cell]
                if v == ON:
                    cand &= pats.on[i]
                elif v == OFF:
                    cand &= pats.off[i]
                else:
                    unknown.append(i)
            group = self.group.get(k)
            if group:
                for j in group:
                    if j != k and j in done and done[j] in pats.index:
                        cand &= ~(1 << pats.index[done[j]])
            if not cand:
                return False
            for i in unknown:
                if not cand & pats.off[i]:
                    state[cells[i]] = ON
                elif not cand & pats.on[i]:
                    state[cells[i]] = OFF
                else:
                    continue
                dirty.update(self.crossing[cells[i]])
            if group and k not in done and cand & (cand - 1) == 0:
                done[k] = pats.patterns[cand.bit_length() - 1]
                dirty.update(group)
        return True

    def run(
        self, state: list[int], dirty: set[int] | None = None, done: dict[int, int] | None = None
    ) -> list[list[int]]:
        """Searches from ``state`` (modified); stops at ``limit`` solutions or the node budget."""
        self.nodes += 1
        self.work += 1
        if self.nodes > self.max_nodes:
            self.exhausted = True
            return self.solutions
        done = {} if done is None else done
        if not self.propagate(state, set(range(len(self.lines))) if dirty is None else dirty, done):
            return self.solutions
        unknown = [i for i, v in enumerate(state) if v == UNKNOWN]
        if not unknown:
            # A line finished by its crossings may not have been revisited: check the groups.
            for group in set(self.group.values()):
                patterns = [self._pattern(state, k) for k in group]
                if len(set(patterns)) < len(patterns):
                    return self.solutions
            self.solutions.append(state)
            return self.solutions
        cell, values = unknown[0], (ON, OFF)
        if self.rng is not None:
            cell = unknown[int(self.rng.integers(len(unknown)))]
            values = (ON, OFF) if self.rng.random() < 0.5 else (OFF, ON)
        for value in values:
            if len(self.solutions) >= self.limit or self.exhausted:
                break
            child = state[:]
            child[cell] = value
            self.run(child, set(self.crossing[cell]), dict(done))
        return self.solutions


def z3_latin(z3: Any, n: int, givens: Sequence[Sequence[int]] = ()) -> tuple[Any, list[list[Any]]]:
    """A z3 solver over an n x n Latin square in one-hot form.

    A z3 solver over an n x n Latin square in one-hot form: ``x[cell][v - 1]`` is true
    when the cell (row-major) holds v. Givens (0 = empty) are asserted.

    One-hot booleans with pseudo-boolean "exactly one" constraints let z3 reason by SAT,
    which is far faster on these puzzles than integer variables with ``Distinct``.
    """
    x = [[z3.Bool(f"x{i}_{v}") for v in range(1, n + 1)] for i in range(n * n)]
    solver = z3.Solver()
    for i in range(n * n):
        solver.add(z3.PbEq([(b, 1) for b in x[i]], 1))
    for k in range(n):
        for v in range(n):
            solver.add(z3.PbEq([(x[k * n + c][v], 1) for c in range(n)], 1))
            solver.add(z3.PbEq([(x[r * n + k][v], 1) for r in range(n)], 1))
    for r, row in enumerate(givens):
        solver.add([x[r * n + c][v - 1] for c, v in enumerate(row) if v])
    return solver, x


def z3_count(build: Callable[[Any], tuple[Any, Sequence[Any]]], cap: int = 2) -> int:
    """Counts models of a z3 encoding up to ``cap`` by blocking each model found.

    Args:
        build: Called with the ``z3`` module; returns (solver, the variables that make up a
            solution).
        cap: Stop counting here.

    Raises:
        ImportError: z3-solver is missing (it ships with the ``dev`` extra).
    """
    try:
        import z3  # noqa: PLC0415  (optional, and slow to import)
    except ImportError as e:
        raise ImportError(
            'certifying this family needs z3-solver: pip install "palaestra[dev]" (or z3-solver)'
        ) from e
    solver, variables = build(z3)
    count = 0
    while count < cap and solver.check() == z3.sat:
        count += 1
        model = solver.model()
        solver.add(z3.Or([v != model.eval(v, model_completion=True) for v in variables]))
    return count
