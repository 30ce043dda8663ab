"""Zigzag conversion."""

LEVEL = 2
STYLE = "function"
ENTRY = "zigzag"

STATEMENT = """
Write `zigzag(s, rows)` that writes `s` in a zigzag on `rows` rows (down the first
column, then diagonally up to the right, then down again, ...) and returns the rows read
left to right, top to bottom. For example `zigzag("PAYPALISHIRING", 3)` is
`"PAHNAPLSIIGYIR"`. `rows` is at least 1.
"""

REFERENCE = r"""
def zigzag(s, rows):
    if rows == 1 or rows >= len(s):
        return s
    lines = [[] for _ in range(rows)]
    row, step = 0, 1
    for c in s:
        lines[row].append(c)
        if row == 0:
            step = 1
        elif row == rows - 1:
            step = -1
        row += step
    return "".join("".join(line) for line in lines)
"""

WRONG = [
    r"""
def zigzag(s, rows):
    lines = [[] for _ in range(rows)]
    for i, c in enumerate(s):
        lines[i % rows].append(c)
    return "".join("".join(line) for line in lines)
""",
]

PUBLIC = [
    ("zigzag('PAYPALISHIRING', 3)", "PAHNAPLSIIGYIR"),
    ("zigzag('PAYPALISHIRING', 4)", "PINALSIGYAHRPI"),
]

HIDDEN = [
    ("zigzag('A', 1)", "A"),
    ("zigzag('AB', 1)", "AB"),
    ("zigzag('ABCDE', 2)", "ACEBD"),
    ("zigzag('ABC', 5)", "ABC"),
    ("zigzag('', 3)", ""),
]

PERFORMANCE = [
    ("zigzag('abcdefghij' * 40000, 7)[:30]", "acegiacegiacegiacegiacegiacegi"),
]

EQUIVALENT_MUTANTS = {
    "compare:2:28:>": "with rows == len(s) every character gets its own row, read back in order",
    "bound:4:31:+1": "an extra row stays empty",
    "constant:5:19:2": "row 0 sets step to 1 before it is used",
    "constant:5:19:0": "row 0 sets step to 1 before it is used",
}
