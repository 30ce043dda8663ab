"""Most frequent elements."""

LEVEL = 2
STYLE = "function"
ENTRY = "top_k"

STATEMENT = """
Write `top_k(nums, k)` that returns the k most frequent values of `nums`, ordered by
decreasing frequency and, for equal frequencies, by increasing value. If there are fewer
than k distinct values, return them all.
"""

REFERENCE = r"""
from collections import Counter

def top_k(nums, k):
    counts = Counter(nums)
    return sorted(counts, key=lambda x: (-counts[x], x))[:k]
"""

WRONG = [
    r"""
from collections import Counter

def top_k(nums, k):
    return [x for x, _ in Counter(nums).most_common(k)]
""",
]

PUBLIC = [
    ("top_k([1, 1, 1, 2, 2, 3], 2)", [1, 2]),
    ("top_k([1], 1)", [1]),
]

HIDDEN = [
    ("top_k([], 3)", []),
    ("top_k([5, 4, 4, 5, 6], 2)", [4, 5]),
    ("top_k([3, 1, 2], 5)", [1, 2, 3]),
    ("top_k([-1, -1, 2, 2, 0], 1)", [-1]),
]

PERFORMANCE = [
    ("top_k([(i * i) % 1009 for i in range(300000)], 5)", [1, 3, 4, 5, 6]),
]
