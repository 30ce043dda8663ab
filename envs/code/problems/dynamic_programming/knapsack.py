"""0/1 knapsack."""

from palaestra.envs.code.problems._inputs import ints

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds n and the capacity W (W <= 10000). Each of the next n lines holds an
item's weight and value (positive integers). Each item can be taken at most once. Print
the largest total value whose total weight is at most W.
"""

REFERENCE = r"""
import sys
data = sys.stdin.read().split()
n, capacity = int(data[0]), int(data[1])
best = [0] * (capacity + 1)
for i in range(n):
    w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    for c in range(capacity, w - 1, -1):
        if best[c - w] + v > best[c]:
            best[c] = best[c - w] + v
print(best[capacity])
"""

WRONG = [
    r"""
import sys
data = sys.stdin.read().split()
n, capacity = int(data[0]), int(data[1])
best = [0] * (capacity + 1)
for i in range(n):
    w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    for c in range(w, capacity + 1):
        if best[c - w] + v > best[c]:
            best[c] = best[c - w] + v
print(best[capacity])
""",
]

PUBLIC = [
    ("3 50\n10 60\n20 100\n30 120\n", "220\n"),
    ("1 5\n6 10\n", "0\n"),
]

HIDDEN = [
    ("0 10\n", "0\n"),
    ("2 10\n5 10\n5 10\n", "20\n"),
    ("3 4\n1 1\n3 4\n4 5\n", "5\n"),
    ("1 10\n3 7\n", "7\n"),
]


def _performance_input():
    return "60 5000\n" + "".join(
        f"{w} {v}\n" for w, v in zip(ints(60, 1, 1000, 7), ints(60, 1, 1000, 8), strict=True)
    )


PERFORMANCE = [
    (_performance_input, "13945\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:4:25:2": "the extra slot past the capacity is never read",
    "compare:8:29:>=": "the extra updates write best[c] with the value it already holds",
}
