"""Langton's ant."""

LEVEL = 2
STYLE = "function"
ENTRY = "black_cells"

STATEMENT = """
On an infinite grid of white cells, an ant faces up. At each step: on a white cell it
turns 90 degrees right, on a black cell 90 degrees left; then it flips the colour of the
cell and moves one cell forward. Write `black_cells(steps)` that returns the number of
black cells after `steps` steps (0 <= steps <= 12000).
"""

REFERENCE = r"""
def black_cells(steps):
    black = set()
    x = y = 0
    dx, dy = 0, 1
    for _ in range(steps):
        if (x, y) in black:
            dx, dy = -dy, dx
            black.remove((x, y))
        else:
            dx, dy = dy, -dx
            black.add((x, y))
        x, y = x + dx, y + dy
    return len(black)
"""

WRONG = [
    r"""
def black_cells(steps):
    black = set()
    x = y = 0
    dx, dy = 0, 1
    for _ in range(steps):
        if (x, y) in black:
            dx, dy = -dx, -dy
            black.remove((x, y))
        else:
            dx, dy = dy, -dx
            black.add((x, y))
        x, y = x + dx, y + dy
    return len(black)
""",
]

PUBLIC = [
    ("black_cells(1)", 1),
    ("black_cells(10)", 6),
]

HIDDEN = [
    ("black_cells(0)", 0),
    ("black_cells(4)", 4),
    ("black_cells(100)", 20),
    ("black_cells(11000)", 834),
]

PERFORMANCE = [
    ("black_cells(12000)", 952),
]

EQUIVALENT_MUTANTS = {
    "constant:3:12:1": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
    "constant:3:12:-1": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
    "constant:4:13:1": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
    "constant:4:13:-1": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
    "constant:4:16:2": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
    "arith:12:19:-": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
    "arith:12:27:-": (
        "the plane is uniform: a shifted, rotated, scaled or mirrored walk colours as many cells"
    ),
}
