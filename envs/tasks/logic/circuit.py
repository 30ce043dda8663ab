"""Boolean circuits: evaluate the outputs of a gate netlist for given inputs.

The task:
    Inputs (a, b, c, ...) have given values 0 or 1; gates g1, g2, ... each compute AND, OR,
    NOT, XOR, NAND, NOR or XNOR of inputs or other gates. From level 4 the gates are numbered
    (and listed) out of order, so the reader has to find an evaluation order. The answer is the
    value of a few named gates. The generator evaluates gates in creation order; the certificate
    evaluates each output recursively from the netlist as listed.

Observation:
    One user message: the input values, the gates and the outputs asked for.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: each asked gate with its
    value, ``g7 = 1, g12 = 0`` (``:`` also accepted; values 0/1 or true/false), separated by
    commas, semicolons or line breaks, in any order. A gate given twice, a missing gate or
    any other word makes the answer malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when every asked value is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3 inputs, 4 AND/OR/NOT gates and 2 outputs at level 1 up to 8 inputs, 40
        gates of all kinds (some with three inputs) and 4 outputs at level 10.
    inputs: Number of inputs (2-12).
    gates: Number of gates (2-80).
    outputs: Number of gates asked about (1-6).
    kinds: 1 (AND, OR, NOT), 2 (also XOR, NAND, NOR) or 3 (also XNOR and three-input gates).
    shuffled: Whether gates are listed out of evaluation order.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import string
from typing import Any

import numpy as np

from palaestra.envs.tasks._logic import name_index, parse_assignment
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

VALUES = {"1": 1, "0": 0, "true": 1, "false": 0}
OPS = {
    1: ("AND", "OR", "NOT"),
    2: ("AND", "OR", "NOT", "XOR", "NAND", "NOR"),
    3: ("AND", "OR", "NOT", "XOR", "NAND", "NOR", "XNOR"),
}
LEVELS = {
    1: (3, 4, 2, 1, False),
    2: (3, 6, 2, 1, False),
    3: (4, 8, 2, 2, False),
    4: (4, 10, 2, 2, True),
    5: (5, 14, 3, 2, True),
    6: (5, 18, 3, 3, True),
    7: (6, 22, 3, 3, True),
    8: (6, 28, 3, 3, True),
    9: (7, 34, 4, 3, True),
    10: (8, 40, 4, 3, True),
}
"""(inputs, gates, outputs, kinds, shuffled) by level."""


@dataclasses.dataclass(frozen=True)
class BooleanCircuitConfig:
    """Knobs.

    Attributes:
        inputs: Number of inputs (2-12).
        gates: Number of gates (2-80).
        outputs: Number of gates asked about (1-6, at most ``gates``).
        kinds: Gate kinds: 1, 2 or 3 (see the module docstring).
        shuffled: List gates out of evaluation order.
    """

    inputs: int = 4
    gates: int = 8
    outputs: int = 2
    kinds: int = 2
    shuffled: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.inputs, int) or not 2 <= self.inputs <= 12:
            raise ValueError(f"inputs must be an integer from 2 to 12, got {self.inputs!r}")
        if not isinstance(self.gates, int) or not 2 <= self.gates <= 80:
            raise ValueError(f"gates must be an integer from 2 to 80, got {self.gates!r}")
        if not isinstance(self.outputs, int) or not 1 <= self.outputs <= min(6, self.gates):
            raise ValueError(
                f"outputs must be an integer from 1 to min(6, gates), got {self.outputs!r}"
            )
        if self.kinds not in (1, 2, 3):
            raise ValueError(f"kinds must be 1, 2 or 3, got {self.kinds!r}")
        if not isinstance(self.shuffled, bool):
            raise ValueError(f"shuffled must be True or False, got {self.shuffled!r}")


def apply(op: str, values: list[int]) -> int:
    """One gate's output."""
    if op == "NOT":
        return 1 - values[0]
    if op in ("AND", "NAND"):
        out = int(all(values))
    elif op in ("OR", "NOR"):
        out = int(any(values))
    else:
        out = sum(values) % 2
    return 1 - out if op in ("NAND", "NOR", "XNOR") else out


