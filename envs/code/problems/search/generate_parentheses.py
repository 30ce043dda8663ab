"""All balanced parentheses."""

LEVEL = 2
STYLE = "function"
ENTRY = "balanced"

STATEMENT = """
Write `balanced(n)` that returns every string of n pairs of balanced parentheses, in
lexicographic order (`(` sorts before `)`), for 0 <= n <= 12.
"""

REFERENCE = r"""
def balanced(n):
    out = []
    def build(prefix, opened, closed):
        if len(prefix) == 2 * n:
            out.append(prefix)
            return
        if opened < n:
            build(prefix + "(", opened + 1, closed)
        if closed < opened:
            build(prefix + ")", opened, closed + 1)
    build("", 0, 0)
    return out
"""

WRONG = [
    r"""
def balanced(n):
    out = []
    def build(prefix, opened, closed):
        if len(prefix) == 2 * n:
            out.append(prefix)
            return
        if opened < n:
            build(prefix + "(", opened + 1, closed)
        if closed < n:
            build(prefix + ")", opened, closed + 1)
    build("", 0, 0)
    return [s for s in out if s.count("(") == n]
""",
]

PUBLIC = [
    ("balanced(3)", ["((()))", "(()())", "(())()", "()(())", "()()()"]),
    ("balanced(1)", ["()"]),
]

HIDDEN = [
    ("balanced(0)", [""]),
    ("balanced(2)", ["(())", "()()"]),
    (
        "balanced(4)",
        [
            "(((())))",
            "((()()))",
            "((())())",
            "((()))()",
            "(()(()))",
            "(()()())",
            "(()())()",
            "(())(())",
            "(())()()",
            "()((()))",
            "()(()())",
            "()(())()",
            "()()(())",
            "()()()()",
        ],
    ),
]

PERFORMANCE = [
    ("len(balanced(11))", 58786),
]

EQUIVALENT_MUTANTS = {
    "delete:6:12:pass": "a full prefix has opened == closed == n, so no branch follows",
}
