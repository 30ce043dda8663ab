"""Sum of proper divisors."""

LEVEL = 2
STYLE = "function"
ENTRY = "divisor_sum"

STATEMENT = """
Write `divisor_sum(n)` that returns the sum of the proper divisors of `n` (the divisors
smaller than `n`), for 1 <= n <= 10^12. The sum for 1 is 0.
"""

REFERENCE = r"""
def divisor_sum(n):
    if n == 1:
        return 0
    total = 1
    d = 2
    while d * d <= n:
        if n % d == 0:
            total += d
            if d != n // d:
                total += n // d
        d += 1
    return total
"""

WRONG = [
    r"""
def divisor_sum(n):
    if n == 1:
        return 0
    total = 1
    d = 2
    while d * d <= n:
        if n % d == 0:
            total += d + n // d
        d += 1
    return total
""",
]

PUBLIC = [
    ("divisor_sum(28)", 28),
    ("divisor_sum(12)", 16),
]

HIDDEN = [
    ("divisor_sum(1)", 0),
    ("divisor_sum(2)", 1),
    ("divisor_sum(16)", 15),
    ("divisor_sum(97)", 1),
    ("divisor_sum(36)", 55),
]

PERFORMANCE = [
    ("divisor_sum(963761198400)", 4568004745920),
]
