"""Greatest common divisor of a list."""

LEVEL = 1
STYLE = "function"
ENTRY = "gcd_all"

STATEMENT = """
Write `gcd_all(numbers)` that returns the greatest common divisor of a non-empty list of
non-negative integers (the gcd of a list of zeros is 0).
"""

REFERENCE = r"""
from math import gcd

def gcd_all(numbers):
    g = 0
    for x in numbers:
        g = gcd(g, x)
    return g
"""

WRONG = [
    r"""
from math import gcd

def gcd_all(numbers):
    return gcd(numbers[0], numbers[-1])
""",
]

PUBLIC = [
    ("gcd_all([12, 18, 24])", 6),
    ("gcd_all([7])", 7),
]

HIDDEN = [
    ("gcd_all([0, 0])", 0),
    ("gcd_all([0, 5])", 5),
    ("gcd_all([6, 10, 15])", 1),
    ("gcd_all([2**40, 2**20 * 3])", 1048576),
    ("gcd_all([100, 75, 50, 25])", 25),
]

PERFORMANCE = [
    ("gcd_all([6 * i for i in range(1, 300001)])", 6),
]
