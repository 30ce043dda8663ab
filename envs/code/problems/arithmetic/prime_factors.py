"""Prime factorisation."""

LEVEL = 2
STYLE = "function"
ENTRY = "prime_factors"

STATEMENT = """
Write `prime_factors(n)` that returns the prime factors of `n` (2 <= n <= 10^12) in
increasing order, each repeated as often as it divides `n`.
"""

REFERENCE = r"""
def prime_factors(n):
    factors = []
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1 if d == 2 else 2
    if n > 1:
        factors.append(n)
    return factors
"""

WRONG = [
    r"""
def prime_factors(n):
    factors = []
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    return factors
""",
]

PUBLIC = [
    ("prime_factors(12)", [2, 2, 3]),
    ("prime_factors(17)", [17]),
]

HIDDEN = [
    ("prime_factors(2)", [2]),
    ("prime_factors(1024)", [2, 2, 2, 2, 2, 2, 2, 2, 2, 2]),
    ("prime_factors(2 * 3 * 5 * 7 * 11 * 13)", [2, 3, 5, 7, 11, 13]),
    ("prime_factors(999983 * 2)", [2, 999983]),
    ("prime_factors(49)", [7, 7]),
]

PERFORMANCE = [
    ("prime_factors(999999000001)", [999999000001]),
]

EQUIVALENT_MUTANTS = {
    "constant:8:30:1": (
        "stepping by 1 also tries even d, which no longer divide n once 2 is removed"
    ),
}
