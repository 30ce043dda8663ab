r"""The math fast path: exact rational arithmetic on simple answers, bounded in time and size.

Integers, decimals, fractions (``\frac``, ``a/b``), powers, factorials, parentheses and flat
tuples, sets and intervals of those are parsed and evaluated here with `fractions.Fraction`,
without sympy. Anything else (radicals, constants, variables, relations) is reported as
undecided and goes to the sympy stage in a worker.

Every intermediate value is size-checked *before* it is computed: a power or factorial whose
result would exceed `MAX_BITS` raises `TooLarge` in microseconds, which is how ``9^{9^{9^9}}``
or ``(10^{10})!`` are refused without ever running. Sub-expressions the fast path cannot
evaluate (``\sqrt{...}``, ``x``) are still parsed, so a huge power hidden inside them is caught
too.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

MAX_BITS = 1 << 16
"""Largest numerator or denominator size, in bits, the fast path will compute (~20,000 digits)."""


class TooLarge(Exception):
    """An expression's value is too large to evaluate within the budget."""


class Undecided(Exception):
    """The expression is outside the fast path's grammar."""


@dataclasses.dataclass(frozen=True)
class Scalar:
    """A number, or an opaque expression when `value` is None.

    Attributes:
        value: The exact value (None: the fast path can not evaluate it).
        ulp_exp: For a decimal literal, the exponent of its last stated digit (``3.14`` -> -2);
            None for exact values.
        sig: Significant digits stated by a decimal literal.
    """

    value: Fraction | None
    ulp_exp: int | None = None
    sig: int = 0


@dataclasses.dataclass(frozen=True)
class Infinity:
    """Plus or minus infinity (interval endpoints only)."""

    sign: int


@dataclasses.dataclass(frozen=True)
class Group:
    r"""A flat tuple, set, list or interval of scalars.

    Attributes:
        kind: ``set`` (``\{...\}``), ``bracket`` (``(a, b)``, ``[a, b)``, ... with any number of
            items) or ``list`` (bare ``a, b, c``).
        opener: The opening bracket (``(``, ``[``, ``{`` or empty).
        closer: The closing bracket.
        items: The elements.
    """

    kind: str
    opener: str
    closer: str
    items: tuple[Scalar | Infinity, ...]


Value = Scalar | Group

_OPAQUE = Scalar(None)
_SPACING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-zA-Z])|\\[,;:! ]|~|\\displaystyle")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_LITERAL = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?$")
_SCI = re.compile(r"^([+-]?\d+(?:\.\d+)?)(?:[eE]|\*10\^)\{?([+-]?\d+)\}?$")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+\.?\d*|\.\d+)|(?P<cmd>\\[a-zA-Z]+|\\[{}])|(?P<op>[-+*/^!(),\[\]{}|])"
    r"|(?P<letter>[a-zA-Z]))"
)
_OPAQUE_COMMANDS = {
    r"\pi",
    r"\sqrt",
    r"\sin",
    r"\cos",
    r"\tan",
    r"\log",
    r"\ln",
    r"\exp",
    r"\cot",
    r"\sec",
    r"\csc",
    r"\arcsin",
    r"\arccos",
    r"\arctan",
    r"\alpha",
    r"\beta",
    r"\theta",
    r"\phi",
    r"\binom",
    r"\lfloor",
    r"\rfloor",
    r"\lceil",
    r"\rceil",
}


def _bits(value: Fraction) -> int:
    return max(value.numerator.bit_length(), value.denominator.bit_length())


def _checked(value: Fraction) -> Fraction:
    if _bits(value) > MAX_BITS:
        raise TooLarge(f"value has more than {MAX_BITS} bits")
    return value


def _power(base: Scalar, exponent: Scalar) -> Scalar:
    if base.value is None or exponent.value is None:
        return _OPAQUE
    b, e = base.value, exponent.value
    if e.denominator != 1:
        return _OPAQUE  # roots: irrational in general; sympy decides
    n = e.numerator
    if b == 0 and n < 0:
        raise Undecided("division by zero")
    if b in (0, 1) or n == 0:
        return Scalar(Fraction(1) if n == 0 else b)
    if b == -1:
        return Scalar(Fraction(-1 if n % 2 else 1))
    if abs(n) * _bits(b) > MAX_BITS:
        raise TooLarge("power too large")
    return Scalar(_checked(b**n))


