"""All permutations in order."""

LEVEL = 1
STYLE = "function"
ENTRY = "permutations"

STATEMENT = """
Write `permutations(nums)` that returns every ordering of the distinct integers `nums` as
a list of lists, in lexicographic order (comparing the orderings element by element).
"""

REFERENCE = r"""
from itertools import permutations as orderings

def permutations(nums):
    return [list(p) for p in orderings(sorted(nums))]
"""

WRONG = [
    r"""
from itertools import permutations as orderings

def permutations(nums):
    return [list(p) for p in orderings(nums)]
""",
]

PUBLIC = [
    ("permutations([1, 2, 3])", [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]),
    ("permutations([0, 1])", [[0, 1], [1, 0]]),
]

HIDDEN = [
    ("permutations([])", [[]]),
    ("permutations([5])", [[5]]),
    ("permutations([3, 1, 2])", [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]),
    ("permutations([2, -1])", [[-1, 2], [2, -1]]),
]

PERFORMANCE = [
    ("len(permutations([7, 2, 5, 1, 6, 3, 4, 0]))", 40320),
]
