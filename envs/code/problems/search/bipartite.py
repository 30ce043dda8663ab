"""Two-colour a graph."""

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds n and m: nodes 1..n and m undirected edges `a b`, one per line. Print
`YES` if the nodes can be coloured with two colours so that every edge joins different
colours, and `NO` otherwise. The graph may be disconnected.
"""

REFERENCE = r"""
import sys
data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    adj[a].append(b)
    adj[b].append(a)
colour = [-1] * (n + 1)
ok = True
for start in range(1, n + 1):
    if colour[start] != -1:
        continue
    colour[start] = 0
    stack = [start]
    while stack and ok:
        u = stack.pop()
        for v in adj[u]:
            if colour[v] == -1:
                colour[v] = 1 - colour[u]
                stack.append(v)
            elif colour[v] == colour[u]:
                ok = False
print("YES" if ok else "NO")
"""

WRONG = [
    r"""
import sys
data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    adj[a].append(b)
    adj[b].append(a)
colour = [-1] * (n + 1)
colour[1] = 0
stack = [1]
ok = True
while stack and ok:
    u = stack.pop()
    for v in adj[u]:
        if colour[v] == -1:
            colour[v] = 1 - colour[u]
            stack.append(v)
        elif colour[v] == colour[u]:
            ok = False
print("YES" if ok else "NO")
""",
]

PUBLIC = [
    ("4 4\n1 2\n2 3\n3 4\n4 1\n", "YES\n"),
    ("3 3\n1 2\n2 3\n3 1\n", "NO\n"),
]

HIDDEN = [
    ("1 0\n", "YES\n"),
    ("5 3\n1 2\n3 4\n4 5\n", "YES\n"),
    ("5 4\n1 2\n3 4\n4 5\n5 3\n", "NO\n"),
    ("2 1\n1 1\n", "NO\n"),
]


def _performance_input():
    return "100000 100000\n" + "".join(f"{i} {i + 1}\n" for i in range(1, 100000)) + "1 100000\n"


PERFORMANCE = [
    (_performance_input, "YES\n"),
]

HIDDEN_V1 = [
    ("2 1\n2 1\n", "YES\n"),
    ("2 1\n2 2\n", "NO\n"),
    ("5 5\n1 2\n2 3\n3 4\n4 5\n5 1\n", "NO\n"),
]

EQUIVALENT_MUTANTS = {
    "bound:4:25:+1": "an extra slot past n is never read",
    "constant:4:29:2": "an extra slot past n is never read",
    "constant:9:21:2": "an extra slot past n is never read",
    "constant:11:19:0": "node 0 has no edges: colouring it changes nothing",
    "delete:14:4:pass": (
        "colours -1 and 2: a -1 node met from a -1 node turns 2, and the 2-2 clash is found"
    ),
    "constant:14:20:1": "start colours 1 and 0 swap the two colours",
    "constant:14:20:-1": (
        "colours -1 and 2: a -1 node met from a -1 node turns 2, and the 2-2 clash is found"
    ),
    "constant:20:28:2": "start 0 gives colours 0 and 2, still two colours that differ",
}
