"""Mutation testing of a problem's hidden tests: first-order mutants of its reference solution.

    mutants = generate_mutants(problem.reference)
    report = await check_problem(problem, equivalent={"compare:4:11:<=": "why it is equivalent"})
    report.score, report.survivors, report.passed

A *mutant* is the reference with one small edit, made on its syntax tree by one of the
`OPERATORS`:

========== ==========================================================================
operator   edit
========== ==========================================================================
compare    a comparison's operator replaced by its boundary twin and by its negation
           (``<``: ``<=``, ``>=``; ``<=``: ``<``, ``>``; ``==``/``!=``, ``in``/``not in``,
           ``is``/``is not`` swapped)
constant   an integer constant plus and minus 1; ``True`` and ``False`` swapped
bound      an argument of ``range(...)`` or a slice bound plus and minus 1 (one that is not
           a literal: ``constant`` moves those)
arith      ``+``/``-`` and ``*``/``//`` swapped, ``/`` to ``*``, ``%`` to ``//``, ``&``/``|``
           and ``<<``/``>>`` swapped, ``^`` to ``|``, in expressions and in augmented
           assignments (``+=`` ...)
boolean    ``and``/``or`` swapped
negate     the condition of an ``if``, ``while`` or conditional expression negated; a ``not``
           removed
unary      a unary minus removed
delete     a statement replaced by ``pass``
return     a returned value replaced by ``0``, ``""``, ``None``, ``True``, ``False`` and ``[]``
jump       ``break`` and ``continue`` swapped
minmax     a call of ``min`` made a call of ``max`` and the reverse
========== ==========================================================================

Each mutant has a stable id, ``operator:line:column:replacement``: the line and column (both
from the reference as stored, first line 1, first column 0) of the edited node, or for a
binary operator, a comparison or an augmented assignment, of the operand right of the edited
operator, so that nested operators on one line have different ids. Mutants that unparse to
the same program as the reference or as an earlier mutant are dropped.

A mutant is *killed* when at least one hidden test fails on it (a wrong result, an error, a
timeout) through the judge the envs use (`palaestra.envs.code.judge`). One that passes every
hidden test either is *equivalent* (it computes the same function on every valid input; the
problem lists it with a one-line reason) or *survives*, which means the hidden tests miss a
near-miss program: add a test that kills it. To tell the two apart, `check_problem` also runs
each survivor on the public examples and on inputs made by perturbing the tests' inputs
(`fuzz_inputs`), and reports the first input where it differs from the reference. Such an
input is only a lead: it may break the statement's promises (a perturbed count no longer
matching its list), so read it before turning it into a test. A listed mutant that no longer
exists, or that a hidden test kills, makes the check fail too (a kill by timeouts alone does
not: an equivalent program may run slower on a loaded machine).

Timing: the hidden tests other than the performance ones run with a per-test limit of
`QUICK_LIMIT_S` seconds (the references take milliseconds on them, so a mutant that spends a
second there loops forever); a mutant that passes them runs the performance tests at the
problem's own limits.
"""

from __future__ import annotations

import ast
import asyncio
import copy
import dataclasses
import random
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from palaestra.envs.code.judge import Judgement, ajudge, build_request
from palaestra.envs.code.problem import CodeProblem, Test

OPERATORS: dict[str, str] = {
    "compare": "a comparison's operator replaced by its boundary twin and by its negation "
    "(< <= > >= == != in/not in is/is not)",
    "constant": "an integer constant plus and minus 1; True and False swapped",
    "bound": "an argument of range(...) or a slice bound (not a literal) plus and minus 1",
    "arith": "+/- and *// swapped, / to *, % to //, &/| and <</>> swapped, ^ to |, "
    "also in augmented assignments",
    "boolean": "and/or swapped",
    "negate": "the condition of an if, while or conditional expression negated; a not removed",
    "unary": "a unary minus removed",
    "delete": "a statement replaced by pass",
    "return": "a returned value replaced by 0, '', None, True, False and []",
    "jump": "break and continue swapped",
    "minmax": "a call of min made a call of max and the reverse",
}
"""The mutation operators, each with the edit it makes (see the module docstring)."""

