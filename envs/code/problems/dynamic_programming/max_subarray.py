"""Maximum subarray sum."""

LEVEL = 1
STYLE = "function"
ENTRY = "max_subarray"

STATEMENT = """
Write `max_subarray(nums)` that returns the largest sum of a non-empty contiguous
subarray of the non-empty list `nums`.
"""

REFERENCE = r"""
def max_subarray(nums):
    best = current = nums[0]
    for x in nums[1:]:
        current = max(x, current + x)
        best = max(best, current)
    return best
"""

WRONG = [
    r"""
def max_subarray(nums):
    best = current = 0
    for x in nums:
        current = max(0, current + x)
        best = max(best, current)
    return best
""",
]

PUBLIC = [
    ("max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4])", 6),
    ("max_subarray([1])", 1),
]

HIDDEN = [
    ("max_subarray([-3])", -3),
    ("max_subarray([-3, -1, -2])", -1),
    ("max_subarray([5, 4, -1, 7, 8])", 23),
    ("max_subarray([0, -1, 0])", 0),
]

PERFORMANCE = [
    ("max_subarray([(i * 7919) % 2001 - 1000 for i in range(300000)])", 8302),
]
