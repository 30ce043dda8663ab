"""Search a sorted matrix."""

LEVEL = 1
STYLE = "function"
ENTRY = "search_matrix"

STATEMENT = """
Every row of `matrix` is sorted in increasing order and each row's first value is greater
than the previous row's last value. Write `search_matrix(matrix, target)` that returns
True when `target` is in the matrix. The matrix may be empty or have empty rows.
"""

REFERENCE = r"""
def search_matrix(matrix, target):
    if not matrix or not matrix[0]:
        return False
    rows, cols = len(matrix), len(matrix[0])
    lo, hi = 0, rows * cols - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        value = matrix[mid // cols][mid % cols]
        if value == target:
            return True
        if value < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return False
"""

WRONG = [
    r"""
def search_matrix(matrix, target):
    if not matrix or not matrix[0]:
        return False
    for row in matrix:
        if row[0] <= target <= row[-1]:
            return target in row[1:]
    return False
""",
]

PUBLIC = [
    ("search_matrix([[1, 3, 5, 7], [10, 11, 16, 20], [23, 30, 34, 60]], 3)", True),
    ("search_matrix([[1, 3, 5, 7], [10, 11, 16, 20], [23, 30, 34, 60]], 13)", False),
]

HIDDEN = [
    ("search_matrix([], 1)", False),
    ("search_matrix([[]], 1)", False),
    ("search_matrix([[5]], 5)", True),
    ("search_matrix([[1, 2], [3, 4]], 3)", True),
    ("search_matrix([[1], [3]], 2)", False),
]

PERFORMANCE = [
    (
        "(lambda m: sum(search_matrix(m, t) for t in range(0, 200000, 5)))([list(range(r "
        "* 1000, r * 1000 + 1000, 2)) for r in range(300)])",
        20000,
    ),
]

HIDDEN_V1 = [
    ("search_matrix([[1, 2], [3, 4]], 1)", True),
    ("search_matrix([[1, 2], [3, 4]], 5)", False),
]

EQUIVALENT_MUTANTS = {
    "constant:2:32:-1": "rows have equal length: the last is empty exactly when the first is",
    "constant:4:41:-1": "rows have equal length",
    "compare:11:19:<=": "value == target returned just before",
}
