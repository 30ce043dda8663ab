"""Palindrome after cleaning."""

LEVEL = 1
STYLE = "function"
ENTRY = "is_palindrome"

STATEMENT = """
Write `is_palindrome(s)` that returns True when `s` reads the same forwards and backwards
after removing every character that is not a letter or a digit and ignoring letter case,
and False otherwise. The empty string is a palindrome.
"""

REFERENCE = r"""
def is_palindrome(s):
    kept = [c.lower() for c in s if c.isalnum()]
    return kept == kept[::-1]
"""

WRONG = [
    r"""
def is_palindrome(s):
    kept = [c for c in s if c.isalnum()]
    return kept == kept[::-1]
""",
]

PUBLIC = [
    ("is_palindrome('A man, a plan, a canal: Panama')", True),
    ("is_palindrome('race a car')", False),
]

HIDDEN = [
    ("is_palindrome('')", True),
    ("is_palindrome('.,')", True),
    ("is_palindrome('Aa')", True),
    ("is_palindrome('0P')", False),
    ("is_palindrome('No lemon, no melon')", True),
    ("is_palindrome('ab2a')", False),
]

PERFORMANCE = [
    ("is_palindrome('Ab,' * 100000 + ',bA' * 100000)", True),
]
