"""Search a rotated sorted array."""

LEVEL = 2
STYLE = "function"
ENTRY = "search_rotated"

STATEMENT = """
A strictly increasing list was rotated at an unknown point (for example [0, 1, 2, 4, 5]
became [4, 5, 0, 1, 2]), possibly by zero places. Write `search_rotated(nums, target)`
that returns the index of `target`, or -1, in logarithmic time.
"""

REFERENCE = r"""
def search_rotated(nums, target):
    lo, hi = 0, len(nums) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[lo] <= nums[mid]:
            if nums[lo] <= target < nums[mid]:
                hi = mid - 1
            else:
                lo = mid + 1
        else:
            if nums[mid] < target <= nums[hi]:
                lo = mid + 1
            else:
                hi = mid - 1
    return -1
"""

WRONG = [
    r"""
def search_rotated(nums, target):
    lo, hi = 0, len(nums) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[lo] < nums[mid]:
            if nums[lo] <= target < nums[mid]:
                hi = mid - 1
            else:
                lo = mid + 1
        else:
            if nums[mid] < target <= nums[hi]:
                lo = mid + 1
            else:
                hi = mid - 1
    return -1
""",
]

PUBLIC = [
    ("search_rotated([4, 5, 6, 7, 0, 1, 2], 0)", 4),
    ("search_rotated([4, 5, 6, 7, 0, 1, 2], 3)", -1),
]

HIDDEN = [
    ("search_rotated([1], 0)", -1),
    ("search_rotated([3, 1], 1)", 1),
    ("search_rotated([1, 3], 3)", 1),
    ("search_rotated([5, 1, 3], 5)", 0),
    ("search_rotated([6, 7, 1, 2, 3, 4, 5], 6)", 0),
]

PERFORMANCE = [
    (
        "(lambda xs: sum(search_rotated(xs, t) for t in range(0, 400000, "
        "13)))(list(range(200000, 400000)) + list(range(200000)))",
        6153953845,
    ),
]

HIDDEN_V1 = [
    ("search_rotated([5, 1, 3], 3)", 2),
    ("search_rotated([5, 1, 3], 2)", -1),
]

EQUIVALENT_MUTANTS = {
    "compare:8:36:<=": "nums[mid] == target returned just before",
    "constant:9:27:0": (
        "here lo < mid, so hi = mid still shrinks the range (nums[mid] is not the target)"
    ),
    "compare:13:27:<=": "nums[mid] == target returned just before",
    "constant:14:27:0": (
        "here lo < mid, so lo = mid still shrinks the range (nums[mid] is not the target)"
    ),
    "constant:16:27:0": (
        "here mid < hi, so hi = mid still shrinks the range (nums[mid] is not the target)"
    ),
}
