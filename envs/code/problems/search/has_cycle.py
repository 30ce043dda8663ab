"""Cycle in a directed graph."""

LEVEL = 2
STYLE = "function"
ENTRY = "has_cycle"

STATEMENT = """
Write `has_cycle(n, edges)` for a directed graph with nodes 0..n-1 and a list of edges
`[u, v]` (u -> v). Return True when the graph has a directed cycle (a self-loop counts).
"""

REFERENCE = r"""
def has_cycle(n, edges):
    adj = [[] for _ in range(n)]
    indegree = [0] * n
    for u, v in edges:
        adj[u].append(v)
        indegree[v] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    seen = 0
    while ready:
        u = ready.pop()
        seen += 1
        for v in adj[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return seen < n
"""

WRONG = [
    r"""
def has_cycle(n, edges):
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
    visited = set()
    for start in range(n):
        if start in visited:
            continue
        stack = [start]
        while stack:
            u = stack.pop()
            if u in visited:
                return True
            visited.add(u)
            stack.extend(adj[u])
    return False
""",
]

PUBLIC = [
    ("has_cycle(3, [[0, 1], [1, 2], [2, 0]])", True),
    ("has_cycle(3, [[0, 1], [1, 2]])", False),
]

HIDDEN = [
    ("has_cycle(1, [])", False),
    ("has_cycle(1, [[0, 0]])", True),
    ("has_cycle(4, [[0, 1], [0, 2], [1, 3], [2, 3]])", False),
    ("has_cycle(4, [[0, 1], [2, 3], [3, 2]])", True),
    ("has_cycle(2, [[0, 1], [0, 1]])", False),
]

PERFORMANCE = [
    (
        "has_cycle(60000, [[i, i + 1] for i in range(59999)] + [[i, i + 2] for i in range(59998)])",
        False,
    ),
]

EQUIVALENT_MUTANTS = {
    "bound:2:29:+1": "an extra node past n - 1 has no edges and is never counted",
}
