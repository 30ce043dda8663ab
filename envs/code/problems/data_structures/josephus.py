"""The Josephus survivor."""

LEVEL = 2
STYLE = "function"
ENTRY = "survivor"

STATEMENT = """
People numbered 1..n stand in a circle. Starting from person 1, count k people clockwise
(person 1 counts as the first); the k-th is removed, and counting resumes with the next
person. Write `survivor(n, k)` that returns the number of the last person left, for
1 <= n <= 10^6 and 1 <= k <= 10^6.
"""

REFERENCE = r"""
def survivor(n, k):
    position = 0
    for size in range(2, n + 1):
        position = (position + k) % size
    return position + 1
"""

WRONG = [
    r"""
def survivor(n, k):
    position = 0
    for size in range(2, n + 1):
        position = (position + k) % size
    return position
""",
]

PUBLIC = [
    ("survivor(5, 2)", 3),
    ("survivor(7, 3)", 4),
]

HIDDEN = [
    ("survivor(1, 1)", 1),
    ("survivor(1, 5)", 1),
    ("survivor(6, 1)", 6),
    ("survivor(10, 10)", 8),
    ("survivor(2, 2)", 1),
]

PERFORMANCE = [
    ("survivor(1000000, 7)", 206072),
]

EQUIVALENT_MUTANTS = {
    "constant:3:22:1": "size 1 sets position to (0 + k) % 1 == 0, where it starts",
}
