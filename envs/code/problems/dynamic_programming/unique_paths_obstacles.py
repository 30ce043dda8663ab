"""Grid paths around obstacles."""

LEVEL = 2
STYLE = "function"
ENTRY = "count_paths"

STATEMENT = """
Write `count_paths(grid)` for a grid of 0 (free) and 1 (obstacle) cells: return the
number of paths from the top-left to the bottom-right cell moving only right or down
through free cells (0 if either corner is blocked).
"""

REFERENCE = r"""
def count_paths(grid):
    cols = len(grid[0])
    ways = [0] * cols
    ways[0] = 1 if grid[0][0] == 0 else 0
    for row in grid:
        for c in range(cols):
            if row[c] == 1:
                ways[c] = 0
            elif c > 0:
                ways[c] += ways[c - 1]
    return ways[-1]
"""

WRONG = [
    r"""
def count_paths(grid):
    rows, cols = len(grid), len(grid[0])
    ways = [[1 if r == 0 or c == 0 else 0 for c in range(cols)] for r in range(rows)]
    for r in range(1, rows):
        for c in range(1, cols):
            ways[r][c] = 0 if grid[r][c] else ways[r - 1][c] + ways[r][c - 1]
    return 0 if grid[0][0] or grid[-1][-1] else ways[-1][-1]
""",
]

PUBLIC = [
    ("count_paths([[0, 0, 0], [0, 1, 0], [0, 0, 0]])", 2),
    ("count_paths([[0, 1], [0, 0]])", 1),
]

HIDDEN = [
    ("count_paths([[1]])", 0),
    ("count_paths([[0]])", 1),
    ("count_paths([[0, 1, 0]])", 0),
    ("count_paths([[0], [1], [0]])", 0),
    ("count_paths([[0, 0], [1, 1], [0, 0]])", 0),
]

PERFORMANCE = [
    (
        "count_paths([[1 if (r * 7 + c * 13) % 29 == 0 else 0 for c in range(500)] for r "
        "in range(500)]) % 1000000007",
        0,
    ),
]

HIDDEN_V1 = [
    ("count_paths([[0, 0], [1, 0]])", 1),
    ("count_paths([[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]])", 3),
    (
        "count_paths([[1 if (r * 7 + c * 13) % 29 == 5 else 0 for c in range(60)] for r in rang"
        "e(60)])",
        194026447532057656770245564427346,
    ),
]

EQUIVALENT_MUTANTS = {
    "constant:2:20:-1": "the grid is rectangular: the last row is as long as the first",
    "constant:4:40:1": "a blocked start is zeroed by the loop before ways[0] is read",
    "constant:4:40:-1": "a blocked start is zeroed by the loop before ways[0] is read",
}
