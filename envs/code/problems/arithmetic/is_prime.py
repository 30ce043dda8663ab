"""Primality test."""

LEVEL = 1
STYLE = "function"
ENTRY = "is_prime"

STATEMENT = """
Write `is_prime(n)` that returns True when the integer `n` (which may be negative, zero or
as large as 10^13) is prime, and False otherwise.
"""

REFERENCE = r"""
def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    i = 3
    while i * i <= n:
        if n % i == 0:
            return False
        i += 2
    return True
"""

WRONG = [
    r"""
def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i < n:
        if n % i == 0:
            return False
        i += 1
    return True
""",
]

PUBLIC = [
    ("is_prime(7)", True),
    ("is_prime(10)", False),
]

HIDDEN = [
    ("is_prime(1)", False),
    ("is_prime(2)", True),
    ("is_prime(0)", False),
    ("is_prime(-7)", False),
    ("is_prime(9)", False),
    ("is_prime(25)", False),
    ("is_prime(97)", True),
]

PERFORMANCE = [
    ("is_prime(1000000000039)", True),
]

HIDDEN_V1 = [
    ("is_prime(4)", False),
    ("is_prime(1000000)", False),
]

EQUIVALENT_MUTANTS = {
    "constant:10:13:1": "stepping by 1 also tries even divisors, which never divide an odd n",
}
