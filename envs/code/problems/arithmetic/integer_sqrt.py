"""Integer square root."""

LEVEL = 1
STYLE = "function"
ENTRY = "isqrt"

STATEMENT = """
Write `isqrt(n)` that returns the largest integer r with r * r <= n, for 0 <= n <= 10^40.
Do not use `math.isqrt`.
"""

REFERENCE = r"""
def isqrt(n):
    if n < 2:
        return n
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y
"""

WRONG = [
    r"""
import math

def isqrt(n):
    return int(math.sqrt(n))
""",
]

PUBLIC = [
    ("isqrt(16)", 4),
    ("isqrt(17)", 4),
]

HIDDEN = [
    ("isqrt(0)", 0),
    ("isqrt(1)", 1),
    ("isqrt(15)", 3),
    ("isqrt(10**40)", 100000000000000000000),
    ("isqrt(10**30 - 1)", 999999999999999),
    ("isqrt(2**61 - 1)", 1518500249),
]

PERFORMANCE = [
    ("sum(isqrt(k * 10**30) for k in range(1, 30001)) % 1000000007", 154750293),
]

HIDDEN_V1 = [
    ("isqrt(2)", 1),
    ("isqrt(3)", 1),
]

EQUIVALENT_MUTANTS = {
    "constant:2:11:1": "for n = 1 Newton's iteration from x = 2 also returns 1",
    "constant:4:8:2": "a larger start above sqrt(n) still decreases to the floor root",
    "constant:4:32:2": "a larger start above sqrt(n) still decreases to the floor root",
    "constant:4:38:1": "a larger start above sqrt(n) still decreases to the floor root",
    "arith:4:38:*": "a larger start above sqrt(n) still decreases to the floor root",
}
