"""Where the robot ends up."""

LEVEL = 1
STYLE = "function"
ENTRY = "final_position"

STATEMENT = """
A robot starts at (0, 0). Each character of `moves` moves it one step: `U` increases y,
`D` decreases y, `R` increases x, `L` decreases x; other characters are ignored. Write
`final_position(moves)` that returns `[x, y]` after all moves.
"""

REFERENCE = r"""
def final_position(moves):
    x = y = 0
    for m in moves:
        if m == "U":
            y += 1
        elif m == "D":
            y -= 1
        elif m == "R":
            x += 1
        elif m == "L":
            x -= 1
    return [x, y]
"""

WRONG = [
    r"""
def final_position(moves):
    x = y = 0
    for m in moves:
        if m == "U":
            y -= 1
        elif m == "D":
            y += 1
        elif m == "R":
            x += 1
        elif m == "L":
            x -= 1
    return [x, y]
""",
]

PUBLIC = [
    ("final_position('RRL')", [1, 0]),
    ("final_position('')", [0, 0]),
]

HIDDEN = [
    ("final_position('UUD')", [0, 1]),
    ("final_position('LDRU')", [0, 0]),
    ("final_position('U?U')", [0, 2]),
    ("final_position('DDDL')", [-1, -3]),
]

PERFORMANCE = [
    ("final_position('URDLUUR' * 100000)", [100000, 200000]),
]
