"""Matrix chain multiplication."""

LEVEL = 3
STYLE = "function"
ENTRY = "chain_cost"

STATEMENT = """
Matrices A1..An have dimensions dims[0] x dims[1], dims[1] x dims[2], ... Multiplying a
p x q matrix by a q x r one costs p*q*r. Write `chain_cost(dims)` that returns the least
total cost of computing A1 A2 ... An (0 for a single matrix; len(dims) <= 150).
"""

REFERENCE = r"""
def chain_cost(dims):
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i][j] = min(
                cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                for k in range(i, j)
            )
    return cost[0][n - 1]
"""

WRONG = [
    r"""
def chain_cost(dims):
    total = 0
    for k in range(1, len(dims) - 1):
        total += dims[0] * dims[k] * dims[k + 1]
    return total
""",
]

PUBLIC = [
    ("chain_cost([10, 30, 5, 60])", 4500),
    ("chain_cost([5, 10])", 0),
]

HIDDEN = [
    ("chain_cost([40, 20, 30, 10, 30])", 26000),
    ("chain_cost([1, 2, 3, 4])", 18),
    ("chain_cost([10, 20, 30])", 6000),
    ("chain_cost([30, 35, 15, 5, 10, 20, 25])", 15125),
]

PERFORMANCE = [
    ("chain_cost([(i * 37) % 97 + 3 for i in range(150)])", 1002504),
]

EQUIVALENT_MUTANTS = {
    "bound:3:35:+1": "an extra row of the table is never read",
    "bound:4:27:+1": "a chain longer than n has no start: range(n - length + 1) is empty",
    "constant:4:31:2": "a chain longer than n has no start: range(n - length + 1) is empty",
}
