"""Let the stones fall."""

LEVEL = 2
STYLE = "function"
ENTRY = "settle"

STATEMENT = """
Write `settle(grid)` for a grid given as a list of equal-length strings: `#` is a stone,
`*` a fixed obstacle and `.` empty. Stones fall straight down until they rest on the
bottom, an obstacle or another stone; obstacles never move. Return the settled grid in the
same format.
"""

REFERENCE = r"""
def settle(grid):
    rows, cols = len(grid), len(grid[0]) if grid else 0
    out = [list(row) for row in grid]
    for c in range(cols):
        floor = rows - 1
        for r in range(rows - 1, -1, -1):
            if out[r][c] == "*":
                floor = r - 1
            elif out[r][c] == "#":
                out[r][c] = "."
                out[floor][c] = "#"
                floor -= 1
    return ["".join(row) for row in out]
"""

WRONG = [
    r"""
def settle(grid):
    rows, cols = len(grid), len(grid[0]) if grid else 0
    out = [list(row) for row in grid]
    for c in range(cols):
        stones = sum(out[r][c] == "#" for r in range(rows))
        free = [r for r in range(rows) if out[r][c] != "*"]
        for r in free:
            out[r][c] = "."
        for r in free[len(free) - stones:]:
            out[r][c] = "#"
    return ["".join(row) for row in out]
""",
]

PUBLIC = [
    ("settle(['#.', '..', '.#'])", ["..", "..", "##"]),
    ("settle(['#', '*', '.'])", ["#", "*", "."]),
]

HIDDEN = [
    ("settle(['.'])", ["."]),
    ("settle(['#', '.', '*', '.'])", [".", "#", "*", "."]),
    ("settle(['##', '..', '*.', '..'])", ["..", "#.", "*.", ".#"]),
    ("settle(['#.#', '.*.', '...'])", ["...", ".*.", "#.#"]),
]

PERFORMANCE = [
    (
        "sum(row.count('#') for row in settle([''.join('#' if (r + c) % 3 == 0 else '*' "
        "if (r * c) % 17 == 1 else '.' for c in range(300)) for r in range(300)]))",
        30000,
    ),
]

HIDDEN_V1 = [
    ("settle(['.#', '..', '.#'])", ["..", ".#", ".#"]),
]

EQUIVALENT_MUTANTS = {
    "constant:2:37:-1": "the grid is rectangular: the last row is as long as the first",
    "constant:2:54:1": "with no rows, cols is never used",
    "constant:2:54:-1": "with no rows, cols is never used",
}
