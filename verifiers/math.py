r"""Math answers: exact where it must be, lenient only where the reference says so.

Pipeline of `MathVerifier`:

1. The shared slot extraction (`palaestra.verifiers.extract`): one final answer, hedges and
   conflicting answers are incorrect, reasoning inside ``<think>`` is never read.
2. Decorations are handled explicitly: currency signs are dropped; a percent sign, a degree
   sign or a unit (``\text{cm}``) on one side only is a unit, not a factor, so ``50\%``
   matches ``50`` but not ``0.5``; units on both sides must agree; answers that hedge
   (``41 or 42``, "maybe") are incorrect.
3. The fast path (`palaestra.verifiers.fastmath`) settles integers, decimals, fractions,
   simple LaTeX arithmetic and flat tuples, sets and intervals of those in microseconds,
   in-process, and refuses values too large to evaluate (status ``timeout``).
4. Everything else goes to a killable worker: latex2sympy parsing (math-verify's parser, with
   its SIGALRM timeouts disabled) and comparison with these rules on top of math-verify's
   equivalence checks. math-verify's own extraction is never run on the completion: its
   anchorless fallbacks (the last number anywhere in the text, the first of several boxes) are
   what hedges exploit; only the isolated answer slot is parsed.

   * exact match for integer references, no float tolerance anywhere;
   * a decimal reference is a rounded value: it matches an exact answer whose expansion does
     not terminate and rounds to it (``3.14`` ~ ``\pi``), if it states at least
     `min_reference_sig` significant digits; a decimal answer matches an exact, non-terminating
     reference only with at least `min_answer_sig` significant digits (``0.333333`` ~ ``1/3``,
     ``0.333`` is not);
   * an equation answers a value only when it is solved for a lone variable (``x=5`` matches
     ``5``; ``2x+1=11`` does not); equation references match proportional equations;
   * an inequality answers an interval only in solved form (``x>2`` matches ``(2,\infty)``;
     restating ``x^2>4`` does not);
   * intervals keep their brackets; sets ignore order, tuples do not; matrices compare entries;
   * ``i`` is the imaginary unit only where the reference works in the complex numbers: it
     names ``i`` (also spelled ``I``, ``\mathrm{i}``, ``\imath``) or holds a number that is not
     real (``\sqrt{-4}``). Then ``(1+i)^2`` answers ``2i`` and ``-1`` answers ``e^{i\pi}``.
     Otherwise ``i`` is a variable like any other letter: ``x+i`` does not answer ``x+1``,
     and ``i^2`` does not answer ``-1`` (incorrect, but not decisive, so the hybrid
     verifier's judge, which sees the question, decides).

Verdict details: ``decided_by`` (``fast_path``, ``sympy``, ``string``, ``extraction``, ...) and
``decisive`` (False when the rules could not prove a wrong answer wrong, e.g. an unparsable
answer; the hybrid verifier asks its judge only then).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from fractions import Fraction
from typing import Any, ClassVar

from palaestra.errors import MissingDependencyError, require
from palaestra.verdict import Status, Verdict
from palaestra.verifiers import fastmath
from palaestra.verifiers.base import Deferred, Verifier, verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer, normalize_unicode

_HEDGE = re.compile(
    r"(?<![a-zA-Z\\])(?:either|maybe|possibly|probably|perhaps|unsure|guess|not\s+sure)"
    r"(?![a-zA-Z])",
    re.IGNORECASE,
)
# "1 or 2" lists alternatives: parsed as the set {1, 2}, which matches only a set reference.
_OR = re.compile(r"\\(?:text|mbox|textrm)\{\s*or\s*\}|\s+or\s+|\\lor|\\vee")
_TEXT_CMD = r"\\(?:text|textrm|mathrm|mbox|textbf|mathbf|textit|operatorname)\s*"
_TRAILING_UNIT = re.compile(
    r"^(?P<core>.*?[\d}).a-zA-Z])\s*(?:\\[,;: !]\s*)*" + _TEXT_CMD + r"\{(?P<unit>[^{}]*)\}"
    r"(?P<power>\^\{?\d\}?)?\s*$",
    re.DOTALL,
)
_UNIT_WORDS = (
    "cm|mm|km|m|kg|g|mg|s|sec|seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|years?|"
    "units?|dollars?|cents?|meters?|metres?|inches|inch|feet|foot|ft|miles?|mph|"
    "liters?|litres?|ml|l|square\\s+units|sq\\s+units|degrees?"
)
# One or two other words after a number are a count's noun ("42 apples"): dropped, not compared.
_TRAILING_NOUN = re.compile(
    r"^(?P<core>.*?\d)\s+(?!(?:or|and|sin|cos|tan|log|ln|pi|sqrt|exp)\b)[a-z]{2,}(?:\s+[a-z]{2,})?\s*$",
    re.DOTALL,
)
_TRAILING_WORD_UNIT = re.compile(
    r"^(?P<core>.*?\d)\s+(?P<unit>(?:" + _UNIT_WORDS + r"))(?P<power>\^\{?\d\}?)?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_PERCENT = re.compile(r"^(?P<core>.*?)\s*(?:\\%|%|\\text\{\s*percent\s*\}|\s+percent)\s*$", re.S)
_DEGREE = re.compile(
    r"^(?P<core>.*?)\s*(?:\^\s*\{?\\circ\}?|\\degree|\^\{\s*\\circ\s*\}|\s*degrees?)\s*$", re.S
)
# The imaginary unit's other spellings, read as ``i`` first: ``2\mathrm{i}`` is not 2 with a
# unit, and latex2sympy would take ``I`` for the unit even where it is a variable (``I_1``).
_I_SPELLING = re.compile(
    r"\\(?:mathrm|mathit|text|textrm|mbox|operatorname)\s*\{\s*[iI]\s*\}"
    r"|\\imath(?![a-zA-Z])|(?<![a-zA-Z\\])I(?![a-zA-Z])"
)
_CURRENCY = re.compile(r"^(?:\\\$|\$|USD\s*|€|£|¥)\s*")
_ASSIGNMENT = re.compile(r"^\s*[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?\s*=\s*(?P<rhs>[^=<>]+)$")
_CHOICE = re.compile(r"^\(?\s*([A-Ea-e])\s*\)?$")
_WORD = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{2,}")
_MATH_WORDS = {
    "sin",
    "cos",
    "tan",
    "cot",
    "sec",
    "csc",
    "log",
    "ln",
    "exp",
    "sqrt",
    "pi",
    "infty",
    "inf",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "lim",
    "max",
    "min",
    "gcd",
    "lcm",
    "det",
    "mod",
    "frac",
    "dfrac",
    "cdot",
    "times",
    "left",
    "right",
    "le",
    "ge",
    "ne",
    "leq",
    "geq",
    "neq",
    "in",
    "cup",
    "cap",
    "oo",
    "deg",
    "circ",
    "pm",
    "mp",
}


@dataclasses.dataclass(frozen=True)
class MathConfig(ExtractionConfig):
    r"""Config of the `math` verifier.

    Attributes:
        min_answer_sig: Significant digits a decimal answer needs to match an exact reference
            whose expansion does not terminate (``0.333333`` for ``1/3``).
        min_reference_sig: Significant digits a decimal reference needs before an exact answer
            may round to it (``3.14`` for ``\pi``).
        fast_path: Settle simple answers in-process before sympy.
        extract_reference: When the reference contains ``\boxed{}``, compare with its last box.
    """

    VERSION: ClassVar[int] = 2

    timeout_s: float = 3.0
    min_answer_sig: int = 6
    min_reference_sig: int = 3
    fast_path: bool = True
    extract_reference: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("min_answer_sig", "min_reference_sig"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")


@dataclasses.dataclass(frozen=True)
class _Decorated:
    core: str
    percent: bool = False
    degree: bool = False
    unit: str = ""


def _strip_math_delimiters(s: str) -> str:
    s = s.strip()
    for left, right in (("$$", "$$"), ("$", "$"), (r"\(", r"\)"), (r"\[", r"\]")):
        if s.startswith(left) and s.endswith(right) and len(s) > len(left) + len(right):
            s = s[len(left) : -len(right)].strip()
    return s.rstrip(".。").strip()


def _canonical_unit(unit: str) -> str:
    u = re.sub(r"\s+|\\[,;: !]", "", unit.lower())
    if len(u) > 3 and u.endswith("s"):
        u = u[:-1]
    return u


def decorate(text: str) -> _Decorated:
    """Splits an answer into its mathematical core and its unit, percent and degree marks."""
    s = _strip_math_delimiters(text)
    s = _CURRENCY.sub("", s)
    percent = degree = False
    unit = ""
    for _ in range(2):
        match = _TRAILING_UNIT.match(s)
        if match and match.group("unit").strip():
            word = match.group("unit").strip()
            if word.lower() in ("percent", "%"):
                percent = True
            elif word.lower().startswith("degree"):
                degree = True
            else:
                unit = _canonical_unit(word + (match.group("power") or ""))
            s = match.group("core").strip()
            continue
        match = _TRAILING_WORD_UNIT.match(s)
        if match:
            word = match.group("unit")
            if word.lower().startswith("degree"):
                degree = True
            else:
                unit = _canonical_unit(word + (match.group("power") or ""))
            s = match.group("core").strip()
            continue
        match = _TRAILING_NOUN.match(s)
        if match:
            s = match.group("core").strip()
            continue
        break
    match = _PERCENT.match(s)
    if match and match.group("core").strip():
        percent, s = True, match.group("core").strip()
    match = _DEGREE.match(s)
    if match and match.group("core").strip():
        degree, s = True, match.group("core").strip()
    s = _CURRENCY.sub("", s).strip()
    return _Decorated(s, percent, degree, unit)


def _plain_text(s: str) -> str:
    """Removes text wrappers and punctuation for string comparison of worded answers."""
    s = re.sub(_TEXT_CMD + r"\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\[,;: !]|[\s$.,;:!?'\"()]+", " ", s)
    return " ".join(s.lower().split())


def is_texty(s: str) -> bool:
    r"""True when an answer is words rather than mathematics (``\text{Evelyn}``, ``odd``)."""
    stripped = re.sub(r"\\(?:begin|end)\{[a-zA-Z*]+\}", " ", s)
    stripped = re.sub(_TEXT_CMD + r"\{([^{}]*)\}", r" \1 ", stripped)
    words = [w.lower() for w in _WORD.findall(stripped)]
    return any(w not in _MATH_WORDS for w in words)


class MathVerifier(Verifier):
    """Checks a math answer against a reference (see the module docstring).

    Context: none besides the universal ``question`` and ``timeout_s``.
    """

    name: ClassVar[str] = "math"
    config_class = MathConfig
    config: MathConfig

    def _verify(
        self, completion: Any, reference: Any, context: dict[str, Any]
    ) -> Verdict | Deferred:
        ref_text = self._reference_text(reference)
        if isinstance(ref_text, Verdict):
            return ref_text
        extraction = extract_answer(completion, self.config)
        if extraction.kind in ("no_answer", "bad_format", "too_long"):
            status = Status.NO_ANSWER if extraction.kind == "no_answer" else Status.BAD_FORMAT
            return verdict(status, extraction.reason, reference=ref_text, decided_by="extraction")
        answer = extraction.answer or ""
        if extraction.kind == "conflict":
            return verdict(
                Status.INCORRECT,
                extraction.reason,
                answer=answer,
                reference=ref_text,
                decided_by="extraction",
                decisive=True,
                candidates=list(extraction.candidates),
            )
        return self.compare(answer, ref_text, source=extraction.source)

    def compare(self, answer: str, reference: str, *, source: str = "") -> Verdict | Deferred:
        """Compares an already-extracted answer with a reference string."""
        base = {"answer": answer, "reference": reference}
        if _HEDGE.search(answer) and not _HEDGE.search(reference):
            return verdict(
                Status.INCORRECT,
                "the answer hedges between alternatives",
                decided_by="rules",
                decisive=True,
                **base,
            )
        a = decorate(_OR.sub(", ", _I_SPELLING.sub("i", answer)))
        r = decorate(_OR.sub(", ", _I_SPELLING.sub("i", reference)))
        if not a.core:
            return verdict(
                Status.NO_ANSWER, "the answer slot holds no mathematics", decided_by="rules", **base
            )
        if a.unit and r.unit and a.unit != r.unit:
            return verdict(
                Status.INCORRECT,
                f"units differ: {a.unit!r} vs {r.unit!r}",
                decided_by="rules",
                decisive=True,
                **base,
            )
        choice_a, choice_r = _CHOICE.match(_plain_text(a.core)), _CHOICE.match(_plain_text(r.core))
        if choice_r and (choice_a or is_texty(a.core)):
            same = choice_a is not None and choice_a.group(1).upper() == choice_r.group(1).upper()
            return self._result(same, "choice letters", "string", True, **base)
        if is_texty(r.core) or (is_texty(a.core) and not is_texty(r.core) and "=" not in a.core):
            same = _plain_text(a.core) == _plain_text(r.core)
            return self._result(same, "worded answers", "string", is_texty(r.core) and same, **base)

        a_core = a.core
        match = _ASSIGNMENT.match(a_core)
        if match and "=" not in r.core:
            a_core = match.group("rhs").strip()
        if self.config.fast_path:
            fast = self._fast(a_core, r.core, base)
            if fast is not None:
                return fast
        return Deferred(
            "palaestra.verifiers.math:sympy_check",
            (
                a.core,
                r.core,
                self.config.min_answer_sig,
                self.config.min_reference_sig,
                answer,
                reference,
            ),
            on_timeout=_on_timeout(answer, reference),
            on_memory=_on_timeout(answer, reference, memory=True),
        )

    def _fast(self, answer: str, reference: str, base: dict[str, Any]) -> Verdict | None:
        try:
            ref = fastmath.parse(reference)
        except (fastmath.Undecided, fastmath.TooLarge):
            return None
        try:
            ans = fastmath.parse(answer)
        except fastmath.Undecided:
            return None
        except fastmath.TooLarge as e:
            return verdict(
                Status.TIMEOUT,
                f"the answer is too large to evaluate within the budget ({e})",
                decided_by="fast_path",
                decisive=True,
                **base,
            )
        same = compare_fast(ans, ref, self.config.min_answer_sig, self.config.min_reference_sig)
        if same is None:
            return None
        return self._result(same, "exact arithmetic", "fast_path", True, **base)

    @staticmethod
    def _result(same: bool, how: str, decided_by: str, decisive: bool, **base: Any) -> Verdict:
        if same:
            return verdict(
                Status.CORRECT, f"equal ({how})", decided_by=decided_by, decisive=True, **base
            )
        return verdict(
            Status.INCORRECT, f"not equal ({how})", decided_by=decided_by, decisive=decisive, **base
        )

    def _reference_text(self, reference: Any) -> str | Verdict:
        if isinstance(reference, bool) or reference is None:
            return Verdict.error(f"the math verifier needs a reference, got {reference!r}")
        if isinstance(reference, int):
            return str(reference)
        if isinstance(reference, float):
            return repr(reference)
        if isinstance(reference, Fraction):
            return rf"\frac{{{reference.numerator}}}{{{reference.denominator}}}"
        if not isinstance(reference, str):
            return Verdict.error(
                f"the math verifier takes a str, int, float or Fraction reference, "
                f"got {type(reference).__name__}"
            )
        text = normalize_unicode(reference).strip()
        if len(text) > 10 * self.config.max_answer_chars and "\\boxed" not in text:
            return Verdict.error("the reference is too long to be an answer")
        if self.config.extract_reference and ("\\boxed" in text or "\\fbox" in text):
            from palaestra.verifiers.extract import find_boxes

            boxes = [b for b in find_boxes(text) if b[2] is not None]
            if boxes:
                text = boxes[-1][2].strip()
        if not text:
            return Verdict.error("the reference is empty")
        return text


def _on_timeout(answer: str, reference: str, memory: bool = False):
    what = "ran out of memory" if memory else "ran out of time"

    def build(stage: str | None, limit: float) -> Verdict:
        if stage in (None, "reference"):
            return verdict(
                Status.ERROR,
                f"parsing the reference {what} ({limit:.1f} s); the reference needs fixing",
                answer=answer,
                reference=reference,
            )
        return verdict(
            Status.TIMEOUT,
            f"checking the answer {what} ({limit:.1f} s limit)",
            answer=answer,
            reference=reference,
            decided_by="sympy",
            decisive=True,
            stage=stage,
        )

    return build


def _group_items_equal(a_items, r_items, min_a: int, min_r: int, ordered: bool) -> bool | None:
    if not ordered:
        exact = all(
            isinstance(x, fastmath.Scalar) and x.value is not None and x.ulp_exp is None
            for x in (*a_items, *r_items)
        )
        if exact:
            return {x.value for x in a_items} == {x.value for x in r_items}
    if len(a_items) != len(r_items):
        return None if not ordered else False

    def eq(x, y) -> bool | None:
        if isinstance(x, fastmath.Infinity) or isinstance(y, fastmath.Infinity):
            return x == y
        return fastmath.scalars_equal(x, y, min_answer_sig=min_a, min_reference_sig=min_r)

    if ordered:
        results = [eq(x, y) for x, y in zip(a_items, r_items, strict=False)]
        if any(r is False for r in results):
            return False
        return None if any(r is None for r in results) else True
    remaining = list(r_items)
    for x in a_items:
        for j, y in enumerate(remaining):
            result = eq(x, y)
            if result is None:
                return None
            if result:
                del remaining[j]
                break
        else:
            return False
    return not remaining


def compare_fast(ans: fastmath.Value, ref: fastmath.Value, min_a: int, min_r: int) -> bool | None:
    """Compares two fast-path values; None when the fast path cannot decide."""
    if isinstance(ref, fastmath.Scalar):
        if isinstance(ans, fastmath.Scalar):
            return fastmath.scalars_equal(ans, ref, min_answer_sig=min_a, min_reference_sig=min_r)
        if ref.value is not None and len(ans.items) > 1:
            return False  # several answers where one is expected
        return None
    if not isinstance(ans, fastmath.Group):
        return None
    unordered = {"set", "list"}
    if ref.kind in unordered and ans.kind in unordered:
        return _group_items_equal(ans.items, ref.items, min_a, min_r, ordered=False)
    if ref.kind == ans.kind == "bracket":
        if (ref.opener, ref.closer) == (ans.opener, ans.closer):
            return _group_items_equal(ans.items, ref.items, min_a, min_r, ordered=True)
        if len(ref.items) == len(ans.items) == 2:
            return False  # intervals with different brackets
    return None


# ---------------------------------------------------------------- the sympy stage (in a worker)


def _plain_to_latex(s: str) -> str:
    s = s.replace("**", "^")
    s = re.sub(r"(?<![\\a-zA-Z])sqrt\s*\(", r"\\sqrt(", s)
    s = re.sub(r"\\sqrt\s*\(([^()]*)\)", r"\\sqrt{\1}", s)
    s = re.sub(r"(?<![\\a-zA-Z])pi(?![a-zA-Z])", r"\\pi ", s)
    s = re.sub(r"(?<![\\a-zA-Z])(?:infinity|inf)(?![a-zA-Z])", r"\\infty ", s)
    return s


_IMAGINARY = re.compile(r"(?<![a-zA-Z\\])i(?![a-zA-Z])")


def _grader() -> Any:
    """math-verify's grader, or an error naming the extra that installs it."""
    return require("math_verify.grader", "math", "math verification")


