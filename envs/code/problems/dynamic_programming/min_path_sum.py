"""Minimum path sum."""

LEVEL = 1
STYLE = "function"
ENTRY = "min_path_sum"

STATEMENT = """
Write `min_path_sum(grid)` that returns the smallest sum of the numbers on a path from the
top-left to the bottom-right cell of a non-empty grid of non-negative integers, moving
only right or down.
"""

REFERENCE = r"""
def min_path_sum(grid):
    cols = len(grid[0])
    best = [float("inf")] * cols
    best[0] = 0
    for row in grid:
        best[0] += row[0]
        for c in range(1, cols):
            best[c] = min(best[c], best[c - 1]) + row[c]
    return best[-1]
"""

WRONG = [
    r"""
def min_path_sum(grid):
    r = c = 0
    total = grid[0][0]
    while r < len(grid) - 1 or c < len(grid[0]) - 1:
        if r == len(grid) - 1:
            c += 1
        elif c == len(grid[0]) - 1:
            r += 1
        elif grid[r + 1][c] < grid[r][c + 1]:
            r += 1
        else:
            c += 1
        total += grid[r][c]
    return total
""",
]

PUBLIC = [
    ("min_path_sum([[1, 3, 1], [1, 5, 1], [4, 2, 1]])", 7),
    ("min_path_sum([[1, 2, 3], [4, 5, 6]])", 12),
]

HIDDEN = [
    ("min_path_sum([[7]])", 7),
    ("min_path_sum([[1, 2, 5], [3, 2, 1]])", 6),
    ("min_path_sum([[1, 9, 1, 1], [1, 9, 1, 9], [1, 1, 1, 9]])", 14),
    ("min_path_sum([[0, 0], [0, 0]])", 0),
]

PERFORMANCE = [
    (
        "min_path_sum([[(r * 7919 + c * 104729) % 100 for c in range(500)] for r in range(500)])",
        37239,
    ),
]

EQUIVALENT_MUTANTS = {
    "constant:2:20:-1": "the grid is rectangular: the last row is as long as the first",
}
