"""The n-th digit of 123456789101112...."""

LEVEL = 3
STYLE = "function"
ENTRY = "nth_digit"

STATEMENT = """
Write the positive integers one after another: 123456789101112131415... Write
`nth_digit(n)` that returns the n-th digit of that sequence (counting from 1) as an int,
for 1 <= n <= 10^17.
"""

REFERENCE = r"""
def nth_digit(n):
    length, count, start = 1, 9, 1
    while n > length * count:
        n -= length * count
        length += 1
        count *= 10
        start *= 10
    number = start + (n - 1) // length
    return int(str(number)[(n - 1) % length])
"""

WRONG = [
    r"""
def nth_digit(n):
    length, count, start = 1, 9, 1
    while n >= length * count:
        n -= length * count
        length += 1
        count *= 10
        start *= 10
    number = start + (n - 1) // length
    return int(str(number)[(n - 1) % length])
""",
]

PUBLIC = [
    ("nth_digit(3)", 3),
    ("nth_digit(11)", 0),
]

HIDDEN = [
    ("nth_digit(1)", 1),
    ("nth_digit(9)", 9),
    ("nth_digit(10)", 1),
    ("nth_digit(189)", 9),
    ("nth_digit(190)", 1),
    ("nth_digit(1000)", 3),
]

PERFORMANCE = [
    ("sum(nth_digit(10**17 - k) for k in range(20000))", 84281),
]
