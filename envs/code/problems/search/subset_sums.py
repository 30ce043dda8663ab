"""Count subsets with a given sum."""

LEVEL = 2
STYLE = "function"
ENTRY = "count_subsets"

STATEMENT = """
Write `count_subsets(nums, target)` that returns how many subsets of the positions of
`nums` (up to 20 integers, possibly negative or repeated) have elements summing to
`target`. The empty subset has sum 0.
"""

REFERENCE = r"""
def count_subsets(nums, target):
    sums = {0: 1}
    for x in nums:
        nxt = dict(sums)
        for s, c in sums.items():
            nxt[s + x] = nxt.get(s + x, 0) + c
        sums = nxt
    return sums.get(target, 0)
"""

WRONG = [
    r"""
from itertools import combinations

def count_subsets(nums, target):
    sizes = range(1, len(nums) + 1)
    return sum(1 for r in sizes for c in combinations(nums, r) if sum(c) == target)
""",
]

PUBLIC = [
    ("count_subsets([1, 2, 3], 3)", 2),
    ("count_subsets([1, 1, 1], 2)", 3),
]

HIDDEN = [
    ("count_subsets([], 0)", 1),
    ("count_subsets([5], 0)", 1),
    ("count_subsets([-1, 1], 0)", 2),
    ("count_subsets([2, 4, 6], 5)", 0),
]

PERFORMANCE = [
    ("count_subsets(list(range(1, 21)), 105)", 15272),
]
