"""Decode nested repetitions."""

LEVEL = 3
STYLE = "function"
ENTRY = "decode"

STATEMENT = """
Write `decode(s)` that expands `k[...]` groups: a positive integer k followed by a
bracketed string means the string repeated k times, and groups may nest. For example
`decode("3[a2[c]]")` is `"accaccacc"` and `decode("2[ab]c")` is `"ababc"`. Letters outside
groups are kept.
"""

REFERENCE = r"""
def decode(s):
    stack = [[]]
    counts = []
    number = 0
    for c in s:
        if c.isdigit():
            number = number * 10 + int(c)
        elif c == "[":
            counts.append(number)
            number = 0
            stack.append([])
        elif c == "]":
            part = "".join(stack.pop()) * counts.pop()
            stack[-1].append(part)
        else:
            stack[-1].append(c)
    return "".join(stack[0])
"""

WRONG = [
    r"""
import re

def decode(s):
    return re.sub(r"(\d+)\[([a-z]*)\]", lambda m: m.group(2) * int(m.group(1)), s)
""",
]

PUBLIC = [
    ("decode('3[a]2[bc]')", "aaabcbc"),
    ("decode('3[a2[c]]')", "accaccacc"),
]

HIDDEN = [
    ("decode('')", ""),
    ("decode('abc')", "abc"),
    ("decode('2[abc]3[cd]ef')", "abcabccdcdcdef"),
    ("decode('10[a]')", "aaaaaaaaaa"),
    ("decode('2[2[2[x]]]y')", "xxxxxxxxy"),
]

PERFORMANCE = [
    ("len(decode('5[' * 7 + 'ab' + ']' * 7))", 156250),
]

EQUIVALENT_MUTANTS = {
    "constant:17:25:-1": "brackets are balanced, so one part is left on the stack",
}
