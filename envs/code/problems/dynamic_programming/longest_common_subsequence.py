"""Longest common subsequence."""

LEVEL = 2
STYLE = "function"
ENTRY = "lcs"

STATEMENT = """
Write `lcs(a, b)` that returns the length of the longest common subsequence of the
strings `a` and `b` (characters in order, not necessarily adjacent). Strings have up to
1000 characters.
"""

REFERENCE = r"""
def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
"""

WRONG = [
    r"""
def lcs(a, b):
    best = 0
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            cur.append(prev[j] + 1 if ca == cb else 0)
        best = max(best, max(cur))
        prev = cur
    return best
""",
]

PUBLIC = [
    ("lcs('abcde', 'ace')", 3),
    ("lcs('abc', 'def')", 0),
]

HIDDEN = [
    ("lcs('', 'abc')", 0),
    ("lcs('abc', 'abc')", 3),
    ("lcs('axbycz', 'abc')", 3),
    ("lcs('aaaa', 'aa')", 2),
]

PERFORMANCE = [
    ("lcs(('abcde' * 140)[:700], ('aebdc' * 140)[:700])", 420),
]

EQUIVALENT_MUTANTS = {
    "constant:2:27:2": "the first row's extra entry is never read, and its last entry is 0 too",
}
