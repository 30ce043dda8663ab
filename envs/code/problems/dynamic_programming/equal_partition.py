"""Split into two equal sums."""

LEVEL = 2
STYLE = "function"
ENTRY = "can_partition"

STATEMENT = """
Write `can_partition(nums)` that returns True when the positive integers `nums` can be
split into two groups (every element in exactly one group) with equal sums. An empty list
can be split.
"""

REFERENCE = r"""
def can_partition(nums):
    total = sum(nums)
    if total % 2:
        return False
    reachable = 1
    for x in nums:
        reachable |= reachable << x
    return bool(reachable >> (total // 2) & 1)
"""

WRONG = [
    r"""
def can_partition(nums):
    return sum(nums) % 2 == 0
""",
]

PUBLIC = [
    ("can_partition([1, 5, 11, 5])", True),
    ("can_partition([1, 2, 3, 5])", False),
]

HIDDEN = [
    ("can_partition([])", True),
    ("can_partition([2])", False),
    ("can_partition([1, 1])", True),
    ("can_partition([3, 3, 4])", False),
    ("can_partition([2, 2, 3, 5])", False),
]

PERFORMANCE = [
    ("can_partition([(i * 7919) % 1000 + 1 for i in range(2000)])", True),
]
