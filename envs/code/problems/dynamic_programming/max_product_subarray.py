"""Maximum product subarray."""

LEVEL = 2
STYLE = "function"
ENTRY = "max_product"

STATEMENT = """
Write `max_product(nums)` that returns the largest product of a non-empty contiguous
subarray of the non-empty integer list `nums`.
"""

REFERENCE = r"""
def max_product(nums):
    best = high = low = nums[0]
    for x in nums[1:]:
        candidates = (x, high * x, low * x)
        high, low = max(candidates), min(candidates)
        best = max(best, high)
    return best
"""

WRONG = [
    r"""
def max_product(nums):
    best = current = nums[0]
    for x in nums[1:]:
        current = max(x, current * x)
        best = max(best, current)
    return best
""",
]

PUBLIC = [
    ("max_product([2, 3, -2, 4])", 6),
    ("max_product([-2, 0, -1])", 0),
]

HIDDEN = [
    ("max_product([-3])", -3),
    ("max_product([-2, 3, -4])", 24),
    ("max_product([0, 2])", 2),
    ("max_product([-1, -1, -1])", 1),
    ("max_product([2, -5, -2, -4, 3])", 24),
]

PERFORMANCE = [
    ("max_product([(i * 7919) % 7 - 3 for i in range(300000)]) % 1000000007", 18),
]
