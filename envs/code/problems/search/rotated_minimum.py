"""Minimum of a rotated sorted array."""

LEVEL = 2
STYLE = "function"
ENTRY = "find_min"

STATEMENT = """
A strictly increasing list was rotated by an unknown number of places (possibly zero).
Write `find_min(nums)` that returns its smallest element in logarithmic time.
"""

REFERENCE = r"""
def find_min(nums):
    lo, hi = 0, len(nums) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] > nums[hi]:
            lo = mid + 1
        else:
            hi = mid
    return nums[lo]
"""

WRONG = [
    r"""
def find_min(nums):
    lo, hi = 0, len(nums) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] > nums[lo]:
            lo = mid + 1
        else:
            hi = mid
    return nums[lo]
""",
]

PUBLIC = [
    ("find_min([3, 4, 5, 1, 2])", 1),
    ("find_min([4, 5, 6, 7, 0, 1, 2])", 0),
]

HIDDEN = [
    ("find_min([1])", 1),
    ("find_min([1, 2, 3])", 1),
    ("find_min([2, 1])", 1),
    ("find_min([11, 13, 15, 17])", 11),
    ("find_min([5, 1, 2, 3, 4])", 1),
]

PERFORMANCE = [
    (
        "(lambda xs: sum(find_min(xs) for _ in range(30000)))(list(range(500000, "
        "1000000)) + list(range(500000)))",
        0,
    ),
]

EQUIVALENT_MUTANTS = {
    "constant:2:13:-1": (
        "index -1 is the last element: the search moves lo past it or ends on the same minimum"
    ),
    "compare:5:23:>=": "values are distinct and mid < hi, so nums[mid] == nums[hi] never holds",
}
