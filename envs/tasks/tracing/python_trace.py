"""Python output prediction: read a small generated program and give exactly what it prints.

The task:
    A program of assignments, arithmetic, ``for``/``while`` loops, ``if``/``else``, lists and
    strings, generated from templates (never taken from model text), e.g.::

        a = 7
        total = 0
        for i in range(4):
            if i % 2 == 0:
                total += a * i
            else:
                total -= i
        print(total)

    The reference output comes from an interpreter of the generator's own program tree; the
    independent certificate runs the printed source with Python itself (only source this
    module generated, with no builtins but range, len, sum, min, max, abs and a captured print).

Observation:
    One user message: the program and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the printed output, one printed
    line per line. Leading and trailing blank lines, trailing spaces and runs of spaces are
    ignored; everything else must match exactly.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the output matches, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from four straight-line statements to a dozen statements with loops nested
        three deep, conditionals, lists and strings.
    statements, depth, features, max_range: Override what the level sets (``features``: a
        tuple drawn from `FEATURES`).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from typing import Any

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

FEATURES = ("update", "for", "if", "list", "while", "string")
MAX_VALUE = 10**6
MAX_STEPS = 5_000
MAX_LINES = 16
MAX_OUTPUT_CHARS = 600
INT_NAMES = ("a", "b", "c", "n", "total", "count", "x", "y")
_BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


class _Overflow(Exception):
    """The program's values or steps outgrew the caps; the generator draws another."""


@dataclasses.dataclass(frozen=True)
class PythonTraceConfig:
    """Knobs.

    Attributes:
        statements: Top-level statements before the final print (2 to 20).
        depth: Deepest nesting of blocks (0 to 3).
        features: Constructs used (a tuple drawn from `FEATURES`).
        max_range: Largest loop bound and constant.
    """

    statements: int = 3
    depth: int = 0
    features: tuple[str, ...] = ()
    max_range: int = 6

    def __post_init__(self) -> None:
        if not isinstance(self.statements, int) or not 2 <= self.statements <= 20:
            raise ValueError(f"statements must be an integer from 2 to 20, got {self.statements!r}")
        if not isinstance(self.depth, int) or not 0 <= self.depth <= 3:
            raise ValueError(f"depth must be an integer from 0 to 3, got {self.depth!r}")
        features = tuple(self.features) if isinstance(self.features, (list, tuple)) else None
        if features is None or any(f not in FEATURES for f in features):
            raise ValueError(
                f"features must be a tuple drawn from {FEATURES}, got {self.features!r}"
            )
        object.__setattr__(self, "features", features)
        if not isinstance(self.max_range, int) or not 2 <= self.max_range <= 50:
            raise ValueError(f"max_range must be an integer from 2 to 50, got {self.max_range!r}")


# --- the program tree ------------------------------------------------------------------------
# Expressions: ("num", v) | ("var", name) | ("bin", op, e1, e2) | ("len", name) | ("sum", name)
#              | ("index", name, k) | ("str", s) | ("cat", e1, e2) | ("rev", name)
# Conditions:  ("cmp", op, e1, e2)
# Statements:  ("set", name, e) | ("aug", name, op, e) | ("print", [e...]) | ("for", var, n, body)
#              | ("if", cond, body, else_body) | ("while", name, limit, step, body)
#              | ("append", name, e)


