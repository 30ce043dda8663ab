"""Sum of multiples of 3 or 5."""

LEVEL = 1
STYLE = "function"
ENTRY = "sum_multiples"

STATEMENT = """
Write `sum_multiples(n)` that returns the sum of all positive integers below `n` that are
multiples of 3 or 5. `n` can be as large as 10^18.
"""

REFERENCE = r"""
def sum_multiples(n):
    def below(k):
        m = (n - 1) // k
        return k * m * (m + 1) // 2
    return below(3) + below(5) - below(15) if n > 0 else 0
"""

WRONG = [
    r"""
def sum_multiples(n):
    def upto(k):
        m = n // k
        return k * m * (m + 1) // 2
    return upto(3) + upto(5) - upto(15) if n > 0 else 0
""",
]

PUBLIC = [
    ("sum_multiples(10)", 23),
    ("sum_multiples(16)", 60),
]

HIDDEN = [
    ("sum_multiples(0)", 0),
    ("sum_multiples(1)", 0),
    ("sum_multiples(3)", 0),
    ("sum_multiples(15)", 45),
    ("sum_multiples(1000)", 233168),
]

PERFORMANCE = [
    ("sum_multiples(10**18)", 233333333333333333166666666666666668),
]

EQUIVALENT_MUTANTS = {
    "compare:5:50:>=": "for n = 0 and n = 1 every below(k) is 0 too",
    "constant:5:50:1": "for n = 0 and n = 1 every below(k) is 0 too",
    "constant:5:50:-1": "for n = 0 and n = 1 every below(k) is 0 too",
}
