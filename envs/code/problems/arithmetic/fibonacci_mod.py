"""Huge Fibonacci numbers modulo a prime."""

LEVEL = 2
STYLE = "function"
ENTRY = "fib_mod"

STATEMENT = """
Write `fib_mod(n)` that returns F(n) mod 1000000007, where F(0) = 0, F(1) = 1 and
F(n) = F(n-1) + F(n-2), for 0 <= n <= 10^18.
"""

REFERENCE = r"""
def fib_mod(n):
    mod = 1000000007
    def pair(k):
        if k == 0:
            return 0, 1
        a, b = pair(k >> 1)
        c = a * ((2 * b - a) % mod) % mod
        d = (a * a + b * b) % mod
        return (d, (c + d) % mod) if k & 1 else (c, d)
    return pair(n)[0]
"""

WRONG = [
    r"""
def fib_mod(n):
    mod = 1000000007
    def pair(k):
        if k == 0:
            return 1, 1
        a, b = pair(k >> 1)
        c = a * ((2 * b - a) % mod) % mod
        d = (a * a + b * b) % mod
        return (d, (c + d) % mod) if k & 1 else (c, d)
    return pair(n)[0]
""",
]

PUBLIC = [
    ("fib_mod(10)", 55),
    ("fib_mod(1)", 1),
]

HIDDEN = [
    ("fib_mod(0)", 0),
    ("fib_mod(2)", 1),
    ("fib_mod(50)", 586268941),
    ("fib_mod(100)", 687995182),
    ("fib_mod(1000)", 517691607),
]

PERFORMANCE = [
    ("fib_mod(10**18)", 209783453),
]
