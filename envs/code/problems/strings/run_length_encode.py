"""Run-length encoding."""

LEVEL = 1
STYLE = "function"
ENTRY = "encode"

STATEMENT = """
Write `encode(s)` that replaces every maximal run of a repeated character by the character
followed by the run's length: `encode("aaabcc")` is `"a3b1c2"`. The empty string encodes
to the empty string.
"""

REFERENCE = r"""
def encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(s[i] + str(j - i))
        i = j
    return "".join(out)
"""

WRONG = [
    r"""
def encode(s):
    out = []
    count = 1
    for i in range(1, len(s)):
        if s[i] == s[i - 1]:
            count += 1
        else:
            out.append(s[i - 1] + str(count))
            count = 1
    return "".join(out)
""",
]

PUBLIC = [
    ("encode('aaabcc')", "a3b1c2"),
    ("encode('abc')", "a1b1c1"),
]

HIDDEN = [
    ("encode('')", ""),
    ("encode('a')", "a1"),
    ("encode('zzzzzzzzzzzz')", "z12"),
    ("encode('aabbaa')", "a2b2a2"),
    ("encode('  x')", " 2x1"),
]

PERFORMANCE = [
    ("len(encode('ab' * 200000))", 800000),
]
