"""Add two binary strings."""

LEVEL = 1
STYLE = "function"
ENTRY = "add_binary"

STATEMENT = """
Write `add_binary(a, b)` that returns the sum of two non-negative binary numbers given as
strings of 0s and 1s (without leading zeros unless the number is 0), as a binary string
without leading zeros. Do not convert the whole strings with `int`.
"""

REFERENCE = r"""
def add_binary(a, b):
    i, j, carry = len(a) - 1, len(b) - 1, 0
    out = []
    while i >= 0 or j >= 0 or carry:
        total = carry + (a[i] == "1" if i >= 0 else 0) + (b[j] == "1" if j >= 0 else 0)
        out.append("1" if total % 2 else "0")
        carry = total // 2
        i -= 1
        j -= 1
    result = "".join(reversed(out)).lstrip("0")
    return result or "0"
"""

WRONG = [
    r"""
def add_binary(a, b):
    i, j, carry = len(a) - 1, len(b) - 1, 0
    out = []
    while i >= 0 or j >= 0:
        total = carry + (a[i] == "1" if i >= 0 else 0) + (b[j] == "1" if j >= 0 else 0)
        out.append("1" if total % 2 else "0")
        carry = total // 2
        i -= 1
        j -= 1
    result = "".join(reversed(out)).lstrip("0")
    return result or "0"
""",
]

PUBLIC = [
    ("add_binary('11', '1')", "100"),
    ("add_binary('1010', '1011')", "10101"),
]

HIDDEN = [
    ("add_binary('0', '0')", "0"),
    ("add_binary('1', '0')", "1"),
    ("add_binary('1', '1')", "10"),
    ("add_binary('1111', '1')", "10000"),
    ("add_binary('100', '11')", "111"),
]

PERFORMANCE = [
    ("len(add_binary('1' * 300000, '1'))", 300001),
]

HIDDEN_V1 = [
    ("add_binary('1', '10')", "11"),
    ("add_binary('1', '111')", "1000"),
]

EQUIVALENT_MUTANTS = {
    "constant:4:15:-1": "a pass with i == -1 only adds a leading 0, which lstrip removes",
    "constant:4:25:-1": "a pass with j == -1 only adds a leading 0, which lstrip removes",
}
