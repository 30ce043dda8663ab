"""Spiral order of a matrix."""

LEVEL = 2
STYLE = "function"
ENTRY = "spiral"

STATEMENT = """
Write `spiral(matrix)` that returns the elements of a rectangular matrix (a list of equal
length rows, possibly empty) in clockwise spiral order starting at the top-left corner.
"""

REFERENCE = r"""
def spiral(matrix):
    out = []
    rows = [list(r) for r in matrix]
    while rows and rows[0]:
        out.extend(rows.pop(0))
        rows = [list(r) for r in zip(*rows)][::-1]
    return out
"""

WRONG = [
    r"""
def spiral(matrix):
    out = []
    if not matrix:
        return out
    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        out.extend(matrix[top][left:right + 1])
        out.extend(matrix[r][right] for r in range(top + 1, bottom + 1))
        out.extend(matrix[bottom][c] for c in range(right - 1, left - 1, -1))
        out.extend(matrix[r][left] for r in range(bottom - 1, top, -1))
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return out
""",
]

PUBLIC = [
    ("spiral([[1, 2, 3], [4, 5, 6], [7, 8, 9]])", [1, 2, 3, 6, 9, 8, 7, 4, 5]),
    (
        "spiral([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])",
        [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7],
    ),
]

HIDDEN = [
    ("spiral([])", []),
    ("spiral([[1]])", [1]),
    ("spiral([[1], [2], [3]])", [1, 2, 3]),
    ("spiral([[1, 2, 3]])", [1, 2, 3]),
    ("spiral([[1, 2], [3, 4], [5, 6]])", [1, 2, 4, 6, 5, 3]),
]

PERFORMANCE = [
    ("sum(spiral([[r * 200 + c for c in range(200)] for r in range(200)])[::7])", 114288800),
]

EQUIVALENT_MUTANTS = {
    "constant:4:24:-1": "rows stay of equal length, so rows[-1] is empty exactly when rows[0] is",
}
