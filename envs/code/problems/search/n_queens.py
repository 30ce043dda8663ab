"""Count N-queens solutions."""

LEVEL = 2
STYLE = "function"
ENTRY = "count_queens"

STATEMENT = """
Write `count_queens(n)` that returns the number of ways to place n queens on an n x n
board so that no two share a row, a column or a diagonal (1 <= n <= 10).
"""

REFERENCE = r"""
def count_queens(n):
    def place(row, cols, diag, anti):
        if row == n:
            return 1
        total = 0
        for c in range(n):
            if c not in cols and row - c not in diag and row + c not in anti:
                total += place(row + 1, cols | {c}, diag | {row - c}, anti | {row + c})
        return total
    return place(0, frozenset(), frozenset(), frozenset())
"""

WRONG = [
    r"""
def count_queens(n):
    def place(row, cols, diag):
        if row == n:
            return 1
        total = 0
        for c in range(n):
            if c not in cols and row - c not in diag:
                total += place(row + 1, cols | {c}, diag | {row - c})
        return total
    return place(0, frozenset(), frozenset())
""",
]

PUBLIC = [
    ("count_queens(4)", 2),
    ("count_queens(1)", 1),
]

HIDDEN = [
    ("count_queens(2)", 0),
    ("count_queens(3)", 0),
    ("count_queens(5)", 10),
    ("count_queens(6)", 4),
    ("count_queens(8)", 92),
]

PERFORMANCE = [
    ("count_queens(9)", 352),
]

EQUIVALENT_MUTANTS = {
    "return:4:12:True": "True adds as 1 to the int total",
}
