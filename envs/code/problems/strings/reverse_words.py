"""Reverse the words of a sentence."""

LEVEL = 1
STYLE = "function"
ENTRY = "reverse_words"

STATEMENT = """
Write `reverse_words(s)` that returns the words of the string `s` in reverse order, joined
by single spaces. A word is a maximal run of non-space characters; `s` may contain leading,
trailing or repeated spaces, which do not appear in the result.
"""

REFERENCE = r"""
def reverse_words(s):
    return " ".join(reversed(s.split()))
"""

WRONG = [
    r"""
def reverse_words(s):
    return " ".join(reversed(s.split(" ")))
""",
]

PUBLIC = [
    ("reverse_words('the sky is blue')", "blue is sky the"),
    ("reverse_words('hello')", "hello"),
]

HIDDEN = [
    ("reverse_words('  hello world  ')", "world hello"),
    ("reverse_words('')", ""),
    ("reverse_words('a  b   c')", "c b a"),
    ("reverse_words('   ')", ""),
    ("reverse_words('one two')", "two one"),
]

PERFORMANCE = [
    ("reverse_words('ab cd ' * 100000)[:11]", "cd ab cd ab"),
]
