"""Topple a sandpile."""

LEVEL = 3
STYLE = "function"
ENTRY = "topple"

STATEMENT = """
Write `topple(grid)` for a square grid of non-negative integers (grains of sand). While
some cell holds 4 or more grains, it topples: it loses 4 grains and each of its 4
edge-neighbours gains one (grains pushed off the edge are lost). Return the stable grid
(the result does not depend on the order of topplings).
"""

REFERENCE = r"""
def topple(grid):
    grid = [list(row) for row in grid]
    n = len(grid)
    unstable = [(r, c) for r in range(n) for c in range(n) if grid[r][c] >= 4]
    while unstable:
        r, c = unstable.pop()
        if grid[r][c] < 4:
            continue
        times = grid[r][c] // 4
        grid[r][c] -= 4 * times
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < n and 0 <= nc < n:
                grid[nr][nc] += times
                if grid[nr][nc] >= 4:
                    unstable.append((nr, nc))
    return grid
"""

WRONG = [
    r"""
def topple(grid):
    grid = [list(row) for row in grid]
    n = len(grid)
    for r in range(n):
        for c in range(n):
            if grid[r][c] >= 4:
                times = grid[r][c] // 4
                grid[r][c] -= 4 * times
                for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nr < n and 0 <= nc < n:
                        grid[nr][nc] += times
    return grid
""",
]

PUBLIC = [
    ("topple([[4]])", [[0]]),
    ("topple([[0, 0, 0], [0, 4, 0], [0, 0, 0]])", [[0, 1, 0], [1, 0, 1], [0, 1, 0]]),
]

HIDDEN = [
    ("topple([[3]])", [[3]]),
    ("topple([[0, 0], [0, 0]])", [[0, 0], [0, 0]]),
    ("topple([[4, 4], [4, 4]])", [[2, 2], [2, 2]]),
    ("topple([[0, 0, 0], [0, 16, 0], [0, 0, 0]])", [[2, 1, 2], [1, 0, 1], [2, 1, 2]]),
    ("topple([[3, 3, 3], [3, 4, 3], [3, 3, 3]])", [[1, 3, 1], [3, 0, 3], [1, 3, 1]]),
]

PERFORMANCE = [
    (
        "sum(map(sum, topple([[0] * 41 for _ in range(20)] + [[0] * 20 + [2000] + [0] * "
        "20] + [[0] * 41 for _ in range(20)])))",
        2000,
    ),
]

HIDDEN_V1 = [
    ("topple([[7, 1, 9], [3, 4, 8], [7, 8, 1]])", [[3, 1, 2], [3, 2, 3], [0, 3, 3]]),
]

EQUIVALENT_MUTANTS = {
    "delete:2:4:pass": "the returned grid is the same; only the caller's argument changes too",
    "constant:4:76:3": "a cell with 3 grains is popped and skipped",
    "delete:7:8:pass": "a cell below 4 topples 0 times, which changes nothing",
    "constant:7:24:3": "a cell below 4 topples 0 times, which changes nothing",
    "delete:8:12:pass": "a cell below 4 topples 0 times, which changes nothing",
    "constant:14:35:3": "a cell with 3 grains is popped and skipped",
}