def _factorial(arg: Scalar) -> Scalar:
    if arg.value is None:
        return _OPAQUE
    v = arg.value
    if v.denominator != 1 or v < 0:
        raise Undecided("factorial of a non-natural number")
    n = v.numerator
    if n > 2 and n * (math.log2(n) - 1.4427) > MAX_BITS:
        raise TooLarge("factorial too large")
    return Scalar(Fraction(math.factorial(n)))


def _arith(op: str, a: Scalar, b: Scalar) -> Scalar:
    if a.value is None or b.value is None:
        return _OPAQUE
    if op == "+":
        return Scalar(_checked(a.value + b.value))
    if op == "-":
        return Scalar(_checked(a.value - b.value))
    if op == "*":
        if _bits(a.value) + _bits(b.value) > 2 * MAX_BITS:
            raise TooLarge("product too large")
        return Scalar(_checked(a.value * b.value))
    if b.value == 0:
        raise Undecided("division by zero")
    if _bits(a.value) + _bits(b.value) > 2 * MAX_BITS:
        raise TooLarge("quotient too large")
    return Scalar(_checked(a.value / b.value))


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if not match or match.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise Undecided(f"unexpected character {text[pos]!r}")
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind)))
            pos = match.end()
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            raise Undecided(f"expected {value!r}")
        self.i += 1
        return token

    def at(self, value: str) -> bool:
        token = self.peek()
        return token is not None and token[1] == value

    def expr(self) -> Scalar:
        value = self.term()
        while self.at("+") or self.at("-"):
            op = self.take()[1]
            value = _arith(op, value, self.term())
        return value

    def term(self) -> Scalar:
        value = self.factor()
        while True:
            token = self.peek()
            if token is None:
                return value
            if token[1] in ("*", "/"):
                self.take()
                value = _arith(token[1], value, self.factor())
            elif (
                token[0] in ("num", "letter")
                or token[1] in ("(", "{")
                or (token[0] == "cmd" and token[1] in _OPAQUE_COMMANDS)
            ):
                # Implicit multiplication (``2\\sqrt{3}``, ``2\\frac{1}{2}``) is ambiguous in
                # LaTeX; parse on for the size guard, but let sympy decide the value.
                self.factor()
                value = _OPAQUE
            else:
                return value

    def factor(self) -> Scalar:
        if self.at("-"):
            self.take()
            inner = self.factor()
            return _OPAQUE if inner.value is None else Scalar(-inner.value)
        if self.at("+"):
            self.take()
            return self.factor()
        return self.power()

    def power(self) -> Scalar:
        base = self.postfix()
        if self.at("^"):
            self.take()
            exponent = self.exponent()
            if self.at("^"):
                raise Undecided("double superscript")
            return _power(base, exponent)
        return base

    def exponent(self) -> Scalar:
        token = self.peek()
        if token is None:
            raise Undecided("missing exponent")
        if token[1] == "{":
            self.take()
            value = self.expr()
            self.take("}")
            return value
        if token[0] == "num":
            self.take()
            if len(token[1]) != 1:
                raise Undecided("unbraced multi-digit exponent")
            return Scalar(Fraction(token[1]))
        if token[1] == "-":
            raise Undecided("unbraced negative exponent")
        return self.postfix()

    def postfix(self) -> Scalar:
        value = self.atom()
        if self.at("!"):
            self.take()
            if self.at("!"):
                raise Undecided("double factorial")
            value = _factorial(value)
        return value

    def group_arg(self) -> Scalar:
        token = self.peek()
        if token is None:
            raise Undecided("missing argument")
        if token[1] == "{":
            self.take()
            value = self.expr()
            self.take("}")
            return value
        if token[0] == "num" and token[1].isdigit():
            # ``\frac12``: each argument is one character.
            self.take()
            digits = token[1]
            if len(digits) > 1:
                self.tokens.insert(self.i, ("num", digits[1:]))
            return Scalar(Fraction(digits[0]))
        return self.atom()

    def atom(self) -> Scalar:
        kind, text = self.take()
        if kind == "num":
            return Scalar(Fraction(text))
        if text in ("(", "{"):
            value = self.expr()
            self.take(")" if text == "(" else "}")
            return value
        if text == r"\frac":
            numerator = self.group_arg()
            denominator = self.group_arg()
            return _arith("/", numerator, denominator)
        if kind == "letter":
            return _OPAQUE
        if kind == "cmd" and text in _OPAQUE_COMMANDS:
            if text == r"\sqrt" and self.at("["):
                self.take("[")
                self.expr()
                self.take("]")
            token = self.peek()
            if token is not None and token[1] in ("{", "("):
                self.atom()
            if text == r"\binom":
                self.group_arg()
            return _OPAQUE
        raise Undecided(f"unsupported token {text!r}")


