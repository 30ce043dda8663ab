"""Count binary search trees."""

LEVEL = 1
STYLE = "function"
ENTRY = "count_trees"

STATEMENT = """
Write `count_trees(n)` that returns the number of structurally different binary search
trees that store the keys 1..n (0 <= n <= 500; one tree for n = 0).
"""

REFERENCE = r"""
def count_trees(n):
    trees = [1] + [0] * n
    for size in range(1, n + 1):
        trees[size] = sum(trees[left] * trees[size - 1 - left] for left in range(size))
    return trees[n]
"""

WRONG = [
    r"""
from math import comb

def count_trees(n):
    return comb(2 * n, n) // max(n, 1)
""",
]

PUBLIC = [
    ("count_trees(3)", 5),
    ("count_trees(1)", 1),
]

HIDDEN = [
    ("count_trees(0)", 1),
    ("count_trees(2)", 2),
    ("count_trees(4)", 14),
    ("count_trees(10)", 16796),
]

PERFORMANCE = [
    ("count_trees(500) % 1000000007", 591137401),
]

EQUIVALENT_MUTANTS = {
    "constant:2:19:1": "every entry past 0 is assigned before it is read",
    "constant:2:19:-1": "every entry past 0 is assigned before it is read",
    "bound:4:81:+1": "the extra term multiplies trees[size], still 0 while its sum is taken",
}
