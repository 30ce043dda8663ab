"""Balanced brackets."""

LEVEL = 2
STYLE = "function"
ENTRY = "is_balanced"

STATEMENT = """
Write `is_balanced(s)` for a string `s` of the characters `()[]{}`. Return True when every
opening bracket is closed by the same kind of bracket in the right order, and False
otherwise. The empty string is balanced.
"""

REFERENCE = r"""
def is_balanced(s):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for c in s:
        if c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False
        else:
            stack.append(c)
    return not stack
"""

WRONG = [
    r"""
def is_balanced(s):
    return all(s.count(a) == s.count(b) for a, b in ("()", "[]", "{}"))
""",
]

PUBLIC = [
    ("is_balanced('()[]{}')", True),
    ("is_balanced('(]')", False),
]

HIDDEN = [
    ("is_balanced('')", True),
    ("is_balanced('([)]')", False),
    ("is_balanced('{[]}')", True),
    ("is_balanced(')(')", False),
    ("is_balanced('((')", False),
    ("is_balanced('[({})]')", True),
]

PERFORMANCE = [
    ("is_balanced('([{' * 100000 + '}])' * 100000)", True),
]
