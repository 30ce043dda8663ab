"""Lean 4 proofs: compiled by a real Lean toolchain, then audited so that cheats do not pass.

What needs a Lean toolchain: compiling the proof. Palaestra looks for one in this order:

* ``backend="lean_dojo"``: lean-dojo (``pip install "palaestra[lean]"``), which needs elan, a
  Lean repository it can trace and network access the first time; the reference is then a
  mapping ``{"repo": url, "commit": sha, "file": path, "theorem": full_name}`` and the
  completion's proof is run as one tactic block in that theorem's context.
* ``backend="toolchain"`` (the default ``auto`` picks it when found): ``lake env lean`` in
  `project_dir` (a Lake project, e.g. with Mathlib) or a bare ``lean`` on PATH. The reference
  is the theorem statement, e.g. ``theorem t (n : Nat) : n + 0 = n``.

Where neither exists the verdict is ``error`` (masked): no toolchain, no reward. What runs
without a toolchain is the audit, and it is tested on recorded compiler output:

* Source audit, before compiling: no ``sorry``/``admit``, no ``axiom``/``opaque``/``constant``
  declarations, no ``@[implemented_by]``/``@[extern]``/``unsafe``, no ``#exit``, no new syntax,
  macros or elaborators (which can redefine what the checker sees), no ``set_option`` of
  ``debug.*`` or ``maxHeartbeats 0``, no ``import``. Comments are removed first.
* Statement audit: a proof that restates the theorem must restate exactly the reference
  statement (whitespace aside), and declare it once.
* Axiom audit, after compiling: the harness appends ``#print axioms <name>``; only
  ``propext``, ``Classical.choice`` and ``Quot.sound`` may appear. ``sorryAx`` or any other
  axiom (``Lean.ofReduceBool`` from ``native_decide``, a smuggled ``cheat``) fails.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from typing import Any, ClassVar

from palaestra.errors import MissingDependencyError, require
from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, VerifierConfig, as_text, verdict
from palaestra.verifiers.extract import fenced_blocks, strip_reasoning

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

_FORBIDDEN = [
    (r"\bsorry\b", "uses sorry"),
    (r"\badmit\b", "uses admit"),
    (
        r"^\s*(?:private\s+|protected\s+|noncomputable\s+)*(?:axiom|axioms|constant|opaque)\b",
        "declares an axiom or opaque constant",
    ),
    (r"@\[\s*(?:implemented_by|extern)\b", "overrides an implementation"),
    (r"\bunsafe\b", "uses unsafe code"),
    (r"#exit\b", "stops the file early with #exit"),
    (
        r"^\s*(?:local\s+|scoped\s+)?(?:syntax|macro|macro_rules|elab|elab_rules|notation|infix|infixl|infixr|prefix|postfix)\b",
        "defines new syntax",
    ),
    (r"set_option\s+(?:debug\.|maxHeartbeats\s+0|maxRecDepth)", "changes checker options"),
    (r"^\s*import\b", "imports modules (the harness sets the imports)"),
    (r"\brun_cmd\b|\brun_tac\b|#eval\b|\bLean\.Elab\b|\bLean\.Meta\b", "runs meta code"),
]
_AXIOMS_LINE = re.compile(r"^'(.+?)'\s+depends on axioms:\s*\[([^\]]*)\]", re.MULTILINE)
_NO_AXIOMS = re.compile(r"^'(.+?)'\s+does not depend on any axioms", re.MULTILINE)
_ERROR_LINE = re.compile(r"(?::\d+:\d+:\s*error\b|^\s*error\b)", re.IGNORECASE)


def strip_comments(source: str) -> str:
    """Removes ``--`` line comments and nested ``/- -/`` block comments."""
    out, i, depth = [], 0, 0
    while i < len(source):
        if source.startswith("/-", i):
            depth += 1
            i += 2
        elif depth and source.startswith("-/", i):
            depth -= 1
            i += 2
        elif depth:
            i += 1
        elif source.startswith("--", i):
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def _theorem_name(statement: str) -> str | None:
    match = re.match(r"\s*(?:theorem|lemma)\s+([^\s(:{\[]+)", statement)
    return match.group(1) if match else None


def _squash(text: str) -> str:
    return " ".join(text.split())


def audit_source(proof: str, statement: str) -> tuple[str | None, str]:
    """Audits a proof's source; returns (problem or None, the full source to compile)."""
    code = strip_comments(proof).strip()
    for pattern, why in _FORBIDDEN:
        if re.search(pattern, code, re.MULTILINE):
            return f"the proof {why}", ""
    name = _theorem_name(statement)
    if name is None:
        return "the reference is not a theorem statement", ""
    if re.match(r"\s*(?:theorem|lemma)\b", code):
        declared = re.findall(r"(?:^|\n)\s*(?:theorem|lemma)\s+([^\s(:{\[]+)", code)
        if declared.count(name) != 1 or declared[0] != name:
            return f"the proof must declare {name} exactly once, first", ""
        head = code.split(":=", 1)[0]
        if _squash(head.replace("lemma", "theorem", 1)) != _squash(
            statement.replace("lemma", "theorem", 1)
        ):
            return "the proof changes the theorem statement", ""
        source = code
    else:
        body = (
            code
            if code.startswith("by")
            else "by\n" + "\n".join("  " + line for line in code.splitlines())
        )
        source = f"{statement.strip()} := {body}"
    return None, source


