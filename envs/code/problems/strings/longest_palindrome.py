"""Longest palindromic substring."""

LEVEL = 3
STYLE = "function"
ENTRY = "longest_palindrome"

STATEMENT = """
Write `longest_palindrome(s)` that returns the length of the longest substring of `s` that
reads the same forwards and backwards (0 for the empty string).
"""

REFERENCE = r"""
def longest_palindrome(s):
    best = 0
    for center in range(2 * len(s) - 1):
        lo, hi = center // 2, center // 2 + center % 2
        while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        best = max(best, hi - lo - 1)
    return best
"""

WRONG = [
    r"""
def longest_palindrome(s):
    best = 0
    for center in range(len(s)):
        lo = hi = center
        while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        best = max(best, hi - lo - 1)
    return best
""",
]

PUBLIC = [
    ("longest_palindrome('babad')", 3),
    ("longest_palindrome('cbbd')", 2),
]

HIDDEN = [
    ("longest_palindrome('')", 0),
    ("longest_palindrome('a')", 1),
    ("longest_palindrome('abba')", 4),
    ("longest_palindrome('forgeeksskeegfor')", 10),
    ("longest_palindrome('abcd')", 1),
]

PERFORMANCE = [
    ("longest_palindrome('ab' * 400 + 'c' + 'ba' * 400)", 1601),
]

HIDDEN_V1 = [
    ("longest_palindrome('forgeecesskeegfor')", 3),
    ("longest_palindrome('aa')", 2),
    ("longest_palindrome('abbaaa')", 4),
]

EQUIVALENT_MUTANTS = {
    "bound:3:24:+1": "centres past the end of s match nothing",
    "constant:3:24:3": "centres past the end of s match nothing",
    "arith:3:37:+": "centres past the end of s match nothing",
    "constant:3:37:0": "centres past the end of s match nothing",
}
