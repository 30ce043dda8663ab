"""First unique character."""

LEVEL = 1
STYLE = "function"
ENTRY = "first_unique"

STATEMENT = """
Write `first_unique(s)` that returns the index of the first character of `s` that occurs
exactly once in `s`, or -1 when there is none.
"""

REFERENCE = r"""
from collections import Counter

def first_unique(s):
    counts = Counter(s)
    for i, c in enumerate(s):
        if counts[c] == 1:
            return i
    return -1
"""

WRONG = [
    r"""
def first_unique(s):
    for i, c in enumerate(s):
        if (i == 0 or s[i - 1] != c) and (i == len(s) - 1 or s[i + 1] != c):
            return i
    return -1
""",
]

PUBLIC = [
    ("first_unique('leetcode')", 0),
    ("first_unique('aabb')", -1),
]

HIDDEN = [
    ("first_unique('')", -1),
    ("first_unique('z')", 0),
    ("first_unique('abab')", -1),
    ("first_unique('loveleetcode')", 2),
    ("first_unique('aabbc')", 4),
]

PERFORMANCE = [
    ("first_unique('ab' * 200000 + 'c')", 400000),
]
