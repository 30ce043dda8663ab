"""Fewest coins."""

LEVEL = 2
STYLE = "function"
ENTRY = "min_coins"

STATEMENT = """
Write `min_coins(coins, amount)` that returns the fewest coins (of the given positive
denominations, each usable any number of times) summing to `amount`, or -1 if impossible
(0 <= amount <= 10^5).
"""

REFERENCE = r"""
def min_coins(coins, amount):
    best = [0] + [amount + 1] * amount
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and best[a - c] + 1 < best[a]:
                best[a] = best[a - c] + 1
    return best[amount] if best[amount] <= amount else -1
"""

WRONG = [
    r"""
def min_coins(coins, amount):
    count = 0
    for c in sorted(coins, reverse=True):
        count += amount // c
        amount %= c
    return count if amount == 0 else -1
""",
]

PUBLIC = [
    ("min_coins([1, 2, 5], 11)", 3),
    ("min_coins([2], 3)", -1),
]

HIDDEN = [
    ("min_coins([1], 0)", 0),
    ("min_coins([1, 3, 4], 6)", 2),
    ("min_coins([5, 7], 1)", -1),
    ("min_coins([9, 6, 5, 1], 11)", 2),
    ("min_coins([2, 5], 3)", -1),
]

PERFORMANCE = [
    ("min_coins([7, 13, 29, 31, 53], 50000)", 946),
]

HIDDEN_V1 = [
    ("min_coins([1, 3, 4], 2)", 2),
    ("min_coins([2, 1], 1)", 1),
]

EQUIVALENT_MUTANTS = {
    "constant:2:27:2": "any sentinel above amount marks an amount unreachable the same way",
    "constant:3:19:0": "a = 0 changes nothing: every coin is positive",
    "constant:5:40:0": "the extra updates write best[a] with the value it already holds",
    "compare:5:44:<=": "the extra updates write best[a] with the value it already holds",
}
