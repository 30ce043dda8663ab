"""Toggle bulbs."""

LEVEL = 1
STYLE = "function"
ENTRY = "bulbs_on"

STATEMENT = """
n bulbs start off. In round i (i = 1..n) every i-th bulb is toggled. Write `bulbs_on(n)`
that returns how many bulbs are on after n rounds, for 0 <= n <= 10^18.
"""

REFERENCE = r"""
def bulbs_on(n):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid * mid <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo
"""

WRONG = [
    r"""
def bulbs_on(n):
    return int(n ** 0.5)
""",
]

PUBLIC = [
    ("bulbs_on(3)", 1),
    ("bulbs_on(10)", 3),
]

HIDDEN = [
    ("bulbs_on(0)", 0),
    ("bulbs_on(1)", 1),
    ("bulbs_on(4)", 2),
    ("bulbs_on(10**18)", 1000000000),
    ("bulbs_on(999999999999999999)", 999999999),
]

PERFORMANCE = [
    ("sum(bulbs_on(10**18 - k) for k in range(3000))", 2999999997001),
]

EQUIVALENT_MUTANTS = {
    "constant:2:13:-1": (
        "-1 is below every answer; the search still ends on the largest mid with mid * mid <= n"
    ),
    "constant:4:25:2": "mid stays in (lo, hi], so the search narrows to the same answer",
}
