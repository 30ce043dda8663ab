"""Minimum window substring."""

LEVEL = 3
STYLE = "function"
ENTRY = "min_window"

STATEMENT = """
Write `min_window(s, t)` that returns the shortest substring of `s` containing every
character of `t` with at least its multiplicity in `t`. If several are shortest, return the
leftmost; if there is none (or `t` is empty), return the empty string.
"""

REFERENCE = r"""
from collections import Counter

def min_window(s, t):
    if not t:
        return ""
    need = Counter(t)
    missing = len(t)
    left = 0
    best = (float("inf"), 0, 0)
    for right, c in enumerate(s, 1):
        if need[c] > 0:
            missing -= 1
        need[c] -= 1
        if missing == 0:
            while need[s[left]] < 0:
                need[s[left]] += 1
                left += 1
            if right - left < best[0]:
                best = (right - left, left, right)
            need[s[left]] += 1
            missing += 1
            left += 1
    return s[best[1]:best[2]] if best[0] != float("inf") else ""
"""

WRONG = [
    r"""
def min_window(s, t):
    need = set(t)
    best = ""
    for i in range(len(s)):
        seen = set()
        for j in range(i, len(s)):
            if s[j] in need:
                seen.add(s[j])
            if seen == need and need:
                if not best or j - i + 1 < len(best):
                    best = s[i:j + 1]
                break
    return best
""",
]

PUBLIC = [
    ("min_window('ADOBECODEBANC', 'ABC')", "BANC"),
    ("min_window('a', 'aa')", ""),
]

HIDDEN = [
    ("min_window('a', 'a')", "a"),
    ("min_window('aa', 'aa')", "aa"),
    ("min_window('abc', '')", ""),
    ("min_window('abcabdebac', 'cda')", "cabd"),
    ("min_window('xaabyab', 'aab')", "aab"),
    ("min_window('bba', 'ab')", "ba"),
]

PERFORMANCE = [
    ("len(min_window('ab' * 50000 + 'c' + 'ab' * 50000, 'cba'))", 3),
]

HIDDEN_V1 = [
    ("min_window('xaaybab', 'aab')", "aayb"),
    ("min_window('abcabdebacc', 'cda')", "cabd"),
]

EQUIVALENT_MUTANTS = {
    "constant:9:26:1": (
        "best's start and end are read only after a window replaced them ('' otherwise)"
    ),
    "constant:9:26:-1": (
        "best's start and end are read only after a window replaced them ('' otherwise)"
    ),
    "constant:9:29:1": (
        "best's start and end are read only after a window replaced them ('' otherwise)"
    ),
    "constant:9:29:-1": (
        "best's start and end are read only after a window replaced them ('' otherwise)"
    ),
    "constant:23:38:1": "with no window best is (inf, 0, 0), and s[0:0] is '' too",
    "constant:23:38:-1": "with no window best is (inf, 0, 0), and s[0:0] is '' too",
}
