"""Look and say."""

LEVEL = 1
STYLE = "function"
ENTRY = "look_and_say"

STATEMENT = """
The look-and-say sequence starts with `"1"`; each next term reads the previous one aloud:
`"1"` is one 1, so `"11"`; then two 1s, `"21"`; then `"1211"`, `"111221"`, ... Write
`look_and_say(n)` that returns the n-th term (n >= 1; term 1 is `"1"`).
"""

REFERENCE = r"""
def look_and_say(n):
    term = "1"
    for _ in range(n - 1):
        out, i = [], 0
        while i < len(term):
            j = i
            while j < len(term) and term[j] == term[i]:
                j += 1
            out.append(f"{j - i}{term[i]}")
            i = j
        term = "".join(out)
    return term
"""

WRONG = [
    r"""
def look_and_say(n):
    term = "1"
    for _ in range(n):
        out, i = [], 0
        while i < len(term):
            j = i
            while j < len(term) and term[j] == term[i]:
                j += 1
            out.append(f"{j - i}{term[i]}")
            i = j
        term = "".join(out)
    return term
""",
]

PUBLIC = [
    ("look_and_say(4)", "1211"),
    ("look_and_say(1)", "1"),
]

HIDDEN = [
    ("look_and_say(2)", "11"),
    ("look_and_say(5)", "111221"),
    ("look_and_say(10)", "13211311123113112211"),
]

PERFORMANCE = [
    ("len(look_and_say(40))", 63138),
]
