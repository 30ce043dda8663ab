"""Interpret a tiny assembly language."""

LEVEL = 3
STYLE = "stdio"

STATEMENT = """
Run a program over registers a..z (all 0 at the start), one instruction per line:
`mov r v` (set r to v), `inc r`, `dec r`, `add r v`, `jnz v k` (if v is not zero, jump k
instructions relative to this one; otherwise go on). Here v is an integer or a register
name, k an integer. The program ends when the instruction pointer leaves the program.
Print the registers that are not 0 as `r=value` on one line, separated by spaces, in
alphabetical order (an empty line if all are 0).
"""

REFERENCE = r"""
import sys
program = [line.split() for line in sys.stdin.read().split("\n") if line.strip()]
regs = {}
def value(v):
    return regs.get(v, 0) if v.isalpha() else int(v)
ip = 0
while 0 <= ip < len(program):
    op, *args = program[ip]
    if op == "mov":
        regs[args[0]] = value(args[1])
    elif op == "inc":
        regs[args[0]] = regs.get(args[0], 0) + 1
    elif op == "dec":
        regs[args[0]] = regs.get(args[0], 0) - 1
    elif op == "add":
        regs[args[0]] = regs.get(args[0], 0) + value(args[1])
    elif op == "jnz" and value(args[0]) != 0:
        ip += int(args[1])
        continue
    ip += 1
print(" ".join(f"{r}={regs[r]}" for r in sorted(regs) if regs[r] != 0))
"""

WRONG = [
    r"""
import sys
program = [line.split() for line in sys.stdin.read().split("\n") if line.strip()]
regs = {}
ip = 0
while 0 <= ip < len(program):
    op, *args = program[ip]
    if op == "mov":
        regs[args[0]] = int(args[1]) if not args[1].isalpha() else regs.get(args[1], 0)
    elif op == "inc":
        regs[args[0]] = regs.get(args[0], 0) + 1
    elif op == "dec":
        regs[args[0]] = regs.get(args[0], 0) - 1
    elif op == "add":
        amount = regs.get(args[1], 0) if args[1].isalpha() else int(args[1])
        regs[args[0]] = regs.get(args[0], 0) + amount
    elif op == "jnz" and regs.get(args[0], 0) != 0:
        ip += int(args[1])
        continue
    ip += 1
print(" ".join(f"{r}={regs[r]}" for r in sorted(regs) if regs[r] != 0))
""",
]

PUBLIC = [
    ("mov a 5\ninc a\ndec a\ndec a\njnz a 2\ndec a\n", "a=4\n"),
    ("mov b 3\nmov c 0\nadd c 2\ndec b\njnz b -2\n", "c=6\n"),
]

HIDDEN = [
    ("inc z\n", "z=1\n"),
    ("mov a 0\njnz 1 2\nmov a 9\ninc a\n", "a=1\n"),
    ("mov a 1\ndec a\n", "\n"),
    ("mov x -4\nadd y x\nadd y x\n", "x=-4 y=-8\n"),
    ("jnz 0 5\nmov q 1\n", "q=1\n"),
]

PERFORMANCE = [
    ("mov a 40000\nmov b 0\nadd b 3\ndec a\njnz a -2\nmov c b\n", "b=120000 c=120000\n"),
]

HIDDEN_V1 = [
    ("mov b 2\nadd c z\njnz q 5\ninc b\n", "b=3\n"),
    ("mov a 1\njnz a -2\ninc b\n", "a=1\n"),
    ("dec d\n", "d=-1\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:12:18:-1": "inc takes one argument, so args[-1] is args[0]",
    "constant:12:38:-1": "inc takes one argument, so args[-1] is args[0]",
    "constant:14:18:-1": "dec takes one argument, so args[-1] is args[0]",
    "constant:14:38:-1": "dec takes one argument, so args[-1] is args[0]",
}
