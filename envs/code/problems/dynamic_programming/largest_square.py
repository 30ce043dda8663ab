"""Largest square of ones."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds r and c, then r lines of c characters `0` or `1`. Print the area of
the largest square made only of `1` cells (0 if there is none).
"""

REFERENCE = r"""
import sys
lines = sys.stdin.read().split()
r, c = int(lines[0]), int(lines[1])
prev = [0] * (c + 1)
best = 0
for row in lines[2:2 + r]:
    cur = [0] * (c + 1)
    for j in range(c):
        if row[j] == "1":
            cur[j + 1] = min(prev[j], prev[j + 1], cur[j]) + 1
            best = max(best, cur[j + 1])
    prev = cur
print(best * best)
"""

WRONG = [
    r"""
import sys
lines = sys.stdin.read().split()
r, c = int(lines[0]), int(lines[1])
prev = [0] * (c + 1)
best = 0
for row in lines[2:2 + r]:
    cur = [0] * (c + 1)
    for j in range(c):
        if row[j] == "1":
            cur[j + 1] = min(prev[j + 1], cur[j]) + 1
            best = max(best, cur[j + 1])
    prev = cur
print(best * best)
""",
]

PUBLIC = [
    ("4 5\n10100\n10111\n11111\n10010\n", "4\n"),
    ("1 1\n0\n", "0\n"),
]

HIDDEN = [
    ("1 1\n1\n", "1\n"),
    ("2 2\n11\n11\n", "4\n"),
    ("3 3\n110\n111\n011\n", "4\n"),
    ("2 3\n111\n111\n", "4\n"),
]


def _performance_input():
    return "400 400\n" + "\n".join(text(400, "1111110", row) for row in range(400)) + "\n"


PERFORMANCE = [
    (_performance_input, "64\n"),
]

HIDDEN_V1 = [
    ("3 2\n00\n11\n11\n", "4\n"),
    ("3 2\n11\n11\n00\n", "4\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:4:18:2": "the extra slot past c is never read",
    "constant:7:21:2": "the extra slot past c is never read",
    "constant:6:19:3": "the input holds exactly r rows: a longer slice takes no more",
    "bound:6:19:+1": "the input holds exactly r rows: a longer slice takes no more",
}
