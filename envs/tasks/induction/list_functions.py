"""List functions: infer a hidden list program from examples and apply it to a new input.

The task:
    A hidden program, one to three steps drawn from a fixed set of list operations (reverse,
    sort, keep the even numbers, add 2 to each, running sums, rotate, drop the first, ...),
    maps input lists to output lists. Given input/output examples, give the output for a
    new input.

    The examples make the program identifiable, also against natural rules the program is
    never drawn from: the "last" and "every" variants of "first" operations (remove the
    last largest, remove every largest; keep the last copy of each value), nearby
    thresholds and counts (keep the numbers above 0 to 9, take 2 or 4), the mirror images
    (remove the smallest, prepend the sum, append the length). Every program of up to
    ``depth`` steps over all these operations is enumerated (programs that behave alike on
    the inputs are merged), and all those that reproduce the examples must agree on the new
    input; otherwise an example is added (or the program redrawn). The hidden program is
    also never equivalent to a shorter one on these inputs. The certificate enumerates
    every program of up to ``depth`` steps plainly, without merging, and counts the
    distinct outputs.

Observation:
    One user message: the examples, the new input and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the output list, integers
    separated by commas, in square brackets (``[4, 0, 7]``; ``[]`` for the empty list;
    brackets optional otherwise). Anything else is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for exactly the right list, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; one-step programs, three examples and short lists at level 1 up to
        three-step programs, longer lists and values to 20 at level 10.
    depth: Steps in the hidden program (1-3).
    examples: Examples shown at first (2-8; up to 3 more may be added).
    length: Longest input list (3-12); inputs have 2 to 5 fewer elements at least.
    max_value: Largest value in an input (5-50).

Version history:
    v0: first version; the examples were checked against the drawn operations only, so
        about 5% of instances fitted a second natural rule that answers differently
        ([8, 2] -> [2], [4, 0, 9, 5] -> [4, 0, 5], [9, 8] -> [8] and the new input [1, 1]:
        "remove the largest" gives [1], "remove every largest" gives []).
    v1: the examples are checked against the natural variants too (`VARIANTS`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np

from palaestra.envs.tasks._logic import parse_int_list
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

MAX_LENGTH = 24
"""Outputs longer than this are cut (keeps "repeat each" chains small)."""

Lists = tuple[int, ...]


def _unique(xs: Lists) -> Lists:
    return tuple(dict.fromkeys(xs))


def _cumsum(xs: Lists) -> Lists:
    return tuple(itertools.accumulate(xs))


def _remove_max(xs: Lists) -> Lists:
    if not xs:
        return xs
    i = xs.index(max(xs))
    return xs[:i] + xs[i + 1 :]


def _remove_extreme(pick: Callable[[Lists], int], which: str) -> Callable[[Lists], Lists]:
    """Removes the first, the last or every occurrence of ``pick(xs)`` (max or min)."""

    def remove(xs: Lists) -> Lists:
        if not xs:
            return xs
        value = pick(xs)
        if which == "every":
            return tuple(x for x in xs if x != value)
        i = xs.index(value) if which == "first" else len(xs) - 1 - xs[::-1].index(value)
        return xs[:i] + xs[i + 1 :]

    return remove


def _keep_above(k: int) -> Callable[[Lists], Lists]:
    return lambda xs: tuple(filter(k.__lt__, xs))


PRIMITIVES: dict[str, Callable[[Lists], Lists]] = {
    "reverse": lambda xs: xs[::-1],
    "sort": lambda xs: tuple(sorted(xs)),
    "sort_desc": lambda xs: tuple(sorted(xs, reverse=True)),
    "unique": _unique,
    "drop_first": lambda xs: xs[1:],
    "drop_last": lambda xs: xs[:-1],
    "take_3": lambda xs: xs[:3],
    "add_1": lambda xs: tuple(x + 1 for x in xs),
    "add_3": lambda xs: tuple(x + 3 for x in xs),
    "subtract_1": lambda xs: tuple(x - 1 for x in xs),
    "double": lambda xs: tuple(2 * x for x in xs),
    "keep_even": lambda xs: tuple(x for x in xs if x % 2 == 0),
    "keep_odd": lambda xs: tuple(x for x in xs if x % 2),
    "keep_above_4": lambda xs: tuple(x for x in xs if x > 4),
    "remove_max": _remove_max,
    "cumsum": _cumsum,
    "rotate_left": lambda xs: xs[1:] + xs[:1],
    "rotate_right": lambda xs: xs[-1:] + xs[:-1],
    "swap_ends": lambda xs: xs[-1:] + xs[1:-1] + xs[:1] if len(xs) > 1 else xs,
    "repeat_each": lambda xs: tuple(x for x in xs for _ in range(2))[:MAX_LENGTH],
    "append_sum": lambda xs: xs + (sum(xs),),
    "prepend_length": lambda xs: (len(xs),) + xs,
}
"""The operations programs are made of (a program applies its steps left to right)."""

VARIANTS: dict[str, Callable[[Lists], Lists]] = {
    "remove_last_max": _remove_extreme(max, "last"),
    "remove_every_max": _remove_extreme(max, "every"),
    "remove_min": _remove_extreme(min, "first"),
    "remove_last_min": _remove_extreme(min, "last"),
    "remove_every_min": _remove_extreme(min, "every"),
    "unique_last": lambda xs: tuple(dict.fromkeys(xs[::-1]))[::-1],
    "remove_repeated": lambda xs: tuple(x for x in xs if xs.count(x) == 1),
    "take_2": lambda xs: xs[:2],
    "take_4": lambda xs: xs[:4],
    **{f"keep_above_{k}": _keep_above(k) for k in range(10) if k != 4},
    "prepend_sum": lambda xs: (sum(xs),) + xs,
    "append_length": lambda xs: xs + (len(xs),),
}
"""Natural rules programs are never drawn from, that the examples must still rule out: the
"last" and "every" variants of operations that act on the first occurrence, nearby
thresholds and counts, and the mirror images of the drawn operations."""

OPERATIONS = {**PRIMITIVES, **VARIANTS}
"""Every operation a program (hidden or rival) may use."""

NAMES = tuple(PRIMITIVES)
LEVELS = {
    1: (1, 3, 5, 9),
    2: (1, 4, 6, 9),
    3: (2, 3, 6, 9),
    4: (2, 4, 7, 9),
    5: (2, 4, 8, 9),
    6: (2, 5, 8, 20),
    7: (3, 4, 8, 9),
    8: (3, 5, 9, 9),
    9: (3, 5, 10, 20),
    10: (3, 6, 10, 20),
}
"""(program steps, examples, longest input, largest value) by level."""

EXTRA_EXAMPLES = 3


@dataclasses.dataclass(frozen=True)
class ListFunctionsConfig:
    """Knobs.

    Attributes:
        depth: Steps in the hidden program (1-3).
        examples: Examples shown at first (2-8).
        length: Longest input list (3-12).
        max_value: Largest value in an input (5-50).
    """

    depth: int = 2
    examples: int = 4
    length: int = 7
    max_value: int = 9

    def __post_init__(self) -> None:
        if self.depth not in (1, 2, 3):
            raise ValueError(f"depth must be 1, 2 or 3, got {self.depth!r}")
        if not isinstance(self.examples, int) or not 2 <= self.examples <= 8:
            raise ValueError(f"examples must be an integer from 2 to 8, got {self.examples!r}")
        if not isinstance(self.length, int) or not 3 <= self.length <= 12:
            raise ValueError(f"length must be an integer from 3 to 12, got {self.length!r}")
        if not isinstance(self.max_value, int) or not 5 <= self.max_value <= 50:
            raise ValueError(f"max_value must be an integer from 5 to 50, got {self.max_value!r}")


def run(program: list[str] | tuple[str, ...], xs: Lists) -> Lists:
    """Applies the program's steps in order."""
    for step in program:
        xs = OPERATIONS[step](xs)
    return xs