def looks_complex(text: str) -> bool:
    r"""True when a lone ``i`` or a complex-only command (``\det``, ``\mathbb{C}``) appears.

    Symbols are then parsed without the assumption that they are real. Whether ``i`` itself is
    the imaginary unit is decided by the reference alone (`uses_imaginary_unit`).
    """
    return bool(_IMAGINARY.search(text)) or _grader().should_treat_as_complex(text)


@functools.lru_cache(maxsize=4096)
def to_sympy(text: str, complex_mode: bool | None = None) -> Any:
    """Parses LaTeX (or plain maths) into sympy with latex2sympy; no timeouts inside.

    Cached: a GRPO group checks many samples against one reference, and sympy objects are
    immutable.

    Args:
        text: The LaTeX.
        complex_mode: Parse symbols without assuming they are real (default: `looks_complex`
            of the text). The answer and the reference must be read the same way, so callers
            decide for both. ``i`` stays a symbol either way (see `read_i_as_unit`).
    """
    l2s = require("latex2sympy2_extended.latex2sympy2", "math", "math verification")
    _grader()
    config = l2s.NormalizationConfig(
        basic_latex=True, units=False, malformed_operators=True, nits=False, boxed="none"
    )
    latex = l2s.normalize_latex(_plain_to_latex(text), config)
    if complex_mode is None:
        complex_mode = looks_complex(latex)

    def parse(part: str) -> Any:
        return l2s.latex2sympy(
            part, is_real=not complex_mode, convert_degrees=False, normalization_config=None
        )

    pieces = _split_relation(latex)
    if pieces is None:
        return parse(latex)
    # The parser's relation rule is slow (full-context prediction); parse the sides alone.
    from latex2sympy2_extended.logic import And as OrderedAnd  # keeps the written order

    sides = [parse(piece) for piece in pieces[0::2]]
    relations = [
        _RELATION_TYPES[op](lhs, rhs, evaluate=False)
        for lhs, op, rhs in zip(sides, pieces[1::2], sides[1:], strict=False)
    ]
    return relations[0] if len(relations) == 1 else OrderedAnd(*relations)


