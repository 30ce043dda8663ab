"""Largest rectangle in a histogram."""

LEVEL = 3
STYLE = "function"
ENTRY = "largest_rectangle"

STATEMENT = """
Write `largest_rectangle(heights)` that returns the area of the largest axis-aligned
rectangle inside a histogram whose bars have width 1 and the given non-negative heights.
Histograms have up to 200000 bars.
"""

REFERENCE = r"""
def largest_rectangle(heights):
    stack, best = [], 0
    for i, h in enumerate(heights + [0]):
        start = i
        while stack and stack[-1][1] >= h:
            start, height = stack.pop()
            best = max(best, height * (i - start))
        stack.append((start, h))
    return best
"""

WRONG = [
    r"""
def largest_rectangle(heights):
    stack, best = [], 0
    for i, h in enumerate(heights):
        start = i
        while stack and stack[-1][1] >= h:
            start, height = stack.pop()
            best = max(best, height * (i - start))
        stack.append((start, h))
    return best
""",
]

PUBLIC = [
    ("largest_rectangle([2, 1, 5, 6, 2, 3])", 10),
    ("largest_rectangle([2, 4])", 4),
]

HIDDEN = [
    ("largest_rectangle([])", 0),
    ("largest_rectangle([0])", 0),
    ("largest_rectangle([3, 3, 3])", 9),
    ("largest_rectangle([1, 2, 3, 4, 5])", 9),
    ("largest_rectangle([6, 2, 5, 4, 5, 1, 6])", 12),
]

PERFORMANCE = [
    ("largest_rectangle([(i * 7919) % 10007 for i in range(200000)])", 29230),
]

EQUIVALENT_MUTANTS = {
    "constant:3:37:1": "bars of height 0 left on the stack have area 0; every other bar is popped",
    "constant:3:37:-1": "a sentinel below 0 pops every bar, as 0 does",
    "compare:5:40:>": "an equal bar left on the stack is popped later with the earlier start",
}
