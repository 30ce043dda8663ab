"""Ways to climb stairs."""

LEVEL = 1
STYLE = "function"
ENTRY = "climb"

STATEMENT = """
Write `climb(n)` that returns the number of ways to climb n stairs (0 <= n <= 10000)
taking 1 or 2 steps at a time. There is one way to climb 0 stairs.
"""

REFERENCE = r"""
def climb(n):
    a, b = 1, 1
    for _ in range(n):
        a, b = b, a + b
    return a
"""

WRONG = [
    r"""
def climb(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
""",
]

PUBLIC = [
    ("climb(2)", 2),
    ("climb(3)", 3),
]

HIDDEN = [
    ("climb(0)", 1),
    ("climb(1)", 1),
    ("climb(10)", 89),
    ("climb(45)", 1836311903),
]

PERFORMANCE = [
    ("climb(10000) % 1000000007", 24223428),
]