class _Generator:
    def __init__(self, rng: np.random.Generator, config: PythonTraceConfig):
        self.rng, self.config = rng, config
        self.ints: list[str] = []
        self.lists: list[str] = []
        self.strings: list[str] = []
        self.loop_vars: list[str] = []

    def choice(self, options: list[Any] | tuple[Any, ...]) -> Any:
        return options[int(self.rng.integers(len(options)))]

    def has(self, feature: str) -> bool:
        return feature in self.config.features

    def number(self) -> tuple:
        return ("num", int(self.rng.integers(2, self.config.max_range + 4)))

    def atom(self, avoid: str | None = None) -> tuple:
        readable = [v for v in self.ints + self.loop_vars if v != avoid]
        if readable and self.rng.random() < 0.7:
            return ("var", self.choice(readable))
        return self.number()

    def expression(self, target: str | None = None) -> tuple:
        roll = self.rng.random()
        if self.lists and roll < 0.15:
            return (self.choice(["len", "sum"]), self.choice(self.lists))
        if roll < 0.4:
            atom = self.atom(avoid=target)
            return atom
        op = self.choice(["+", "-", "*", "+", "-", "//", "%"])
        readable = self.ints + self.loop_vars
        left = ("var", self.choice(readable)) if readable else self.number()
        right = (
            self.number()
            if op in ("//", "%")
            else self.atom(avoid=left[1] if left[0] == "var" else None)
        )
        return ("bin", op, left, right)

    def condition(self) -> tuple:
        left = (
            self.atom()
            if self.rng.random() < 0.6
            else ("bin", "%", self.atom(), ("num", int(self.rng.integers(2, 4))))
        )
        return (
            "cmp",
            self.choice(list(_COMPARE)),
            left,
            self.atom() if left[0] != "bin" else ("num", 0),
        )

    def statement(self, depth: int) -> tuple:
        options = ["set", "set"]
        if self.ints:
            options += ["aug", "aug"] * self.has("update") + ["print"]
        if depth < self.config.depth:
            options += ["for"] * self.has("for") * 2 + ["if"] * self.has("if") * (
                1 if self.ints else 0
            )
            options += ["while"] * self.has("while") * (1 if self.ints else 0)
        # New names are only introduced at the top level, so every later use finds them defined.
        if self.has("list") and (self.lists or depth == 0):
            options += ["newlist"] if not self.lists else ["append", "append"]
        if self.has("string") and (self.strings or depth == 0):
            options += ["newstring"] if not self.strings else ["grow"]
        kind = self.choice(options)
        if kind == "set":
            unused = [n for n in INT_NAMES if n not in self.ints] if depth == 0 else []
            fresh = unused and (len(self.ints) < 3 or self.rng.random() < 0.3)
            name = self.choice(unused) if fresh else self.choice(self.ints)
            stmt = ("set", name, self.expression(target=name))
            if name not in self.ints:
                self.ints.append(name)
            return stmt
        if kind == "aug":
            name, op = self.choice(self.ints), self.choice(["+", "-", "*", "+"])
            operand = ("num", int(self.rng.integers(2, 4))) if op == "*" else self.atom(avoid=name)
            return ("aug", name, op, operand)
        if kind == "print":
            return ("print", [("var", self.choice(self.ints))])
        if kind == "newlist":
            name = "nums"
            self.lists.append(name)
            return (
                "set",
                name,
                (
                    "list",
                    [
                        int(self.rng.integers(0, self.config.max_range + 4))
                        for _ in range(int(self.rng.integers(2, 5)))
                    ],
                ),
            )
        if kind == "append":
            return ("append", self.choice(self.lists), self.atom())
        if kind == "newstring":
            self.strings.append("word")
            return ("set", "word", ("str", "".join(self.choice("abcde") for _ in range(2))))
        if kind == "grow":
            name = self.choice(self.strings)
            if self.rng.random() < 0.5:
                return ("set", name, ("cat", ("var", name), ("str", self.choice("xyz"))))
            return ("set", name, ("rev", name))
        if kind == "for":
            var = "ijk"[len(self.loop_vars)]
            n = int(self.rng.integers(2, self.config.max_range + 1))
            self.loop_vars.append(var)
            body = self.block(depth + 1)
            self.loop_vars.pop()
            return ("for", var, n, body)
        if kind == "if":
            cond = self.condition()
            body = self.block(depth + 1)
            other = self.block(depth + 1) if self.rng.random() < 0.6 else []
            return ("if", cond, body, other)
        name = self.choice(self.ints)
        limit = int(self.rng.integers(10, 10 * self.config.max_range + 11))
        step = int(self.rng.integers(2, 6))
        body = self.block(depth + 1)
        return ("while", name, limit, step, body)

    def block(self, depth: int) -> list[tuple]:
        return [self.statement(depth) for _ in range(int(self.rng.integers(1, 3)))]

    def program(self) -> list[tuple]:
        body = [("set", self.choice(INT_NAMES[:4]), self.number())]
        self.ints.append(body[0][1])
        body += [self.statement(0) for _ in range(self.config.statements - 1)]
        shown = self.ints[-2:] + self.lists[-1:] + self.strings[-1:]
        body.append(("print", [("var", v) for v in shown]))
        return body