class BooleanCircuitTask(Task[BooleanCircuitConfig]):
    """Evaluate a boolean circuit."""

    name = "boolean_circuit"
    Config = BooleanCircuitConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> BooleanCircuitConfig:
        """More inputs, gates, kinds and outputs with the level; shuffled listing from level 4."""
        inputs, gates, outputs, kinds, shuffled = LEVELS[level]
        return BooleanCircuitConfig(
            inputs=inputs, gates=gates, outputs=outputs, kinds=kinds, shuffled=shuffled
        )

    def generate(self, rng: np.random.Generator) -> Problem:
        """Gates fed by earlier signals (recent ones favoured for depth); outputs among the last."""
        cfg = self.config
        inputs = list(string.ascii_lowercase[: cfg.inputs])
        values = {
            name: int(v)
            for name, v in zip(inputs, rng.integers(0, 2, size=cfg.inputs), strict=True)
        }
        ops = OPS[cfg.kinds]
        gates: list[list[Any]] = []  # [name, op, [sources]]
        signals = list(inputs)
        # Shuffled circuits get shuffled numbers too, or the names would give the order away.
        numbers = (
            [int(i) + 1 for i in rng.permutation(cfg.gates)]
            if cfg.shuffled
            else list(range(1, cfg.gates + 1))
        )
        for g in range(cfg.gates):
            op = ops[int(rng.integers(len(ops)))]
            fan_in = (
                1
                if op == "NOT"
                else (3 if cfg.kinds == 3 and op != "XNOR" and rng.random() < 0.25 else 2)
            )
            fan_in = min(fan_in, len(signals))
            # Recent signals are likelier, so circuits are deep rather than wide.
            weights = np.arange(1, len(signals) + 1, dtype=float) ** 1.5
            sources = [
                signals[int(i)]
                for i in rng.choice(
                    len(signals), size=fan_in, replace=False, p=weights / weights.sum()
                )
            ]
            name = f"g{numbers[g]}"
            gates.append([name, op, sources])
            signals.append(name)
        last = [gate[0] for gate in gates[max(0, cfg.gates - 2 * cfg.outputs) :]]
        outputs = sorted(
            (last[int(i)] for i in rng.choice(len(last), size=cfg.outputs, replace=False)),
            key=lambda n: int(n[1:]),
        )
        listing = sorted(gates, key=lambda gate: int(gate[0][1:])) if cfg.shuffled else gates
        state = dict(values)
        for name, op, sources in gates:
            state[name] = apply(op, [state[s] for s in sources])
        reference = {name: state[name] for name in outputs}
        lines = "\n".join(f"{name} = {op}({', '.join(sources)})" for name, op, sources in listing)
        given = ", ".join(f"{name} = {v}" for name, v in values.items())
        order_note = (
            " (numbered in no particular order: find an order to evaluate them)"
            if cfg.shuffled
            else ""
        )
        prompt = (
            f"A boolean circuit has inputs {given}. Its gates are{order_note}:\n{lines}\n\n"
            "AND, OR and XOR take two or more inputs "
            "(XOR is 1 when an odd number of inputs are 1); "
            "NAND, NOR and XNOR are their negations; NOT negates one input.\n"
            f"What are the values of {', '.join(outputs)}? "
            "Give each as 'name = value' with value 0 or 1, "
            "separated by commas, e.g. <answer>g2 = 0, g5 = 1</answer>. " + ANSWER_FORMAT
        )
        return Problem(prompt, reference, {"inputs": values, "gates": listing, "outputs": outputs})

    def solve(self, problem: Problem) -> str:
        """The generator's values of the asked gates."""
        return ", ".join(f"{name} = {value}" for name, value in problem.reference.items())

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Every asked gate's value must be right."""
        outputs = problem.data["outputs"]
        parsed, why = parse_assignment(answer, name_index(outputs), VALUES)
        if parsed is None:
            return self.malformed(answer, problem, why)
        wrong = [name for name in outputs if parsed[name] != problem.reference[name]]
        if wrong:
            return self.wrong(
                parsed, problem, f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} wrong"
            )
        return self.correct(parsed, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Recursive evaluation of each output from the listed netlist (memoised, cycle-checked)."""
        data = problem.data
        netlist = {name: (op, sources) for name, op, sources in data["gates"]}
        known: dict[str, int] = dict(data["inputs"])
        visiting: set[str] = set()

        def value(name: str) -> int | None:
            if name in known:
                return known[name]
            if name in visiting or name not in netlist:
                return None
            visiting.add(name)
            op, sources = netlist[name]
            inputs = [value(s) for s in sources]
            visiting.discard(name)
            if any(v is None for v in inputs):
                return None
            known[name] = apply(op, inputs)  # type: ignore[arg-type]
            return known[name]

        ok = all(value(name) == problem.reference[name] for name in data["outputs"])
        return Certificate(1 if ok else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """Each output's value flipped."""
        reference = problem.reference
        return [
            ", ".join(f"{n} = {1 - v if n == flip else v}" for n, v in reference.items())
            for flip in reference
        ]

    def alternatives(self, problem: Problem) -> list[str]:
        """Reverse order, true/false words, colons."""
        items = list(problem.reference.items())
        return [
            "; ".join(f"{n}: {v}" for n, v in reversed(items)),
            "\n".join(f"{n.upper()} = {'true' if v else 'false'}" for n, v in items),
        ]

    def work(self, problem: Problem) -> float:
        """Gate evaluations: the gates that feed an asked output."""
        netlist = {name: sources for name, _, sources in problem.data["gates"]}
        cone: set[str] = set()
        stack = list(problem.data["outputs"])
        while stack:
            name = stack.pop()
            if name in netlist and name not in cone:
                cone.add(name)
                stack.extend(netlist[name])
        return float(len(cone))


class BooleanCircuitEnv(TaskEnv):
    """Boolean circuit evaluation; see the module docstring."""

    task_class = BooleanCircuitTask
