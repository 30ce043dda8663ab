"""Flatten nested lists."""

LEVEL = 1
STYLE = "function"
ENTRY = "flatten"

STATEMENT = """
Write `flatten(items)` that returns the non-list elements of an arbitrarily nested list,
left to right, in one flat list.
"""

REFERENCE = r"""
def flatten(items):
    out, stack = [], [iter(items)]
    while stack:
        for x in stack[-1]:
            if isinstance(x, list):
                stack.append(iter(x))
                break
            out.append(x)
        else:
            stack.pop()
    return out
"""

WRONG = [
    r"""
def flatten(items):
    out = []
    for x in items:
        if isinstance(x, list):
            out.extend(x)
        else:
            out.append(x)
    return out
""",
]

PUBLIC = [
    ("flatten([1, [2, 3], [[4]], 5])", [1, 2, 3, 4, 5]),
    ("flatten([])", []),
]

HIDDEN = [
    ("flatten([[], [[]]])", []),
    ("flatten([[1, [2, [3, [4]]]]])", [1, 2, 3, 4]),
    ("flatten(['a', ['b', ['c']]])", ["a", "b", "c"]),
    ("flatten([0, [None], [[False]]])", [0, None, False]),
]

PERFORMANCE = [
    ("sum(flatten([[i, [i + 1, [i + 2]]] for i in range(50000)]))", 3750075000),
]
