"""Procedural code problems: a generated specification, a generated reference, generated tests.

Three families, each a `Generator` whose `generate(rng)` returns a `CodeProblem` with public
and hidden tests (edge cases and one large performance test) and wrong solutions
(one-step changes of the specification that the hidden tests tell apart):

* `StringTransformGenerator`: implement a pipeline of string operations
  (``transform(s)``), e.g. "reverse, then rotate left by 3, then collapse runs".
* `ExpressionGenerator`: evaluate expressions of a made-up operator language with given
  precedence, associativity and meaning (``evaluate(expr)``), modulo a prime.
* `MachineGenerator`: simulate a register machine whose instruction set, word size and
  step limit are drawn per problem (a stdin/stdout program).

Expected outputs come from host-side implementations written independently of the
generated reference code, so the test suite's check that the reference passes its tests
compares two implementations. Everything is drawn from the ``rng`` passed in.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from palaestra.envs.code.problem import CodeProblem, OutputCheck, Test

LEVELS = (1, 10)


def _check_level(name: str, level: Any) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or not LEVELS[0] <= level <= LEVELS[1]:
        raise ValueError(
            f"{name}: level must be an integer from {LEVELS[0]} to {LEVELS[1]}, got {level!r}"
        )
    return level


def _problem_id(name: str, level: int, statement: str) -> str:
    return f"generated/{name}/L{level}-{hashlib.sha256(statement.encode()).hexdigest()[:10]}"


class Generator(abc.ABC):
    """A family of generated code problems.

    Class attributes:
        name: The family's short name.
        style: ``"function"`` or ``"stdio"``.
    """

    name: ClassVar[str]
    style: ClassVar[str]

    def __init__(self, level: int = 3):
        self.level = _check_level(type(self).__name__, level)

    @abc.abstractmethod
    def generate(self, rng: np.random.Generator) -> CodeProblem:
        """Draws one problem from ``rng``."""


def _pick(rng: np.random.Generator, items: list) -> Any:
    return items[int(rng.integers(len(items)))]


def _random_text(rng: np.random.Generator, alphabet: str, low: int, high: int) -> str:
    length = int(rng.integers(low, high + 1))
    return "".join(alphabet[int(i)] for i in rng.integers(0, len(alphabet), size=length))


# --- string transformations ------------------------------------------------------------------

_VOWELS = "aeiouAEIOU"


@dataclasses.dataclass(frozen=True)
class StringOp:
    """One step of a string pipeline: its wording, its code, and the host's implementation."""

    text: str
    code: str
    apply: Callable[[str], str]


def _rotate(s: str, k: int) -> str:
    if not s:
        return s
    k %= len(s)
    return s[k:] + s[:k]


def _shift(s: str, k: int) -> str:
    return "".join(chr((ord(c) - 97 + k) % 26 + 97) if "a" <= c <= "z" else c for c in s)


