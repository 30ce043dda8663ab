"""Longest valid parentheses."""

LEVEL = 3
STYLE = "function"
ENTRY = "longest_valid"

STATEMENT = """
Write `longest_valid(s)` that returns the length of the longest contiguous substring of
`s` (made of `(` and `)`) that is a balanced parentheses string.
"""

REFERENCE = r"""
def longest_valid(s):
    best = 0
    stack = [-1]
    for i, c in enumerate(s):
        if c == "(":
            stack.append(i)
        else:
            stack.pop()
            if stack:
                best = max(best, i - stack[-1])
            else:
                stack.append(i)
    return best
"""

WRONG = [
    r"""
def longest_valid(s):
    opened = pairs = 0
    for c in s:
        if c == "(":
            opened += 1
        elif opened:
            opened -= 1
            pairs += 1
    return 2 * pairs
""",
]

PUBLIC = [
    ("longest_valid('(()')", 2),
    ("longest_valid(')()())')", 4),
]

HIDDEN = [
    ("longest_valid('')", 0),
    ("longest_valid('()(()')", 2),
    ("longest_valid('(()())')", 6),
    ("longest_valid('))((')", 0),
    ("longest_valid('()(())')", 6),
]

PERFORMANCE = [
    ("longest_valid('(()' * 100000 + '()' * 50000)", 100002),
]
