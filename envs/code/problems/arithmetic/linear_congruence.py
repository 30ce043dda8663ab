"""Solve a linear congruence."""

LEVEL = 3
STYLE = "function"
ENTRY = "solve_congruence"

STATEMENT = """
Write `solve_congruence(a, b, m)` that returns the smallest x >= 0 with a * x = b (mod m),
or -1 if there is none, for integers 0 <= a, b and 1 <= m <= 10^18.
"""

REFERENCE = r"""
from math import gcd

def solve_congruence(a, b, m):
    a, b = a % m, b % m
    g = gcd(a, m)
    if b % g:
        return -1
    a, b, m2 = a // g, b // g, m // g
    if m2 == 1:
        return 0
    return b * pow(a, -1, m2) % m2
"""

WRONG = [
    r"""
def solve_congruence(a, b, m):
    a, b = a % m, b % m
    try:
        return b * pow(a, -1, m) % m
    except ValueError:
        return -1
""",
]

PUBLIC = [
    ("solve_congruence(3, 1, 7)", 5),
    ("solve_congruence(2, 3, 4)", -1),
]

HIDDEN = [
    ("solve_congruence(4, 2, 6)", 2),
    ("solve_congruence(0, 0, 5)", 0),
    ("solve_congruence(0, 3, 5)", -1),
    ("solve_congruence(6, 4, 10)", 4),
    ("solve_congruence(5, 3, 1)", 0),
]

PERFORMANCE = [
    ("sum(solve_congruence(a * 6, 12, 10**18) % 997 for a in range(1, 20001))", 13870272),
]

HIDDEN_V1 = [
    ("solve_congruence(3, 1, 2)", 1),
    ("solve_congruence(7, 5, 4)", 3),
]

EQUIVALENT_MUTANTS = {
    "delete:4:4:pass": "gcd, pow and the final % m2 give the same results for unreduced a and b",
    "delete:9:4:pass": "for m2 == 1 the formula gives b * pow(a, -1, 1) % 1 == 0",
    "constant:9:13:0": "m2 is never 0; for m2 == 1 the formula gives 0 too",
    "delete:10:8:pass": "for m2 == 1 the formula gives b * pow(a, -1, 1) % 1 == 0",
}