QUICK_LIMIT_S = 1.0
"""Per-test seconds for the hidden tests that are not performance tests."""

REFERENCE_TIME_SCALE = 2.0
"""Stretches the limits of the reference's own run (a loaded machine must not fail it)."""

FUZZ_INPUTS = 300
"""Perturbed inputs tried on each survivor."""

_COMPARE: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE, ast.GtE),
    ast.LtE: (ast.Lt, ast.Gt),
    ast.Gt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Gt, ast.Lt),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_ARITH: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.FloorDiv,),
    ast.FloorDiv: (ast.Mult,),
    ast.Div: (ast.Mult,),
    ast.Mod: (ast.FloorDiv,),
    ast.BitAnd: (ast.BitOr,),
    ast.BitOr: (ast.BitAnd,),
    ast.LShift: (ast.RShift,),
    ast.RShift: (ast.LShift,),
    ast.BitXor: (ast.BitOr,),
}
_SYMBOLS: dict[type, str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Div: "/",
    ast.Mod: "%",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitXor: "^",
}
_RETURNS: tuple[tuple[str, ast.expr], ...] = (
    ("0", ast.Constant(0)),
    ("''", ast.Constant("")),
    ("None", ast.Constant(None)),
    ("True", ast.Constant(True)),
    ("False", ast.Constant(False)),
    ("[]", ast.List(elts=[], ctx=ast.Load())),
)
# Statements whose removal only breaks the program's structure (a missing name), never its logic.
_KEPT_STATEMENTS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Pass,
    ast.Global,
    ast.Nonlocal,
)

