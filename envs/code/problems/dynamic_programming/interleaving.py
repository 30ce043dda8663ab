"""Interleaving strings."""

LEVEL = 3
STYLE = "function"
ENTRY = "is_interleave"

STATEMENT = """
Write `is_interleave(a, b, c)` that returns True when `c` can be formed by merging the
characters of `a` and `b`, keeping the order of the characters within each of them.
Strings have up to 500 characters.
"""

REFERENCE = r"""
def is_interleave(a, b, c):
    if len(a) + len(b) != len(c):
        return False
    ok = [True] + [False] * len(b)
    for j in range(1, len(b) + 1):
        ok[j] = ok[j - 1] and b[j - 1] == c[j - 1]
    for i in range(1, len(a) + 1):
        ok[0] = ok[0] and a[i - 1] == c[i - 1]
        for j in range(1, len(b) + 1):
            ok[j] = (ok[j] and a[i - 1] == c[i + j - 1]) or (ok[j - 1] and b[j - 1] == c[i + j - 1])
    return ok[-1]
"""

WRONG = [
    r"""
def is_interleave(a, b, c):
    i = j = 0
    for ch in c:
        if i < len(a) and a[i] == ch:
            i += 1
        elif j < len(b) and b[j] == ch:
            j += 1
        else:
            return False
    return i == len(a) and j == len(b)
""",
]

PUBLIC = [
    ("is_interleave('aabcc', 'dbbca', 'aadbbcbcac')", True),
    ("is_interleave('aabcc', 'dbbca', 'aadbbbaccc')", False),
]

HIDDEN = [
    ("is_interleave('', '', '')", True),
    ("is_interleave('a', '', 'a')", True),
    ("is_interleave('ab', 'ac', 'acab')", True),
    ("is_interleave('abc', 'abd', 'abdabc')", True),
    ("is_interleave('a', 'b', 'a')", False),
]

PERFORMANCE = [
    ("is_interleave('ab' * 250, 'ba' * 250, 'abba' * 250)", True),
]

HIDDEN_V1 = [
    ("is_interleave('a', 'l', 'va')", False),
    ("is_interleave('vb', 'c', 'cab')", False),
    ("is_interleave('da', '', 'ca')", False),
    ("is_interleave('a', 'b', 'bb')", False),
]

EQUIVALENT_MUTANTS = {
    "constant:4:19:True": "every ok[j] past 0 is assigned before it is read",
}