def _collapse(s: str) -> str:
    out = []
    for c in s:
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _string_op(kind: str, rng: np.random.Generator, alphabet: str) -> StringOp:
    """The operation ``kind`` with parameters drawn from ``rng``."""
    if kind == "reverse":
        return StringOp("Reverse the string.", "s = s[::-1]", lambda s: s[::-1])
    if kind == "swapcase":
        return StringOp("Swap the case of every letter.", "s = s.swapcase()", str.swapcase)
    if kind == "upper":
        return StringOp("Convert every letter to upper case.", "s = s.upper()", str.upper)
    if kind == "lower":
        return StringOp("Convert every letter to lower case.", "s = s.lower()", str.lower)
    if kind == "rotate":
        k = int(rng.integers(1, 8))
        return StringOp(
            f"Move the first {k} characters to the end, with {k} taken modulo the length "
            "(an empty string stays empty).",
            f"s = s[{k} % len(s):] + s[:{k} % len(s)] if s else s",
            lambda s, k=k: _rotate(s, k),
        )
    if kind == "shift":
        k = int(rng.integers(1, 26))
        return StringOp(
            f"Shift every lower-case letter {k} places forward in the alphabet, "
            "wrapping from z to a.",
            f's = "".join(chr((ord(c) - 97 + {k}) % 26 + 97) if "a" <= c <= "z" else c for c in s)',
            lambda s, k=k: _shift(s, k),
        )
    if kind == "replace":
        letters = [c for c in alphabet if c != " "]
        a = _pick(rng, letters)
        b = _pick(rng, [c for c in letters if c != a])
        return StringOp(
            f"Replace every {a!r} by {b!r}.",
            f"s = s.replace({a!r}, {b!r})",
            lambda s, a=a, b=b: s.replace(a, b),
        )
    if kind == "drop_vowels":
        return StringOp(
            "Delete every vowel (a, e, i, o, u in either case).",
            f's = "".join(c for c in s if c not in {_VOWELS!r})',
            lambda s: "".join(c for c in s if c not in _VOWELS),
        )
    if kind == "double_digits":
        return StringOp(
            "Write every digit twice.",
            's = "".join(c * 2 if c.isdigit() else c for c in s)',
            lambda s: "".join(c * 2 if c.isdigit() else c for c in s),
        )
    if kind == "reverse_words":
        return StringOp(
            "Reverse each word in place (a word is a maximal run of non-space characters; "
            "spaces stay where they are).",
            's = " ".join(w[::-1] for w in s.split(" "))',
            lambda s: re.sub(r"[^ ]+", lambda m: m.group()[::-1], s),
        )
    if kind == "collapse":
        return StringOp(
            "Collapse every run of equal consecutive characters into one character.",
            's = "".join(c for i, c in enumerate(s) if i == 0 or s[i - 1] != c)',
            _collapse,
        )
    if kind == "even_positions":
        return StringOp(
            "Keep only the characters at even positions (0, 2, 4, ...).",
            "s = s[::2]",
            lambda s: s[::2],
        )
    if kind == "mirror":
        return StringOp(
            "Append the reverse of the string to it.", "s = s + s[::-1]", lambda s: s + s[::-1]
        )
    raise ValueError(f"unknown string operation {kind!r}")


_STRING_KINDS = [
    "reverse",
    "swapcase",
    "upper",
    "lower",
    "rotate",
    "shift",
    "replace",
    "drop_vowels",
    "double_digits",
    "reverse_words",
    "collapse",
    "even_positions",
    "mirror",
]
_LENGTH_CHANGING = {"double_digits", "mirror"}


def _pipeline_code(ops: list[StringOp]) -> str:
    body = "".join(f"    {op.code}\n" for op in ops)
    return f"def transform(s):\n{body}    return s\n"


def _run_pipeline(ops: list[StringOp], s: str) -> str:
    for op in ops:
        s = op.apply(s)
    return s


class StringTransformGenerator(Generator):
    """Implement ``transform(s)``: a pipeline of 1 + level // 2 string operations."""

    name = "string_transform"
    style = "function"
    alphabet = "aabcdeeiouxyzABEZ0129  "

    def generate(self, rng: np.random.Generator) -> CodeProblem:
        """A pipeline, its tests and its one-step mutants."""
        steps = 1 + self.level // 2
        kinds, grow = [], 0
        while len(kinds) < steps:
            kind = _pick(rng, _STRING_KINDS)
            if (kinds and kind == kinds[-1]) or (kind in _LENGTH_CHANGING and grow >= 1):
                continue
            grow += kind in _LENGTH_CHANGING
            kinds.append(kind)
        ops = [_string_op(k, rng, self.alphabet) for k in kinds]
        statement = (
            "Write `transform(s)` that applies these steps to the string `s`, in order, "
            "and returns the result:\n"
            + "\n".join(f"{i}. {op.text}" for i, op in enumerate(ops, 1))
        )
        top = 6 + 3 * self.level
        inputs = [_random_text(rng, self.alphabet, 3, top) for _ in range(10)]
        inputs += ["", _random_text(rng, self.alphabet, 1, 1), "aa  BB 00 aa", "Zebra 2 eIO"]
        tests = [Test(f"transform({s!r})", _run_pipeline(ops, s)) for s in inputs]
        repeats = 40_000 // len(self.alphabet) + 1
        performance = Test(
            f"len(transform({self.alphabet!r} * {repeats}))",
            len(_run_pipeline(ops, self.alphabet * repeats)),
            "performance",
        )
        hidden = tests[2:] + [performance]
        wrong = _string_mutants(ops, rng, self.alphabet, [s for s in inputs[2:]])
        return CodeProblem(
            id=_problem_id(self.name, self.level, statement),
            title="Implement a string transformation",
            statement=statement,
            style="function",
            entry="transform",
            public=tests[:2],
            hidden=hidden,
            reference=_pipeline_code(ops),
            wrong=tuple(wrong),
            time_limit_s=4.0,
            category="strings",
            level=self.level,
            source="generated",
        )


