"""Rotate a square matrix."""

LEVEL = 1
STYLE = "function"
ENTRY = "rotate"

STATEMENT = """
Write `rotate(matrix)` that returns a new n x n matrix: the given square matrix rotated
90 degrees clockwise.
"""

REFERENCE = r"""
def rotate(matrix):
    return [list(row) for row in zip(*matrix[::-1])]
"""

WRONG = [
    r"""
def rotate(matrix):
    return [list(row) for row in zip(*matrix)][::-1]
""",
]

PUBLIC = [
    ("rotate([[1, 2], [3, 4]])", [[3, 1], [4, 2]]),
    ("rotate([[1, 2, 3], [4, 5, 6], [7, 8, 9]])", [[7, 4, 1], [8, 5, 2], [9, 6, 3]]),
]

HIDDEN = [
    ("rotate([])", []),
    ("rotate([[5]])", [[5]]),
    ("rotate([[1, 1], [2, 2]])", [[2, 1], [2, 1]]),
    ("rotate([[0, 1, 0], [0, 0, 0], [0, 0, 2]])", [[0, 0, 0], [0, 0, 1], [2, 0, 0]]),
]

PERFORMANCE = [
    (
        "rotate([[r * 700 + c for c in range(700)] for r in range(700)])[350][::100]",
        [489650, 419650, 349650, 279650, 209650, 139650, 69650],
    ),
]
