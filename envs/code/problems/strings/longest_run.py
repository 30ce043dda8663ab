"""Longest run of one character."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 1
STYLE = "stdio"

STATEMENT = """
Read one non-empty line and print the character of its longest run of equal consecutive
characters and the run's length, separated by a space. If several runs are longest, use
the first one.
"""

REFERENCE = r"""
s = input()
best_char, best_len = s[0], 1
run = 1
for i in range(1, len(s)):
    run = run + 1 if s[i] == s[i - 1] else 1
    if run > best_len:
        best_char, best_len = s[i], run
print(best_char, best_len)
"""

WRONG = [
    r"""
s = input()
best_char, best_len = s[0], 1
run = 1
for i in range(1, len(s)):
    run = run + 1 if s[i] == s[i - 1] else 1
    if run >= best_len:
        best_char, best_len = s[i], run
print(best_char, best_len)
""",
]

PUBLIC = [
    ("aabbbcc\n", "b 3\n"),
    ("abc\n", "a 1\n"),
]

HIDDEN = [
    ("z\n", "z 1\n"),
    ("aabb\n", "a 2\n"),
    ("xxxyyyzzz\n", "x 3\n"),
    ("abbbbba\n", "b 5\n"),
]


def _performance_input():
    return text(300000, "ab", 3) + "\n"


PERFORMANCE = [
    (_performance_input, "b 17\n"),
]

HIDDEN_V1 = [
    ("aabzbccc\n", "c 3\n"),
]
