"""Ways to decode digits."""

LEVEL = 2
STYLE = "function"
ENTRY = "num_decodings"

STATEMENT = """
Letters are encoded as numbers: A=1, B=2, ..., Z=26. Write `num_decodings(s)` that
returns the number of ways a non-empty digit string can be decoded back into letters
(a part may not start with 0, so "06" is not a letter). Return the count modulo
1000000007.
"""

REFERENCE = r"""
def num_decodings(s):
    mod = 1000000007
    prev, cur = 1, 1 if s[0] != "0" else 0
    for i in range(1, len(s)):
        nxt = cur if s[i] != "0" else 0
        if s[i - 1] == "1" or (s[i - 1] == "2" and s[i] <= "6"):
            nxt += prev
        prev, cur = cur, nxt % mod
    return cur
"""

WRONG = [
    r"""
def num_decodings(s):
    mod = 1000000007
    prev, cur = 1, 1
    for i in range(1, len(s)):
        nxt = cur
        if 10 <= int(s[i - 1:i + 1]) <= 26:
            nxt += prev
        prev, cur = cur, nxt % mod
    return cur
""",
]

PUBLIC = [
    ("num_decodings('12')", 2),
    ("num_decodings('226')", 3),
]

HIDDEN = [
    ("num_decodings('0')", 0),
    ("num_decodings('06')", 0),
    ("num_decodings('10')", 1),
    ("num_decodings('2101')", 1),
    ("num_decodings('27')", 1),
    ("num_decodings('1111111111')", 89),
]

PERFORMANCE = [
    ("num_decodings('12' * 100000)", 835799900),
]