def behaviours(
    inputs: list[Lists],
    depth: int,
    targets: list[Lists],
    operations: Mapping[str, Callable[[Lists], Lists]] = OPERATIONS,
) -> tuple[dict[tuple[Lists, ...], int], set[Lists]]:
    """Programs of up to ``depth`` steps, merged by behaviour on ``inputs`` (breadth first).

    Args:
        inputs: The example inputs, then the new input.
        depth: Most steps.
        targets: The example outputs.
        operations: The operations programs are made of.

    Returns:
        Each behaviour (outputs on all inputs) of fewer than ``depth`` steps with its fewest
        steps, and the outputs on the new input of every program of up to ``depth`` steps that
        reproduces the targets.
    """
    start = tuple(inputs)
    fewest = {start: 0}
    frontier = [start]
    answers: set[Lists] = set()
    k = len(targets)
    if start[:k] == tuple(targets):
        answers.add(start[k])
    # The last step only needs checking against the targets: the operations that turn a
    # behaviour's first output into the first target, found once per distinct first output.
    last_steps: dict[Lists, list[Callable[[Lists], Lists]]] = {}
    for steps in range(1, depth + 1):
        nxt = []
        for outputs in frontier:
            if steps == depth:
                if outputs[0] not in last_steps:
                    last_steps[outputs[0]] = [
                        f for f in operations.values() if f(outputs[0]) == targets[0]
                    ]
                for f in last_steps[outputs[0]]:
                    result = tuple(f(x) for x in outputs)
                    if result[:k] == tuple(targets):
                        answers.add(result[k])
                continue
            for f in operations.values():
                result = tuple(f(x) for x in outputs)
                if result not in fewest:
                    fewest[result] = steps
                    nxt.append(result)
                    if result[:k] == tuple(targets):
                        answers.add(result[k])
        frontier = nxt
    return fewest, answers


