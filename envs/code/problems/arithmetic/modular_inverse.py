"""Modular inverse."""

LEVEL = 2
STYLE = "function"
ENTRY = "mod_inverse"

STATEMENT = """
Write `mod_inverse(a, m)` that returns the x in [0, m) with a * x = 1 (mod m), or -1 when
there is none, for 0 <= a and 1 <= m <= 10^18 (m need not be prime; every number is its
own inverse mod 1, which is 0).
"""

REFERENCE = r"""
def mod_inverse(a, m):
    def egcd(x, y):
        if y == 0:
            return x, 1, 0
        g, s, t = egcd(y, x % y)
        return g, t, s - (x // y) * t
    g, s, _ = egcd(a % m, m)
    if g != 1:
        return 0 if m == 1 else -1
    return s % m
"""

WRONG = [
    r"""
def mod_inverse(a, m):
    if a % m == 0:
        return 0 if m == 1 else -1
    return pow(a, m - 2, m)
""",
]

PUBLIC = [
    ("mod_inverse(3, 11)", 4),
    ("mod_inverse(2, 4)", -1),
]

HIDDEN = [
    ("mod_inverse(3, 10)", 7),
    ("mod_inverse(7, 1)", 0),
    ("mod_inverse(0, 5)", -1),
    ("mod_inverse(10, 17)", 12),
    ("mod_inverse(17, 3120)", 2753),
]

PERFORMANCE = [
    ("sum(mod_inverse(a, 10**18 + 9) % 1000 for a in range(1, 3001))", 1535549),
]

HIDDEN_V1 = [
    ("mod_inverse(4, 2)", -1),
    ("mod_inverse(9, 6)", -1),
]

EQUIVALENT_MUTANTS = {
    "constant:4:25:1": (
        "t multiplies y == 0, so the pair stays a Bezout pair and s % m is the unique inverse"
    ),
    "constant:4:25:-1": (
        "t multiplies y == 0, so the pair stays a Bezout pair and s % m is the unique inverse"
    ),
    "constant:9:15:1": "m == 1 never reaches this line: gcd(a % 1, 1) is 1",
    "constant:9:15:-1": "m == 1 never reaches this line: gcd(a % 1, 1) is 1",
    "constant:9:25:0": "m is never 0, and m == 1 never reaches this line (gcd(a % 1, 1) is 1)",
}
