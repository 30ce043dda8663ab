"""Minesweeper numbers."""

LEVEL = 1
STYLE = "function"
ENTRY = "annotate"

STATEMENT = """
Write `annotate(board)` for a board given as a list of equal-length strings of `*` (mine)
and `.` (empty). Return the board with every empty cell replaced by the number of mines
among its 8 neighbours, or by `.` if there are none.
"""

REFERENCE = r"""
def annotate(board):
    rows, cols = len(board), len(board[0]) if board else 0
    out = []
    for r in range(rows):
        line = []
        for c in range(cols):
            if board[r][c] == "*":
                line.append("*")
                continue
            count = sum(board[y][x] == "*" for y in range(max(0, r - 1), min(rows, r + 2))
                        for x in range(max(0, c - 1), min(cols, c + 2)))
            line.append(str(count) if count else ".")
        out.append("".join(line))
    return out
"""

WRONG = [
    r"""
def annotate(board):
    rows, cols = len(board), len(board[0]) if board else 0
    out = []
    for r in range(rows):
        line = []
        for c in range(cols):
            if board[r][c] == "*":
                line.append("*")
                continue
            count = sum(0 <= y < rows and 0 <= x < cols and board[y][x] == "*"
                        for y, x in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)))
            line.append(str(count) if count else ".")
        out.append("".join(line))
    return out
""",
]

PUBLIC = [
    ("annotate(['*...', '....', '.*..', '....'])", ["*1..", "221.", "1*1.", "111."]),
    ("annotate(['.'])", ["."]),
]

HIDDEN = [
    ("annotate([])", []),
    ("annotate(['*'])", ["*"]),
    ("annotate(['*.*', '...', '*.*'])", ["*2*", "242", "*2*"]),
    ("annotate(['***', '*.*', '***'])", ["***", "*8*", "***"]),
]

PERFORMANCE = [
    (
        "sum(row.count('.') for row in annotate([''.join('*' if (r * 7 + c * 3) % 11 == "
        "0 else '.' for c in range(200)) for r in range(200)]))",
        14652,
    ),
]

EQUIVALENT_MUTANTS = {
    "constant:2:39:-1": "the grid is rectangular: the last row is as long as the first",
    "constant:2:57:1": "with no rows, cols is never used",
    "constant:2:57:-1": "with no rows, cols is never used",
}