def uses_imaginary_unit(reference: Any) -> bool:
    r"""True when a parsed reference works in the complex numbers.

    That is when it names ``i`` (written ``i``, ``I``, ``\mathrm{i}``, ...; a summation index
    is bound, not named) or holds a number that is not real (``\sqrt{-4}``). Then ``i`` is the
    imaginary unit on both sides; otherwise it stays a variable, so ``i^2`` does not answer
    ``-1``.
    """
    import sympy

    try:
        if any(s.name == "i" for s in reference.free_symbols):
            return True
        # Infinities are extended-real, so an interval to infinity is not complex.
        return any(n.is_number and n.is_extended_real is False for n in reference.atoms(sympy.Expr))
    except Exception:  # noqa: BLE001 - not a sympy object, or an assumption sympy cannot settle
        return False


def read_i_as_unit(expr: Any) -> Any:
    r"""The expression with the free symbol ``i`` replaced by the imaginary unit.

    Returns `expr` itself when it has no free ``i`` or the replacement has no meaning (an
    interval, whose ends must be real, other than ``(a, b)``, which is then a pair).
    """
    import sympy

    try:
        unit = {s: sympy.I for s in expr.free_symbols if s.name == "i"}
    except AttributeError:
        return expr
    if not unit:
        return expr
    if isinstance(expr, sympy.Interval) and expr.left_open and expr.right_open:
        expr = sympy.Tuple(expr.start, expr.end)
    try:
        # Unevaluated, so that ``x = \pm 2i`` stays an equation instead of becoming False.
        with sympy.evaluate(False):
            return expr.subs(unit)
    except (TypeError, ValueError):
        return expr


