"""Chinese remaindering."""

LEVEL = 3
STYLE = "function"
ENTRY = "crt"

STATEMENT = """
Write `crt(residues, moduli)` that returns the smallest x >= 0 with x = residues[i]
(mod moduli[i]) for every i, or -1 when no such x exists. The moduli are positive but not
necessarily pairwise coprime; 0 <= residues[i] < moduli[i]. The lists have equal, non-zero
length.
"""

REFERENCE = r"""
from math import gcd

def crt(residues, moduli):
    x, m = 0, 1
    for r, n in zip(residues, moduli):
        g = gcd(m, n)
        if (r - x) % g:
            return -1
        step = (r - x) // g * pow(m // g, -1, n // g) % (n // g) if n // g > 1 else 0
        x += m * step
        m = m // g * n
        x %= m
    return x
"""

WRONG = [
    r"""
def crt(residues, moduli):
    x, m = 0, 1
    for r, n in zip(residues, moduli):
        try:
            step = (r - x) * pow(m, -1, n) % n
        except ValueError:
            return -1
        x += m * step
        m *= n
        x %= m
    return x
""",
]

PUBLIC = [
    ("crt([2, 3, 2], [3, 5, 7])", 23),
    ("crt([1, 2], [2, 4])", -1),
]

HIDDEN = [
    ("crt([0], [1])", 0),
    ("crt([3, 1], [4, 6])", 7),
    ("crt([1, 3], [4, 6])", 9),
    ("crt([5, 5], [6, 10])", 5),
    ("crt([0, 0, 0], [2, 3, 4])", 0),
]

PERFORMANCE = [
    (
        "crt([p - 1 for p in (10007, 10009, 10037, 10039, 10061)] * 2000, [10007, 10009, "
        "10037, 10039, 10061] * 2000)",
        101538353409718995448,
    ),
]

HIDDEN_V1 = [
    ("crt([3, 1], [6, 4])", 9),
    ("crt([1, 1, 5], [2, 4, 8])", 5),
]

EQUIVALENT_MUTANTS = {
    "constant:4:11:1": "with m = 1 the first pair sets x to its residue whatever x starts at",
    "constant:4:11:-1": "with m = 1 the first pair sets x to its residue whatever x starts at",
    "arith:9:62:*": (
        "step changes by a multiple of n // g, so x by a multiple of the new m, which x %= m "
        "removes"
    ),
    "arith:9:73:*": "when n // g == 1, pow(..., -1, 1) % 1 is 0, the else branch's value",
    "compare:9:77:>=": "when n // g == 1, pow(..., -1, 1) % 1 is 0, the else branch's value",
    "constant:9:77:0": "when n // g == 1, pow(..., -1, 1) % 1 is 0, the else branch's value",
    "constant:9:84:1": "when n // g == 1 the new m equals the old one, so x %= m undoes x += m",
    "constant:9:84:-1": "when n // g == 1 the new m equals the old one, so x %= m undoes x -= m",
    "delete:12:8:pass": "x + m * step is already below the new m (x < m, step < n // g)",
}