def audit_output(output: str, theorem: str) -> tuple[Status, str]:
    """Judges recorded compiler output (with ``#print axioms``) for one theorem."""
    if "declaration uses 'sorry'" in output:
        return Status.INCORRECT, "the proof uses sorry"
    errors = [line for line in output.splitlines() if _ERROR_LINE.search(line)]
    if errors:
        return Status.INCORRECT, f"the proof does not compile: {errors[0][:200]}"
    axioms: list[str] | None = None
    for match in _AXIOMS_LINE.finditer(output):
        if match.group(1).split(".")[-1] == theorem.split(".")[-1]:
            axioms = [a.strip() for a in match.group(2).split(",") if a.strip()]
    for match in _NO_AXIOMS.finditer(output):
        if match.group(1).split(".")[-1] == theorem.split(".")[-1]:
            axioms = []
    if axioms is None:
        return Status.ERROR, "the axiom report for the theorem is missing from the output"
    if "sorryAx" in axioms:
        return Status.INCORRECT, "the proof depends on sorryAx"
    extra = sorted(set(axioms) - ALLOWED_AXIOMS)
    if extra:
        return (
            Status.SUSPECT,
            f"the proof depends on axioms beyond the standard three: {', '.join(extra)}",
        )
    return Status.CORRECT, "the proof compiles and uses only the standard axioms"


@dataclasses.dataclass(frozen=True)
class LeanConfig(VerifierConfig):
    """Config of the `lean` verifier.

    Attributes:
        backend: ``auto``, ``toolchain`` or ``lean_dojo``.
        project_dir: A Lake project to compile in (``lake env lean``); "" for a bare ``lean``.
        header: Lines put before the proof (the imports and opens the task needs).
        think: As in `ExtractionConfig.think`.
    """

    VERSION: ClassVar[int] = 1

    timeout_s: float = 300.0
    backend: str = "auto"
    project_dir: str = ""
    header: str = ""
    think: str = "strip"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.backend not in ("auto", "toolchain", "lean_dojo"):
            raise ValueError(
                f"backend must be 'auto', 'toolchain' or 'lean_dojo', got {self.backend!r}"
            )


def find_toolchain(project_dir: str = "") -> list[str] | None:
    """The command that compiles a file, or None when no Lean toolchain is installed."""
    if project_dir and shutil.which("lake"):
        return ["lake", "env", "lean"]
    lean = shutil.which("lean")
    return [lean] if lean else None


def extract_proof(text: str) -> str:
    """The proof in a completion: the last ```lean block, else the text after the reasoning."""
    blocks = [body for lang, body in fenced_blocks(text) if lang in ("", "lean", "lean4")]
    return blocks[-1] if blocks else text


