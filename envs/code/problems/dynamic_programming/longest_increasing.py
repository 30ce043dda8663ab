"""Longest increasing subsequence."""

LEVEL = 2
STYLE = "function"
ENTRY = "lis_length"

STATEMENT = """
Write `lis_length(nums)` that returns the length of the longest strictly increasing
subsequence of `nums` (up to 200000 elements, so aim for n log n).
"""

REFERENCE = r"""
from bisect import bisect_left

def lis_length(nums):
    tails = []
    for x in nums:
        i = bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)
"""

WRONG = [
    r"""
from bisect import bisect_right

def lis_length(nums):
    tails = []
    for x in nums:
        i = bisect_right(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)
""",
]

PUBLIC = [
    ("lis_length([10, 9, 2, 5, 3, 7, 101, 18])", 4),
    ("lis_length([0, 1, 0, 3, 2, 3])", 4),
]

HIDDEN = [
    ("lis_length([])", 0),
    ("lis_length([7, 7, 7, 7])", 1),
    ("lis_length([5, 4, 3])", 1),
    ("lis_length([1, 2, 2, 3])", 3),
]

PERFORMANCE = [
    ("lis_length([(i * 7919) % 100003 for i in range(200000)])", 511),
]
