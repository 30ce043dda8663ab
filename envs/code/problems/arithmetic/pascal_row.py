"""A row of Pascal's triangle."""

LEVEL = 1
STYLE = "function"
ENTRY = "pascal_row"

STATEMENT = """
Write `pascal_row(n)` that returns row n of Pascal's triangle as a list, counting from
row 0 = `[1]`; row n holds the binomial coefficients C(n, 0) ... C(n, n).
"""

REFERENCE = r"""
def pascal_row(n):
    row = [1]
    for k in range(n):
        row.append(row[-1] * (n - k) // (k + 1))
    return row
"""

WRONG = [
    r"""
def pascal_row(n):
    row = [1]
    for _ in range(n - 1):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row
""",
]

PUBLIC = [
    ("pascal_row(3)", [1, 3, 3, 1]),
    ("pascal_row(0)", [1]),
]

HIDDEN = [
    ("pascal_row(1)", [1, 1]),
    ("pascal_row(2)", [1, 2, 1]),
    ("pascal_row(6)", [1, 6, 15, 20, 15, 6, 1]),
    ("pascal_row(10)", [1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1]),
]

PERFORMANCE = [
    ("pascal_row(3000)[1500] % 1000000007", 54432435),
]
