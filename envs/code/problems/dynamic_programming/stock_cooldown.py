"""Stock trading with a cooldown."""

LEVEL = 3
STYLE = "function"
ENTRY = "max_profit"

STATEMENT = """
`prices[i]` is a stock's price on day i. You may buy and sell any number of times, holding
at most one share, but after selling you must wait one day before buying again. Write
`max_profit(prices)` that returns the largest total profit.
"""

REFERENCE = r"""
def max_profit(prices):
    hold, sold, rest = float("-inf"), 0, 0
    for p in prices:
        hold, sold, rest = max(hold, rest - p), hold + p, max(rest, sold)
    return max(sold, rest)
"""

WRONG = [
    r"""
def max_profit(prices):
    return sum(max(0, prices[i + 1] - prices[i]) for i in range(len(prices) - 1))
""",
]

PUBLIC = [
    ("max_profit([1, 2, 3, 0, 2])", 3),
    ("max_profit([1])", 0),
]

HIDDEN = [
    ("max_profit([])", 0),
    ("max_profit([5, 4, 3])", 0),
    ("max_profit([1, 2, 4])", 3),
    ("max_profit([1, 4, 2, 7])", 6),
    ("max_profit([6, 1, 6, 4, 3, 0, 2])", 7),
]

PERFORMANCE = [
    ("max_profit([(i * 7919) % 1000 for i in range(300000)])", 22331700),
]

EQUIVALENT_MUTANTS = {
    "constant:2:38:-1": "sold's start only meets max(rest, sold) beside rest = 0",
}
