"""Modular exponentiation."""

LEVEL = 2
STYLE = "function"
ENTRY = "power_mod"

STATEMENT = """
Write `power_mod(a, b, m)` that returns a^b mod m for integers 0 <= a, 0 <= b <= 10^18 and
1 <= m <= 10^9, without using the three-argument `pow`. Note that anything mod 1 is 0.
"""

REFERENCE = r"""
def power_mod(a, b, m):
    result = 1 % m
    a %= m
    while b:
        if b & 1:
            result = result * a % m
        a = a * a % m
        b >>= 1
    return result
"""

WRONG = [
    r"""
def power_mod(a, b, m):
    result = 1
    a %= m
    while b:
        if b & 1:
            result = result * a % m
        a = a * a % m
        b >>= 1
    return result
""",
]

PUBLIC = [
    ("power_mod(2, 10, 1000)", 24),
    ("power_mod(3, 0, 7)", 1),
]

HIDDEN = [
    ("power_mod(5, 0, 1)", 0),
    ("power_mod(0, 0, 13)", 1),
    ("power_mod(0, 5, 13)", 0),
    ("power_mod(10, 9, 6)", 4),
    ("power_mod(123456789, 987654321, 1000000007)", 652541198),
]

PERFORMANCE = [
    ("power_mod(2, 10**18 - 1, 1000000007)", 359738130),
]

EQUIVALENT_MUTANTS = {
    "delete:3:4:pass": "every product is reduced mod m, so an unreduced a gives the same residues",
}