_RELATION_TOKEN = re.compile(r"\\(?:leq?|geq?|neq?)(?![a-zA-Z])|<=|>=|[=<>]")


def _relation_types() -> dict[str, Any]:
    import sympy

    return {
        "=": sympy.Eq,
        "<": sympy.StrictLessThan,
        ">": sympy.StrictGreaterThan,
        "<=": sympy.LessThan,
        ">=": sympy.GreaterThan,
        "\\le": sympy.LessThan,
        "\\leq": sympy.LessThan,
        "\\ge": sympy.GreaterThan,
        "\\geq": sympy.GreaterThan,
        "\\ne": sympy.Ne,
        "\\neq": sympy.Ne,
    }


class _LazyTypes(dict):
    def __missing__(self, key: str) -> Any:
        self.update(_relation_types())
        return dict.__getitem__(self, key)


_RELATION_TYPES: dict[str, Any] = _LazyTypes()


def _split_relation(latex: str) -> list[str] | None:
    r"""``a = b`` or ``a < x \le b`` split at top-level relation signs; None for anything else.

    Only one or two signs, none nested in brackets, and no top-level comma (lists of
    relations go to the parser whole).
    """
    depth = 0
    cuts: list[tuple[int, int, str]] = []
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif depth == 0 and ch == ",":
            return None
        elif depth == 0 and ch in "=<>\\":
            match = _RELATION_TOKEN.match(latex, i)
            if match:
                cuts.append((match.start(), match.end(), match.group()))
                i = match.end()
                continue
        i += 1
    if not 1 <= len(cuts) <= 2:
        return None
    pieces, start = [], 0
    for begin, end, op in cuts:
        pieces += [latex[start:begin].strip(), op]
        start = end
    pieces.append(latex[start:].strip())
    if not all(pieces[0::2]):
        return None
    return pieces


