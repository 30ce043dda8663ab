"""ARC-like 1-D transformations: infer a rule from example rows and apply it to a new row.

The task:
    Rows of coloured cells (digits 1-9 on background 0). A hidden rule, or at higher levels a
    composition of two, maps each input row to its output row: shift everything, recolour,
    swap two colours, mirror, fill between same-coloured cells, let cells fall to one end,
    extend the last cell to the edge, slide a block up to a pivot cell, remove isolated
    cells, reverse the coloured span, hollow out long runs. Given examples, give the output
    row for a new input.

    The examples make the rule identifiable, also against natural variants the rule is never
    drawn from (`VARIANTS`: recolour only the first or the last block of a colour, fill
    between the cells of the first or the last colour only, extend every block rather than
    the last cell, remove runs of up to two or three cells, hollow only runs of four or five
    and more): every rule (and, at composition levels, every pair of rules) of the whole
    family and its variants is tried on the inputs, merging rules that act alike, and all
    that reproduce the examples must agree on the new row; otherwise an example is added or
    the rule redrawn. The certificate enumerates the rules plainly, without merging, and
    counts the distinct outputs.

Observation:
    One user message: the example rows, the new input row and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the output row, one digit per
    cell, separated by spaces (commas, or no separators, also accepted; square brackets
    optional). It must have as many cells as the input. Anything else is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for exactly the right row, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; rows of 8 cells with the simplest rules at level 1 up to rows of 28 cells
        with every rule and compositions of two rules from level 7.
    length: Cells per row (6-40).
    depth: Rules composed (1 or 2).
    examples: Examples shown at first (2-6; up to 3 more may be added).
    kinds: How many rule kinds may be drawn, easiest first (1-12).

Version history:
    v0: first version; the examples were checked against the family's own rules only, so
        about 3% of instances also fitted a natural variant that answers differently (a
        recolouring of every block of a colour, or of the first block only).
    v1: the examples are checked against the variants too.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any, ClassVar

import numpy as np

from palaestra.envs.tasks._logic import MAX_ANSWER_CHARS
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

Row = tuple[int, ...]

KINDS = (
    "shift",
    "recolour",
    "mirror",
    "recolour_all",
    "fill",
    "gravity",
    "extend",
    "swap",
    "to_pivot",
    "denoise",
    "flip_span",
    "hollow",
)
"""Rule kinds, easiest first."""

SCENES = {
    "shift": "blocks",
    "recolour": "blocks",
    "mirror": "blocks",
    "recolour_all": "blocks",
    "fill": "pairs",
    "gravity": "blocks",
    "extend": "blocks",
    "swap": "blocks",
    "to_pivot": "pivot",
    "denoise": "noisy",
    "flip_span": "blocks",
    "hollow": "long",
}
"""The kind of input row that shows each rule at work."""

LEVELS = {
    1: (8, 1, 3, 4),
    2: (10, 1, 3, 6),
    3: (12, 1, 3, 8),
    4: (14, 1, 3, 10),
    5: (16, 1, 4, 12),
    6: (18, 1, 4, 12),
    7: (16, 2, 4, 6),
    8: (20, 2, 4, 8),
    9: (24, 2, 5, 10),
    10: (28, 2, 5, 12),
}
"""(cells, rules composed, examples, rule kinds) by level."""

EXTRA_EXAMPLES = 3


@dataclasses.dataclass(frozen=True)
class Arc1DConfig:
    """Knobs.

    Attributes:
        length: Cells per row (6-40).
        depth: Rules composed (1 or 2).
        examples: Examples shown at first (2-6).
        kinds: Rule kinds drawn, easiest first (1-12).
    """

    length: int = 12
    depth: int = 1
    examples: int = 3
    kinds: int = 8

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or not 6 <= self.length <= 40:
            raise ValueError(f"length must be an integer from 6 to 40, got {self.length!r}")
        if self.depth not in (1, 2):
            raise ValueError(f"depth must be 1 or 2, got {self.depth!r}")
        if not isinstance(self.examples, int) or not 2 <= self.examples <= 6:
            raise ValueError(f"examples must be an integer from 2 to 6, got {self.examples!r}")
        if not isinstance(self.kinds, int) or not 1 <= self.kinds <= len(KINDS):
            raise ValueError(f"kinds must be an integer from 1 to {len(KINDS)}, got {self.kinds!r}")


# --- rules -----------------------------------------------------------------------------------
#
# A rule is JSON: [kind, *parameters]. `apply` returns the new row, or None where the rule does
# not apply (a shift that would push cells off the row, a pivot rule without one pivot).


@functools.lru_cache(maxsize=4096)
def _runs(row: Row) -> tuple[tuple[int, int, int], ...]:
    """Maximal runs of one non-zero colour: (start, end exclusive, colour).

    Cached: the rival rules ask for the runs of the same few rows again and again (a third
    of the generator's time at level 10 went here).
    """
    out, i = [], 0
    while i < len(row):
        if row[i]:
            j = i
            while j < len(row) and row[j] == row[i]:
                j += 1
            out.append((i, j, row[i]))
            i = j
        else:
            i += 1
    return tuple(out)


def apply(rule: list[Any], row: Row) -> Row | None:
    """The row after one rule, or None when the rule does not apply."""
    kind, n = rule[0], len(row)
    if kind == "shift":
        k = rule[1]
        if any(row[i] for i in (range(n - k, n) if k > 0 else range(0, -k))):
            return None
        return (0,) * k + row[: n - k] if k > 0 else row[-k:] + (0,) * (-k)
    if kind == "recolour":
        return tuple(rule[2] if x == rule[1] else x for x in row)
    if kind == "recolour_all":
        return tuple(rule[1] if x else 0 for x in row)
    if kind == "swap":
        a, b = rule[1], rule[2]
        return tuple(b if x == a else a if x == b else x for x in row)
    if kind == "mirror":
        return row[::-1]
    if kind == "fill":
        out = list(row)
        for colour in sorted(set(row) - {0}):
            cells = [i for i, x in enumerate(row) if x == colour]
            for i in range(cells[0], cells[-1]):
                if out[i] == 0:
                    out[i] = colour
        return tuple(out)
    if kind == "gravity":
        cells = [x for x in row if x]
        pad = (0,) * (n - len(cells))
        return pad + tuple(cells) if rule[1] == "right" else tuple(cells) + pad
    if kind == "extend":
        coloured = [i for i, x in enumerate(row) if x]
        if not coloured:
            return row
        if rule[1] == "right":
            last = coloured[-1]
            return row[: last + 1] + (row[last],) * (n - last - 1)
        first = coloured[0]
        return (row[first],) * first + row[first:]
    if kind == "to_pivot":
        pivots = [i for i, x in enumerate(row) if x == rule[1]]
        runs = [r for r in _runs(row) if r[2] != rule[1]]
        if len(pivots) != 1 or len(runs) != 1:
            return None
        p, (start, end, colour) = pivots[0], runs[0]
        out = [0] * n
        out[p] = rule[1]
        size = end - start
        begin = p - size if start < p else p + 1
        for i in range(begin, begin + size):
            out[i] = colour
        return tuple(out)
    if kind == "denoise":
        padded = (0, *row, 0)
        return tuple(x if x and x in (padded[i], padded[i + 2]) else 0 for i, x in enumerate(row))
    if kind == "flip_span":
        coloured = [i for i, x in enumerate(row) if x]
        if not coloured:
            return row
        a, b = coloured[0], coloured[-1] + 1
        return row[:a] + row[a:b][::-1] + row[b:]
    if kind == "hollow":
        out = list(row)
        for start, end, _ in _runs(row):
            if end - start >= 3:
                for i in range(start + 1, end - 1):
                    out[i] = 0
        return tuple(out)
    return _apply_variant(rule, row)


def _apply_variant(rule: list[Any], row: Row) -> Row:
    """The row after one of the `VARIANTS` (rules never drawn, only ruled out)."""
    kind, n = rule[0], len(row)
    if kind in ("recolour_first", "recolour_last"):
        blocks = [r for r in _runs(row) if r[2] == rule[1]]
        if not blocks:
            return row
        start, end, _ = blocks[0] if kind == "recolour_first" else blocks[-1]
        return row[:start] + (rule[2],) * (end - start) + row[end:]
    if kind in ("fill_first", "fill_last"):
        coloured = [x for x in row if x]
        if not coloured:
            return row
        colour = coloured[0] if kind == "fill_first" else coloured[-1]
        cells = [i for i, x in enumerate(row) if x == colour]
        return tuple(
            colour if cells[0] <= i < cells[-1] and x == 0 else x for i, x in enumerate(row)
        )
    if kind == "extend_every":
        runs = _runs(row)
        out = list(row)
        for k, (start, end, colour) in enumerate(runs):
            if rule[1] == "right":
                stop = runs[k + 1][0] if k + 1 < len(runs) else n
                out[end:stop] = [colour] * (stop - end)
            else:
                begin = runs[k - 1][1] if k else 0
                out[begin:start] = [colour] * (start - begin)
        return tuple(out)
    if kind == "denoise_runs":
        out = list(row)
        for start, end, _ in _runs(row):
            if end - start <= rule[1]:
                out[start:end] = [0] * (end - start)
        return tuple(out)
    if kind == "hollow_from":
        out = list(row)
        for start, end, _ in _runs(row):
            if end - start >= rule[1]:
                out[start + 1 : end - 1] = [0] * (end - start - 2)
        return tuple(out)
    raise ValueError(f"unknown rule kind {kind!r}")


def run(rules: list[list[Any]] | tuple[list[Any], ...], row: Row) -> Row | None:
    """Applies rules in order (None as soon as one does not apply)."""
    for rule in rules:
        row = apply(rule, row)
        if row is None:
            return None
    return row


def all_rules() -> list[list[Any]]:
    """Every rule of the family (every kind with every parameter)."""
    colours = range(1, 10)
    out: list[list[Any]] = [["shift", k] for k in (-3, -2, -1, 1, 2, 3)]
    out += [["recolour", a, b] for a in colours for b in colours if a != b]
    out += [["recolour_all", b] for b in colours]
    out += [["swap", a, b] for a in colours for b in colours if a < b]
    out += [
        ["mirror"],
        ["fill"],
        ["gravity", "left"],
        ["gravity", "right"],
        ["extend", "left"],
        ["extend", "right"],
        ["denoise"],
        ["flip_span"],
        ["hollow"],
    ]
    out += [["to_pivot", p] for p in colours]
    return out


def variant_rules() -> list[list[Any]]:
    """Natural variants of the family's rules: never drawn, but the examples must rule them out.

    The "first" and "last" versions of rules that act on every block or colour, the "every"
    version of a rule that acts on the last cell, and neighbouring run-length thresholds.
    """
    colours = range(1, 10)
    out: list[list[Any]] = [
        [kind, a, b]
        for kind in ("recolour_first", "recolour_last")
        for a in colours
        for b in colours
        if a != b
    ]
    out += [["fill_first"], ["fill_last"], ["extend_every", "left"], ["extend_every", "right"]]
    out += [["denoise_runs", 2], ["denoise_runs", 3], ["hollow_from", 4], ["hollow_from", 5]]
    return out


RULES = all_rules()
VARIANTS = variant_rules()
_RECOLOURING = [r for r in RULES if r[0] in ("recolour", "swap", "recolour_all")]
_PIVOT = [r for r in RULES if r[0] == "to_pivot"]
_OTHER = [r for r in RULES if r[0] not in ("recolour", "swap", "recolour_all", "to_pivot")]
_BLOCK_RECOLOURING = [r for r in VARIANTS if r[0] in ("recolour_first", "recolour_last")]
_OTHER_VARIANTS = [r for r in VARIANTS if r[0] not in ("recolour_first", "recolour_last")]


def candidates(row: Row, target: Row, variants: bool = False) -> list[list[Any]]:
    """The rules (and with ``variants`` the `VARIANTS`) that might turn ``row`` into ``target``.

    A sound filter: recolourings never move cells, so they need the same background pattern;
    a recolouring of every cell of a colour must agree with every cell, one of a single block
    must account for every changed cell; a pivot rule needs its pivot colour exactly once.
    Everything else is always a candidate.
    """
    out = list(_OTHER)
    same_background = all((a == 0) == (b == 0) for a, b in zip(row, target, strict=True))
    if same_background:
        # The colour each present colour must become; a recolouring must agree on all of them.
        wanted: dict[int, int] = {}
        if all(wanted.setdefault(a, b) == b for a, b in zip(row, target, strict=True) if a):
            out += [r for r in _RECOLOURING if all(_image(r, c) == d for c, d in wanted.items())]
    out += [r for r in _PIVOT if row.count(r[1]) == 1]
    if variants:
        if same_background:
            changed = {(a, b) for a, b in zip(row, target, strict=True) if a != b}
            out += [
                r
                for r in _BLOCK_RECOLOURING
                if changed == {(r[1], r[2])} or (not changed and r[1] not in row)
            ]
        out += _OTHER_VARIANTS
    return out


def _image(rule: list[Any], colour: int) -> int:
    """What a recolouring rule makes of one colour."""
    if rule[0] == "recolour_all":
        return rule[1]
    if colour == rule[1]:
        return rule[2]
    if rule[0] == "swap" and colour == rule[2]:
        return rule[1]
    return colour


def describe(rows: list[Row]) -> str:
    """Rows as digits separated by spaces, one per line."""
    return "\n".join(" ".join(str(x) for x in row) for row in rows)


class Arc1DTask(Task[Arc1DConfig]):
    """Apply a 1-D grid rule inferred from examples."""

    name = "arc_1d"
    Config = Arc1DConfig
    unique = True
    variants: ClassVar[bool] = True
    """Whether the examples must also rule out the `VARIANTS`."""

    @property
    def rivals(self) -> list[list[Any]]:
        """The single rules the examples must rule out (compositions are built from them)."""
        return RULES + VARIANTS if self.variants else RULES

    @classmethod
    def level_config(cls, level: int) -> Arc1DConfig:
        """Longer rows, more rule kinds and compositions with the level."""
        length, depth, examples, kinds = LEVELS[level]
        return Arc1DConfig(length=length, depth=depth, examples=examples, kinds=kinds)

    # --- drawing ---------------------------------------------------------------------------

    def _rule(self, rng: np.random.Generator, kind: str) -> list[Any]:
        if kind == "shift":
            return ["shift", int(rng.choice([-3, -2, -1, 1, 2, 3]))]
        if kind in ("recolour", "swap"):
            a, b = (int(x) for x in rng.choice(np.arange(1, 10), size=2, replace=False))
            return [kind, min(a, b), max(a, b)] if kind == "swap" else [kind, a, b]
        if kind == "recolour_all":
            return ["recolour_all", int(rng.integers(1, 10))]
        if kind in ("gravity", "extend"):
            return [kind, ("left", "right")[int(rng.integers(2))]]
        if kind == "to_pivot":
            return ["to_pivot", int(rng.integers(1, 10))]
        return [kind]

    def _scene(self, rng: np.random.Generator, scene: str, rules: list[list[Any]]) -> Row:
        """An input row of the scene's kind that features the colours the rules mention."""
        n = self.config.length
        mentioned = [
            x
            for rule in rules
            for x in rule[1:]
            if isinstance(x, int) and rule[0] in ("recolour", "swap")
        ]
        pivot = next((rule[1] for rule in rules if rule[0] == "to_pivot"), None)
        palette = [c for c in range(1, 10) if c != pivot]

        def colour(i: int) -> int:
            if i < len(mentioned) and mentioned[i] != pivot:
                return mentioned[i]
            return palette[int(rng.integers(len(palette)))]

        row = [0] * n
        if scene == "pivot":
            size = int(rng.integers(2, max(3, n // 4) + 1))
            p = int(rng.integers(0, n))
            free = [s for s in range(0, n - size + 1) if s + size < p or s > p + 1]
            if not free:
                return tuple(row)
            s = free[int(rng.integers(len(free)))]
            block = colour(0)
            row[s : s + size] = [block] * size
            row[p] = pivot
            return tuple(row)
        count = int(rng.integers(1, 4)) if scene in ("blocks", "long") else 2
        for i in range(count):
            low = 3 if scene == "long" else 1
            size = int(rng.integers(low, low + 3)) if scene != "pairs" else 1
            for _ in range(10):
                s = int(rng.integers(0, n - size + 1))
                if all(row[j] == 0 for j in range(max(0, s - 1), min(n, s + size + 1))):
                    c = colour(i)
                    if scene == "pairs":
                        # Two cells of one colour with a gap, for fill.
                        gap = int(rng.integers(2, max(3, n // 3) + 1))
                        if s + gap < n and all(row[j] == 0 for j in range(s, min(n, s + gap + 2))):
                            row[s] = row[s + gap] = c
                    else:
                        row[s : s + size] = [c] * size
                    break
        if scene == "noisy":
            for _ in range(int(rng.integers(1, 4))):
                s = int(rng.integers(0, n))
                if all(row[j] == 0 for j in range(max(0, s - 1), min(n, s + 2))):
                    row[s] = colour(5)
        return tuple(row)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A rule (or two) that changes the rows; examples added until the family agrees."""
        cfg = self.config
        kinds = KINDS[: cfg.kinds]
        while True:
            rules = [
                self._rule(rng, kinds[int(rng.integers(len(kinds)))]) for _ in range(cfg.depth)
            ]
            scene = SCENES[rules[0][0]]
            inputs = [self._scene(rng, scene, rules) for _ in range(cfg.examples)]
            test = self._scene(rng, scene, rules)
            rows = [*inputs, test]
            results = [run(rules, row) for row in rows]
            if (
                any(r is None for r in results)
                or sum(r != x for r, x in zip(results, rows, strict=True)) < len(rows) - 1
            ):
                continue  # the rule must apply everywhere and show itself in most rows
            answer = results[-1]
            while True:
                outputs = [run(rules, x) for x in inputs]
                fitting, singles = self._fitting(inputs + [test], outputs)
                if cfg.depth == 2 and (*outputs, answer) in singles:
                    break  # one rule does the same here: too easy, redraw
                if fitting == {answer}:
                    return self._problem(rules, inputs, outputs, test, answer)  # type: ignore[arg-type]
                if len(inputs) >= cfg.examples + EXTRA_EXAMPLES:
                    break
                extra = self._scene(rng, scene, rules)
                if run(rules, extra) is None:
                    break
                inputs.append(extra)

    def _fitting(
        self, rows: list[Row], outputs: list[Row | None]
    ) -> tuple[set[Row], set[tuple[Any, ...]]]:
        """New-row outputs of the rules (or pairs) that reproduce the examples, merged by behaviour.

        Also returns the behaviours (outputs on all rows) of single rules.
        """
        k = len(outputs)
        found: set[Row] = set()
        layer: dict[tuple[Any, ...], None] = {}
        for rule in self.rivals:
            result = tuple(apply(rule, r) for r in rows)
            if None in result:
                continue
            if result[:k] == tuple(outputs):
                found.add(result[k])  # type: ignore[arg-type]
            layer.setdefault(result, None)
        if self.config.depth == 2:
            for state in layer:
                for rule in candidates(state[0], outputs[0], self.variants):  # type: ignore[arg-type]
                    if apply(rule, state[0]) != outputs[0]:
                        continue
                    result = tuple(apply(rule, r) for r in state)
                    if None not in result and result[:k] == tuple(outputs):
                        found.add(result[k])  # type: ignore[arg-type]
        return found, set(layer)

    def _problem(
        self, rules: list[list[Any]], inputs: list[Row], outputs: list[Row], test: Row, answer: Row
    ) -> Problem:
        lines = "\n".join(
            f"input:  {' '.join(map(str, x))}\noutput: {' '.join(map(str, y))}"
            for x, y in zip(inputs, outputs, strict=True)
        )
        prompt = (
            "Each row is a line of cells; 0 is background and 1-9 are colours. The same hidden "
            f"rule turns every input row into its output row.\n{lines}\n\n"
            f"Apply the rule to this row:\ninput:  {' '.join(map(str, test))}\n\n"
            f"Give the output row as {len(test)} digits separated by spaces, "
            "e.g. <answer>0 0 5 5 0 0</answer>. " + ANSWER_FORMAT
        )
        data = {
            "rules": rules,
            "inputs": [list(x) for x in inputs],
            "outputs": [list(y) for y in outputs],
            "test": list(test),
        }
        return Problem(prompt, list(answer), data)

    # --- oracle and checker ----------------------------------------------------------------

    def solve(self, problem: Problem) -> str:
        """The hidden rules on the new row."""
        data = problem.data
        return " ".join(str(x) for x in run(data["rules"], tuple(data["test"])))  # type: ignore[union-attr]

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Exactly the reference row."""
        n = len(problem.data["test"])
        if len(answer) > MAX_ANSWER_CHARS:
            return self.malformed(answer, problem, "the answer is too long")
        body = answer.strip()
        if body.startswith("[") and body.endswith("]"):
            body = body[1:-1]
        tokens = [t for t in re.split(r"[\s,]+", body.strip()) if t]
        if len(tokens) == 1 and len(tokens[0]) == n:
            tokens = list(tokens[0])
        if len(tokens) != n or any(
            len(t) != 1 or not t.isdigit() or not t.isascii() for t in tokens
        ):
            return self.malformed(answer, problem, f"expected {n} digits separated by spaces")
        row = [int(t) for t in tokens]
        if row != list(problem.reference):
            return self.wrong(row, problem, "the output row is wrong")
        return self.correct(row, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Plain enumeration of rules (pairs at depth 2), no merging; distinct outputs that fit.

        A second step is only tried where it turns the first step's output on the first
        example into that example's output (a sound filter, found once per distinct output;
        `candidates` narrows the search).
        """
        data = problem.data
        inputs = [tuple(x) for x in data["inputs"]]
        outputs = [tuple(y) for y in data["outputs"]]
        test = tuple(data["test"])
        found = set()
        depth = len(data["rules"])
        second_steps: dict[Row, list[list[Any]]] = {}
        for first in self.rivals:
            middle = apply(first, inputs[0])
            if middle is None:
                continue
            chains = [[first]]
            if depth == 2:
                if middle not in second_steps:
                    second_steps[middle] = [
                        second
                        for second in candidates(middle, outputs[0], self.variants)
                        if apply(second, middle) == outputs[0]
                    ]
                chains += [[first, second] for second in second_steps[middle]]
            for chain in chains:
                if run(chain, inputs[0]) == outputs[0] and all(
                    run(chain, x) == y for x, y in zip(inputs[1:], outputs[1:], strict=True)
                ):
                    result = run(chain, test)
                    if result is not None:
                        found.add(result)
        if len(found) != 1:
            return Certificate(len(found))
        return Certificate(1 if list(found.pop()) == list(problem.reference) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """One cell changed (a coloured cell cleared, a background cell coloured), row shifted."""
        ref = list(problem.reference)
        candidates = []
        coloured = [i for i, x in enumerate(ref) if x]
        if coloured:
            i = coloured[0]
            candidates.append(ref[:i] + [0] + ref[i + 1 :])
        blank = [i for i, x in enumerate(ref) if not x]
        if blank:
            i = blank[0]
            candidates.append(ref[:i] + [ref[coloured[0]] if coloured else 1] + ref[i + 1 :])
        candidates.append(ref[1:] + ref[:1])
        candidates.append([(x % 9) + 1 if x else 0 for x in ref])
        out = []
        for c in candidates:
            text = " ".join(str(x) for x in c)
            if c != ref and text not in out:
                out.append(text)
        return out

    def alternatives(self, problem: Problem) -> list[str]:
        """Commas, no separators, brackets."""
        ref = [str(x) for x in problem.reference]
        return [", ".join(ref), "".join(ref), "[" + " ".join(ref) + "]"]

    def work(self, problem: Problem) -> float:
        """Cells of all rows times the rules composed."""
        data = problem.data
        cells = sum(len(x) for x in data["inputs"]) + len(data["test"])
        return float(cells * len(data["rules"]))


class Arc1DEnv(TaskEnv):
    """ARC-like 1-D transformations; see the module docstring."""

    task_class = Arc1DTask


class Arc1DV0Task(Arc1DTask):
    """Version 0, kept so that ``Arc1D-v0`` generates and scores as recorded.

    The examples rule out the family's own rules only, not their variants.
    """

    variants = False


class Arc1DV0Env(TaskEnv):
    """``Arc1D-v0``: examples checked against the family's own rules only."""

    task_class = Arc1DV0Task
