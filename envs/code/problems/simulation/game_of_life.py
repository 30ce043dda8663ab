"""One step of the Game of Life."""

LEVEL = 2
STYLE = "function"
ENTRY = "life_step"

STATEMENT = """
Write `life_step(board)` for a grid of 0 (dead) and 1 (alive) cells (a list of lists;
cells outside the grid are dead) that returns the next generation: a live cell with 2 or
3 live neighbours (of its 8) stays alive, a dead cell with exactly 3 becomes alive, every
other cell is dead. Return a new grid.
"""

REFERENCE = r"""
def life_step(board):
    rows, cols = len(board), len(board[0]) if board else 0
    out = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            alive = sum(board[y][x] for y in range(max(0, r - 1), min(rows, r + 2))
                        for x in range(max(0, c - 1), min(cols, c + 2))) - board[r][c]
            out[r][c] = 1 if alive == 3 or (alive == 2 and board[r][c]) else 0
    return out
"""

WRONG = [
    r"""
def life_step(board):
    board = [list(row) for row in board]
    rows, cols = len(board), len(board[0]) if board else 0
    for r in range(rows):
        for c in range(cols):
            alive = sum(board[y][x] for y in range(max(0, r - 1), min(rows, r + 2))
                        for x in range(max(0, c - 1), min(cols, c + 2))) - board[r][c]
            board[r][c] = 1 if alive == 3 or (alive == 2 and board[r][c]) else 0
    return board
""",
]

PUBLIC = [
    (
        "life_step([[0, 1, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]])",
        [[0, 0, 0], [1, 0, 1], [0, 1, 1], [0, 1, 0]],
    ),
    ("life_step([[1, 1], [1, 0]])", [[1, 1], [1, 1]]),
]

HIDDEN = [
    ("life_step([[1]])", [[0]]),
    ("life_step([[0, 0, 0], [1, 1, 1], [0, 0, 0]])", [[0, 1, 0], [0, 1, 0], [0, 1, 0]]),
    ("life_step([[1, 1, 0], [1, 1, 0], [0, 0, 0]])", [[1, 1, 0], [1, 1, 0], [0, 0, 0]]),
    ("life_step([[1, 0, 1], [0, 1, 0], [1, 0, 1]])", [[0, 1, 0], [1, 0, 1], [0, 1, 0]]),
]

PERFORMANCE = [
    (
        "sum(map(sum, life_step([[(r * c) % 3 == 0 and 1 or 0 for c in range(150)] for r "
        "in range(150)])))",
        297,
    ),
]

EQUIVALENT_MUTANTS = {
    "constant:2:39:-1": "the grid is rectangular: the last row is as long as the first",
    "constant:2:57:1": "with no rows, cols is never used",
    "constant:2:57:-1": "with no rows, cols is never used",
    "constant:3:12:1": "every cell of out is assigned before it is returned",
    "constant:3:12:-1": "every cell of out is assigned before it is returned",
}
