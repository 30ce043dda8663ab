"""Subsequence test."""

LEVEL = 1
STYLE = "function"
ENTRY = "is_subsequence"

STATEMENT = """
Write `is_subsequence(s, t)` that returns True when `s` can be obtained from `t` by
deleting zero or more characters without reordering the rest, and False otherwise.
"""

REFERENCE = r"""
def is_subsequence(s, t):
    i = 0
    for c in t:
        if i < len(s) and s[i] == c:
            i += 1
    return i == len(s)
"""

WRONG = [
    r"""
def is_subsequence(s, t):
    return all(c in t for c in s)
""",
]

PUBLIC = [
    ("is_subsequence('abc', 'ahbgdc')", True),
    ("is_subsequence('axc', 'ahbgdc')", False),
]

HIDDEN = [
    ("is_subsequence('', 'abc')", True),
    ("is_subsequence('', '')", True),
    ("is_subsequence('a', '')", False),
    ("is_subsequence('ba', 'ab')", False),
    ("is_subsequence('aa', 'a')", False),
    ("is_subsequence('ace', 'abcde')", True),
]

PERFORMANCE = [
    ("is_subsequence('ab' * 50000, 'aab' * 100000)", True),
]
