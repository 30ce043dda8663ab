"""Merge overlapping intervals."""

LEVEL = 2
STYLE = "function"
ENTRY = "merge"

STATEMENT = """
Write `merge(intervals)` that merges a list of closed intervals `[start, end]` (start <=
end, in any order) and returns the merged intervals sorted by start. Intervals that touch
(`[1, 2]` and `[2, 3]`) merge.
"""

REFERENCE = r"""
def merge(intervals):
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out
"""

WRONG = [
    r"""
def merge(intervals):
    out = []
    for start, end in intervals:
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out
""",
]

PUBLIC = [
    ("merge([[1, 3], [2, 6], [8, 10], [15, 18]])", [[1, 6], [8, 10], [15, 18]]),
    ("merge([[1, 4], [4, 5]])", [[1, 5]]),
]

HIDDEN = [
    ("merge([])", []),
    ("merge([[5, 6], [1, 2]])", [[1, 2], [5, 6]]),
    ("merge([[1, 10], [2, 3], [4, 5]])", [[1, 10]]),
    ("merge([[3, 3], [1, 2], [2, 3]])", [[1, 3]]),
    ("merge([[0, 0]])", [[0, 0]]),
]

PERFORMANCE = [
    ("len(merge([[x, x + 3] for x in range(0, 600000, 5)]))", 120000),
]

HIDDEN_V1 = [
    ("merge([[1, 2], [4, 6], [5, 7]])", [[1, 2], [4, 7]]),
    ("merge([[1, 2], [4, 10], [5, 6]])", [[1, 2], [4, 10]]),
]