def _string_mutants(
    ops: list[StringOp], rng: np.random.Generator, alphabet: str, inputs: list[str]
) -> list[str]:
    """Pipelines one step away that the inputs tell apart: a step dropped, swapped or replaced.

    The first ones kept drop a step, so every problem has at least one wrong solution.
    """
    candidates = [ops[:i] + ops[i + 1 :] for i in range(len(ops))]
    candidates += [ops[:i] + [ops[i + 1], ops[i]] + ops[i + 2 :] for i in range(len(ops) - 1)]
    for i in range(len(ops)):
        other = _string_op(
            _pick(rng, [k for k in _STRING_KINDS if k not in _LENGTH_CHANGING]), rng, alphabet
        )
        candidates.append(ops[:i] + [other] + ops[i + 1 :])
    wanted = [_run_pipeline(ops, s) for s in inputs]
    out = []
    for mutant in candidates:
        if any(_run_pipeline(mutant, s) != w for s, w in zip(inputs, wanted, strict=True)):
            code = _pipeline_code(mutant)
            if code not in out:
                out.append(code)
    return out[:3]


# --- expression languages -----------------------------------------------------------------

MODULUS = 1_000_003

_OPERATOR_MEANINGS = [
    ("a + b", lambda a, b: a + b),
    ("a - b", lambda a, b: a - b),
    ("a * b", lambda a, b: a * b),
    ("2 * a + b", lambda a, b: 2 * a + b),
    ("a - 2 * b", lambda a, b: a - 2 * b),
    ("a * b + a", lambda a, b: a * b + a),
    ("max(a, b)", max),
    ("min(a, b)", min),
    ("a * a + b", lambda a, b: a * a + b),
    ("(a + b) * (a - b)", lambda a, b: (a + b) * (a - b)),
]
_SYMBOLS = list("+-*#@$&~^%")


@dataclasses.dataclass(frozen=True)
class Operator:
    """A binary operator of a generated language."""

    symbol: str
    meaning: str
    precedence: int
    right: bool

    def apply(self, a: int, b: int) -> int:
        """The operator's value, reduced modulo `MODULUS`."""
        return dict(_OPERATOR_MEANINGS)[self.meaning](a, b) % MODULUS


def _tokens(expr: str) -> list[str]:
    return re.findall(r"\d+|\S", expr)


def host_evaluate(expr: str, operators: dict[str, Operator]) -> int:
    """Evaluates by recursive descent over precedence levels (independent of the reference)."""
    tokens = _tokens(expr)
    levels = sorted({op.precedence for op in operators.values()})
    position = 0

    def atom() -> int:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "(":
            value = level_value(0)
            position += 1  # the ")"
            return value
        return int(token) % MODULUS

    def level_value(index: int) -> int:
        nonlocal position
        if index == len(levels):
            return atom()
        operands, symbols = [level_value(index + 1)], []
        while (
            position < len(tokens)
            and tokens[position] in operators
            and operators[tokens[position]].precedence == levels[index]
        ):
            symbols.append(tokens[position])
            position += 1
            operands.append(level_value(index + 1))
        if not symbols:
            return operands[0]
        if operators[symbols[0]].right:
            value = operands[-1]
            for symbol, operand in zip(reversed(symbols), reversed(operands[:-1]), strict=True):
                value = operators[symbol].apply(operand, value)
            return value
        value = operands[0]
        for symbol, operand in zip(symbols, operands[1:], strict=True):
            value = operators[symbol].apply(value, operand)
        return value

    return level_value(0)


