"""A ball bouncing in a box."""

LEVEL = 2
STYLE = "function"
ENTRY = "ball_position"

STATEMENT = """
A ball moves diagonally inside a box of cells with columns 0..w-1 and rows 0..h-1
(w, h >= 2), starting at (x, y) and moving by (+1, +1) each step. When the next step
would leave the box along an axis, that direction component flips first (so at a wall it
moves away from it). Write `ball_position(w, h, x, y, t)` that returns `[x, y]` after t
steps, for t up to 10^18.
"""

REFERENCE = r"""
def ball_position(w, h, x, y, t):
    def axis(size, start):
        period = 2 * (size - 1)
        p = (start + t) % period
        return p if p < size else period - p
    return [axis(w, x), axis(h, y)]
"""

WRONG = [
    r"""
def ball_position(w, h, x, y, t):
    def axis(size, start):
        period = 2 * size
        p = (start + t) % period
        return p if p < size else period - p - 1
    return [axis(w, x), axis(h, y)]
""",
]

PUBLIC = [
    ("ball_position(4, 3, 0, 0, 2)", [2, 2]),
    ("ball_position(4, 3, 0, 0, 5)", [1, 1]),
]

HIDDEN = [
    ("ball_position(2, 2, 0, 0, 1)", [1, 1]),
    ("ball_position(2, 2, 0, 0, 2)", [0, 0]),
    ("ball_position(5, 7, 3, 6, 0)", [3, 6]),
    ("ball_position(5, 7, 4, 4, 3)", [1, 5]),
    ("ball_position(10, 3, 2, 1, 10**18)", [6, 1]),
]

PERFORMANCE = [
    ("sum(sum(ball_position(1000, 777, 5, 9, 10**18 + k)) for k in range(100000))", 88829008),
]
