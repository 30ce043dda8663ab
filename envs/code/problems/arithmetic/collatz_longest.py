"""Longest Collatz chain."""

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
For a starting number x, the Collatz chain repeats: x -> x/2 if x is even, x -> 3x+1 if x
is odd, until it reaches 1; its length counts the numbers in it (the chain of 1 has length
1). Read n (1 <= n <= 100000) and print the start in 1..n with the longest chain and that
length, separated by a space. On ties print the smallest start.
"""

REFERENCE = r"""
n = int(input())
cache = {1: 1}
def length(x):
    path = []
    while x not in cache:
        path.append(x)
        x = x // 2 if x % 2 == 0 else 3 * x + 1
    value = cache[x]
    for y in reversed(path):
        value += 1
        cache[y] = value
    return cache[path[0]] if path else value
best, start = 0, 1
for s in range(1, n + 1):
    length_s = length(s)
    if length_s > best:
        best, start = length_s, s
print(start, best)
"""

WRONG = [
    r"""
n = int(input())
cache = {1: 1}
def length(x):
    path = []
    while x not in cache:
        path.append(x)
        x = x // 2 if x % 2 == 0 else 3 * x + 1
    value = cache[x]
    for y in reversed(path):
        value += 1
        cache[y] = value
    return cache[path[0]] if path else value
best, start = 0, 1
for s in range(1, n + 1):
    length_s = length(s)
    if length_s >= best:
        best, start = length_s, s
print(start, best)
""",
]

PUBLIC = [
    ("10\n", "9 20\n"),
    ("1\n", "1 1\n"),
]

HIDDEN = [
    ("2\n", "2 2\n"),
    ("3\n", "3 8\n"),
    ("7\n", "7 17\n"),
    ("100\n", "97 119\n"),
    ("19\n", "18 21\n"),
]

PERFORMANCE = [
    ("100000\n", "77031 351\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:13:14:1": "start 1 has chain length 1: best = 1, start = 1 is what s = 1 would set",
    "constant:13:14:-1": "s = 1 (length 1 > -1) replaces the initial pair",
    "constant:13:17:2": "s = 1 (length 1 > 0) replaces the initial start",
    "constant:13:17:0": "s = 1 (length 1 > 0) replaces the initial start",
}