class LeanVerifier(Verifier):
    """Compiles and audits a Lean 4 proof of the reference statement (see the module docstring)."""

    name: ClassVar[str] = "lean"
    config_class = LeanConfig
    config: LeanConfig

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        text = as_text(completion)
        if text is None:
            return verdict(Status.NO_ANSWER, "the completion has no text")
        region, why = strip_reasoning(text, self.config.think)
        if region is None:
            return verdict(Status.NO_ANSWER, why)
        proof = extract_proof(region).strip()
        if not proof:
            return verdict(Status.NO_ANSWER, "no proof found")
        if isinstance(reference, Mapping) or self.config.backend == "lean_dojo":
            return self._lean_dojo(proof, reference)
        if not isinstance(reference, str):
            return Verdict.error("the lean reference must be a theorem statement")
        problem, source = audit_source(proof, reference)
        if problem:
            if "reference" in problem:
                status = Status.ERROR
            elif "sorry" in problem or "admit" in problem:
                status = Status.INCORRECT
            else:
                status = Status.SUSPECT
            return verdict(status, problem, answer=proof)
        command = find_toolchain(self.config.project_dir)
        if command is None:
            return Verdict.error(
                "no Lean toolchain found (install elan and a Lean 4 toolchain, or set "
                "project_dir to a Lake project); the source audit passed but nothing was compiled"
            )
        theorem = _theorem_name(reference) or ""
        return self._compile(command, source, theorem, proof)

    def _compile(self, command: list[str], source: str, theorem: str, proof: str) -> Verdict:
        text = f"{self.config.header}\n\n{source}\n\n#print axioms {theorem}\n"
        with tempfile.TemporaryDirectory(prefix="palaestra-lean-") as tmp:
            path = os.path.join(tmp, "Proof.lean")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            try:
                done = subprocess.run(
                    [*command, path],
                    cwd=self.config.project_dir or tmp,
                    capture_output=True,
                    text=True,
                    timeout=self.config.timeout_s,
                    start_new_session=True,
                )
            except subprocess.TimeoutExpired:
                return verdict(
                    Status.TIMEOUT,
                    f"Lean did not finish within {self.config.timeout_s:.0f} s",
                    answer=proof,
                )
            except OSError as e:
                return Verdict.error(f"could not run Lean: {e}")
        status, reason = audit_output(done.stdout + "\n" + done.stderr, theorem)
        return verdict(status, reason, answer=proof, output=(done.stdout + done.stderr)[-4000:])

    def _lean_dojo(self, proof: str, reference: Any) -> Verdict:
        try:
            lean_dojo = require("lean_dojo", "lean", "the lean_dojo backend")
        except MissingDependencyError as e:
            return Verdict.error(str(e))
        if not isinstance(reference, Mapping) or not {"repo", "commit", "file", "theorem"} <= set(
            reference
        ):
            return Verdict.error("a lean_dojo reference needs repo, commit, file and theorem")
        for pattern, why in _FORBIDDEN:
            if re.search(pattern, strip_comments(proof), re.MULTILINE):
                return verdict(Status.SUSPECT, f"the proof {why}", answer=proof)
        tactics = proof[2:].strip() if proof.startswith("by") else proof
        try:
            repo = lean_dojo.LeanGitRepo(reference["repo"], reference["commit"])
            theorem = lean_dojo.Theorem(repo, reference["file"], reference["theorem"])
            with lean_dojo.Dojo(theorem, timeout=int(self.config.timeout_s)) as (dojo, state):
                result = dojo.run_tac(state, tactics)
        except Exception as e:  # noqa: BLE001 - lean-dojo raises many kinds of errors
            return Verdict.error(f"lean-dojo failed: {type(e).__name__}: {e}")
        kind = type(result).__name__
        if kind == "ProofFinished":
            return verdict(Status.CORRECT, "lean-dojo: proof finished", answer=proof)
        if kind == "ProofGivenUp":
            return verdict(Status.INCORRECT, "lean-dojo: the proof gives up (sorry)", answer=proof)
        if kind == "LeanError":
            return verdict(
                Status.INCORRECT, f"lean-dojo: {getattr(result, 'error', '')}"[:300], answer=proof
            )
        return verdict(Status.INCORRECT, "lean-dojo: goals remain", answer=proof)
