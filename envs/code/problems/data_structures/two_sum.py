"""Two numbers with a given sum."""

LEVEL = 1
STYLE = "function"
ENTRY = "two_sum"

STATEMENT = """
Write `two_sum(nums, target)` that returns `[i, j]` with i < j and
nums[i] + nums[j] == target. Exactly one such pair exists. Lists hold up to 200000
numbers, so aim for linear time.
"""

REFERENCE = r"""
def two_sum(nums, target):
    seen = {}
    for j, x in enumerate(nums):
        if target - x in seen:
            return [seen[target - x], j]
        seen.setdefault(x, j)
"""

WRONG = [
    r"""
def two_sum(nums, target):
    index = {x: i for i, x in enumerate(nums)}
    for i, x in enumerate(nums):
        if target - x in index:
            return sorted([i, index[target - x]])
""",
]

PUBLIC = [
    ("two_sum([2, 7, 11, 15], 9)", [0, 1]),
    ("two_sum([3, 2, 4], 6)", [1, 2]),
]

HIDDEN = [
    ("two_sum([3, 3], 6)", [0, 1]),
    ("two_sum([1, 5, 3, 7], 8)", [1, 2]),
    ("two_sum([-1, -2, -3, -4, -5], -8)", [2, 4]),
    ("two_sum([0, 4, 3, 0], 0)", [0, 3]),
]

PERFORMANCE = [
    ("two_sum(list(range(0, 400000, 2)) + [1], 399999)", [199999, 200000]),
]
