"""Cutting a rod for profit."""

LEVEL = 2
STYLE = "function"
ENTRY = "best_price"

STATEMENT = """
`prices[i]` is the price of a rod piece of length i + 1. Write `best_price(prices, n)`
that returns the most money obtainable by cutting a rod of length n (0 <= n <= 5000) into
pieces of lengths 1..len(prices) and selling them (leftover length is not allowed).
"""

REFERENCE = r"""
def best_price(prices, n):
    best = [0] + [-1] * n
    for length in range(1, n + 1):
        for piece in range(1, min(length, len(prices)) + 1):
            if best[length - piece] >= 0:
                best[length] = max(best[length], best[length - piece] + prices[piece - 1])
    return best[n]
"""

WRONG = [
    r"""
def best_price(prices, n):
    best = 0
    for piece in range(1, min(n, len(prices)) + 1):
        if n % piece == 0:
            best = max(best, prices[piece - 1] * (n // piece))
    return best
""",
]

PUBLIC = [
    ("best_price([1, 5, 8, 9, 10, 17, 17, 20], 8)", 22),
    ("best_price([3, 5, 8, 9, 10, 17, 17, 20], 8)", 24),
]

HIDDEN = [
    ("best_price([2], 0)", 0),
    ("best_price([2], 3)", 6),
    ("best_price([1, 5], 5)", 11),
    ("best_price([0, 0, 10], 4)", 10),
]

PERFORMANCE = [
    ("best_price([(i * 7919) % 100 + i for i in range(100)], 5000)", 83320),
]

EQUIVALENT_MUTANTS = {
    "constant:2:19:2": "prices is non-empty, so every length is reachable and no sentinel shows",
    "constant:2:19:0": "prices is non-empty, so every length is reachable with a value >= 0",
    "constant:3:24:0": "length 0 has no piece to try",
    "constant:4:27:0": "piece 0 comes first, while best[length] is still -1, so it is skipped",
    "constant:5:39:-1": "prices is non-empty, so no reachable length holds -1",
}
