"""An elementary cellular automaton."""

LEVEL = 2
STYLE = "function"
ENTRY = "evolve"

STATEMENT = """
Write `evolve(cells, rule, steps)` for a row of cells given as a string of `0` and `1`.
Each step, every cell's new value is bit number (4 * left + 2 * self + right) of `rule`
(0-255), where cells beyond either end count as 0 and the row keeps its length. Return the
row after `steps` steps.
"""

REFERENCE = r"""
def evolve(cells, rule, steps):
    row = [int(c) for c in cells]
    for _ in range(steps):
        padded = [0] + row + [0]
        row = [
            (rule >> (4 * padded[i - 1] + 2 * padded[i] + padded[i + 1])) & 1
            for i in range(1, len(padded) - 1)
        ]
    return "".join(map(str, row))
"""

WRONG = [
    r"""
def evolve(cells, rule, steps):
    row = [int(c) for c in cells]
    n = len(row)
    for _ in range(steps):
        row = [(rule >> (4 * row[i - 1] + 2 * row[i] + row[(i + 1) % n])) & 1 for i in range(n)]
    return "".join(map(str, row))
""",
]

PUBLIC = [
    ("evolve('00100', 90, 1)", "01010"),
    ("evolve('0001000', 30, 2)", "0110010"),
]

HIDDEN = [
    ("evolve('1', 255, 3)", "1"),
    ("evolve('1', 4, 2)", "1"),
    ("evolve('10001', 90, 1)", "01010"),
    ("evolve('0110', 110, 0)", "0110"),
    ("evolve('10000001', 30, 4)", "10100001"),
]

PERFORMANCE = [
    ("evolve('0' * 150 + '1' + '0' * 150, 30, 400).count('1')", 156),
]