def _expression_code(operators: dict[str, Operator]) -> str:
    table = "\n".join(
        f"    {op.symbol!r}: ({op.precedence}, {op.right}, lambda a, b: {op.meaning}),"
        for op in sorted(operators.values(), key=lambda o: o.symbol)
    )
    return f"""import re

MOD = {MODULUS}
OPS = {{
{table}
}}


def evaluate(expr):
    values, stack = [], []

    def reduce():
        symbol = stack.pop()
        b, a = values.pop(), values.pop()
        values.append(OPS[symbol][2](a, b) % MOD)

    for token in re.findall(r"\\d+|\\S", expr):
        if token.isdigit():
            values.append(int(token) % MOD)
        elif token == "(":
            stack.append(token)
        elif token == ")":
            while stack[-1] != "(":
                reduce()
            stack.pop()
        else:
            precedence, right, _ = OPS[token]
            while stack and stack[-1] != "(" and (
                OPS[stack[-1]][0] > precedence or (OPS[stack[-1]][0] == precedence and not right)
            ):
                reduce()
            stack.append(token)
    while stack:
        reduce()
    return values[0]
"""


def _random_expression(
    rng: np.random.Generator, symbols: list[str], operands: int, depth: int = 0
) -> str:
    if operands == 1:
        return str(int(rng.integers(0, 50)))
    split = int(rng.integers(1, operands))
    left = _random_expression(rng, symbols, split, depth + 1)
    right = _random_expression(rng, symbols, operands - split, depth + 1)
    if depth and rng.random() < 0.3:
        return f"({left} {_pick(rng, symbols)} {right})"
    before = " " if rng.random() < 0.5 else ""
    after = " " if rng.random() < 0.5 else ""
    return f"{left}{before}{_pick(rng, symbols)}{after}{right}"


