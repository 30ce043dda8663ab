"""Brainfuck tracing: give the text a generated Brainfuck program prints.

The task:
    "What does this program print? ``++++++++[>+++++++++++++<-]>.+++++.``" -> ``hm``.
    Programs are generated to print short English text: multiplication loops set cells near
    the letters' codes, the pointer moves between cells, and ``+``/``-`` adjust before each
    ``.``; higher levels use more cells, nested loops and code that changes nothing printed.

Observation:
    One user message: the program, the machine's rules and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the printed text exactly
    (case-sensitive; surrounding whitespace is ignored).

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the text matches, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from three characters set by one loop on one cell to fourteen characters over
        three cells with nested loops and distracting code.
    length, cells, nested, noise: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from palaestra.envs.tasks._words import words
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

TAPE = 30_000
MAX_STEPS = 2_000_000


class StepLimit(Exception):
    """The program ran past the step cap."""


@dataclasses.dataclass(frozen=True)
class BrainfuckConfig:
    """Knobs.

    Attributes:
        length: Characters printed (2 to 40).
        cells: Cells holding character codes (1 to 4).
        nested: Whether cells are set by nested loops (a product of three factors).
        noise: Whether code that changes nothing printed is mixed in.
    """

    length: int = 2
    cells: int = 1
    nested: bool = False
    noise: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or not 2 <= self.length <= 40:
            raise ValueError(f"length must be an integer from 2 to 40, got {self.length!r}")
        if not isinstance(self.cells, int) or not 1 <= self.cells <= 4:
            raise ValueError(f"cells must be an integer from 1 to 4, got {self.cells!r}")
        for name in ("nested", "noise"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")


def run(program: str, max_steps: int = MAX_STEPS) -> tuple[str, int]:
    """Runs a program with a precomputed bracket table; returns (output, steps)."""
    jump: dict[int, int] = {}
    stack: list[int] = []
    for i, c in enumerate(program):
        if c == "[":
            stack.append(i)
        elif c == "]":
            j = stack.pop()
            jump[i], jump[j] = j, i
    tape = bytearray(TAPE)
    pointer = pc = steps = 0
    out = []
    while pc < len(program):
        c = program[pc]
        if c == "+":
            tape[pointer] = (tape[pointer] + 1) & 255
        elif c == "-":
            tape[pointer] = (tape[pointer] - 1) & 255
        elif c == ">":
            pointer += 1
        elif c == "<":
            pointer -= 1
        elif c == ".":
            out.append(chr(tape[pointer]))
        elif c == "[" and tape[pointer] == 0:
            pc = jump[pc]
        elif c == "]" and tape[pointer] != 0:
            pc = jump[pc]
        pc += 1
        steps += 1
        if steps > max_steps:
            raise StepLimit(f"more than {max_steps} steps")
    return "".join(out), steps


def run_scanning(program: str, max_steps: int = MAX_STEPS) -> str:
    """The same machine, matching brackets by scanning at run time (independent of `run`)."""
    tape = [0] * TAPE
    pointer = pc = steps = 0
    out = []
    while pc < len(program):
        c = program[pc]
        if c in "+-":
            tape[pointer] = (tape[pointer] + (1 if c == "+" else -1)) % 256
        elif c in "<>":
            pointer += 1 if c == ">" else -1
        elif c == ".":
            out.append(chr(tape[pointer]))
        elif (c == "[" and tape[pointer] == 0) or (c == "]" and tape[pointer] != 0):
            direction = 1 if c == "[" else -1
            depth = 0
            while True:
                depth += {"[": 1, "]": -1}.get(program[pc], 0) * direction
                if depth == 0:
                    break
                pc += direction
        pc += 1
        steps += 1
        if steps > max_steps:
            raise StepLimit(f"more than {max_steps} steps")
    return "".join(out)


@functools.lru_cache(maxsize=1)
def _pool() -> tuple[str, ...]:
    return tuple(sorted(words()))


def _move(frm: int, to: int) -> str:
    return ">" * (to - frm) if to > frm else "<" * (frm - to)


class _Builder:
    """Writes a program that prints a text; tracks the pointer and cell values."""

    def __init__(self, rng: np.random.Generator, config: BrainfuckConfig):
        self.rng, self.config = rng, config
        self.code: list[str] = []
        self.pointer = 0
        self.values = [0] * (config.cells + 3)
        self.scratch = config.cells
        self.junk = config.cells + 2

    def go(self, cell: int) -> None:
        self.code.append(_move(self.pointer, cell))
        self.pointer = cell

    def noise(self) -> None:
        if not self.config.noise or self.rng.random() > 0.5:
            return
        kind = int(self.rng.integers(3))
        if kind == 0:
            self.go(self.scratch)
            self.code.append("[-]" if self.rng.random() < 0.5 else "[>+<-]")
        elif kind == 1:
            self.go(self.junk)
            self.code.append("+" * int(self.rng.integers(1, 6)))
        else:
            self.code.append("+-" if self.rng.random() < 0.5 else "><")

    def set_cell(self, cell: int, target: int) -> None:
        """Adds ``target`` to an empty cell with a (possibly nested) multiplication loop."""
        rng = self.rng
        if self.config.nested and target >= 40:
            a = int(rng.integers(2, 5))
            b = int(rng.integers(2, 5))
            c = max(1, target // (a * b))
            self.go(self.scratch)
            self.code.append("+" * a + "[")
            self.go(self.scratch + 1)
            self.code.append("+" * b + "[")
            self.go(cell)
            self.code.append("+" * c)
            self.go(self.scratch + 1)
            self.code.append("-]")
            self.go(self.scratch)
            self.code.append("-]")
            value = a * b * c
        else:
            a = int(rng.integers(3, 12))
            b = max(1, target // a)
            self.go(self.scratch)
            self.code.append("+" * a + "[")
            self.go(cell)
            self.code.append("+" * b)
            self.go(self.scratch)
            self.code.append("-]")
            value = a * b
        self.values[cell] = value

    def build(self, text: str) -> str:
        codes = [ord(ch) for ch in text]
        ordered = sorted(set(codes))
        groups = [
            ordered[
                i * len(ordered) // self.config.cells : (i + 1) * len(ordered) // self.config.cells
            ]
            for i in range(self.config.cells)
        ]
        groups = [g for g in groups if g]
        for cell, group in enumerate(groups):
            self.set_cell(cell, group[len(group) // 2] - int(self.rng.integers(0, 6)))
            self.noise()
        for code in codes:
            cell = min(range(len(groups)), key=lambda k: (abs(self.values[k] - code), k))
            self.go(cell)
            diff = code - self.values[cell]
            self.code.append("+" * diff if diff > 0 else "-" * -diff)
            self.code.append(".")
            self.values[cell] = code
            self.noise()
        return "".join(self.code)


class BrainfuckTask(Task[BrainfuckConfig]):
    """Trace a Brainfuck program."""

    name = "brainfuck"
    Config = BrainfuckConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> BrainfuckConfig:
        """Longer texts, more cells, nested loops, then distracting code."""
        length, cells, nested, noise = {
            1: (3, 1, False, False),
            2: (4, 1, False, False),
            3: (5, 1, False, False),
            4: (6, 2, False, False),
            5: (7, 2, False, False),
            6: (8, 2, True, False),
            7: (9, 2, True, True),
            8: (10, 3, True, True),
            9: (12, 3, True, True),
            10: (14, 3, True, True),
        }[level]
        return BrainfuckConfig(length=length, cells=cells, nested=nested, noise=noise)

    def _text(self, rng: np.random.Generator) -> str:
        pool = _pool()
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) <= self.config.length:
            parts.append(pool[int(rng.integers(len(pool)))])
        text = " ".join(parts)[: self.config.length].strip()
        if self.config.length >= 6 and rng.random() < 0.5:
            text = text[0].upper() + text[1:]
        return text

    def generate(self, rng: np.random.Generator) -> Problem:
        """English text, then a program that prints it."""
        while True:
            text = self._text(rng)
            if len(text) >= 2:
                break
        program = _Builder(rng, self.config).build(text)
        output, steps = run(program)
        prompt = (
            f"What does this Brainfuck program print?\n\n{program}\n\n"
            "The machine has a tape of 30000 cells, each a byte starting at 0 "
            "(adding 1 to 255 gives 0). "
            "> and < move the pointer, + and - change the current cell, "
            ". prints the current cell as an ASCII character, "
            "[ jumps past the matching ] if the cell is 0, "
            "and ] jumps back to the matching [ if it is not. "
            "There is no input. Answer with exactly the printed text, without quotes "
            f"(for example Hi there). {ANSWER_FORMAT}"
        )
        return Problem(prompt, output, {"program": program, "steps": steps})

    def solve(self, problem: Problem) -> str:
        """The interpreter's output."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Exact text (surrounding whitespace ignored)."""
        if len(answer) > 200:
            return self.malformed(answer, problem, "far longer than the output")
        if answer.strip() != problem.reference:
            return self.wrong(answer, problem, "the text differs")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """A second interpreter that scans for matching brackets at run time."""
        return Certificate(1 if run_scanning(problem.data["program"]) == problem.reference else 0)

    def alternatives(self, problem: Problem) -> list[str]:
        """The one printed text with blank space around it (the output itself never has any)."""
        return [f"  {problem.reference}\n"]

    def mutations(self, problem: Problem) -> list[str]:
        """One character moved by one code, the last character dropped, the case flipped."""
        text = problem.reference
        bumped = chr(ord(text[-1]) + 1) if text[-1] != "~" else "a"
        out = [text[:-1] + bumped, text[:-1], text.swapcase()]
        return [m for m in out if m.strip() != text and m.strip()]

    def work(self, problem: Problem) -> float:
        """Instructions executed."""
        return float(problem.data["steps"])


class BrainfuckEnv(TaskEnv):
    """Trace a Brainfuck program; see the module docstring."""

    task_class = BrainfuckTask
