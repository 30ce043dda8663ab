"""Phone keypad letter combinations."""

LEVEL = 1
STYLE = "function"
ENTRY = "letter_combinations"

STATEMENT = """
On a phone keypad 2=abc, 3=def, 4=ghi, 5=jkl, 6=mno, 7=pqrs, 8=tuv, 9=wxyz. Write
`letter_combinations(digits)` that returns every string of letters the digits (2-9) can
stand for, in lexicographic order. An empty input has no combinations (an empty list).
"""

REFERENCE = r"""
from itertools import product

def letter_combinations(digits):
    if not digits:
        return []
    keys = dict(zip("23456789", ["abc", "def", "ghi", "jkl", "mno", "pqrs", "tuv", "wxyz"]))
    return ["".join(p) for p in product(*(keys[d] for d in digits))]
"""

WRONG = [
    r"""
from itertools import product

def letter_combinations(digits):
    keys = dict(zip("23456789", ["abc", "def", "ghi", "jkl", "mno", "pqrs", "tuv", "wxyz"]))
    return ["".join(p) for p in product(*(keys[d] for d in digits))]
""",
]

PUBLIC = [
    ("letter_combinations('23')", ["ad", "ae", "af", "bd", "be", "bf", "cd", "ce", "cf"]),
    ("letter_combinations('2')", ["a", "b", "c"]),
]

HIDDEN = [
    ("letter_combinations('')", []),
    ("letter_combinations('7')", ["p", "q", "r", "s"]),
    (
        "letter_combinations('79')",
        [
            "pw",
            "px",
            "py",
            "pz",
            "qw",
            "qx",
            "qy",
            "qz",
            "rw",
            "rx",
            "ry",
            "rz",
            "sw",
            "sx",
            "sy",
            "sz",
        ],
    ),
    (
        "letter_combinations('222')",
        [
            "aaa",
            "aab",
            "aac",
            "aba",
            "abb",
            "abc",
            "aca",
            "acb",
            "acc",
            "baa",
            "bab",
            "bac",
            "bba",
            "bbb",
            "bbc",
            "bca",
            "bcb",
            "bcc",
            "caa",
            "cab",
            "cac",
            "cba",
            "cbb",
            "cbc",
            "cca",
            "ccb",
            "ccc",
        ],
    ),
]

PERFORMANCE = [
    ("len(letter_combinations('79797979'))", 65536),
]