def _rationalize(expr: Any) -> Any:
    import sympy

    try:
        floats = expr.atoms(sympy.Float)
    except AttributeError:
        return expr
    if not floats:
        return expr
    return expr.xreplace({f: sympy.Rational(str(f)) for f in floats})


def _approx(expr: Any) -> Fraction | None:
    import sympy

    try:
        value = sympy.N(expr, 60)
        if not value.is_real or not value.is_finite:
            return None
        return Fraction(str(value))
    except (TypeError, ValueError, AttributeError, ZeroDivisionError):
        return None


def _is_scalar_number(expr: Any) -> bool:
    import sympy

    return isinstance(expr, sympy.Expr) and bool(expr.is_number) and not expr.free_symbols


def cmath_isfinite(x: float) -> bool:
    """True for a finite float (not inf, not NaN)."""
    return x == x and x not in (float("inf"), float("-inf"))


def _numbers_equal(a: Any, r: Any) -> bool:
    r"""Equality of two closed-form numbers, never by tolerance alone.

    Rationals compare exactly. Otherwise the difference is evaluated to 60 significant digits
    (sympy tracks the accuracy of the subtraction): clearly non-zero means different; zero to
    within 1e-30 both absolutely and relative to the values' size means equal (no two distinct
    answer-sized closed forms agree that far); anything in between must be proved zero by
    `simplify`. So ``10^{40}`` never equals ``10^{40}+1`` and ``\sqrt2/2^{100}`` never equals
    ``\sqrt2/2^{101}``.
    """
    import sympy

    if getattr(a, "is_Rational", False) and getattr(r, "is_Rational", False):
        return bool(a == r)
    try:
        difference = sympy.N(a - r, 60)
        magnitude = abs(complex(difference))
        scale = max(abs(complex(sympy.N(a, 30))), abs(complex(sympy.N(r, 30))))
    except (TypeError, ValueError, AttributeError, OverflowError, ZeroDivisionError):
        difference = None
    if difference is not None:
        if not (cmath_isfinite(magnitude) and cmath_isfinite(scale)):
            # Infinities and NaN: only the same infinity equals itself.
            return bool(a.is_infinite and r.is_infinite and a == r)
        if magnitude > scale * 1e-30:
            return False
        if magnitude <= 1e-30 * min(scale, 1.0):
            return True
    try:
        return bool(sympy.simplify(a - r) == 0)
    except Exception:  # noqa: BLE001 - sympy raises many kinds of errors
        return False


