"""Ways to make change."""

LEVEL = 2
STYLE = "function"
ENTRY = "count_ways"

STATEMENT = """
Write `count_ways(coins, amount)` that returns how many multisets of coins (distinct
positive denominations, unlimited supply) sum to `amount`; order does not matter, so
2+1 and 1+2 are the same way. There is one way to make 0.
"""

REFERENCE = r"""
def count_ways(coins, amount):
    ways = [1] + [0] * amount
    for c in coins:
        for a in range(c, amount + 1):
            ways[a] += ways[a - c]
    return ways[amount]
"""

WRONG = [
    r"""
def count_ways(coins, amount):
    ways = [1] + [0] * amount
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a:
                ways[a] += ways[a - c]
    return ways[amount]
""",
]

PUBLIC = [
    ("count_ways([1, 2, 5], 5)", 4),
    ("count_ways([2], 3)", 0),
]

HIDDEN = [
    ("count_ways([7], 0)", 1),
    ("count_ways([10], 10)", 1),
    ("count_ways([1, 2], 4)", 3),
    ("count_ways([3, 5, 7], 12)", 2),
]

PERFORMANCE = [
    ("count_ways([1, 2, 5, 10, 20, 50, 100, 200], 50000) % 1000000007", 521147692),
]
