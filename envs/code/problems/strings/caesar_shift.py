"""Caesar shift."""

LEVEL = 1
STYLE = "function"
ENTRY = "caesar_shift"

STATEMENT = """
Write `caesar_shift(text, k)` that shifts every letter of `text` by `k` places in the
alphabet, wrapping around (`'z'` shifted by 1 is `'a'`) and keeping its case. Other
characters are unchanged. `k` may be negative or larger than 26.
"""

REFERENCE = r"""
def caesar_shift(text, k):
    out = []
    for c in text:
        if "a" <= c <= "z":
            out.append(chr((ord(c) - 97 + k) % 26 + 97))
        elif "A" <= c <= "Z":
            out.append(chr((ord(c) - 65 + k) % 26 + 65))
        else:
            out.append(c)
    return "".join(out)
"""

WRONG = [
    r"""
def caesar_shift(text, k):
    out = []
    for c in text:
        if c.isalpha():
            out.append(chr((ord(c.lower()) - 97 + k) % 26 + 97))
        else:
            out.append(c)
    return "".join(out)
""",
]

PUBLIC = [
    ("caesar_shift('abc xyz', 3)", "def abc"),
    ("caesar_shift('Hello, World!', 1)", "Ifmmp, Xpsme!"),
]

HIDDEN = [
    ("caesar_shift('', 5)", ""),
    ("caesar_shift('ABC', -1)", "ZAB"),
    ("caesar_shift('Zebra', 52)", "Zebra"),
    ("caesar_shift('a1b2', 27)", "b1c2"),
    ("caesar_shift('MiXeD', -27)", "LhWdC"),
]

PERFORMANCE = [
    ("caesar_shift('Hello, World! ' * 20000, 7)[-20:]", "vysk! Olssv, Dvysk! "),
]

HIDDEN_V1 = [
    ("caesar_shift('Zoo', 1)", "App"),
]

EQUIVALENT_MUTANTS = {
    "arith:7:37:+": "65 + 65 = 130 is a multiple of 26, so the residue is the same",
}