class ListFunctionsTask(Task[ListFunctionsConfig]):
    """Apply a list program inferred from examples."""

    name = "list_functions"
    Config = ListFunctionsConfig
    unique = True
    rivals: ClassVar[Mapping[str, Callable[[Lists], Lists]]] = OPERATIONS
    """The operations of the programs the examples must rule out."""

    @classmethod
    def level_config(cls, level: int) -> ListFunctionsConfig:
        """Longer programs, longer lists and more examples with the level."""
        depth, examples, length, max_value = LEVELS[level]
        return ListFunctionsConfig(
            depth=depth, examples=examples, length=length, max_value=max_value
        )

    def _input(self, rng: np.random.Generator) -> Lists:
        cfg = self.config
        size = int(rng.integers(max(2, cfg.length - 4), cfg.length + 1))
        return tuple(int(x) for x in rng.integers(0, cfg.max_value + 1, size=size))

    def generate(self, rng: np.random.Generator) -> Problem:
        """A program no shorter program imitates; examples added until it is pinned down."""
        cfg = self.config
        while True:
            program = [NAMES[int(i)] for i in rng.integers(0, len(NAMES), size=cfg.depth)]
            inputs = [self._input(rng) for _ in range(cfg.examples)]
            test = self._input(rng)
            answer = run(program, test)
            if not answer or all(run(program, x) == x for x in inputs):
                continue
            while True:
                outputs = [run(program, x) for x in inputs]
                fewest, answers = behaviours(inputs + [test], cfg.depth, outputs, self.rivals)
                signature = tuple(outputs) + (answer,)
                if cfg.depth > 1 and fewest.get(signature, cfg.depth) < cfg.depth:
                    break  # a shorter program does the same here: too easy, redraw
                if answers == {answer}:
                    return self._problem(program, inputs, outputs, test, answer)
                if len(inputs) >= cfg.examples + EXTRA_EXAMPLES:
                    break
                inputs.append(self._input(rng))

    def _problem(
        self,
        program: list[str],
        inputs: list[Lists],
        outputs: list[Lists],
        test: Lists,
        answer: Lists,
    ) -> Problem:
        def show(xs: Lists) -> str:
            return "[" + ", ".join(str(x) for x in xs) + "]"

        lines = "\n".join(f"{show(x)} -> {show(y)}" for x, y in zip(inputs, outputs, strict=True))
        prompt = (
            "A hidden function turns each input list into an output list. Examples:\n"
            f"{lines}\n\n"
            f"What does it output for {show(test)}? Give the list in square brackets, "
            "e.g. <answer>[4, 0, 7]</answer> (<answer>[]</answer> for an empty list). "
            + ANSWER_FORMAT
        )
        data = {
            "program": program,
            "inputs": [list(x) for x in inputs],
            "outputs": [list(y) for y in outputs],
            "test": list(test),
        }
        return Problem(prompt, list(answer), data)

    def solve(self, problem: Problem) -> str:
        """The hidden program on the new input."""
        data = problem.data
        return "[" + ", ".join(str(x) for x in run(data["program"], tuple(data["test"]))) + "]"

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Exactly the reference list."""
        values = parse_int_list(answer, max_items=64)
        if values is None:
            return self.malformed(answer, problem, "expected a list of integers like [4, 0, 7]")
        if values != list(problem.reference):
            return self.wrong(values, problem, "the output list is wrong")
        return self.correct(values, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Plain enumeration of the programs of up to the depth; distinct outputs of those that fit.

        Programs are enumerated as a tree of prefixes (each prefix's output on the first example
        computed once); nothing is merged by behaviour, unlike the generator's search. A last
        step is only tried where it turns the prefix's first output into the first example's
        output (a sound filter, found once per distinct first output).
        """
        data = problem.data
        inputs = [tuple(x) for x in data["inputs"]]
        outputs = [tuple(y) for y in data["outputs"]]
        test = tuple(data["test"])
        depth = len(data["program"])
        found: set[Lists] = set()
        last_steps: dict[Lists, list[str]] = {}

        def check(program: tuple[str, ...]) -> None:
            if all(run(program, x) == y for x, y in zip(inputs[1:], outputs[1:], strict=True)):
                found.add(run(program, test))

        def walk(program: tuple[str, ...], first: Lists) -> None:
            if first == outputs[0]:
                check(program)
            if len(program) < depth - 1:
                for name, f in self.rivals.items():
                    walk(program + (name,), f(first))
            elif len(program) == depth - 1:
                if first not in last_steps:
                    last_steps[first] = [
                        name for name, f in self.rivals.items() if f(first) == outputs[0]
                    ]
                for name in last_steps[first]:
                    check(program + (name,))

        walk((), inputs[0])
        if len(found) != 1:
            return Certificate(len(found))
        return Certificate(1 if list(found.pop()) == list(problem.reference) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """One element off by one, the last element dropped, an element appended, list reversed."""
        ref = list(problem.reference)
        candidates = [ref[:i] + [ref[i] + 1] + ref[i + 1 :] for i in range(len(ref))]
        candidates += [ref[:-1], ref + [ref[-1]], ref[::-1]]
        out = []
        for c in candidates:
            text = "[" + ", ".join(str(x) for x in c) + "]"
            if c != ref and text not in out:
                out.append(text)
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """No brackets, no spaces."""
        ref = [str(x) for x in problem.reference]
        return [", ".join(ref), "[" + ",".join(ref) + "]"]

    def work(self, problem: Problem) -> float:
        """Program steps times the elements of the examples they run over."""
        data = problem.data
        elements = sum(len(x) for x in data["inputs"]) + len(data["test"])
        return float(len(data["program"]) * elements)


class ListFunctionsEnv(TaskEnv):
    """List functions; see the module docstring."""

    task_class = ListFunctionsTask


class ListFunctionsV0Task(ListFunctionsTask):
    """Version 0, kept so that ``ListFunctions-v0`` generates and scores as recorded.

    The examples rule out the programs of the drawn operations only, not their variants.
    """

    rivals = PRIMITIVES


class ListFunctionsV0Env(TaskEnv):
    """``ListFunctions-v0``: examples checked against the drawn operations only."""

    task_class = ListFunctionsV0Task
