"""First position not below x."""

LEVEL = 1
STYLE = "function"
ENTRY = "lower_bound"

STATEMENT = """
Write `lower_bound(nums, x)` that returns the first index i of the non-decreasing list
`nums` with nums[i] >= x, or len(nums) if there is none, in logarithmic time.
"""

REFERENCE = r"""
def lower_bound(nums, x):
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo
"""

WRONG = [
    r"""
def lower_bound(nums, x):
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo
""",
]

PUBLIC = [
    ("lower_bound([1, 2, 4, 4, 5], 4)", 2),
    ("lower_bound([1, 2, 3], 7)", 3),
]

HIDDEN = [
    ("lower_bound([], 3)", 0),
    ("lower_bound([5], 5)", 0),
    ("lower_bound([2, 2, 2], 2)", 0),
    ("lower_bound([1, 3], 2)", 1),
    ("lower_bound([1, 3], 0)", 0),
]

PERFORMANCE = [
    (
        "(lambda xs: sum(lower_bound(xs, t) for t in range(0, 100000, 3)))([i // 3 for i "
        "in range(300000)])",
        5000049999,
    ),
]
