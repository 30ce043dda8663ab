"""Slowest sufficient eating speed."""

LEVEL = 2
STYLE = "function"
ENTRY = "min_speed"

STATEMENT = """
There are piles of bananas; eating at speed k, one hour finishes min(k, pile) bananas of a
single pile (the rest of the hour is idle). Write `min_speed(piles, hours)` that returns
the least integer speed that eats every pile within `hours` hours
(len(piles) <= hours <= 10^9, piles up to 10^9).
"""

REFERENCE = r"""
def min_speed(piles, hours):
    lo, hi = 1, max(piles)
    while lo < hi:
        mid = (lo + hi) // 2
        if sum((p + mid - 1) // mid for p in piles) <= hours:
            hi = mid
        else:
            lo = mid + 1
    return lo
"""

WRONG = [
    r"""
def min_speed(piles, hours):
    lo, hi = 1, max(piles)
    while lo < hi:
        mid = (lo + hi) // 2
        if sum(max(1, p // mid) for p in piles) <= hours:
            hi = mid
        else:
            lo = mid + 1
    return lo
""",
]

PUBLIC = [
    ("min_speed([3, 6, 7, 11], 8)", 4),
    ("min_speed([30, 11, 23, 4, 20], 5)", 30),
]

HIDDEN = [
    ("min_speed([1], 1)", 1),
    ("min_speed([1000000000], 2)", 500000000),
    ("min_speed([30, 11, 23, 4, 20], 6)", 23),
    ("min_speed([5, 5], 10)", 1),
]

PERFORMANCE = [
    ("min_speed([(i * 7919) % 10**9 + 1 for i in range(20000)], 10**6)", 1599718),
]
