"""Judge a tic-tac-toe board."""

LEVEL = 1
STYLE = "function"
ENTRY = "outcome"

STATEMENT = """
Write `outcome(board)` for a tic-tac-toe board given as 3 strings of 3 characters (`X`,
`O` or `.`). Return `"X"` or `"O"` if that player has three in a row (row, column or
diagonal), else `"draw"` if the board is full, else `"pending"`. At most one player has a
line.
"""

REFERENCE = r"""
def outcome(board):
    lines = [row for row in board] + ["".join(board[r][c] for r in range(3)) for c in range(3)]
    lines += ["".join(board[i][i] for i in range(3)), "".join(board[i][2 - i] for i in range(3))]
    for player in "XO":
        if player * 3 in lines:
            return player
    return "draw" if all("." not in row for row in board) else "pending"
"""

WRONG = [
    r"""
def outcome(board):
    lines = [row for row in board] + ["".join(board[r][c] for r in range(3)) for c in range(3)]
    for player in "XO":
        if player * 3 in lines:
            return player
    return "draw" if all("." not in row for row in board) else "pending"
""",
]

PUBLIC = [
    ("outcome(['XXX', 'OO.', '...'])", "X"),
    ("outcome(['XOX', 'XOO', 'OXX'])", "draw"),
]

HIDDEN = [
    ("outcome(['...', '...', '...'])", "pending"),
    ("outcome(['X.O', '.XO', '..X'])", "X"),
    ("outcome(['XXO', 'XO.', 'O..'])", "O"),
    ("outcome(['OX.', 'OX.', 'O.X'])", "O"),
]

PERFORMANCE = [
    (
        "sum(outcome(b) == 'X' for b in [['XOX', 'OXO', 'OXX'], ['XXO', 'OOX', 'XOX']] * 15000)",
        15000,
    ),
]

HIDDEN_V1 = [
    ("outcome(['..X', '.OX', 'O.X'])", "X"),
]
