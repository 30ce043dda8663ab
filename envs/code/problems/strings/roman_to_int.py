"""Roman numerals to integers."""

LEVEL = 1
STYLE = "function"
ENTRY = "roman_to_int"

STATEMENT = """
Write `roman_to_int(s)` that converts a valid Roman numeral from 1 to 3999 (letters
I V X L C D M, with the subtractive forms IV, IX, XL, XC, CD, CM) to an integer.
"""

REFERENCE = r"""
def roman_to_int(s):
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for i, c in enumerate(s):
        if i + 1 < len(s) and values[c] < values[s[i + 1]]:
            total -= values[c]
        else:
            total += values[c]
    return total
"""

WRONG = [
    r"""
def roman_to_int(s):
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    return sum(values[c] for c in s)
""",
]

PUBLIC = [
    ("roman_to_int('III')", 3),
    ("roman_to_int('LVIII')", 58),
]

HIDDEN = [
    ("roman_to_int('IV')", 4),
    ("roman_to_int('MCMXCIV')", 1994),
    ("roman_to_int('MMMCMXCIX')", 3999),
    ("roman_to_int('I')", 1),
    ("roman_to_int('XLIX')", 49),
]

PERFORMANCE = [
    ("sum(roman_to_int(r) for r in ['MMMDCCCLXXXVIII', 'MCMXCIV', 'CDXLIV'] * 30000)", 189780000),
]
