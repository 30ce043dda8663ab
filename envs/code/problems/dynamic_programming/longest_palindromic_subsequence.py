"""Longest palindromic subsequence."""

LEVEL = 3
STYLE = "function"
ENTRY = "lps"

STATEMENT = """
Write `lps(s)` that returns the length of the longest subsequence of `s` (characters in
order, not necessarily adjacent) that reads the same forwards and backwards. Strings have
up to 800 characters.
"""

REFERENCE = r"""
def lps(s):
    n = len(s)
    if n == 0:
        return 0
    dp = [0] * n
    for i in range(n - 1, -1, -1):
        new = [0] * n
        new[i] = 1
        for j in range(i + 1, n):
            new[j] = dp[j - 1] + 2 if s[i] == s[j] else max(dp[j], new[j - 1])
        dp = new
    return dp[n - 1]
"""

WRONG = [
    r"""
def lps(s):
    best = 0
    for center in range(2 * len(s) - 1):
        lo, hi = center // 2, center // 2 + center % 2
        while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        best = max(best, hi - lo - 1)
    return best
""",
]

PUBLIC = [
    ("lps('bbbab')", 4),
    ("lps('cbbd')", 2),
]

HIDDEN = [
    ("lps('')", 0),
    ("lps('a')", 1),
    ("lps('abcd')", 1),
    ("lps('agbdba')", 5),
    ("lps('character')", 5),
]

PERFORMANCE = [
    ("lps(('abcdefgh' * 100)[:700])", 175),
]

EQUIVALENT_MUTANTS = {
    "delete:5:4:pass": "the first row (i = n - 1) reads no dp entry before dp = new",
    "constant:5:10:1": "the first row (i = n - 1) reads no dp entry before dp = new",
    "constant:5:10:-1": "the first row (i = n - 1) reads no dp entry before dp = new",
}
