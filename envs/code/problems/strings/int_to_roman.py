"""Integers to Roman numerals."""

LEVEL = 2
STYLE = "function"
ENTRY = "int_to_roman"

STATEMENT = """
Write `int_to_roman(n)` that writes `n` (1 <= n <= 3999) as a Roman numeral, using the
subtractive forms IV, IX, XL, XC, CD and CM where they apply.
"""

REFERENCE = r"""
def int_to_roman(n):
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for value, letters in table:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)
"""

WRONG = [
    r"""
def int_to_roman(n):
    table = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]
    out = []
    for value, letters in table:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)
""",
]

PUBLIC = [
    ("int_to_roman(3)", "III"),
    ("int_to_roman(58)", "LVIII"),
]

HIDDEN = [
    ("int_to_roman(4)", "IV"),
    ("int_to_roman(1994)", "MCMXCIV"),
    ("int_to_roman(3999)", "MMMCMXCIX"),
    ("int_to_roman(1)", "I"),
    ("int_to_roman(944)", "CMXLIV"),
]

PERFORMANCE = [
    (
        "sum(len(int_to_roman(n)) for n in range(1, 4000)) + sum(len(int_to_roman(3888)) "
        "for _ in range(50000))",
        780000,
    ),
]