def _preprocess(text: str) -> str:
    s = _SPACING.sub("", text).strip()
    s = s.replace(r"\dfrac", r"\frac").replace(r"\tfrac", r"\frac")
    s = s.replace(r"\cdot", "*").replace(r"\times", "*").replace(r"\div", "/")
    s = s.replace("{,}", ",")
    if re.search(r"\d\s+\d", s):
        raise Undecided("digits separated by spaces")
    return s


def _literal(text: str) -> Scalar | None:
    """A decimal literal (``-3.140``, ``1.5e-3``, ``1.5*10^{-3}``) with its stated precision."""
    s = text.replace(" ", "")
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    match = _LITERAL.match(s)
    if match and (match.group(2) or match.group(3)):
        sign, whole, frac = match.groups()
        if frac is None:
            return Scalar(Fraction(int(whole)) * (-1 if sign == "-" else 1))
        digits = (whole + frac).lstrip("0")
        value = Fraction(f"{sign}{whole or '0'}.{frac or '0'}")
        return Scalar(value, ulp_exp=-len(frac), sig=len(digits))
    match = _SCI.match(s)
    if match:
        mantissa = _literal(match.group(1))
        exp = int(match.group(2))
        if mantissa is None or mantissa.value is None or abs(exp) > 4000:
            return None
        ulp = (mantissa.ulp_exp or 0) + exp
        sig = mantissa.sig or len(match.group(1).lstrip("+-").lstrip("0"))
        return Scalar(mantissa.value * Fraction(10) ** exp, ulp_exp=ulp, sig=sig)
    return None


def _split_top(tokens_text: str) -> list[str]:
    parts, depth, current = [], 0, []
    i = 0
    while i < len(tokens_text):
        ch = tokens_text[i]
        if tokens_text.startswith(r"\{", i) or tokens_text.startswith(r"\}", i):
            depth += 1 if tokens_text[i + 1] == "{" else -1
            current.append(tokens_text[i : i + 2])
            i += 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _item(text: str) -> Scalar | Infinity:
    s = text.strip()
    if s in (r"\infty", r"+\infty", "oo", "inf"):
        return Infinity(1)
    if s in (r"-\infty", "-oo", "-inf"):
        return Infinity(-1)
    return parse_scalar(s)


def parse_scalar(text: str) -> Scalar:
    """Parses one scalar expression.

    Raises:
        Undecided: The text is outside the grammar.
        TooLarge: Evaluating it would exceed `MAX_BITS`.
    """
    literal = _literal(text)
    if literal is not None:
        return literal
    parser = _Parser(text)
    if not parser.tokens:
        raise Undecided("empty expression")
    value = parser.expr()
    if parser.peek() is not None:
        raise Undecided(f"unexpected {parser.peek()[1]!r}")
    return value


_RELATION = re.compile(r"\\leq?|\\geq?|\\le|\\ge|<=|>=|<|>")
_VARIABLE = re.compile(r"^[a-zA-Z]$")
_IN = re.compile(r"^[a-zA-Z]\\in")


