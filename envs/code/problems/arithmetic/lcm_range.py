"""Least common multiple of 1..n."""

LEVEL = 2
STYLE = "function"
ENTRY = "lcm_upto"

STATEMENT = """
Write `lcm_upto(n)` that returns the least common multiple of 1, 2, ..., n (exactly, as a
Python integer) for 1 <= n <= 20000.
"""

REFERENCE = r"""
from math import gcd

def lcm_upto(n):
    result = 1
    for k in range(2, n + 1):
        result = result * k // gcd(result, k)
    return result
"""

WRONG = [
    r"""
def lcm_upto(n):
    result = 1
    for k in range(2, n + 1):
        if all(k % d for d in range(2, int(k ** 0.5) + 1)):
            result *= k
    return result
""",
]

PUBLIC = [
    ("lcm_upto(4)", 12),
    ("lcm_upto(10)", 2520),
]

HIDDEN = [
    ("lcm_upto(1)", 1),
    ("lcm_upto(2)", 2),
    ("lcm_upto(8)", 840),
    ("lcm_upto(20)", 232792560),
    ("lcm_upto(30)", 2329089562800),
]

PERFORMANCE = [
    ("lcm_upto(20000) % 1000000007", 707991037),
]

EQUIVALENT_MUTANTS = {
    "constant:5:19:1": "k = 1 leaves the result unchanged",
}
