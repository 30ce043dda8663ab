"""Egg drop."""

LEVEL = 3
STYLE = "function"
ENTRY = "min_drops"

STATEMENT = """
With `eggs` identical eggs and a building of `floors` floors, find the least number of
drops that always determines the highest safe floor in the worst case (an egg that breaks
cannot be reused; one that survives can). Write `min_drops(eggs, floors)` for
1 <= eggs <= 100 and 0 <= floors <= 10^9.
"""

REFERENCE = r"""
def min_drops(eggs, floors):
    covered = [0] * (eggs + 1)
    drops = 0
    while covered[eggs] < floors:
        drops += 1
        for e in range(eggs, 0, -1):
            covered[e] = covered[e] + covered[e - 1] + 1
    return drops
"""

WRONG = [
    r"""
def min_drops(eggs, floors):
    drops = 0
    while (1 << drops) <= floors:
        drops += 1
    return drops
""",
]

PUBLIC = [
    ("min_drops(1, 2)", 2),
    ("min_drops(2, 6)", 3),
]

HIDDEN = [
    ("min_drops(1, 0)", 0),
    ("min_drops(2, 100)", 14),
    ("min_drops(3, 14)", 4),
    ("min_drops(1, 10)", 10),
    ("min_drops(100, 1000000000)", 30),
]

PERFORMANCE = [
    ("min_drops(2, 10**9) + min_drops(3, 10**9)", 46539),
]

EQUIVALENT_MUTANTS = {
    "constant:2:28:2": "an extra slot past eggs is never read",
}
