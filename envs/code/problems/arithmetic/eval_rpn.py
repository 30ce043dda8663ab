"""Evaluate reverse Polish notation."""

LEVEL = 2
STYLE = "function"
ENTRY = "eval_rpn"

STATEMENT = """
Write `eval_rpn(tokens)` that evaluates a valid expression in reverse Polish notation,
given as a list of tokens: integers (possibly negative) and the operators `+ - * /`.
Division truncates toward zero (`-7 / 2` is `-3`); no division by zero occurs.
"""

REFERENCE = r"""
def eval_rpn(tokens):
    stack = []
    for t in tokens:
        if t in ("+", "-", "*", "/"):
            b, a = stack.pop(), stack.pop()
            if t == "+":
                stack.append(a + b)
            elif t == "-":
                stack.append(a - b)
            elif t == "*":
                stack.append(a * b)
            else:
                q = abs(a) // abs(b)
                stack.append(q if (a >= 0) == (b >= 0) else -q)
        else:
            stack.append(int(t))
    return stack[0]
"""

WRONG = [
    r"""
def eval_rpn(tokens):
    stack = []
    for t in tokens:
        if t in ("+", "-", "*", "/"):
            b, a = stack.pop(), stack.pop()
            stack.append({"+": a + b, "-": a - b, "*": a * b, "/": a // b if b else 0}[t])
        else:
            stack.append(int(t))
    return stack[0]
""",
]

PUBLIC = [
    ("eval_rpn(['2', '1', '+', '3', '*'])", 9),
    ("eval_rpn(['4', '13', '5', '/', '+'])", 6),
]

HIDDEN = [
    ("eval_rpn(['7'])", 7),
    ("eval_rpn(['-7', '2', '/'])", -3),
    ("eval_rpn(['7', '-2', '/'])", -3),
    ("eval_rpn(['3', '4', '-'])", -1),
    ("eval_rpn(['10', '6', '9', '3', '+', '-11', '*', '/', '*', '17', '+', '5', '+'])", 22),
]

PERFORMANCE = [
    ("eval_rpn(['1'] + ['1', '+'] * 150000)", 150001),
]

HIDDEN_V1 = [
    ("eval_rpn(['-1', '1', '/'])", -1),
    ("eval_rpn(['5', '-1', '/'])", -5),
]

EQUIVALENT_MUTANTS = {
    "compare:14:40:>": "differs only for a == 0, where q is 0 and -q == q",
    "constant:14:40:1": "differs only for a == 0, where q is 0 and -q == q",
    "compare:14:52:>": "differs only for b == 0, and no division by zero occurs",
    "constant:14:52:1": "differs only for b == 0, and no division by zero occurs",
    "constant:17:17:-1": "a valid expression leaves exactly one value on the stack",
}