def _set_of(rel: Any) -> Any:
    """The solution set of a solved-form relation, built directly (no `as_set`); None if not."""
    import sympy
    from sympy.core.relational import Relational

    if isinstance(rel, (sympy.And, sympy.Or)) or type(rel).__name__ == "And":
        parts = [_set_of(arg) for arg in getattr(rel, "_unsorted_args", rel.args)]
        if any(p is None for p in parts):
            return None
        if isinstance(rel, sympy.Or):
            return sympy.Union(*parts)
        return sympy.Intersection(*parts)
    if not isinstance(rel, Relational):
        return None
    lhs, rhs = rel.lhs, rel.rhs
    if isinstance(lhs, sympy.Symbol) and not rhs.free_symbols:
        value, op = rhs, type(rel)
    elif isinstance(rhs, sympy.Symbol) and not lhs.free_symbols:
        value, op = (
            lhs,
            {
                sympy.StrictLessThan: sympy.StrictGreaterThan,
                sympy.LessThan: sympy.GreaterThan,
                sympy.StrictGreaterThan: sympy.StrictLessThan,
                sympy.GreaterThan: sympy.LessThan,
            }.get(type(rel), type(rel)),
        )
    else:
        return None
    oo = sympy.oo
    table = {
        sympy.StrictLessThan: lambda v: sympy.Interval.open(-oo, v),
        sympy.LessThan: lambda v: sympy.Interval(-oo, v),
        sympy.StrictGreaterThan: lambda v: sympy.Interval.open(v, oo),
        sympy.GreaterThan: lambda v: sympy.Interval(v, oo),
        sympy.Eq: lambda v: sympy.FiniteSet(v),
        sympy.Ne: lambda v: sympy.Union(sympy.Interval.open(-oo, v), sympy.Interval.open(v, oo)),
    }
    make = table.get(op)
    return make(value) if make else None


def _symbols_of(rel: Any) -> set:
    return (
        set().union(*(atom.free_symbols for atom in _relation_atoms(rel)))
        if _relation_atoms(rel)
        else set()
    )


def _sets_equal(x: Any, y: Any) -> bool:
    if x == y:
        return True
    try:
        return bool(x.symmetric_difference(y).is_empty)
    except Exception:  # noqa: BLE001
        return False


def _solved_relation(rel: Any) -> bool:
    """True when every atomic relation has a lone symbol on one side and a constant on the other."""
    import sympy
    from sympy.core.relational import Relational

    if isinstance(rel, (sympy.And, sympy.Or)):
        return all(_solved_relation(arg) for arg in rel.args)
    if isinstance(rel, Relational):
        lhs, rhs = rel.lhs, rel.rhs
        return (isinstance(lhs, sympy.Symbol) and not rhs.free_symbols) or (
            isinstance(rhs, sympy.Symbol) and not lhs.free_symbols
        )
    return False


def _relation_atoms(expr: Any) -> list[Any]:
    import sympy
    from sympy.core.relational import Relational

    if isinstance(expr, Relational):
        return [expr]
    if isinstance(expr, (sympy.And, sympy.Or)) or type(expr).__name__ == "And":
        out = []
        for arg in getattr(expr, "_unsorted_args", expr.args):
            out += _relation_atoms(arg)
        return out
    return []


def _is_relation(expr: Any) -> bool:
    import sympy
    from sympy.core.relational import Relational

    if isinstance(expr, Relational):
        return True
    if isinstance(expr, (sympy.And, sympy.Or)):
        return all(_is_relation(a) for a in expr.args)
    return False


def _as_set(expr: Any) -> Any:
    import sympy

    if isinstance(expr, sympy.Set):
        return expr
    if len(_symbols_of(expr)) != 1:
        return None
    built = _set_of(expr)
    if built is not None:
        return built
    try:
        return expr.as_set()
    except Exception:  # noqa: BLE001
        return None


def _normalize_expr(expr: Any) -> Any:
    r"""``x \in S`` -> S; ``x=1, x=2`` -> {1, 2}; ``x<-2, x>2`` -> the disjunction."""
    import sympy
    from sympy.core.relational import Relational

    if isinstance(expr, sympy.Eq) and isinstance(expr.rhs, sympy.Set):
        return expr.rhs
    if isinstance(expr, sympy.FiniteSet) and len(expr) > 1:
        items = list(getattr(expr, "_unsorted_args", expr.args))
        if all(isinstance(x, Relational) for x in items):
            if all(isinstance(x, sympy.Eq) and isinstance(x.lhs, sympy.Symbol) for x in items):
                if len({x.lhs for x in items}) == 1:
                    return sympy.FiniteSet(*(x.rhs for x in items))
                return expr
            return sympy.Or(*items)
    return expr