def render_expression(e: tuple) -> str:
    """Python source of an expression (fully parenthesised binary operations)."""
    kind = e[0]
    if kind == "num":
        return str(e[1])
    if kind == "var":
        return e[1]
    if kind in ("len", "sum"):
        return f"{kind}({e[1]})"
    if kind == "list":
        return "[" + ", ".join(map(str, e[1])) + "]"
    if kind == "str":
        return repr(e[1])
    if kind == "cat":
        return f"{render_expression(e[1])} + {render_expression(e[2])}"
    if kind == "rev":
        return f"{e[1]}[::-1]"
    if kind == "cmp":
        return f"{render_expression(e[2])} {e[1]} {render_expression(e[3])}"
    left, right = render_expression(e[2]), render_expression(e[3])
    left = f"({left})" if e[2][0] == "bin" else left
    right = f"({right})" if e[3][0] == "bin" else right
    return f"{left} {e[1]} {right}"


def render(program: list[tuple], indent: str = "") -> list[str]:
    """Python source lines of a program tree."""
    lines = []
    for s in program:
        kind = s[0]
        if kind == "set":
            lines.append(f"{indent}{s[1]} = {render_expression(s[2])}")
        elif kind == "aug":
            lines.append(f"{indent}{s[1]} {s[2]}= {render_expression(s[3])}")
        elif kind == "append":
            lines.append(f"{indent}{s[1]}.append({render_expression(s[2])})")
        elif kind == "print":
            lines.append(f"{indent}print({', '.join(render_expression(e) for e in s[1])})")
        elif kind == "for":
            lines += [f"{indent}for {s[1]} in range({s[2]}):", *render(s[3], indent + "    ")]
        elif kind == "if":
            lines += [f"{indent}if {render_expression(s[1])}:", *render(s[2], indent + "    ")]
            if s[3]:
                lines += [f"{indent}else:", *render(s[3], indent + "    ")]
        else:
            lines += [
                f"{indent}while {s[1]} < {s[2]}:",
                *render(s[4], indent + "    "),
                f"{indent}    {s[1]} += {s[3]}",
            ]
    return lines


class _Interpreter:
    """Runs a program tree; counts steps; refuses values or step counts past the caps."""

    def __init__(self) -> None:
        self.env: dict[str, Any] = {}
        self.out: list[str] = []
        self.steps = 0

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS or len(self.out) > MAX_LINES:
            raise _Overflow("too many steps or lines")

    def value(self, e: tuple) -> Any:
        kind = e[0]
        if kind == "num":
            return e[1]
        if kind == "var":
            return self.env[e[1]]
        if kind == "len":
            return len(self.env[e[1]])
        if kind == "sum":
            return sum(self.env[e[1]])
        if kind == "list":
            return list(e[1])
        if kind == "str":
            return e[1]
        if kind == "cat":
            return self.value(e[1]) + self.value(e[2])
        if kind == "rev":
            return self.env[e[1]][::-1]
        if kind == "cmp":
            return _COMPARE[e[1]](self.value(e[2]), self.value(e[3]))
        a, b = self.value(e[2]), self.value(e[3])
        result = _BINARY[e[1]](a, b)
        if abs(result) > MAX_VALUE:
            raise _Overflow("value too large")
        return result

    def run(self, program: list[tuple]) -> None:
        for s in program:
            self.tick()
            kind = s[0]
            if kind == "set":
                self.env[s[1]] = self.value(s[2])
                if isinstance(self.env[s[1]], str) and len(self.env[s[1]]) > 40:
                    raise _Overflow("string too long")
            elif kind == "aug":
                result = _BINARY[s[2]](self.env[s[1]], self.value(s[3]))
                if abs(result) > MAX_VALUE:
                    raise _Overflow("value too large")
                self.env[s[1]] = result
            elif kind == "append":
                self.env[s[1]].append(self.value(s[2]))
                if len(self.env[s[1]]) > 12:
                    raise _Overflow("list too long")
            elif kind == "print":
                self.out.append(" ".join(_shown(self.value(e)) for e in s[1]))
            elif kind == "for":
                for i in range(s[2]):
                    self.env[s[1]] = i
                    self.run(s[3])
            elif kind == "if":
                self.run(s[2] if self.value(s[1]) else s[3])
            else:
                while self.env[s[1]] < s[2]:
                    self.tick()
                    self.run(s[4])
                    self.env[s[1]] += s[3]


