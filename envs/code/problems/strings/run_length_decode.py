"""Run-length decoding."""

LEVEL = 2
STYLE = "function"
ENTRY = "decode"

STATEMENT = """
Write `decode(s)` that inverts run-length encoding: `s` is a sequence of pairs, each a
non-digit character followed by a positive decimal count (which may have several digits).
`decode("a3b12")` is `"aaa"` followed by twelve `"b"`. The empty string decodes to itself.
"""

REFERENCE = r"""
def decode(s):
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        j = i + 1
        while j < len(s) and s[j].isdigit():
            j += 1
        out.append(c * int(s[i + 1:j]))
        i = j
    return "".join(out)
"""

WRONG = [
    r"""
def decode(s):
    return "".join(s[i] * int(s[i + 1]) for i in range(0, len(s), 2))
""",
]

PUBLIC = [
    ("decode('a3b1c2')", "aaabcc"),
    ("decode('x1')", "x"),
]

HIDDEN = [
    ("decode('')", ""),
    ("decode('a10')", "aaaaaaaaaa"),
    ("decode('z2y12x1')", "zzyyyyyyyyyyyyx"),
    ("decode(' 3!2')", "   !!"),
    ("decode('q100')[:5]", "qqqqq"),
]

PERFORMANCE = [
    ("len(decode('a9b8' * 50000))", 850000),
]

EQUIVALENT_MUTANTS = {
    "constant:6:16:2": "every character is followed by a digit, which the loop passes anyway",
}
