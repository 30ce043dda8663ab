"""Cells a turtle visits."""

LEVEL = 2
STYLE = "function"
ENTRY = "visited"

STATEMENT = """
A turtle starts at (0, 0) facing north. `commands` is a list of strings: `"F n"` moves n
cells forward, `"L"` and `"R"` turn 90 degrees left or right. Write `visited(commands)`
that returns the number of distinct cells the turtle has been on (the start included).
"""

REFERENCE = r"""
def visited(commands):
    x = y = 0
    dx, dy = 0, 1
    seen = {(0, 0)}
    for command in commands:
        if command == "L":
            dx, dy = -dy, dx
        elif command == "R":
            dx, dy = dy, -dx
        else:
            for _ in range(int(command.split()[1])):
                x, y = x + dx, y + dy
                seen.add((x, y))
    return len(seen)
"""

WRONG = [
    r"""
def visited(commands):
    x = y = 0
    dx, dy = 0, 1
    seen = {(0, 0)}
    for command in commands:
        if command == "L":
            dx, dy = -dy, dx
        elif command == "R":
            dx, dy = dy, -dx
        else:
            n = int(command.split()[1])
            x, y = x + n * dx, y + n * dy
            seen.add((x, y))
    return len(seen)
""",
]

PUBLIC = [
    ("visited(['F 2', 'R', 'F 1'])", 4),
    ("visited([])", 1),
]

HIDDEN = [
    ("visited(['L', 'R'])", 1),
    ("visited(['F 1', 'R', 'R', 'F 1'])", 2),
    ("visited(['F 3', 'L', 'F 3', 'L', 'F 3', 'L', 'F 3'])", 12),
    ("visited(['F 0'])", 1),
]

PERFORMANCE = [
    ("visited(['F 300', 'R', 'F 299', 'R'] * 300)", 1198),
]

EQUIVALENT_MUTANTS = {
    "constant:3:13:1": "a rotated, scaled or mirrored walk visits as many distinct cells",
    "constant:3:13:-1": "a rotated, scaled or mirrored walk visits as many distinct cells",
    "constant:3:16:2": "a rotated, scaled or mirrored walk visits as many distinct cells",
    "arith:12:27:-": "a rotated, scaled or mirrored walk visits as many distinct cells",
    "arith:12:35:-": "a rotated, scaled or mirrored walk visits as many distinct cells",
}
