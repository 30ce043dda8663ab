"""Count connected components."""

from palaestra.envs.code.problems._inputs import ints, join

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds n and m: n nodes numbered 1..n and m undirected edges. Each of the
next m lines holds an edge `a b`. Print the number of connected components.
"""

REFERENCE = r"""
import sys
data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
parent = list(range(n + 1))
def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
components = n
for i in range(m):
    a, b = find(int(data[2 + 2 * i])), find(int(data[3 + 2 * i]))
    if a != b:
        parent[a] = b
        components -= 1
print(components)
"""

WRONG = [
    r"""
import sys
data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
parent = list(range(n + 1))
components = n
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    if parent[a] != parent[b]:
        parent[a] = parent[b]
        components -= 1
print(components)
""",
]

PUBLIC = [
    ("5 3\n1 2\n2 3\n4 5\n", "2\n"),
    ("3 0\n", "3\n"),
]

HIDDEN = [
    ("1 0\n", "1\n"),
    ("4 4\n1 2\n3 4\n2 3\n1 4\n", "1\n"),
    ("6 4\n1 2\n3 4\n5 6\n2 1\n", "3\n"),
    ("5 4\n1 2\n3 4\n1 3\n5 5\n", "2\n"),
]


def _performance_input():
    return "50000 80000\n" + join(ints(160000, 1, 50000, 5))


PERFORMANCE = [
    (_performance_input, "2245\n"),
]

EQUIVALENT_MUTANTS = {
    "bound:4:20:+1": "an extra node past n is never joined or counted",
    "constant:4:24:2": "an extra node past n is never joined or counted",
}