def _compare_sympy(
    a: Any, r: Any, a_text: str, r_text: str, min_a: int, min_r: int
) -> tuple[bool, str, bool]:
    """Returns (equal, how, decisive)."""
    import sympy

    a, r = _normalize_expr(a), _normalize_expr(r)

    grader = _grader()
    # Our worker enforces time from outside; this only silences math-verify's one-time warning.
    grader.TIMEOUT_WARNING_SHOWN = True
    a_rel, r_rel = _is_relation(a), _is_relation(r)
    if a_rel and not r_rel:
        atoms = _relation_atoms(a)
        if all(isinstance(x, sympy.Eq) for x in atoms):
            first = atoms[0]
            if not isinstance(first.lhs, sympy.Symbol):
                return False, "the equation is not solved for a variable", True
            a = atoms[-1].rhs
            a_rel = False
        elif isinstance(r, sympy.Set):
            if not _solved_relation(a):
                return False, "the inequality is not in solved form", True
            a_set = _as_set(a)
            if a_set is None:
                return False, "the inequality could not be turned into a set", False
            return _sets_equal(a_set, r), "sets", True
        else:
            return False, "a relation answers a value", True
    if r_rel:
        if not a_rel:
            atoms = _relation_atoms(r)
            if (
                len(atoms) == 1
                and isinstance(atoms[0], sympy.Eq)
                and isinstance(atoms[0].lhs, sympy.Symbol)
            ):
                r = atoms[0].rhs
                r_rel = False
            elif isinstance(a, sympy.Set):
                r_set = _as_set(r)
                if r_set is None:
                    return False, "the reference relation has no set form", False
                return _sets_equal(a, r_set), "sets", True
            else:
                return False, "a value answers a relation", True
        else:
            return _compare_relations(a, r)

    if _is_scalar_number(a) and _is_scalar_number(r):
        a_lit = fastmath._literal(fastmath._preprocess(a_text)) if _literal_like(a_text) else None
        r_lit = fastmath._literal(fastmath._preprocess(r_text)) if _literal_like(r_text) else None
        a_exact, r_exact = _rationalize(a), _rationalize(r)
        if a_lit is not None and r_lit is None:
            if _numbers_equal(a_exact, r_exact):
                return True, "numbers", True
            r_value = _approx(r_exact)
            if r_value is None or (
                r_exact.is_Rational and fastmath.terminating(Fraction(str(r_exact)))
            ):
                return False, "numbers", True
            if a_lit.sig < min_a or a_lit.value is None:
                return False, "a decimal with too few significant digits", True
            return (
                abs(a_lit.value - r_value) < Fraction(10) ** a_lit.ulp_exp,
                "decimal approximation",
                True,
            )
        if r_lit is not None and a_lit is None and r_lit.ulp_exp is not None:
            if _numbers_equal(a_exact, r_exact):
                return True, "numbers", True
            a_value = _approx(a_exact)
            if a_value is None or a_exact.is_Rational or r_lit.sig < min_r:
                return False, "numbers", True
            return (
                fastmath.round_at(a_value, r_lit.ulp_exp) == r_lit.value,
                "rounded reference",
                True,
            )
        return _numbers_equal(a_exact, r_exact), "numbers", True

    a2, r2 = _rationalize(a), _rationalize(r)
    structural = _structural_equal(a2, r2)
    if structural is not None:
        return structural, "element by element", True
    if (
        isinstance(a2, sympy.Expr)
        and isinstance(r2, sympy.Expr)
        and (a2.free_symbols or r2.free_symbols)
    ):
        symbols = sorted(a2.free_symbols | r2.free_symbols, key=str)
        difference = a2 - r2
        if difference.is_rational_function(*symbols):
            # Polynomials and ratios of them: `cancel` is a complete, fast decision.
            return sympy.cancel(difference) == 0, "rational functions", True
    equal = grader.verify(r2, a2, float_rounding=12, strict=True, timeout_seconds=None)
    return bool(equal), "math-verify equivalence", bool(equal)


def _structural_equal(a: Any, r: Any) -> bool | None:
    """Intervals, unions, finite sets, tuples and matrices of numbers, compared exactly.

    math-verify compares such elements with ``evalf(chop=True)``, which calls two distinct tiny
    numbers equal; here every element goes through `_numbers_equal`. None when an element is
    not a plain number (then math-verify decides).
    """
    import sympy

    def number(x: Any) -> bool:
        return _is_scalar_number(x) or x in (sympy.oo, -sympy.oo)

    def eq(x: Any, y: Any) -> bool:
        if x in (sympy.oo, -sympy.oo) or y in (sympy.oo, -sympy.oo):
            return bool(x == y)
        return _numbers_equal(x, y)

    if isinstance(a, sympy.Interval) and isinstance(r, sympy.Interval):
        ends = (a.start, a.end, r.start, r.end)
        if not all(number(x) for x in ends):
            return None
        same_kind = (a.left_open, a.right_open) == (r.left_open, r.right_open)
        return same_kind and eq(a.start, r.start) and eq(a.end, r.end)
    if isinstance(a, sympy.Union) and isinstance(r, sympy.Union):
        a_parts, r_parts = list(a.args), list(r.args)
        if len(a_parts) != len(r_parts):
            return None
        results = [_structural_equal(x, y) for x, y in zip(a_parts, r_parts, strict=True)]
        return None if None in results else all(results)
    if isinstance(a, (sympy.FiniteSet, sympy.Tuple)) and type(a) is type(r):
        a_items = list(getattr(a, "_unsorted_args", a.args))
        r_items = list(getattr(r, "_unsorted_args", r.args))
        if not all(number(x) for x in (*a_items, *r_items)):
            return None
        if isinstance(a, sympy.Tuple):
            return len(a_items) == len(r_items) and all(
                eq(x, y) for x, y in zip(a_items, r_items, strict=True)
            )
        # Sets: every element of each side equals some element of the other.
        return all(any(eq(x, y) for y in r_items) for x in a_items) and all(
            any(eq(y, x) for x in a_items) for y in r_items
        )
    if isinstance(a, sympy.MatrixBase) and isinstance(r, sympy.MatrixBase):
        if a.shape != r.shape:
            return False
        entries = list(zip(a, r, strict=True))
        if not all(number(x) and number(y) for x, y in entries):
            return None
        return all(eq(x, y) for x, y in entries)
    return None


def _literal_like(text: str) -> bool:
    try:
        s = fastmath._preprocess(text)
    except fastmath.Undecided:
        return False
    return fastmath._literal(s) is not None


