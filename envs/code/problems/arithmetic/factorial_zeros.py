"""Trailing zeros of n!."""

LEVEL = 2
STYLE = "function"
ENTRY = "trailing_zeros"

STATEMENT = """
Write `trailing_zeros(n)` that returns the number of zeros at the end of n! written in
decimal, for 0 <= n <= 10^18.
"""

REFERENCE = r"""
def trailing_zeros(n):
    count = 0
    p = 5
    while p <= n:
        count += n // p
        p *= 5
    return count
"""

WRONG = [
    r"""
def trailing_zeros(n):
    return n // 5
""",
]

PUBLIC = [
    ("trailing_zeros(5)", 1),
    ("trailing_zeros(10)", 2),
]

HIDDEN = [
    ("trailing_zeros(0)", 0),
    ("trailing_zeros(4)", 0),
    ("trailing_zeros(25)", 6),
    ("trailing_zeros(100)", 24),
    ("trailing_zeros(125)", 31),
]

PERFORMANCE = [
    ("trailing_zeros(10**18)", 249999999999999995),
]
