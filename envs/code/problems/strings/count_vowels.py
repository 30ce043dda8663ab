"""Count the vowels."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 1
STYLE = "stdio"

STATEMENT = """
Read one line of text from standard input and print how many of its characters are vowels
(a, e, i, o, u, in either case). The line may be empty.
"""

REFERENCE = r"""
line = input()
print(sum(c in "aeiouAEIOU" for c in line))
"""

WRONG = [
    r"""
line = input()
print(sum(c in "aeiou" for c in line))
""",
]

PUBLIC = [
    ("Hello World\n", "3\n"),
    ("xyz\n", "0\n"),
]

HIDDEN = [
    ("\n", "0\n"),
    ("AEIOU aeiou\n", "10\n"),
    ("Rhythm\n", "0\n"),
    ("Programming In PYTHON\n", "5\n"),
]


def _performance_input():
    return text(300000, "abcdeAEIOUxyz ", 5) + "\n"


PERFORMANCE = [
    (_performance_input, "150482\n"),
]
