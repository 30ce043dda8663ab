"""Shortest word ladder."""

LEVEL = 3
STYLE = "function"
ENTRY = "ladder_length"

STATEMENT = """
Write `ladder_length(begin, end, words)` that returns the number of words in the shortest
sequence from `begin` to `end` in which consecutive words differ in exactly one letter and
every word after `begin` is in the list `words` (all words have the same length). Return 0
when there is no such sequence. The answer for begin == end is 1.
"""

REFERENCE = r"""
from collections import deque

def ladder_length(begin, end, words):
    if begin == end:
        return 1
    allowed = set(words)
    if end not in allowed:
        return 0
    queue = deque([(begin, 1)])
    seen = {begin}
    while queue:
        word, length = queue.popleft()
        for i in range(len(word)):
            for ch in "abcdefghijklmnopqrstuvwxyz":
                nxt = word[:i] + ch + word[i + 1:]
                if nxt == end:
                    return length + 1
                if nxt in allowed and nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, length + 1))
    return 0
"""

WRONG = [
    r"""
from collections import deque

def ladder_length(begin, end, words):
    allowed = set(words)
    queue = deque([(begin, 0)])
    seen = {begin}
    while queue:
        word, length = queue.popleft()
        if word == end:
            return length
        for i in range(len(word)):
            for ch in "abcdefghijklmnopqrstuvwxyz":
                nxt = word[:i] + ch + word[i + 1:]
                if nxt in allowed and nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, length + 1))
    return 0
""",
]

PUBLIC = [
    ("ladder_length('hit', 'cog', ['hot', 'dot', 'dog', 'lot', 'log', 'cog'])", 5),
    ("ladder_length('hit', 'cog', ['hot', 'dot', 'dog', 'lot', 'log'])", 0),
]

HIDDEN = [
    ("ladder_length('a', 'c', ['a', 'b', 'c'])", 2),
    ("ladder_length('same', 'same', [])", 1),
    ("ladder_length('ab', 'cd', ['ad', 'cd'])", 3),
    ("ladder_length('ab', 'cd', ['xy'])", 0),
]

PERFORMANCE = [
    (
        "ladder_length('aaaa', 'jjjj', [''.join(w) for w in "
        "__import__('itertools').product('abcdefghij', repeat=4)])",
        5,
    ),
]

HIDDEN_V1 = [
    ("ladder_length('hit', 'cog', ['hot', 'dot', 'cog'])", 0),
]

EQUIVALENT_MUTANTS = {
    "bound:13:23:+1": "i = len(word) makes a longer word, never in the list nor equal to end",
}
