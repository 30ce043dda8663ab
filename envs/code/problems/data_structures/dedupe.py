"""Remove duplicates, keep order."""

LEVEL = 1
STYLE = "function"
ENTRY = "dedupe"

STATEMENT = """
Write `dedupe(items)` that returns the list without repeated values, keeping the first
occurrence of each value in its original position order.
"""

REFERENCE = r"""
def dedupe(items):
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
"""

WRONG = [
    r"""
def dedupe(items):
    return sorted(set(items))
""",
]

PUBLIC = [
    ("dedupe([1, 2, 1, 3, 2])", [1, 2, 3]),
    ("dedupe([])", []),
]

HIDDEN = [
    ("dedupe([3, 2, 1])", [3, 2, 1]),
    ("dedupe(['b', 'a', 'b'])", ["b", "a"]),
    ("dedupe([5, 5, 5])", [5]),
    ("dedupe([2, -1, 2, -1, 0])", [2, -1, 0]),
]

PERFORMANCE = [
    ("sum(dedupe([(i * 7919) % 50021 for i in range(300000)])[:1000])", 24990362),
]
