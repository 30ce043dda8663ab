"""Longest substring without repeats."""

LEVEL = 2
STYLE = "function"
ENTRY = "longest_unique"

STATEMENT = """
Write `longest_unique(s)` that returns the length of the longest substring (contiguous
run) of `s` in which no character occurs twice.
"""

REFERENCE = r"""
def longest_unique(s):
    last = {}
    start = best = 0
    for i, c in enumerate(s):
        if c in last and last[c] >= start:
            start = last[c] + 1
        last[c] = i
        best = max(best, i - start + 1)
    return best
"""

WRONG = [
    r"""
def longest_unique(s):
    last = {}
    start = best = 0
    for i, c in enumerate(s):
        if c in last:
            start = last[c] + 1
        last[c] = i
        best = max(best, i - start + 1)
    return best
""",
]

PUBLIC = [
    ("longest_unique('abcabcbb')", 3),
    ("longest_unique('bbbbb')", 1),
]

HIDDEN = [
    ("longest_unique('')", 0),
    ("longest_unique('pwwkew')", 3),
    ("longest_unique('abba')", 2),
    ("longest_unique('tmmzuxt')", 5),
    ("longest_unique('a')", 1),
]

PERFORMANCE = [
    ("longest_unique('abcdefghijklmnopqrstuvwxyz' * 10000)", 26),
]
