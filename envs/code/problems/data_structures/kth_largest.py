"""K-th largest element."""

LEVEL = 2
STYLE = "function"
ENTRY = "kth_largest"

STATEMENT = """
Write `kth_largest(nums, k)` that returns the k-th largest element of `nums`, counting
duplicates (`kth_largest([3, 3, 1], 2)` is 3). 1 <= k <= len(nums) <= 300000.
"""

REFERENCE = r"""
import heapq

def kth_largest(nums, k):
    return heapq.nlargest(k, nums)[-1]
"""

WRONG = [
    r"""
def kth_largest(nums, k):
    return sorted(set(nums), reverse=True)[k - 1]
""",
]

PUBLIC = [
    ("kth_largest([3, 2, 1, 5, 6, 4], 2)", 5),
    ("kth_largest([3, 2, 3, 1, 2, 4, 5, 5, 6], 4)", 4),
]

HIDDEN = [
    ("kth_largest([1], 1)", 1),
    ("kth_largest([3, 3, 1], 2)", 3),
    ("kth_largest([-1, -2], 2)", -2),
    ("kth_largest([7, 7, 7], 3)", 7),
]

PERFORMANCE = [
    ("kth_largest([(i * 7919) % 100003 for i in range(300000)], 1000)", 99669),
]
