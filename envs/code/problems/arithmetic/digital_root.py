"""Digital root."""

LEVEL = 1
STYLE = "function"
ENTRY = "digital_root"

STATEMENT = """
Write `digital_root(n)` for a non-negative integer `n`: replace `n` by the sum of its
decimal digits until a single digit remains, and return that digit.
"""

REFERENCE = r"""
def digital_root(n):
    while n >= 10:
        n = sum(int(d) for d in str(n))
    return n
"""

WRONG = [
    r"""
def digital_root(n):
    return sum(int(d) for d in str(n))
""",
]

PUBLIC = [
    ("digital_root(16)", 7),
    ("digital_root(942)", 6),
]

HIDDEN = [
    ("digital_root(0)", 0),
    ("digital_root(9)", 9),
    ("digital_root(10)", 1),
    ("digital_root(999999999999)", 9),
    ("digital_root(493193)", 2),
]

PERFORMANCE = [
    ("sum(digital_root(k * 10**100 + k) for k in range(1, 5001))", 24996),
]