def _compare_relations(a: Any, r: Any) -> tuple[bool, str, bool]:
    import sympy

    a_atoms, r_atoms = _relation_atoms(a), _relation_atoms(r)
    if all(isinstance(x, sympy.Eq) for x in a_atoms + r_atoms):
        if len(a_atoms) != len(r_atoms):
            return False, "different numbers of equations", True
        r_assign = all(isinstance(x.lhs, sympy.Symbol) and not x.rhs.free_symbols for x in r_atoms)
        if r_assign:
            a_map = {}
            for x in a_atoms:
                if isinstance(x.lhs, sympy.Symbol):
                    a_map[x.lhs] = x.rhs
                elif isinstance(x.rhs, sympy.Symbol):
                    a_map[x.rhs] = x.lhs
                else:
                    return False, "the equation is not solved for a variable", True
            for x in r_atoms:
                if x.lhs not in a_map or not _numbers_equal(
                    _rationalize(a_map[x.lhs]), _rationalize(x.rhs)
                ):
                    return False, "assignments differ", True
            return True, "assignments", True
        for x, y in zip(a_atoms, r_atoms, strict=False):
            try:
                ratio = sympy.cancel((x.lhs - x.rhs) / (y.lhs - y.rhs))
                symbols = sorted(ratio.free_symbols, key=str)
                # cancel is complete for rational functions; anything else gets simplify.
                if symbols and not ratio.is_rational_function(*symbols):
                    ratio = sympy.simplify(ratio)
            except Exception:  # noqa: BLE001
                return False, "equations could not be compared", False
            if not (ratio.is_number and ratio != 0 and not ratio.free_symbols):
                return False, "equations are not proportional", False
        return True, "proportional equations", True
    if not _solved_relation(a):
        a_set, r_set = None, None
    else:
        a_set, r_set = _as_set(a), _as_set(r)
    if a_set is not None and r_set is not None:
        return _sets_equal(a_set, r_set), "solution sets", True
    return False, "relations could not be compared", not _solved_relation(a)


def _equal_if_i_is_unit(a: Any, r: Any, texts_and_digits: tuple[str, str, int, int]) -> bool:
    """Whether the answer would equal the reference were its ``i`` the imaginary unit."""
    as_unit = read_i_as_unit(a)
    if as_unit is a:
        return False
    try:
        return _compare_sympy(as_unit, r, *texts_and_digits)[0]
    except Exception:  # noqa: BLE001 - sympy raises many kinds of errors
        return False


def sympy_check(
    answer_core: str,
    reference_core: str,
    min_answer_sig: int,
    min_reference_sig: int,
    answer: str,
    reference: str,
) -> Verdict:
    """The sympy stage; runs inside a killable worker (no time limit of its own)."""
    from palaestra.verifiers.pool import report_stage

    base = {"answer": answer, "reference": reference}
    try:
        require("latex2sympy2_extended.latex2sympy2", "math", "math verification")
        _grader()
    except MissingDependencyError as e:
        return verdict(Status.ERROR, str(e), **base)
    complex_mode = looks_complex(answer_core) or looks_complex(reference_core)
    report_stage("reference")
    try:
        r = to_sympy(reference_core, complex_mode)
    except Exception as e:  # noqa: BLE001 - latex2sympy raises many kinds of errors
        return verdict(
            Status.ERROR,
            f"the reference could not be parsed ({type(e).__name__}); the reference needs fixing",
            **base,
        )
    imaginary = uses_imaginary_unit(r)
    report_stage("answer")
    try:
        a = to_sympy(answer_core, complex_mode)
    except Exception as e:  # noqa: BLE001
        return verdict(
            Status.INCORRECT,
            f"the answer could not be parsed as mathematics ({type(e).__name__})",
            decided_by="sympy",
            decisive=False,
            **base,
        )
    if imaginary:
        a, r = read_i_as_unit(a), read_i_as_unit(r)
    report_stage("compare")
    try:
        texts_and_digits = (answer_core, reference_core, min_answer_sig, min_reference_sig)
        equal, how, decisive = _compare_sympy(a, r, *texts_and_digits)
        if not (equal or imaginary) and _equal_if_i_is_unit(a, r, texts_and_digits):
            # Not proved wrong, only read the way the reference reads: a judge that sees the
            # question (the hybrid verifier's) may still decide.
            how, decisive = "i is a variable where the reference is real", False
    except Exception as e:  # noqa: BLE001
        return verdict(
            Status.INCORRECT,
            f"the answer could not be compared ({type(e).__name__})",
            decided_by="sympy",
            decisive=False,
            **base,
        )
    if equal:
        return verdict(Status.CORRECT, f"equal ({how})", decided_by="sympy", decisive=True, **base)
    return verdict(
        Status.INCORRECT, f"not equal ({how})", decided_by="sympy", decisive=decisive, **base
    )


def warm_up() -> None:
    """Runs a few checks of each kind so that parser and sympy caches are warm.

    Called once in the worker factory: every worker forked from it starts warm.
    """
    examples = [
        ("2", "2"),
        ("\\frac{1}{2}", "0.5"),
        ("6\\sqrt{2}", "\\sqrt{72}"),
        ("x^2+2x+1", "(x+1)^2"),
        ("1 < x \\le 3", "(1,3]"),
        ("(-\\infty,-2)\\cup(2,\\infty)", "x<-2, x>2"),
        ("y=2x+3", "y = 2x + 3"),
        (
            "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
            "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
        ),
        ("(1, 2)", "(1, 2)"),
        ("\\{1, 2\\}", "\\{2, 1\\}"),
        ("3+4i", "4i+3"),
        ("\\pi", "3.14"),
        ("x=5", "5"),
        ("\\sin^2 x", "1-\\cos^2 x"),
    ]
    for answer, reference in examples:
        sympy_check(answer, reference, 6, 3, answer, reference)
