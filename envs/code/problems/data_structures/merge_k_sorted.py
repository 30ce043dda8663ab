"""Merge sorted lists."""

LEVEL = 2
STYLE = "function"
ENTRY = "merge_sorted"

STATEMENT = """
Write `merge_sorted(lists)` that merges a list of ascending lists (some possibly empty)
into one ascending list holding every element.
"""

REFERENCE = r"""
import heapq

def merge_sorted(lists):
    return list(heapq.merge(*lists))
"""

WRONG = [
    r"""
def merge_sorted(lists):
    out = []
    for part in sorted((p for p in lists if p), key=lambda p: p[0]):
        out.extend(part)
    return out
""",
]

PUBLIC = [
    ("merge_sorted([[1, 4, 5], [1, 3, 4], [2, 6]])", [1, 1, 2, 3, 4, 4, 5, 6]),
    ("merge_sorted([])", []),
]

HIDDEN = [
    ("merge_sorted([[], []])", []),
    ("merge_sorted([[1], []])", [1]),
    ("merge_sorted([[1, 10], [2, 3]])", [1, 2, 3, 10]),
    ("merge_sorted([[-5, 0], [-7, 8], [3]])", [-7, -5, 0, 3, 8]),
]

PERFORMANCE = [
    ("sum(merge_sorted([list(range(k, 300000, 100)) for k in range(100)])[::1000])", 44850000),
]