NodePath = tuple[tuple[str, int | None], ...]


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One first-order mutant of a reference solution.

    Attributes:
        id: ``operator:line:column:replacement`` (see the module docstring).
        operator: A key of `OPERATORS`.
        line: The line of the edit in the reference (1-based).
        code: The mutant's source.
    """

    id: str
    operator: str
    line: int
    code: str


# --- generating mutants ----------------------------------------------------------------------


def _walk(node: ast.AST, path: NodePath = ()) -> Iterator[tuple[NodePath, ast.AST]]:
    yield path, node
    for field, value in ast.iter_fields(node):
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _walk(item, (*path, (field, index)))
        elif isinstance(value, ast.AST):
            yield from _walk(value, (*path, (field, None)))


def _put(parent: ast.AST, field: str, index: int | None, node: ast.AST) -> None:
    if index is None:
        setattr(parent, field, node)
    else:
        getattr(parent, field)[index] = node


def _unparse_with(tree: ast.AST, path: NodePath, new: ast.AST) -> str:
    """The source of ``tree`` with the node at ``path`` replaced by ``new`` (tree unchanged)."""
    parent = tree
    for field, index in path[:-1]:
        parent = getattr(parent, field) if index is None else getattr(parent, field)[index]
    field, index = path[-1]
    old = getattr(parent, field) if index is None else getattr(parent, field)[index]
    _put(parent, field, index, new)
    try:
        return ast.unparse(tree)
    finally:
        _put(parent, field, index, old)


def _with(node: ast.AST, **changes: Any) -> ast.AST:
    new = copy.deepcopy(node)
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def _plus(node: ast.expr, delta: int) -> ast.expr:
    op = ast.Add() if delta > 0 else ast.Sub()
    return ast.BinOp(left=copy.deepcopy(node), op=op, right=ast.Constant(abs(delta)))


def _is_number(node: ast.expr) -> bool:
    # `constant` already moves a literal bound; `bound` moves the others.
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _edits(node: ast.AST, path: NodePath) -> Iterator[tuple[str, ast.AST, str, NodePath, ast.AST]]:
    """The edits at one node: (operator, node whose position names it, label, path, new)."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            for new_op in _COMPARE.get(type(op), ()):
                ops = [copy.deepcopy(o) for o in node.ops]
                ops[i] = new_op()
                yield "compare", node.comparators[i], _SYMBOLS[new_op], path, _with(node, ops=ops)
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield "constant", node, str(not node.value), path, ast.Constant(not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        for delta in (1, -1):
            value = node.value + delta
            yield "constant", node, str(value), path, ast.Constant(value)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)):
        right = node.right if isinstance(node, ast.BinOp) else node.value
        for new_op in _ARITH.get(type(node.op), ()):
            yield "arith", right, _SYMBOLS[new_op], path, _with(node, op=new_op())
    elif isinstance(node, ast.BoolOp):
        new_op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "boolean", node.values[1], type(new_op).__name__.lower(), path, _with(node, op=new_op)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "negate", node, "drop-not", path, copy.deepcopy(node.operand)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield "unary", node, "drop-minus", path, copy.deepcopy(node.operand)
    elif isinstance(node, ast.Break):
        yield "jump", node, "continue", path, ast.Continue()
    elif isinstance(node, ast.Continue):
        yield "jump", node, "break", path, ast.Break()
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        negated = ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(node.test))
        yield "negate", node.test, "not", path, _with(node, test=negated)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "range":
            for i, arg in enumerate(node.args):
                if _is_number(arg):
                    continue
                for delta in (1, -1):
                    yield "bound", arg, f"{delta:+d}", (*path, ("args", i)), _plus(arg, delta)
        elif node.func.id in ("min", "max"):
            other = "max" if node.func.id == "min" else "min"
            yield "minmax", node, other, (*path, ("func", None)), ast.Name(other, ast.Load())
    if isinstance(node, ast.Slice):
        for name in ("lower", "upper"):
            bound = getattr(node, name)
            if bound is not None and not _is_number(bound):
                for delta in (1, -1):
                    yield "bound", bound, f"{delta:+d}", (*path, (name, None)), _plus(bound, delta)
    if isinstance(node, ast.Return) and node.value is not None:
        for label, value in _RETURNS:
            yield "return", node, label, path, ast.Return(value=copy.deepcopy(value))
    for field in ("body", "orelse", "finalbody"):
        body = getattr(node, field, None)
        if not isinstance(body, list):
            continue
        for i, statement in enumerate(body):
            if isinstance(statement, ast.stmt) and not (
                isinstance(statement, _KEPT_STATEMENTS) or _is_docstring(statement)
            ):
                yield "delete", statement, "pass", (*path, (field, i)), ast.Pass()


def generate_mutants(source: str) -> list[Mutant]:
    """Every first-order mutant of ``source`` (see the module docstring), in source order.

    Raises:
        SyntaxError: ``source`` is not Python.
    """
    tree = ast.parse(source)
    seen = {ast.unparse(tree)}
    taken: set[str] = set()
    found = []
    for path, node in _walk(tree):
        for operator, where, label, target, new in _edits(node, path):
            code = _unparse_with(tree, target, new)
            if code in seen:
                continue
            seen.add(code)
            base = f"{operator}:{where.lineno}:{where.col_offset}:{label}"
            mutant_id, n = base, 1
            while mutant_id in taken:
                n += 1
                mutant_id = f"{base}#{n}"
            taken.add(mutant_id)
            mutant = Mutant(mutant_id, operator, where.lineno, code + "\n")
            found.append(((where.lineno, where.col_offset), mutant))
    return [mutant for _, mutant in sorted(found, key=lambda item: item[0])]


# --- perturbed inputs ------------------------------------------------------------------------

_MAX_FUZZ_CHARS = 2_000
_ARITHMETIC = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}


