"""Count shortest paths."""

LEVEL = 3
STYLE = "stdio"

STATEMENT = """
The first line holds n and m: nodes 1..n and m undirected edges `a b`, one per line (all
of length 1; there may be parallel edges, each a different path). Print the number of
shortest paths from node 1 to node n modulo 1000000007, or 0 if n cannot be reached.
"""

REFERENCE = r"""
import sys
from collections import deque
data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    adj[a].append(b)
    adj[b].append(a)
mod = 1000000007
dist = [-1] * (n + 1)
ways = [0] * (n + 1)
dist[1], ways[1] = 0, 1
queue = deque([1])
while queue:
    u = queue.popleft()
    for v in adj[u]:
        if dist[v] == -1:
            dist[v] = dist[u] + 1
            ways[v] = ways[u]
            queue.append(v)
        elif dist[v] == dist[u] + 1:
            ways[v] = (ways[v] + ways[u]) % mod
print(ways[n] % mod)
"""

WRONG = [
    r"""
import sys
from collections import deque
data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    adj[a].append(b)
    adj[b].append(a)
mod = 1000000007
dist = [-1] * (n + 1)
ways = [0] * (n + 1)
dist[1], ways[1] = 0, 1
queue = deque([1])
while queue:
    u = queue.popleft()
    for v in set(adj[u]):
        if dist[v] == -1:
            dist[v] = dist[u] + 1
            ways[v] = ways[u]
            queue.append(v)
        elif dist[v] == dist[u] + 1:
            ways[v] = (ways[v] + ways[u]) % mod
print(ways[n] % mod)
""",
]

PUBLIC = [
    ("4 4\n1 2\n1 3\n2 4\n3 4\n", "2\n"),
    ("3 1\n1 2\n", "0\n"),
]

HIDDEN = [
    ("1 0\n", "1\n"),
    ("2 2\n1 2\n1 2\n", "2\n"),
    ("5 6\n1 2\n1 3\n2 4\n3 4\n4 5\n4 5\n", "4\n"),
]


def _performance_input():
    return "30001 60000\n" + "".join(f"{i} {i + 1}\n{i} {i + 1}\n" for i in range(1, 30001))


PERFORMANCE = [
    (_performance_input, "165890099\n"),
]

HIDDEN_V1 = [
    ("3 2\n2 1\n3 2\n", "1\n"),
    ("3 3\n1 1\n1 2\n2 3\n", "1\n"),
]

EQUIVALENT_MUTANTS = {
    "bound:5:25:+1": "an extra slot past n is never read",
    "constant:5:29:2": "an extra slot past n is never read",
    "constant:11:19:2": "an extra slot past n is never read",
    "constant:12:18:2": "an extra slot past n is never read",
    "constant:13:19:1": "every distance is one more, which no comparison sees",
}
