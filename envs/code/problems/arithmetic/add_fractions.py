"""Add fractions."""

LEVEL = 2
STYLE = "function"
ENTRY = "add_fractions"

STATEMENT = """
Write `add_fractions(a, b)` for two fractions given as strings `"p/q"` (integers, q != 0,
either may be negative) and return their sum in lowest terms as `"p/q"` with q > 0; zero
is `"0/1"`. Do not use the `fractions` module.
"""

REFERENCE = r"""
from math import gcd

def add_fractions(a, b):
    p1, q1 = map(int, a.split("/"))
    p2, q2 = map(int, b.split("/"))
    p, q = p1 * q2 + p2 * q1, q1 * q2
    if q < 0:
        p, q = -p, -q
    g = gcd(p, q)
    return f"{p // g}/{q // g}"
"""

WRONG = [
    r"""
from math import gcd

def add_fractions(a, b):
    p1, q1 = map(int, a.split("/"))
    p2, q2 = map(int, b.split("/"))
    p, q = p1 * q2 + p2 * q1, q1 * q2
    g = gcd(p, q)
    return f"{p // g}/{q // g}"
""",
]

PUBLIC = [
    ("add_fractions('1/2', '1/3')", "5/6"),
    ("add_fractions('1/4', '1/4')", "1/2"),
]

HIDDEN = [
    ("add_fractions('1/2', '-1/2')", "0/1"),
    ("add_fractions('1/-3', '1/3')", "0/1"),
    ("add_fractions('-1/3', '1/-6')", "-1/2"),
    ("add_fractions('2/4', '0/5')", "1/2"),
    ("add_fractions('7/-8', '1/8')", "-3/4"),
]

PERFORMANCE = [
    ("add_fractions('1/' + str(3**4000), '1/' + str(2**6000))[-12:]", "638443749376"),
]

HIDDEN_V1 = [
    ("add_fractions('1/-1', '1/1')", "0/1"),
    ("add_fractions('3/-1', '0/1')", "-3/1"),
]

EQUIVALENT_MUTANTS = {
    "compare:7:11:<=": "q = q1 * q2 is never 0",
    "constant:7:11:1": "q < 1 is q <= 0 on integers, and q = q1 * q2 is never 0",
}