class ExpressionGenerator(Generator):
    """Implement ``evaluate(expr)`` for a generated operator language (modulo a prime)."""

    name = "expression"
    style = "function"

    def generate(self, rng: np.random.Generator) -> CodeProblem:
        """A language (2 to 5 operators), its tests and its one-step mutants."""
        count = min(5, 2 + self.level // 3)
        symbols = [str(s) for s in rng.choice(_SYMBOLS, size=count, replace=False)]
        meanings = [int(i) for i in rng.choice(len(_OPERATOR_MEANINGS), size=count, replace=False)]
        levels = int(rng.integers(1, min(count, 3) + 1))
        right_level = [bool(rng.random() < 0.4) for _ in range(levels)]
        operators = {}
        for symbol, meaning in zip(symbols, meanings, strict=True):
            precedence = int(rng.integers(0, levels))
            operators[symbol] = Operator(
                symbol, _OPERATOR_MEANINGS[meaning][0], precedence + 1, right_level[precedence]
            )
        rows = "\n".join(
            f"| `{op.symbol}` | {op.meaning} | {op.precedence} | "
            f"{'right' if op.right else 'left'} |"
            for op in sorted(operators.values(), key=lambda o: (-o.precedence, o.symbol))
        )
        statement = (
            "Write `evaluate(expr)` for expressions of a small language: non-negative "
            "integer literals, parentheses and these binary operators (a higher precedence "
            "binds tighter; operators of equal precedence group by their associativity):\n\n"
            "| operator | a op b means | precedence | associativity |\n|---|---|---|---|\n"
            f"{rows}\n\n"
            f"Every operator's result is taken modulo {MODULUS} (a non-negative remainder, as "
            "Python's `%` gives), and so is every literal. Spaces may appear between tokens. "
            "Return the value (an int)."
        )
        size = 3 + self.level
        expressions = [
            _random_expression(rng, symbols, int(rng.integers(2, size + 1))) for _ in range(10)
        ]
        expressions += ["7", f"(({int(rng.integers(0, 9))}))", f"1000002 {symbols[0]} 999999"]
        for op in operators.values():
            expressions.append(f"5 {op.symbol} 3 {op.symbol} 2")
        tests = [Test(f"evaluate({e!r})", host_evaluate(e, operators)) for e in expressions]
        values, picks = rng.integers(0, 1000, size=20_000), rng.integers(0, count, size=20_000)
        terms = (f"{int(v)} {symbols[int(s)]}" for v, s in zip(values, picks, strict=True))
        long_expression = " ".join(terms) + " 1"
        performance = Test(
            f"evaluate({long_expression!r})",
            host_evaluate(long_expression, operators),
            "performance",
        )
        wrong = _expression_mutants(operators, expressions[2:])
        return CodeProblem(
            id=_problem_id(self.name, self.level, statement),
            title="Evaluate expressions of a made-up language",
            statement=statement,
            style="function",
            entry="evaluate",
            public=tests[:2],
            hidden=tests[2:] + [performance],
            reference=_expression_code(operators),
            wrong=tuple(wrong),
            time_limit_s=4.0,
            category="arithmetic",
            level=self.level,
            source="generated",
        )


def _expression_mutants(operators: dict[str, Operator], expressions: list[str]) -> list[str]:
    """Languages one step away that the tests tell apart.

    The associativity flipped, the precedences flattened, or two operators' precedences swapped.
    """
    candidates = [
        {s: dataclasses.replace(op, right=not op.right) for s, op in operators.items()},
        {s: dataclasses.replace(op, precedence=1, right=False) for s, op in operators.items()},
    ]
    ordered = sorted(operators)
    for a, b in zip(ordered, ordered[1:], strict=False):
        swapped = dict(operators)
        swapped[a] = dataclasses.replace(
            operators[a], precedence=operators[b].precedence, right=operators[b].right
        )
        swapped[b] = dataclasses.replace(
            operators[b], precedence=operators[a].precedence, right=operators[a].right
        )
        candidates.append(swapped)
    out = []
    for mutant in candidates:
        if any(host_evaluate(e, mutant) != host_evaluate(e, operators) for e in expressions):
            code = _expression_code(mutant)
            if code not in out:
                out.append(code)
    return out[:3]


# --- register machines ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MachineSpec:
    """A generated register machine.

    Attributes:
        registers: How many registers (r0, r1, ...).
        bits: Registers hold unsigned ``bits``-bit values (arithmetic wraps).
        step_limit: The machine stops after this many executed instructions.
        instructions: The instruction names in the machine's set.
        jump_absolute: Whether ``jnz`` targets an absolute line (else a relative offset).
    """

    registers: int
    bits: int
    step_limit: int
    instructions: tuple[str, ...]
    jump_absolute: bool


_INSTRUCTION_TEXT = {
    "set": "`set r v`: r = v",
    "add": "`add r s`: r = r + s",
    "addi": "`addi r v`: r = r + v",
    "sub": "`sub r s`: r = r - s",
    "mul": "`mul r s`: r = r * s",
    "dec": "`dec r`: r = r - 1",
    "swap": "`swap r s`: exchange the values of r and s",
}


def run_machine(spec: MachineSpec, program: list[list[str]]) -> str:
    """The host's simulator: the expected output for ``program``."""
    mask = (1 << spec.bits) - 1
    regs = [0] * spec.registers
    ip = steps = 0

    def reg(name: str) -> int:
        return int(name[1:])

    while 0 <= ip < len(program) and steps < spec.step_limit:
        op, *args = program[ip]
        steps += 1
        if op == "jnz":
            if regs[reg(args[0])] != 0:
                ip = int(args[1]) if spec.jump_absolute else ip + int(args[1])
                continue
        elif op == "set":
            regs[reg(args[0])] = int(args[1]) & mask
        elif op == "add":
            regs[reg(args[0])] = (regs[reg(args[0])] + regs[reg(args[1])]) & mask
        elif op == "addi":
            regs[reg(args[0])] = (regs[reg(args[0])] + int(args[1])) & mask
        elif op == "sub":
            regs[reg(args[0])] = (regs[reg(args[0])] - regs[reg(args[1])]) & mask
        elif op == "mul":
            regs[reg(args[0])] = (regs[reg(args[0])] * regs[reg(args[1])]) & mask
        elif op == "dec":
            regs[reg(args[0])] = (regs[reg(args[0])] - 1) & mask
        elif op == "swap":
            a, b = reg(args[0]), reg(args[1])
            regs[a], regs[b] = regs[b], regs[a]
        ip += 1
    return " ".join(map(str, regs)) + f"\n{steps}\n"


def _machine_code(spec: MachineSpec) -> str:
    target = "int(args[1])" if spec.jump_absolute else "ip + int(args[1])"
    return f"""import sys

MASK = (1 << {spec.bits}) - 1
LIMIT = {spec.step_limit}
lines = sys.stdin.read().split("\\n")
n = int(lines[0])
program = [line.split() for line in lines[1:1 + n]]
regs = [0] * {spec.registers}
ip = steps = 0
while 0 <= ip < n and steps < LIMIT:
    op, *args = program[ip]
    steps += 1
    r = int(args[0][1:])
    if op == "jnz":
        if regs[r]:
            ip = {target}
            continue
    elif op == "set":
        regs[r] = int(args[1]) & MASK
    elif op == "addi":
        regs[r] = (regs[r] + int(args[1])) & MASK
    elif op == "dec":
        regs[r] = (regs[r] - 1) & MASK
    else:
        s = int(args[1][1:])
        if op == "add":
            regs[r] = (regs[r] + regs[s]) & MASK
        elif op == "sub":
            regs[r] = (regs[r] - regs[s]) & MASK
        elif op == "mul":
            regs[r] = (regs[r] * regs[s]) & MASK
        elif op == "swap":
            regs[r], regs[s] = regs[s], regs[r]
    ip += 1
print(" ".join(map(str, regs)))
print(steps)
"""


def _random_program(rng: np.random.Generator, spec: MachineSpec, length: int) -> list[list[str]]:
    """A random program; loops count a register down (the step limit stops any that do not end)."""
    program: list[list[str]] = []

    def register() -> str:
        return f"r{int(rng.integers(spec.registers))}"

    simple = [i for i in spec.instructions if i != "jnz"]
    while len(program) < length:
        op = _pick(rng, simple) if len(program) < 2 or rng.random() < 0.8 else "jnz"
        if op in ("set", "addi"):
            program.append([op, register(), str(int(rng.integers(0, 300)))])
        elif op == "dec":
            program.append([op, register()])
        elif op == "jnz":
            counter, size = register(), len(program)
            start = size - int(rng.integers(1, size + 1))
            program.insert(start, ["set", counter, str(int(rng.integers(1, 6)))])
            program.append(["dec", counter])
            here = len(program)
            program.append(
                ["jnz", counter, str(start + 1 if spec.jump_absolute else start + 1 - here)]
            )
        else:
            program.append([op, register(), register()])
    return program


def _program_text(program: list[list[str]]) -> str:
    return f"{len(program)}\n" + "".join(" ".join(line) + "\n" for line in program)


class MachineGenerator(Generator):
    """Simulate a generated register machine (a stdin/stdout program)."""

    name = "machine"
    style = "stdio"

    def _spec(self, rng: np.random.Generator) -> MachineSpec:
        optional = ["add", "sub", "mul", "swap"]
        extra = [
            str(i)
            for i in rng.choice(
                optional, size=min(len(optional), 1 + self.level // 3), replace=False
            )
        ]
        return MachineSpec(
            registers=2 + self.level // 2,
            bits=int(_pick(rng, [8, 12, 16, 32])),
            step_limit=int(_pick(rng, [1000, 5000, 20000])) + int(rng.integers(0, 100)),
            instructions=tuple(["set", "addi", "dec", "jnz", *sorted(extra)]),
            jump_absolute=bool(rng.random() < 0.3),
        )

    def generate(self, rng: np.random.Generator) -> CodeProblem:
        """A machine, programs for it, and one-step mutants of the machine."""
        spec = self._spec(rng)
        jump = (
            "`jnz r k`: if r is not 0, continue at line k (lines are numbered from 0)"
            if spec.jump_absolute
            else "`jnz r k`: if r is not 0, continue k lines after this one (k may be negative)"
        )
        texts = [_INSTRUCTION_TEXT[i] for i in spec.instructions if i != "jnz"] + [jump]
        statement = (
            f"Simulate a register machine with {spec.registers} registers "
            f"r0..r{spec.registers - 1}, all 0 at the start. Registers hold unsigned "
            f"{spec.bits}-bit values: every result is taken modulo 2^{spec.bits}. "
            "The input's first line holds n, then n instructions follow, one per line "
            "(r and s are register names, v and k integers):\n"
            + "\n".join(f"- {t}" for t in texts)
            + "\nExecution starts at line 0 and goes to the next line after each instruction "
            "unless a jump is taken. It stops when the next line is outside the program or "
            f"after {spec.step_limit} executed instructions, whichever comes first. Print the "
            "registers' final values on one line, separated by spaces, then the number of "
            "instructions executed."
        )
        programs = [
            _random_program(rng, spec, int(rng.integers(3, 6 + 2 * self.level))) for _ in range(9)
        ]
        programs += [
            [],
            [["dec", "r0"]],
            [["set", "r0", "1"], ["jnz", "r0", "0" if spec.jump_absolute else "0"]],
        ]
        tests = [Test(_program_text(p), run_machine(spec, p)) for p in programs]
        loop = [
            ["set", "r0", "1"],
            ["addi", "r1", "3"],
            ["jnz", "r0", "1" if spec.jump_absolute else "-1"],
        ]
        performance = Test(_program_text(loop), run_machine(spec, loop), "performance")
        wrong = _machine_mutants(spec, programs[2:] + [loop])
        return CodeProblem(
            id=_problem_id(self.name, self.level, statement),
            title="Simulate a register machine",
            statement=statement,
            style="stdio",
            public=tests[:2],
            hidden=tests[2:] + [performance],
            reference=_machine_code(spec),
            wrong=tuple(wrong),
            time_limit_s=4.0,
            check=OutputCheck("tokens"),
            category="simulation",
            level=self.level,
            source="generated",
        )


def _machine_mutants(spec: MachineSpec, programs: list[list[list[str]]]) -> list[str]:
    """Machines one step away that the tests tell apart.

    No wrap-around, a step limit off by one, or the other jump mode.
    """
    candidates = [
        dataclasses.replace(spec, bits=64),
        dataclasses.replace(spec, step_limit=spec.step_limit + 1),
        dataclasses.replace(spec, jump_absolute=not spec.jump_absolute),
    ]
    out = []
    for mutant in candidates:
        try:
            differs = any(run_machine(mutant, p) != run_machine(spec, p) for p in programs)
        except (IndexError, ValueError):
            differs = True
        if differs:
            out.append(_machine_code(mutant))
    return out


GENERATORS: dict[str, type[Generator]] = {
    g.name: g for g in (StringTransformGenerator, ExpressionGenerator, MachineGenerator)
}


def problem_json(problem: CodeProblem) -> str:
    """A problem as one line of JSON (what `palaestra.envs.code.loaders` reads back)."""
    return json.dumps(problem.to_json())
