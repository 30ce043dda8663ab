"""Longest common prefix."""

LEVEL = 1
STYLE = "function"
ENTRY = "common_prefix"

STATEMENT = """
Write `common_prefix(words)` that returns the longest string that is a prefix of every
string in the list `words`. For an empty list, return the empty string.
"""

REFERENCE = r"""
def common_prefix(words):
    if not words:
        return ""
    prefix = words[0]
    for w in words[1:]:
        i = 0
        while i < min(len(prefix), len(w)) and prefix[i] == w[i]:
            i += 1
        prefix = prefix[:i]
    return prefix
"""

WRONG = [
    r"""
def common_prefix(words):
    first, last = min(words), max(words)
    i = 0
    while i < len(first) and first[i] == last[i]:
        i += 1
    return first[:i]
""",
]

PUBLIC = [
    ("common_prefix(['flower', 'flow', 'flight'])", "fl"),
    ("common_prefix(['dog', 'racecar', 'car'])", ""),
]

HIDDEN = [
    ("common_prefix([])", ""),
    ("common_prefix(['alone'])", "alone"),
    ("common_prefix(['', 'abc'])", ""),
    ("common_prefix(['same', 'same'])", "same"),
    ("common_prefix(['prefix', 'pre'])", "pre"),
]

PERFORMANCE = [
    ("len(common_prefix(['x' * 500 + str(i) for i in range(1000)]))", 500),
]

EQUIVALENT_MUTANTS = {
    "constant:5:19:0": "comparing the prefix with words[0], itself, changes nothing",
}
