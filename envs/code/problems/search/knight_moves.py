"""Knight moves on a board."""

LEVEL = 2
STYLE = "function"
ENTRY = "knight_moves"

STATEMENT = """
Write `knight_moves(n, start, goal)` that returns the least number of chess knight moves
from `start` to `goal` (both `[row, column]`, 0-based) on an n x n board, never leaving
the board, or -1 if the goal cannot be reached (1 <= n <= 300).
"""

REFERENCE = r"""
from collections import deque

def knight_moves(n, start, goal):
    start, goal = tuple(start), tuple(goal)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        y, x = queue.popleft()
        if (y, x) == goal:
            return dist[(y, x)]
        for dy, dx in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
            ny, nx = y + dy, x + dx
            if 0 <= ny < n and 0 <= nx < n and (ny, nx) not in dist:
                dist[(ny, nx)] = dist[(y, x)] + 1
                queue.append((ny, nx))
    return -1
"""

WRONG = [
    r"""
from collections import deque

def knight_moves(n, start, goal):
    start, goal = tuple(start), tuple(goal)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        y, x = queue.popleft()
        if (y, x) == goal:
            return dist[(y, x)]
        for dy, dx in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
            ny, nx = y + dy, x + dx
            if -2 <= ny < n + 2 and -2 <= nx < n + 2 and (ny, nx) not in dist:
                dist[(ny, nx)] = dist[(y, x)] + 1
                queue.append((ny, nx))
    return -1
""",
]

PUBLIC = [
    ("knight_moves(8, [0, 0], [7, 7])", 6),
    ("knight_moves(5, [0, 0], [0, 0])", 0),
]

HIDDEN = [
    ("knight_moves(1, [0, 0], [0, 0])", 0),
    ("knight_moves(2, [0, 0], [1, 1])", -1),
    ("knight_moves(3, [0, 0], [1, 1])", -1),
    ("knight_moves(4, [0, 0], [1, 1])", 4),
    ("knight_moves(8, [0, 0], [1, 1])", 4),
]

PERFORMANCE = [
    ("knight_moves(300, [0, 0], [299, 298])", 199),
]

HIDDEN_V1 = [
    ("knight_moves(5, [0, 0], [0, 4])", 2),
    ("knight_moves(5, [0, 0], [0, 2])", 2),
    ("knight_moves(5, [0, 0], [2, 0])", 2),
    ("knight_moves(5, [0, 0], [3, 1])", 2),
    ("knight_moves(5, [0, 0], [3, 0])", 3),
    ("knight_moves(5, [0, 0], [0, 3])", 3),
    ("knight_moves(5, [0, 0], [0, 1])", 3),
    ("knight_moves(5, [0, 0], [1, 0])", 3),
]

EQUIVALENT_MUTANTS = {
    "arith:12:25:-": "the eight moves are symmetric: negating dy gives the same set",
    "arith:12:33:-": "the eight moves are symmetric: negating dx gives the same set",
}
