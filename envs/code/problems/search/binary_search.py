"""Binary search."""

LEVEL = 1
STYLE = "function"
ENTRY = "search"

STATEMENT = """
Write `search(nums, target)` that returns the index of `target` in the strictly
increasing list `nums`, or -1 if it is absent. Lists hold up to 10^6 numbers and there are
many queries, so use binary search.
"""

REFERENCE = r"""
def search(nums, target):
    lo, hi = 0, len(nums) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
"""

WRONG = [
    r"""
def search(nums, target):
    lo, hi = 0, len(nums) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
""",
]

PUBLIC = [
    ("search([-1, 0, 3, 5, 9, 12], 9)", 4),
    ("search([-1, 0, 3, 5, 9, 12], 2)", -1),
]

HIDDEN = [
    ("search([], 1)", -1),
    ("search([5], 5)", 0),
    ("search([1, 2], 2)", 1),
    ("search([1, 3, 5, 7], 7)", 3),
    ("search([1, 3, 5, 7], 0)", -1),
]

PERFORMANCE = [
    (
        "(lambda xs: sum(search(xs, t) for t in range(0, 100000, 3)))(list(range(0, 1000000, 2)))",
        416641666,
    ),
]

EQUIVALENT_MUTANTS = {
    "compare:7:23:<=": "nums[mid] == target returned just before",
}
