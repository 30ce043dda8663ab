"""Count the anagram classes."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds n (0 <= n <= 200000), then n lines each hold one lowercase word.
Two words are in the same class when one is a rearrangement of the other's letters (the
same letters with the same multiplicities). Print the number of classes.
"""

REFERENCE = r"""
import sys
data = sys.stdin.read().split()
n = int(data[0])
print(len({"".join(sorted(w)) for w in data[1:1 + n]}))
"""

WRONG = [
    r"""
import sys
data = sys.stdin.read().split()
n = int(data[0])
print(len({frozenset(w) for w in data[1:1 + n]}))
""",
]

PUBLIC = [
    ("4\nlisten\nsilent\nenlist\ngoogle\n", "2\n"),
    ("3\nab\nba\nabc\n", "2\n"),
]

HIDDEN = [
    ("0\n", "0\n"),
    ("1\nz\n", "1\n"),
    ("3\naab\nab\nabb\n", "3\n"),
    ("5\nabc\ncab\nbca\nxyz\nzyx\n", "2\n"),
]


def _performance_input():
    return "150000\n" + "\n".join(text(6, "abcdef", i) for i in range(150000)) + "\n"


PERFORMANCE = [
    (_performance_input, "462\n"),
]

EQUIVALENT_MUTANTS = {
    "bound:4:46:+1": "the input holds exactly n words: a longer slice takes no more",
    "constant:4:46:2": "the input holds exactly n words: a longer slice takes no more",
}
