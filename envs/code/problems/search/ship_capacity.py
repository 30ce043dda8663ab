"""Least ship capacity."""

LEVEL = 3
STYLE = "function"
ENTRY = "ship_capacity"

STATEMENT = """
Packages with the given positive weights must be shipped in order within `days` days;
each day the ship loads consecutive packages while their total stays within its capacity.
Write `ship_capacity(weights, days)` that returns the least capacity that ships everything
in time (1 <= days <= len(weights) <= 50000).
"""

REFERENCE = r"""
def ship_capacity(weights, days):
    def needed(capacity):
        count, load = 1, 0
        for w in weights:
            if load + w > capacity:
                count += 1
                load = 0
            load += w
        return count
    lo, hi = max(weights), sum(weights)
    while lo < hi:
        mid = (lo + hi) // 2
        if needed(mid) <= days:
            hi = mid
        else:
            lo = mid + 1
    return lo
"""

WRONG = [
    r"""
def ship_capacity(weights, days):
    def needed(capacity):
        count, load = 1, 0
        for w in weights:
            if load + w > capacity:
                count += 1
                load = 0
            load += w
        return count
    lo, hi = 1, sum(weights)
    while lo < hi:
        mid = (lo + hi) // 2
        if needed(mid) <= days:
            hi = mid
        else:
            lo = mid + 1
    return lo
""",
]

PUBLIC = [
    ("ship_capacity([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5)", 15),
    ("ship_capacity([3, 2, 2, 4, 1, 4], 3)", 6),
]

HIDDEN = [
    ("ship_capacity([7], 1)", 7),
    ("ship_capacity([1, 2, 3, 1, 1], 4)", 3),
    ("ship_capacity([5, 5, 5], 3)", 5),
    ("ship_capacity([10, 1, 1], 3)", 10),
]

PERFORMANCE = [
    ("ship_capacity([(i * 7919) % 500 + 1 for i in range(50000)], 37)", 338675),
]
