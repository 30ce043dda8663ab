"""Count overlapping occurrences."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line is a pattern p and the second line a text t (both non-empty, without
spaces). Print how many times p occurs in t, counting overlapping occurrences: `aa`
occurs 3 times in `aaaa`.
"""

REFERENCE = r"""
p = input()
t = input()
count = 0
i = t.find(p)
while i != -1:
    count += 1
    i = t.find(p, i + 1)
print(count)
"""

WRONG = [
    r"""
p = input()
t = input()
print(t.count(p))
""",
]

PUBLIC = [
    ("aa\naaaa\n", "3\n"),
    ("ab\nxabyab\n", "2\n"),
]

HIDDEN = [
    ("abc\nab\n", "0\n"),
    ("a\na\n", "1\n"),
    ("aba\nababababa\n", "4\n"),
    ("xyz\nxyzxyz\n", "2\n"),
]


def _performance_input():
    return "ab\n" + text(400000, "ab", 9) + "\n"


PERFORMANCE = [
    (_performance_input, "99900\n"),
]
