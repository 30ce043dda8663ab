"""Split into dictionary words."""

LEVEL = 2
STYLE = "function"
ENTRY = "word_break"

STATEMENT = """
Write `word_break(s, words)` that returns True when `s` can be split into a sequence of
one or more words from the list `words` (words may be reused). The empty string can be
split (into no words).
"""

REFERENCE = r"""
def word_break(s, words):
    vocabulary = set(words)
    lengths = sorted({len(w) for w in vocabulary})
    ok = [True] + [False] * len(s)
    for i in range(1, len(s) + 1):
        ok[i] = any(L <= i and ok[i - L] and s[i - L:i] in vocabulary for L in lengths)
    return ok[-1]
"""

WRONG = [
    r"""
def word_break(s, words):
    i = 0
    while i < len(s):
        for w in sorted(words, key=len, reverse=True):
            if s.startswith(w, i):
                i += len(w)
                break
        else:
            return False
    return True
""",
]

PUBLIC = [
    ("word_break('leetcode', ['leet', 'code'])", True),
    ("word_break('catsandog', ['cats', 'dog', 'sand', 'and', 'cat'])", False),
]

HIDDEN = [
    ("word_break('', ['a'])", True),
    ("word_break('aaaaaaa', ['aaaa', 'aaa'])", True),
    ("word_break('applepenapple', ['apple', 'pen'])", True),
    ("word_break('ab', ['a'])", False),
    ("word_break('goalspecial', ['go', 'goal', 'goals', 'special'])", True),
]

PERFORMANCE = [
    ("word_break('a' * 5000 + 'b', ['a', 'aa', 'aaa', 'aaaa', 'aaaaa', 'ab'])", True),
]

HIDDEN_V1 = [
    ("word_break('a', ['a'])", True),
    ("word_break('ab', ['b', 'a'])", True),
]

EQUIVALENT_MUTANTS = {
    "constant:4:19:True": (
        "ok[i] reads itself only for an empty word, which a word list does not hold"
    ),
}
