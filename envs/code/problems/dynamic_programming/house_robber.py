"""Robbing houses on a street."""

LEVEL = 1
STYLE = "function"
ENTRY = "rob"

STATEMENT = """
Write `rob(values)` that returns the largest sum of values of houses that can be chosen
from the list with no two chosen houses adjacent (0 for an empty street).
"""

REFERENCE = r"""
def rob(values):
    take, skip = 0, 0
    for v in values:
        take, skip = skip + v, max(take, skip)
    return max(take, skip)
"""

WRONG = [
    r"""
def rob(values):
    return max(sum(values[0::2]), sum(values[1::2]))
""",
]

PUBLIC = [
    ("rob([1, 2, 3, 1])", 4),
    ("rob([2, 7, 9, 3, 1])", 12),
]

HIDDEN = [
    ("rob([])", 0),
    ("rob([5])", 5),
    ("rob([2, 1, 1, 2])", 4),
    ("rob([4, 1, 2, 7, 5, 3, 1])", 14),
]

PERFORMANCE = [
    ("rob([(i * 7919) % 1000 for i in range(300000)])", 80773200),
]

EQUIVALENT_MUTANTS = {
    "constant:2:17:-1": "take only reaches max(take, skip) beside skip = 0, so -1 never shows",
}
