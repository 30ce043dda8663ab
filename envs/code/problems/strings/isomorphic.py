"""Isomorphic strings."""

LEVEL = 2
STYLE = "function"
ENTRY = "isomorphic"

STATEMENT = """
Write `isomorphic(s, t)` that returns True when the characters of `s` can be replaced to
get `t`: every occurrence of a character is replaced by the same character, and no two
different characters are replaced by the same one. `s` and `t` may differ in length.
"""

REFERENCE = r"""
def isomorphic(s, t):
    if len(s) != len(t):
        return False
    forward, backward = {}, {}
    for a, b in zip(s, t):
        if forward.setdefault(a, b) != b or backward.setdefault(b, a) != a:
            return False
    return True
"""

WRONG = [
    r"""
def isomorphic(s, t):
    if len(s) != len(t):
        return False
    forward = {}
    for a, b in zip(s, t):
        if forward.setdefault(a, b) != b:
            return False
    return True
""",
]

PUBLIC = [
    ("isomorphic('egg', 'add')", True),
    ("isomorphic('foo', 'bar')", False),
]

HIDDEN = [
    ("isomorphic('badc', 'baba')", False),
    ("isomorphic('', '')", True),
    ("isomorphic('ab', 'a')", False),
    ("isomorphic('paper', 'title')", True),
    ("isomorphic('ab', 'aa')", False),
]

PERFORMANCE = [
    ("isomorphic('abcdefghij' * 30000, 'bcdefghija' * 30000)", True),
]
