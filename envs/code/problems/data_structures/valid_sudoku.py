"""Validate a partial Sudoku."""

LEVEL = 2
STYLE = "function"
ENTRY = "valid_sudoku"

STATEMENT = """
Write `valid_sudoku(board)` for a 9 x 9 board given as 9 strings of 9 characters, digits
1-9 or `.` for an empty cell. Return True when no digit repeats in any row, any column or
any of the nine 3 x 3 boxes, and False otherwise. The board need not be solvable.
"""

REFERENCE = r"""
def valid_sudoku(board):
    seen = set()
    for r in range(9):
        for c in range(9):
            d = board[r][c]
            if d == ".":
                continue
            keys = (("row", r, d), ("col", c, d), ("box", r // 3, c // 3, d))
            if any(k in seen for k in keys):
                return False
            seen.update(keys)
    return True
"""

WRONG = [
    r"""
def valid_sudoku(board):
    for r in range(9):
        digits = [d for d in board[r] if d != "."]
        if len(digits) != len(set(digits)):
            return False
    for c in range(9):
        digits = [board[r][c] for r in range(9) if board[r][c] != "."]
        if len(digits) != len(set(digits)):
            return False
    return True
""",
]

PUBLIC = [
    (
        "valid_sudoku(['53..7....', '6..195...', '.98....6.', '8...6...3', '4..8.3..1', "
        "'7...2...6', '.6....28.', '...419..5', '....8..79'])",
        True,
    ),
    (
        "valid_sudoku(['83..7....', '6..195...', '.98....6.', '8...6...3', '4..8.3..1', "
        "'7...2...6', '.6....28.', '...419..5', '....8..79'])",
        False,
    ),
]

HIDDEN = [
    ("valid_sudoku(['.........'] * 9)", True),
    (
        "valid_sudoku(['1........', '.1.......', '.........', '.........', '.........', "
        "'.........', '.........', '.........', '.........'])",
        False,
    ),
    (
        "valid_sudoku(['1........', '...1.....', '......1..', '.1.......', '....1....', "
        "'.......1.', '..1......', '.....1...', '........1'])",
        True,
    ),
    (
        "valid_sudoku(['12.......', '.........', '.........', '.........', '.........', "
        "'.........', '.........', '.........', '2........'])",
        True,
    ),
]

PERFORMANCE = [
    (
        "sum(valid_sudoku(['123456789', '456789123', '789123456', '214365897', "
        "'365897214', '897214365', '531642978', '642978531', '978531642']) for _ in "
        "range(1500))",
        1500,
    ),
]

HIDDEN_V1 = [
    ("valid_sudoku(['.........'] * 8 + ['1.......1'])", False),
    (
        "valid_sudoku(['........5', '.........', '.........', '.........', '.........', '......"
        "..5', '.........', '.........', '.........'])",
        False,
    ),
    (
        "valid_sudoku(['.........', '.........', '.........', '.........', '.........', '......"
        "...', '......1..', '.......1.', '.........'])",
        False,
    ),
    (
        "valid_sudoku(['6..195...', '7...2...6', '8...6...3', '4..8.3..1', '53..7....', '.98..."
        ".6.', '....8..79', '.6....28.', '...419..5'])",
        True,
    ),
]
