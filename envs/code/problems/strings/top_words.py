"""Most frequent words."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds k. The rest of the input is text. Words are maximal runs of the
letters a-z after converting the text to lowercase; everything else separates words.
Print the k most frequent words, one per line as `word count`, by decreasing count and,
for equal counts, in alphabetical order. If there are fewer than k distinct words, print
them all.
"""

REFERENCE = r"""
import re
import sys
lines = sys.stdin.read().split("\n", 1)
k = int(lines[0])
words = re.findall("[a-z]+", (lines[1] if len(lines) > 1 else "").lower())
counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
for w, c in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]:
    print(w, c)
"""

WRONG = [
    r"""
import re
import sys
from collections import Counter
lines = sys.stdin.read().split("\n", 1)
k = int(lines[0])
words = re.findall("[a-z]+", (lines[1] if len(lines) > 1 else "").lower())
for w, c in Counter(words).most_common(k):
    print(w, c)
""",
]

PUBLIC = [
    ("2\nthe cat and the hat\n", "the 2\nand 1\n"),
    ("3\nA b a B c\n", "a 2\nb 2\nc 1\n"),
]

HIDDEN = [
    ("5\n\n", ""),
    ("1\nzeta alpha zeta alpha beta\n", "alpha 2\n"),
    ("3\nIt's it, IT; its!\n", "it 3\nits 1\ns 1\n"),
    ("2\none\n", "one 1\n"),
]


def _performance_input():
    return "10\n" + " ".join(text(3, "abcd", i) for i in range(200000)) + "\n"


PERFORMANCE = [
    (
        _performance_input,
        "acc 3258\naab 3249\ncda 3203\nadc 3200\ncdc 3197\nbac 3190\nabb 3185\naaa "
        "3183\nccb 3183\nbca 3181\n",
    ),
]

HIDDEN_V1 = [
    ("2\nb a\na c\n", "a 2\nb 1\n"),
]

EQUIVALENT_MUTANTS = {
    "compare:5:55:>=": "the first line ends with a newline, so the split has two parts",
    "constant:5:55:0": "the first line ends with a newline, so the split has two parts",
}
