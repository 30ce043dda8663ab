"""Pattern matching with . and *."""

LEVEL = 3
STYLE = "function"
ENTRY = "matches"

STATEMENT = """
Write `matches(text, pattern)` that returns True when `pattern` matches the whole of
`text`. In the pattern, `.` matches any single character and `x*` matches zero or more
repetitions of the preceding element `x` (a letter or `.`); every other character matches
itself. The pattern is well formed (no `*` at its start, no `**`).
"""

REFERENCE = r"""
from functools import lru_cache

def matches(text, pattern):
    @lru_cache(maxsize=None)
    def match(i, j):
        if j == len(pattern):
            return i == len(text)
        first = i < len(text) and pattern[j] in (text[i], ".")
        if j + 1 < len(pattern) and pattern[j + 1] == "*":
            return match(i, j + 2) or (first and match(i + 1, j))
        return first and match(i + 1, j + 1)
    return match(0, 0)
"""

WRONG = [
    r"""
def matches(text, pattern):
    i = j = 0
    while j < len(pattern):
        if j + 1 < len(pattern) and pattern[j + 1] == "*":
            while i < len(text) and pattern[j] in (text[i], "."):
                i += 1
            j += 2
        else:
            if i >= len(text) or pattern[j] not in (text[i], "."):
                return False
            i += 1
            j += 1
    return i == len(text)
""",
]

PUBLIC = [
    ("matches('aa', 'a')", False),
    ("matches('aa', 'a*')", True),
]

HIDDEN = [
    ("matches('ab', '.*')", True),
    ("matches('aab', 'c*a*b')", True),
    ("matches('mississippi', 'mis*is*p*.')", False),
    ("matches('aaa', 'a*a')", True),
    ("matches('', 'a*b*')", True),
    ("matches('ab', '.*c')", False),
]

PERFORMANCE = [
    ("matches('a' * 300 + 'b', 'a*' * 20 + 'a*c')", False),
]

HIDDEN_V1 = [
    ("matches('abc', '.*')", True),
    ("matches('aaa', 'a*')", True),
]
