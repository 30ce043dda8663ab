"""A stack machine."""

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
Run a program for a stack machine, one instruction per line: `PUSH x` (an integer),
`POP`, `ADD`, `SUB`, `MUL`, `DUP` (copy the top), `SWAP` (exchange the top two) and
`PRINT` (print the top without removing it). `SUB` pops b then a and pushes a - b (so
`PUSH 5`, `PUSH 3`, `SUB` leaves 2). If an instruction needs more values than the stack
holds, print `ERROR` and stop.
"""

REFERENCE = r"""
import sys
stack, out = [], []
needs = {"POP": 1, "ADD": 2, "SUB": 2, "MUL": 2, "DUP": 1, "SWAP": 2, "PRINT": 1}
for line in sys.stdin.read().split("\n"):
    parts = line.split()
    if not parts:
        continue
    op = parts[0]
    if op == "PUSH":
        stack.append(int(parts[1]))
        continue
    if len(stack) < needs[op]:
        out.append("ERROR")
        break
    if op == "POP":
        stack.pop()
    elif op in ("ADD", "SUB", "MUL"):
        b, a = stack.pop(), stack.pop()
        stack.append(a + b if op == "ADD" else a - b if op == "SUB" else a * b)
    elif op == "DUP":
        stack.append(stack[-1])
    elif op == "SWAP":
        stack[-1], stack[-2] = stack[-2], stack[-1]
    else:
        out.append(str(stack[-1]))
if out:
    print("\n".join(out))
"""

WRONG = [
    r"""
import sys
stack, out = [], []
needs = {"POP": 1, "ADD": 2, "SUB": 2, "MUL": 2, "DUP": 1, "SWAP": 2, "PRINT": 1}
for line in sys.stdin.read().split("\n"):
    parts = line.split()
    if not parts:
        continue
    op = parts[0]
    if op == "PUSH":
        stack.append(int(parts[1]))
        continue
    if len(stack) < needs[op]:
        out.append("ERROR")
        break
    if op == "POP":
        stack.pop()
    elif op in ("ADD", "SUB", "MUL"):
        a, b = stack.pop(), stack.pop()
        stack.append(a + b if op == "ADD" else a - b if op == "SUB" else a * b)
    elif op == "DUP":
        stack.append(stack[-1])
    elif op == "SWAP":
        stack[-1], stack[-2] = stack[-2], stack[-1]
    else:
        out.append(str(stack[-1]))
if out:
    print("\n".join(out))
""",
]

PUBLIC = [
    ("PUSH 5\nPUSH 3\nSUB\nPRINT\n", "2\n"),
    ("PUSH 1\nADD\nPRINT\n", "ERROR\n"),
]

HIDDEN = [
    ("PRINT\n", "ERROR\n"),
    ("PUSH 2\nDUP\nMUL\nPRINT\nPUSH 10\nSWAP\nSUB\nPRINT\n", "4\n6\n"),
    ("PUSH 7\nPOP\nPOP\nPUSH 1\nPRINT\n", "ERROR\n"),
    ("PUSH -4\nPUSH 6\nSWAP\nPRINT\n", "-4\n"),
]


def _performance_input():
    return "PUSH 1\n" + "DUP\nPUSH 1\nADD\nSWAP\nPOP\n" * 30000 + "PRINT\n"


PERFORMANCE = [
    (_performance_input, "30001\n"),
]

HIDDEN_V1 = [
    ("PUSH 1\nPOP\nPUSH 2\nPRINT\n", "2\n"),
    ("PUSH 2\nPUSH 3\nADD\nPRINT\n", "5\n"),
    ("PUSH 5\nSUB\nPRINT\n", "ERROR\n"),
    ("PUSH 2\nMUL\n", "ERROR\n"),
    ("DUP\n", "ERROR\n"),
    ("PUSH 1\nSWAP\n", "ERROR\n"),
    ("PUSH 1\nPUSH 2\nDUP\nPRINT\nPOP\nPOP\nPRINT\n", "2\n1\n"),
    ("PUSH 1\nPUSH 2\nPUSH 3\nSWAP\nPRINT\nPOP\nPRINT\n", "2\n3\n"),
]

EQUIVALENT_MUTANTS = {
    "jump:7:8:break": "one instruction per line: an empty line can only end the input",
}