def _relation_interval(s: str) -> Group | None:
    r"""``a < x \le b``, ``x > 3``, ``3 \ge x`` -> an interval; None when not of that form."""
    ops = _RELATION.findall(s)
    if not ops or len(ops) > 2:
        return None
    parts = [p.strip() for p in _RELATION.split(s)]
    variables = [i for i, p in enumerate(parts) if _VARIABLE.match(p)]
    if len(variables) != 1:
        return None
    at = variables[0]
    lower: tuple[Scalar | Infinity, bool] = (Infinity(-1), False)
    upper: tuple[Scalar | Infinity, bool] = (Infinity(1), False)
    for i, op in enumerate(ops):
        left, right = parts[i], parts[i + 1]
        strict = op in ("<", ">")
        less = op in ("<", "<=") or op.startswith("\\le")
        if i + 1 == at:  # bound on the left of the variable
            bound, bound_is_lower = parse_scalar(left), less
        elif i == at:  # bound on the right
            bound, bound_is_lower = parse_scalar(right), not less
        else:
            return None
        if bound.value is None:
            raise Undecided("symbolic bound")
        if bound_is_lower:
            lower = (bound, not strict)
        else:
            upper = (bound, not strict)
    if len(ops) == 2 and not (isinstance(lower[0], Scalar) and isinstance(upper[0], Scalar)):
        return None
    return Group(
        "bracket", "[" if lower[1] else "(", "]" if upper[1] else ")", (lower[0], upper[0])
    )


def parse(text: str) -> Value:
    """Parses an answer or reference into a fast-path value.

    Raises:
        Undecided: The text is outside the grammar.
        TooLarge: Evaluating it would exceed `MAX_BITS`.
    """
    s = _preprocess(text)
    if not s:
        raise Undecided("empty expression")
    if _IN.match(s):
        s = s[s.index("\\in") + 3 :].strip()
    if _RELATION.search(s):
        interval = _relation_interval(s)
        if interval is None:
            raise Undecided("a relation outside the fast path")
        return interval
    if _THOUSANDS.match(s):
        return parse_scalar(s.replace(",", ""))
    opener = closer = ""
    body = s
    if s.startswith(r"\{") and s.endswith(r"\}"):
        opener, closer, body = "{", "}", s[2:-2]
    elif s[0] in "([" and s[-1] in ")]":
        inner = s[1:-1]
        parts = _split_top(inner)
        if len(parts) > 1 and _balanced(inner):
            opener, closer, body = s[0], s[-1], inner
    parts = _split_top(body)
    if opener == "{":
        items = tuple(parse_scalar(p) for p in parts) if body.strip() else ()
        return Group("set", "{", "}", items)
    if opener:
        return Group("bracket", opener, closer, tuple(_item(p) for p in parts))
    if len(parts) > 1:
        return Group("list", "", "", tuple(parse_scalar(p) for p in parts))
    return parse_scalar(s)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def terminating(value: Fraction) -> bool:
    """True when the value has a finite decimal expansion."""
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def round_at(value: Fraction, ulp_exp: int) -> Fraction:
    """Rounds half away from zero to a multiple of ``10**ulp_exp``."""
    unit = Fraction(10) ** ulp_exp
    q = abs(value) / unit
    n = math.floor(q + Fraction(1, 2))
    return (n * unit) * (1 if value >= 0 else -1)


def scalars_equal(
    answer: Scalar, reference: Scalar, *, min_answer_sig: int, min_reference_sig: int
) -> bool | None:
    r"""Compares two scalars under the precision rules; None when either is opaque.

    * Equal exact values are equal (``42.0`` = ``42``, ``0.25`` = ``\frac14``).
    * A decimal reference stated to d places (at least `min_reference_sig` significant
      digits) matches an exact answer whose expansion does not terminate and rounds to it
      (``3.14`` ~ ``\pi``, ``0.333`` ~ ``\frac13``).
    * A decimal answer matches an exact reference whose expansion does not terminate when it
      states at least `min_answer_sig` significant digits and is within one unit of its last
      digit (``0.333333`` ~ ``\frac13``; ``0.333`` is not).
    * Anything else must be equal exactly: integer references admit no tolerance, and two
      decimals are equal or not.
    """
    a, r = answer.value, reference.value
    if a is None or r is None:
        return None
    if a == r:
        return True
    if reference.ulp_exp is not None and answer.ulp_exp is None:
        if terminating(a) or reference.sig < min_reference_sig:
            return False
        return round_at(a, reference.ulp_exp) == r
    if answer.ulp_exp is not None and reference.ulp_exp is None:
        if terminating(r) or answer.sig < min_answer_sig:
            return False
        return abs(a - r) < Fraction(10) ** answer.ulp_exp
    return False
