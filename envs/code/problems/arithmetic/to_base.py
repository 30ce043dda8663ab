"""Write an integer in another base."""

LEVEL = 1
STYLE = "function"
ENTRY = "to_base"

STATEMENT = """
Write `to_base(n, b)` that writes the integer `n` in base `b` (2 <= b <= 36) using the
digits 0-9 then lower-case letters a-z, with a leading `-` for negative numbers. Zero is
`"0"`.
"""

REFERENCE = r"""
def to_base(n, b):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, r = divmod(n, b)
        out.append(digits[r])
    return sign + "".join(reversed(out))
"""

WRONG = [
    r"""
def to_base(n, b):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, r = divmod(n, b)
        out.append(digits[r])
    return sign + "".join(reversed(out))
""",
]

PUBLIC = [
    ("to_base(10, 2)", "1010"),
    ("to_base(255, 16)", "ff"),
]

HIDDEN = [
    ("to_base(0, 7)", "0"),
    ("to_base(-255, 16)", "-ff"),
    ("to_base(35, 36)", "z"),
    ("to_base(1, 2)", "1"),
    ("to_base(123456789, 36)", "21i3v9"),
]

PERFORMANCE = [
    ("len(to_base(7 ** 8000, 3))", 14170),
]

HIDDEN_V1 = [
    ("to_base(-1, 2)", "-1"),
    ("to_base(-1, 36)", "-1"),
]

EQUIVALENT_MUTANTS = {
    "compare:5:22:<=": "n == 0 returned earlier",
    "constant:5:22:1": "n == 0 returned earlier, and n < 1 is n <= 0 on integers",
}