def _value(node: ast.AST) -> Any:
    """A literal, or arithmetic on literals (``10**9``, ``[0] * 20``); ValueError otherwise."""
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and not (isinstance(right, int) and 0 <= right <= 64):
            raise ValueError("only small integer powers")
        if isinstance(node.op, ast.Mult) and isinstance(left, (list, str)) and right > 10_000:
            raise ValueError("too long")
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(item) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    return ast.literal_eval(node)


def _call(text: str, entry: str | None) -> tuple[list[Any], dict[str, Any]] | None:
    """The arguments of a test's call of ``entry``, when they are plain values."""
    try:
        node = ast.parse(text, mode="eval").body
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        if node.func.id != entry:
            return None
        return [_value(a) for a in node.args], {k.arg: _value(k.value) for k in node.keywords}
    except (SyntaxError, ValueError, TypeError, ArithmeticError, RecursionError):
        return None


def _pick(rng: random.Random, options: Sequence[Any]) -> Any:
    return options[rng.randrange(len(options))]


def _perturb_int(value: int, rng: random.Random) -> int:
    options = [value + 1, value - 1, value + 2, value - 2, 2 * value, value // 2, 0, 1, 2]
    options.append(value + rng.randint(-10, 10))
    if value >= 0:
        options = [o for o in options if o >= 0]
    return _pick(rng, [o for o in options if o != value] or [value + 1])


def _perturb_str(value: str, rng: random.Random, alphabet: str) -> str:
    alphabet = alphabet or value or "ab"
    n = len(value)
    i = rng.randrange(n + 1)
    char = _pick(rng, alphabet)
    edits = [value[:i] + char + value[i:], value[::-1], value + value[-1:]]
    if n:
        j = rng.randrange(n)
        edits += [value[:j] + value[j + 1 :], value[:j] + char + value[j + 1 :]]
    if n > 1:
        j = rng.randrange(n - 1)
        edits.append(value[:j] + value[j + 1] + value[j] + value[j + 2 :])
    return _pick(rng, edits)


def _perturb(value: Any, rng: random.Random, alphabet: str, depth: int = 0) -> Any:
    """A nearby value of the same shape: one small edit somewhere inside ``value``."""
    if type(value) is bool:
        return not value
    if type(value) is int:
        return _perturb_int(value, rng)
    if type(value) is float:
        return _pick(rng, [value + 1, value - 1, value * 2, value / 2, 0.0, -value])
    if type(value) is str:
        return _perturb_str(value, rng, alphabet)
    if isinstance(value, (list, tuple)) and value and depth < 6:
        items = list(value)
        i, j = rng.randrange(len(items)), rng.randrange(len(items))
        edit = rng.randrange(6)
        if edit == 0:
            items[i] = _perturb(items[i], rng, alphabet, depth + 1)
        elif edit == 1:
            del items[i]
        elif edit == 2:
            items.insert(j, copy.deepcopy(items[i]))
        elif edit == 3:
            items[i], items[j] = items[j], items[i]
        elif edit == 4:
            items.reverse()
        else:
            rng.shuffle(items)
        return type(value)(items)
    if isinstance(value, dict) and value:
        items = dict(value)
        key = _pick(rng, sorted(items, key=repr))
        items[key] = _perturb(items[key], rng, alphabet, depth + 1)
        return items
    return value


def _perturb_text(text: str, rng: random.Random, alphabet: str) -> str:
    lines = text.split("\n")
    tokens = [(i, j) for i, line in enumerate(lines) for j, _ in enumerate(line.split())]
    edit = rng.randrange(4)
    if edit == 3 and len([line for line in lines if line.strip()]) > 2:
        # Swap two lines after the first (the first often holds the counts).
        i, j = rng.sample(range(1, len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
    elif tokens:
        i, j = _pick(rng, tokens)
        words = lines[i].split()
        word = words[j]
        if word.lstrip("-").isdigit():
            words[j] = str(_perturb_int(int(word), rng))
        else:
            words[j] = _perturb_str(word, rng, alphabet)
        lines[i] = " ".join(words)
    return "\n".join(lines)


def fuzz_inputs(problem: CodeProblem, count: int = FUZZ_INPUTS, seed: int = 0) -> list[str]:
    """Up to ``count`` new test inputs near the problem's own (perturbed values or tokens).

    Function problems: the arguments of each test's call (when they are plain values) get one
    to three small edits (an integer moved, a character inserted or removed, list items
    dropped, repeated, swapped or changed). Stdin/stdout problems: tokens of the input are
    edited the same way, or two lines after the first are swapped. Performance tests are not
    used. The inputs may break the statement's promises; the reference's answer on them is
    what a mutant is compared with.
    """
    rng = random.Random(seed)
    tests = [t for t in problem.tests if t.label != "performance"]
    alphabet = "".join(sorted({c for t in tests for c in t.input if c.isalnum()}))
    if problem.style == "function":
        calls = [_call(t.input, problem.entry) for t in tests]
        templates: list[Any] = [c for c in calls if c is not None and (c[0] or c[1])]
    else:
        templates = [t.input for t in tests]
    seen = {t.input for t in problem.tests}
    found: list[str] = []
    for _ in range(count * 20):
        if len(found) >= count or not templates:
            break
        template = _pick(rng, templates)
        if problem.style == "function":
            args, kwargs = copy.deepcopy(template)
            for _ in range(rng.randint(1, 3)):
                if args and (not kwargs or rng.random() < 0.8):
                    i = rng.randrange(len(args))
                    args[i] = _perturb(args[i], rng, alphabet)
                else:
                    key = _pick(rng, sorted(kwargs))
                    kwargs[key] = _perturb(kwargs[key], rng, alphabet)
            shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
            text = f"{problem.entry}({', '.join(shown)})"
        else:
            text = template
            for _ in range(rng.randint(1, 3)):
                text = _perturb_text(text, rng, alphabet)
        if text not in seen and len(text) <= _MAX_FUZZ_CHARS:
            seen.add(text)
            found.append(text)
    return found


# --- running mutants -------------------------------------------------------------------------

KILLED, SURVIVED, EQUIVALENT = "killed", "survived", "equivalent"


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What the hidden tests did to one mutant.

    Attributes:
        mutant: The mutant.
        status: ``"killed"``, ``"survived"`` or ``"equivalent"`` (listed with a reason).
        detail: For a killed mutant, the first hidden test it failed; for a survivor, the
            first public or perturbed input where it differs from the reference (or that
            none was found); for an equivalent one, the listed reason.
    """

    mutant: Mutant
    status: str
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class ProblemReport:
    """The mutation check of one problem.

    Attributes:
        problem_id: The problem.
        outcomes: One per mutant, in source order.
        errors: What makes the check fail besides survivors: a reference that fails its own
            tests, a listed mutant that no longer exists or that the hidden tests kill, a
            sandbox failure.
    """

    problem_id: str
    outcomes: tuple[Outcome, ...]
    errors: tuple[str, ...] = ()

    def count(self, status: str) -> int:
        """Mutants with this status."""
        return sum(o.status == status for o in self.outcomes)

    @property
    def survivors(self) -> list[Outcome]:
        """The mutants that pass every hidden test and are not listed as equivalent."""
        return [o for o in self.outcomes if o.status == SURVIVED]

    @property
    def score(self) -> float:
        """Killed mutants over non-equivalent ones (1.0 when every mutant is equivalent)."""
        killed, survived = self.count(KILLED), self.count(SURVIVED)
        return killed / (killed + survived) if killed + survived else 1.0

    @property
    def passed(self) -> bool:
        """Whether every non-equivalent mutant is killed and nothing else went wrong."""
        return not self.survivors and not self.errors


def _describe(problem: CodeProblem, judgement: Judgement, tests: Sequence[Test]) -> str:
    failure = next(r for r in judgement.results if not r.passed)
    test = tests[failure.index]
    shown = test.input if len(test.input) <= 200 else test.input[:197] + "..."
    expected = repr(test.output) if problem.style == "function" else test.output
    return f"input {shown!r}: expected {expected!r}, {failure.outcome} {failure.detail}".rstrip()


def _with_hidden(problem: CodeProblem, hidden: Sequence[Test]) -> CodeProblem:
    return dataclasses.replace(problem, public=(), hidden=tuple(hidden))


async def _first_failure(
    code: str, problem: CodeProblem, backend: Any
) -> tuple[str | None, bool, str | None]:
    """Runs the hidden tests: (first failure or None, timeouts only, infrastructure error)."""
    quick = [t for t in problem.hidden if t.label != "performance"]
    slow = [t for t in problem.hidden if t.label == "performance"]
    stages = [(quick, min(1.0, QUICK_LIMIT_S / problem.time_limit_s)), (slow, 1.0)]
    for tests, scale in stages:
        if not tests:
            continue
        part = _with_hidden(problem, tests)
        judgement = await ajudge(code, part, which="hidden", backend=backend, time_scale=scale)
        if judgement.status == "error":
            return None, False, judgement.reason
        if judgement.status != "ok":
            return judgement.reason, False, None
        if not judgement.all_passed():
            timeouts = all(r.outcome == "timeout" for r in judgement.results if not r.passed)
            return _describe(problem, judgement, tests), timeouts, None
    return None, False, None


async def _reference_outputs(
    problem: CodeProblem, inputs: Sequence[str], backend: Any
) -> list[Test]:
    """Tests of ``inputs`` expecting what the reference gives (inputs it fails on are dropped)."""
    from palaestra.verifiers.code import read_channel

    if not inputs:
        return []
    blank = [Test(text, "" if problem.style == "stdio" else None) for text in inputs]
    scale = min(1.0, QUICK_LIMIT_S / problem.time_limit_s)
    request = build_request(problem.reference, problem, blank, time_scale=scale)
    result = await backend.arun(request)
    if result.error is not None:
        return []
    lines, tampered = read_channel(result.stdout, len(blank))
    if tampered:
        return []
    tests = []
    for index, text in enumerate(inputs):
        line = lines.get(index) or {}
        if "value" in line and not line.get("timeout") and "exception" not in line:
            if problem.style == "function" or isinstance(line["value"], str):
                tests.append(Test(text, line["value"]))
    return tests


async def _lead(code: str, leads: CodeProblem, backend: Any) -> str:
    scale = min(1.0, QUICK_LIMIT_S / leads.time_limit_s)
    judgement = await ajudge(code, leads, which="hidden", backend=backend, time_scale=scale)
    if judgement.status != "ok" or judgement.all_passed():
        return "same results as the reference on the public and perturbed inputs"
    failure = next(r for r in judgement.results if not r.passed)
    where = "a public example" if failure.label == "public" else "a perturbed input"
    return f"differs on {where}: " + _describe(leads, judgement, leads.hidden)


async def check_problem(
    problem: CodeProblem,
    equivalent: Mapping[str, str] | None = None,
    *,
    backend: Any = "python",
    mutants: Sequence[Mutant] | None = None,
    fuzz: int = FUZZ_INPUTS,
) -> ProblemReport:
    """Runs every mutant of the problem's reference against its hidden tests.

    Args:
        problem: A problem with a reference solution.
        equivalent: Mutant ids listed as equivalent, each with its reason.
        backend: The `palaestra.sandbox` backend or its name.
        mutants: The mutants to run (default: all of `generate_mutants`); the listed ids are
            checked against all of them either way.
        fuzz: Perturbed inputs tried on each survivor (0: none).

    Returns:
        The `ProblemReport`.
    """
    from palaestra import sandbox

    if not problem.reference:
        raise ValueError(f"problem {problem.id!r} has no reference solution to mutate")
    if isinstance(backend, str):
        backend = sandbox.get_backend(backend)
    equivalent = dict(equivalent or {})
    everything = generate_mutants(problem.reference)
    chosen = everything if mutants is None else list(mutants)
    errors = [
        f"{mutant_id} is listed as equivalent but is not a mutant of the reference "
        "(did the reference change?)"
        for mutant_id in sorted(set(equivalent) - {m.id for m in everything})
    ]
    own = await ajudge(
        problem.reference,
        problem,
        which="hidden",
        backend=backend,
        time_scale=REFERENCE_TIME_SCALE,
    )
    if not own.all_passed():
        return ProblemReport(problem.id, (), (f"the reference fails: {own.reason}", *errors))
    runs = await asyncio.gather(*(_first_failure(m.code, problem, backend) for m in chosen))
    outcomes = []
    for mutant, (failure, timeouts_only, error) in zip(chosen, runs, strict=True):
        reason = equivalent.get(mutant.id)
        if error is not None:
            errors.append(f"{mutant.id}: the sandbox failed: {error}")
        elif failure is not None and reason is not None and not timeouts_only:
            errors.append(
                f"{mutant.id} is listed as equivalent but a hidden test kills it: {failure}"
            )
        elif failure is not None and reason is None:
            outcomes.append(Outcome(mutant, KILLED, failure))
        elif reason is not None:
            outcomes.append(Outcome(mutant, EQUIVALENT, reason))
        else:
            outcomes.append(Outcome(mutant, SURVIVED))
    survivors = [o for o in outcomes if o.status == SURVIVED]
    if survivors and fuzz:
        inputs = fuzz_inputs(problem, fuzz)
        perturbed = await _reference_outputs(problem, inputs, backend)
        public = [dataclasses.replace(t, label="public") for t in problem.public]
        leads = _with_hidden(problem, public + perturbed)
        details = await asyncio.gather(*(_lead(o.mutant.code, leads, backend) for o in survivors))
        found = dict(zip((o.mutant.id for o in survivors), details, strict=True))
        outcomes = [
            dataclasses.replace(o, detail=found[o.mutant.id]) if o.status == SURVIVED else o
            for o in outcomes
        ]
    return ProblemReport(problem.id, tuple(outcomes), tuple(errors))


def in_sample(problem_id: str, mutant_id: str, one_in: int) -> bool:
    """Whether a mutant is in the deterministic sample of one mutant in ``one_in``.

    The choice hashes the ids, so it does not move when other mutants come or go.
    """
    return zlib.crc32(f"{problem_id} {mutant_id}".encode()) % one_in == 0


async def check_shipped(
    problem_ids: Sequence[str],
    *,
    backend: Any = "python",
    sample: int = 1,
    fuzz: int = FUZZ_INPUTS,
    at_once: int = 2,
    on_report: Callable[[ProblemReport], None] | None = None,
) -> list[ProblemReport]:
    """`check_problem` over shipped problems, with the mutants each one lists as equivalent.

    Args:
        problem_ids: Ids of `palaestra.envs.code.problems`.
        backend: The sandbox backend or its name (its concurrency bounds the runs in flight).
        sample: Run one mutant in ``sample`` (`in_sample`); 1 runs them all.
        fuzz: Perturbed inputs tried on each survivor.
        at_once: Problems checked at the same time.
        on_report: Called with each report as soon as it is ready.
    """
    from palaestra.envs.code import problems

    gate = asyncio.Semaphore(at_once)

    async def one(problem_id: str) -> ProblemReport:
        async with gate:
            problem = problems.get_problem(problem_id)
            report = await check_problem(
                problem,
                problems.equivalent_mutants(problem_id),
                backend=backend,
                mutants=[
                    m
                    for m in generate_mutants(problem.reference)
                    if in_sample(problem_id, m.id, sample)
                ],
                fuzz=fuzz,
            )
        if on_report is not None:
            on_report(report)
        return report

    return list(await asyncio.gather(*(one(i) for i in problem_ids)))