def _shown(value: Any) -> str:
    """How print shows a value (lists as [1, 2], strings bare)."""
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def _normalise(text: str) -> list[str]:
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.strip().splitlines()]
    return lines


def _run_python(source: str) -> str:
    """Runs generated source (never model text) with a captured print and a few builtins."""
    printed: list[str] = []

    def capture(*args: Any) -> None:
        printed.append(" ".join(str(a) for a in args))

    scope = {
        "__builtins__": {
            "range": range,
            "len": len,
            "sum": sum,
            "min": min,
            "max": max,
            "abs": abs,
            "print": capture,
        }
    }
    exec(compile(source, "<generated>", "exec"), scope)  # noqa: S102 - source built by this module
    return "\n".join(printed)


class PythonTraceTask(Task[PythonTraceConfig]):
    """Predict a generated program's output."""

    name = "python_trace"
    Config = PythonTraceConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> PythonTraceConfig:
        """More statements, deeper nesting, more constructs."""
        statements, depth, n_features, max_range = {
            1: (4, 0, 0, 9),
            2: (5, 0, 1, 9),
            3: (5, 1, 2, 5),
            4: (5, 1, 3, 5),
            5: (5, 2, 4, 5),
            6: (6, 2, 5, 5),
            7: (7, 2, 6, 6),
            8: (8, 3, 6, 6),
            9: (10, 3, 6, 7),
            10: (12, 3, 6, 8),
        }[level]
        return PythonTraceConfig(
            statements=statements, depth=depth, features=FEATURES[:n_features], max_range=max_range
        )

    def generate(self, rng: np.random.Generator) -> Problem:
        """A program tree from templates, kept when it runs within the caps and prints something."""
        while True:
            program = _Generator(rng, self.config).program()
            interpreter = _Interpreter()
            try:
                interpreter.run(program)
            except (_Overflow, ZeroDivisionError):
                continue
            output = "\n".join(interpreter.out)
            if output and len(output) <= MAX_OUTPUT_CHARS and len(interpreter.out) <= MAX_LINES:
                break
        source = "\n".join(render(program))
        prompt = (
            f"What does this Python program print?\n\n```python\n{source}\n```\n\n"
            "Answer with exactly the printed output, one printed line per line "
            "(for example\n3 7\n[1, 2]). "
            f"{ANSWER_FORMAT}"
        )
        return Problem(prompt, output, {"source": source, "steps": interpreter.steps})

    def solve(self, problem: Problem) -> str:
        """The generator's interpreter ran the program tree."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Line by line, ignoring blank edges, trailing spaces and runs of spaces."""
        if len(answer) > 4 * MAX_OUTPUT_CHARS:
            return self.malformed(answer, problem, "the answer is far longer than any output")
        if _normalise(answer) != _normalise(problem.reference):
            return self.wrong(answer, problem, "the output differs")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Python runs the printed source (generated text only)."""
        return Certificate(1 if _run_python(problem.data["source"]) == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The last number changed, the last line dropped or doubled."""
        lines = problem.reference.split("\n")
        last = lines[-1]
        digits = list(re.finditer(r"\d", last))
        if digits:
            at = digits[-1].start()
            bumped = last[:at] + str((int(last[at]) + 1) % 10) + last[at + 1 :]
        else:
            bumped = last + "x"
        out = ["\n".join([*lines[:-1], bumped])]
        out.append("\n".join(lines[:-1]) if len(lines) > 1 else last + "\n" + last)
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """With a trailing newline and surrounding blank lines."""
        return [problem.reference + "\n", "\n" + problem.reference + "\n\n"]

    def work(self, problem: Problem) -> float:
        """Statements the interpreter executed."""
        return float(problem.data["steps"])


class PythonTraceEnv(TaskEnv):
    """Predict a generated program's output; see the module docstring."""

    task_class = PythonTraceTask
