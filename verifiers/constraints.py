"""Constraint answers checked with z3: does the proposed assignment satisfy the constraints?

The reference is an SMT-LIB2 script declaring the variables and asserting the constraints
(``(declare-const x Int) (assert (> x 2))``). The answer slot holds an assignment, as a JSON
object (``{"x": 3, "y": true}``) or as ``name = value`` pairs separated by commas, semicolons
or new lines. Every declared variable must be assigned, and nothing else; values are integers,
decimals or fractions (for Real) and true/false (for Bool).

The check substitutes the values and simplifies; quantified constraints fall back to a solver
call with the assignment fixed. It runs in a killable worker (z3 calls can not be interrupted
from another thread), and z3 also gets the time limit as its own ``timeout``. z3-solver is
installed by the ``z3`` extra; without it every check is an ``error`` that says so.
"""

from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction
from typing import Any, ClassVar

from palaestra.errors import MissingDependencyError, require
from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Deferred, Verifier, verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer

_PAIR = re.compile(r"^\s*([A-Za-z_][\w.!]*)\s*(?:=|:=|->|:)\s*(.+?)\s*$")


@dataclasses.dataclass(frozen=True)
class Z3Config(ExtractionConfig):
    """Config of the `z3` verifier (the extraction settings plus a time limit)."""

    VERSION: ClassVar[int] = 1

    max_answer_chars: int = 20_000


def parse_assignment(text: str) -> dict[str, Any]:
    """Reads ``{"x": 3}`` or ``x = 3, y = true`` into a dict of Python values.

    Raises:
        ValueError: The text is not an assignment.
    """
    text = text.strip().strip("$").strip()
    if text.startswith("{"):
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("the JSON answer is not an object")
        return dict(data)
    out: dict[str, Any] = {}
    for piece in re.split(r"[,;\n]|\\\\", text):
        if not piece.strip():
            continue
        match = _PAIR.match(piece.replace("\\", ""))
        if not match:
            raise ValueError(f"{piece.strip()!r} is not 'name = value'")
        name, raw = match.groups()
        if name in out:
            raise ValueError(f"{name} is assigned twice")
        low = raw.lower()
        if low in ("true", "false"):
            out[name] = low == "true"
        else:
            out[name] = Fraction(raw.replace(" ", ""))
    if not out:
        raise ValueError("the assignment is empty")
    return out


def check_assignment(
    smt2: str, assignment: dict[str, Any], timeout_ms: int, answer: str
) -> Verdict:
    """Runs inside a worker: does the assignment satisfy the SMT-LIB2 constraints?"""
    try:
        z3 = require("z3", "z3", "the z3 verifier")
    except MissingDependencyError as e:
        return verdict(Status.ERROR, str(e), answer=answer)
    try:
        assertions = z3.parse_smt2_string(smt2)
    except z3.Z3Exception as e:
        return verdict(Status.ERROR, f"the reference is not valid SMT-LIB2: {e}", answer=answer)
    declared: dict[str, Any] = {}

    def collect(expr: Any) -> None:
        if z3.is_const(expr) and expr.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            declared[expr.decl().name()] = expr
        for child in expr.children():
            collect(child)

    for a in assertions:
        collect(a)
    missing = sorted(set(declared) - set(assignment))
    extra = sorted(set(assignment) - set(declared))
    if missing:
        return verdict(
            Status.INCORRECT, f"the assignment leaves {', '.join(missing)} unset", answer=answer
        )
    if extra:
        return verdict(
            Status.INCORRECT,
            f"the assignment names unknown variables {', '.join(extra)}",
            answer=answer,
        )
    pairs = []
    for name, const in declared.items():
        value = assignment[name]
        sort = const.sort()
        if sort == z3.BoolSort():
            if not isinstance(value, bool):
                return verdict(Status.INCORRECT, f"{name} needs true or false", answer=answer)
            pairs.append((const, z3.BoolVal(value)))
        elif sort == z3.IntSort():
            if isinstance(value, bool) or Fraction(value).denominator != 1:
                return verdict(Status.INCORRECT, f"{name} needs an integer", answer=answer)
            pairs.append((const, z3.IntVal(int(Fraction(value)))))
        elif sort == z3.RealSort():
            if isinstance(value, bool):
                return verdict(Status.INCORRECT, f"{name} needs a number", answer=answer)
            f = Fraction(value)
            pairs.append((const, z3.RealVal(f"{f.numerator}/{f.denominator}")))
        else:
            return verdict(
                Status.ERROR, f"variables of sort {sort} are not supported", answer=answer
            )
    goal = z3.substitute(z3.And(*assertions), *pairs) if pairs else z3.And(*assertions)
    simplified = z3.simplify(goal)
    if z3.is_true(simplified):
        return verdict(Status.CORRECT, "the assignment satisfies every constraint", answer=answer)
    if z3.is_false(simplified):
        return verdict(Status.INCORRECT, "the assignment violates a constraint", answer=answer)
    solver = z3.Solver()
    solver.set("timeout", max(1, timeout_ms))
    solver.add(goal)
    result = solver.check()
    if result == z3.sat:
        return verdict(Status.CORRECT, "the assignment satisfies every constraint", answer=answer)
    if result == z3.unsat:
        return verdict(Status.INCORRECT, "the assignment violates a constraint", answer=answer)
    return verdict(Status.ERROR, "z3 could not decide the constraints", answer=answer)


def _on_timeout(answer: str):
    def build(stage: str | None, limit: float) -> Verdict:
        return verdict(Status.ERROR, f"z3 did not finish within {limit:.1f} s", answer=answer)

    return build


class Z3Verifier(Verifier):
    """Checks an assignment against SMT-LIB2 constraints (see the module docstring)."""

    name: ClassVar[str] = "z3"
    config_class = Z3Config
    config: Z3Config

    def _verify(
        self, completion: Any, reference: Any, context: dict[str, Any]
    ) -> Verdict | Deferred:
        if not isinstance(reference, str) or "assert" not in reference:
            return Verdict.error("the z3 reference must be an SMT-LIB2 script with assertions")
        extraction = extract_answer(completion, self.config)
        if extraction.kind == "conflict":
            return verdict(Status.INCORRECT, extraction.reason, answer=extraction.answer)
        if not extraction.ok:
            status = Status.NO_ANSWER if extraction.kind == "no_answer" else Status.BAD_FORMAT
            return verdict(status, extraction.reason)
        answer = extraction.answer or ""
        try:
            assignment = parse_assignment(answer)
        except (ValueError, ZeroDivisionError) as e:
            return verdict(
                Status.BAD_FORMAT, f"the answer is not an assignment: {e}", answer=answer
            )
        timeout_ms = int(self.config.timeout_s * 1000)
        return Deferred(
            "palaestra.verifiers.constraints:check_assignment",
            (reference, assignment, timeout_ms, answer),
            on_timeout=_on_timeout(answer),
        )
