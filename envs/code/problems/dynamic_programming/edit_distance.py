"""Edit distance."""

LEVEL = 2
STYLE = "function"
ENTRY = "edit_distance"

STATEMENT = """
Write `edit_distance(a, b)` that returns the least number of single-character
insertions, deletions and substitutions that turn `a` into `b`.
"""

REFERENCE = r"""
def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]
"""

WRONG = [
    r"""
def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(prev[j - 1] if ca == cb else min(prev[j] + 1, cur[j - 1] + 1))
        prev = cur
    return prev[-1]
""",
]

PUBLIC = [
    ("edit_distance('horse', 'ros')", 3),
    ("edit_distance('intention', 'execution')", 5),
]

HIDDEN = [
    ("edit_distance('', '')", 0),
    ("edit_distance('', 'abc')", 3),
    ("edit_distance('abc', 'abd')", 1),
    ("edit_distance('kitten', 'sitting')", 3),
]

PERFORMANCE = [
    ("edit_distance(('abcdefg' * 100)[:600], ('gfedcba' * 100)[:600])", 514),
]

HIDDEN_V1 = [
    ("edit_distance('abc', '')", 3),
    ("edit_distance('a', 'b')", 1),
]
