"""A programming problem: statement, tests, reference and wrong solutions, output check.

`CodeProblem` is what every code env poses, whatever its source: the shipped problem set
(`palaestra.envs.code.problems`), a procedural generator (`palaestra.envs.code.generators`)
or a public dataset read by `palaestra.envs.code.loaders`.

Two styles:

* ``"function"``: the candidate defines a function; a test's ``input`` is a Python call
  expression (``"add(1, 2)"``) evaluated inside the sandbox after the candidate's code, and
  its ``output`` is the expected return value (JSON: ``3``, ``[1, 2]``, ``"ab"``).
* ``"stdio"``: the candidate writes a program; a test's ``input`` is the text on standard
  input and its ``output`` the expected standard output, compared by the problem's
  `OutputCheck`.

Public tests are shown in the prompt (and, in multi-turn envs, reported when they fail);
hidden tests decide the reward.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

STYLES = ("function", "stdio")
CHECK_MODES = ("exact", "lines", "tokens")

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@dataclasses.dataclass(frozen=True)
class OutputCheck:
    """How an actual output is compared with the expected one.

    Every expected line (or token) is compared: missing and extra lines fail, so a prefix
    of the expected output never passes.

    Attributes:
        mode: For stdin/stdout tests: ``"exact"`` (the same text; only one final newline
            may be missing), ``"lines"`` (line by line, trailing spaces and trailing blank
            lines ignored) or ``"tokens"`` (the same whitespace-separated tokens, however
            spaced). Function results are always compared as values.
        float_tol: When set, numbers are equal within this absolute or relative tolerance
            (function results of type float, and numeric tokens of stdout in ``"lines"`` and
            ``"tokens"`` modes). When None, function floats still get ``1e-9`` (floating
            point noise) and stdout is compared as text.
    """

    mode: Literal["exact", "lines", "tokens"] = "lines"
    float_tol: float | None = None

    def __post_init__(self) -> None:
        if self.mode not in CHECK_MODES:
            raise ValueError(f"OutputCheck.mode must be one of {CHECK_MODES}, got {self.mode!r}")
        if self.float_tol is not None:
            if isinstance(self.float_tol, bool) or not isinstance(self.float_tol, (int, float)):
                raise TypeError(
                    f"OutputCheck.float_tol must be a number or None, got {self.float_tol!r}"
                )
            if not 0 <= self.float_tol < 1:
                raise ValueError(f"OutputCheck.float_tol must be in [0, 1), got {self.float_tol!r}")
        if self.mode == "exact" and self.float_tol is not None:
            raise ValueError(
                "OutputCheck: 'exact' compares text; use mode='lines' or 'tokens' with float_tol"
            )

    def same_text(self, actual: str, expected: str) -> bool:
        """Whether a program's standard output matches the expected output."""
        actual = actual.replace("\r\n", "\n")
        expected = expected.replace("\r\n", "\n")
        if self.mode == "exact":
            return _drop_final_newline(actual) == _drop_final_newline(expected)
        if self.mode == "tokens":
            return self._same_tokens(actual.split(), expected.split())
        got, want = _lines(actual), _lines(expected)
        if len(got) != len(want):
            return False
        if self.float_tol is None:
            return got == want
        return all(self._same_tokens(g.split(), w.split()) for g, w in zip(got, want, strict=True))

    def _same_tokens(self, got: list[str], want: list[str]) -> bool:
        if len(got) != len(want):
            return False
        if self.float_tol is None:
            return got == want
        return all(
            g == w or _close_tokens(g, w, self.float_tol) for g, w in zip(got, want, strict=True)
        )

    def same_value(self, actual: Any, expected: Any) -> bool:
        """Whether a function's result (decoded from the runner) equals the expected value.

        Types are exact (``True`` is not ``1``, ``"1"`` is not ``1``); tuples arrive as
        lists; an int is accepted for an expected float within the tolerance.
        """
        return _same_value(actual, expected, 1e-9 if self.float_tol is None else self.float_tol)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"mode": self.mode, "float_tol": self.float_tol}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> OutputCheck:
        """The inverse of `to_json` (None gives the default check)."""
        if data is None:
            return cls()
        return cls(mode=data.get("mode", "lines"), float_tol=data.get("float_tol"))


def _drop_final_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _close_tokens(got: str, want: str, tol: float) -> bool:
    if not (_NUMBER.fullmatch(got) and _NUMBER.fullmatch(want)):
        return False
    a, b = float(got), float(want)
    return math.isfinite(a) and math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _decode_special(value: Any) -> Any:
    # The runner writes nan and infinities as {"__float__": "nan"}.
    if (
        isinstance(value, dict)
        and set(value) == {"__float__"}
        and isinstance(value["__float__"], str)
    ):
        try:
            return float(value["__float__"])
        except ValueError:
            return value
    return value


def _same_value(actual: Any, expected: Any, tol: float) -> bool:
    actual = _decode_special(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, float):
        if not isinstance(actual, (int, float)):
            return False
        return math.isclose(actual, expected, rel_tol=tol, abs_tol=tol)
    if isinstance(expected, int):
        return type(actual) is int and actual == expected
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_same_value(a, e, tol) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(_same_value(actual[k], expected[k], tol) for k in expected)
        )
    return type(actual) is type(expected) and actual == expected


@dataclasses.dataclass(frozen=True)
class Test:
    """One test.

    Attributes:
        input: A call expression (function style) or the standard input (stdio style).
        output: The expected return value (JSON) or standard output (text).
        label: What the test is for (``"edge"``, ``"performance"``, or empty).
    """

    # Not a pytest test class, whatever test module imports it.
    __test__: ClassVar[bool] = False

    input: str
    output: Any
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = {"input": self.input, "output": self.output}
        if self.label:
            data["label"] = self.label
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Test:
        """The inverse of `to_json`."""
        return cls(data["input"], data["output"], data.get("label", ""))


def _as_tests(owner: str, name: str, tests: Any) -> tuple[Test, ...]:
    if isinstance(tests, (str, bytes)) or not isinstance(tests, Sequence):
        raise TypeError(f"{owner}: {name} must be a list of tests, got {type(tests).__name__}")
    out = []
    for i, test in enumerate(tests):
        if isinstance(test, Test):
            out.append(test)
        elif isinstance(test, Mapping):
            out.append(Test.from_json(test))
        elif isinstance(test, (tuple, list)) and len(test) in (2, 3):
            out.append(Test(*test))
        else:
            raise TypeError(
                f"{owner}: {name}[{i}] must be a Test, a dict or an (input, output) pair, "
                f"got {test!r}"
            )
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class CodeProblem:
    """A programming problem (see the module docstring).

    Attributes:
        id: A stable identifier (``"strings/reverse-words"``, ``"apps/4021"``).
        statement: The task, for the model.
        style: ``"function"`` or ``"stdio"``.
        public: Tests shown in the prompt and reported when they fail.
        hidden: Tests that decide the reward (never shown).
        entry: The function to define (function style).
        starter: Code the answer should start from (a signature, a class skeleton).
        reference: A solution that passes every test, when known.
        wrong: Plausible wrong solutions, each failing at least one hidden test.
        time_limit_s: Wall-clock seconds per test.
        check: How outputs are compared.
        prelude: Code run before the candidate's (imports a dataset's harness assumes).
        category: The topic (``"strings"``, ``"dynamic_programming"``, ...).
        level: Difficulty, 1 (easy) to 3 (hard) for the shipped set.
        source: Where it comes from (``"palaestra"``, ``"apps"``, ``"generated"``, ...).
        title: A short name for people.
    """

    id: str
    statement: str
    style: Literal["function", "stdio"]
    public: tuple[Test, ...]
    hidden: tuple[Test, ...]
    entry: str | None = None
    starter: str = ""
    reference: str | None = None
    wrong: tuple[str, ...] = ()
    time_limit_s: float = 2.0
    check: OutputCheck = OutputCheck()
    prelude: str = ""
    category: str = ""
    level: int = 1
    source: str = "palaestra"
    title: str = ""

    def __post_init__(self) -> None:
        owner = f"CodeProblem {self.id!r}"
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"CodeProblem.id must be a non-empty string, got {self.id!r}")
        if self.style not in STYLES:
            raise ValueError(f"{owner}: style must be one of {STYLES}, got {self.style!r}")
        if not isinstance(self.statement, str) or not self.statement.strip():
            raise ValueError(f"{owner}: the statement is empty")
        object.__setattr__(self, "public", _as_tests(owner, "public", self.public))
        object.__setattr__(self, "hidden", _as_tests(owner, "hidden", self.hidden))
        object.__setattr__(self, "wrong", tuple(self.wrong))
        if not self.hidden:
            raise ValueError(
                f"{owner}: a problem needs at least one hidden test (they decide the reward)"
            )
        if self.style == "function":
            if not isinstance(self.entry, str) or not self.entry.isidentifier():
                raise ValueError(f"{owner}: a function problem needs entry= the function's name")
        for test in self.public + self.hidden:
            if not isinstance(test.input, str):
                raise TypeError(f"{owner}: a test's input must be a string, got {test.input!r}")
            if self.style == "stdio" and not isinstance(test.output, str):
                raise TypeError(
                    f"{owner}: a stdio test's output must be a string, got {test.output!r}"
                )
        if (
            isinstance(self.time_limit_s, bool)
            or not isinstance(self.time_limit_s, (int, float))
            or not 0 < self.time_limit_s <= 60
        ):
            raise ValueError(
                f"{owner}: time_limit_s must be in (0, 60] seconds, got {self.time_limit_s!r}"
            )
        if not isinstance(self.check, OutputCheck):
            raise TypeError(
                f"{owner}: check must be an OutputCheck, got {type(self.check).__name__}"
            )

    @property
    def tests(self) -> tuple[Test, ...]:
        """Public then hidden tests (the order the judge runs them in)."""
        return self.public + self.hidden

    def signature(self) -> str:
        """The code the answer starts from: the starter, else the reference's ``def`` line."""
        if self.starter.strip():
            return self.starter.strip()
        if self.style == "function" and self.reference:
            for line in self.reference.splitlines():
                if line.startswith(f"def {self.entry}("):
                    return line.rstrip(":").rstrip() + ":"
        return ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (what a dataset row holds)."""
        return {
            "id": self.id,
            "statement": self.statement,
            "style": self.style,
            "public": [t.to_json() for t in self.public],
            "hidden": [t.to_json() for t in self.hidden],
            "entry": self.entry,
            "starter": self.starter,
            "reference": self.reference,
            "wrong": list(self.wrong),
            "time_limit_s": self.time_limit_s,
            "check": self.check.to_json(),
            "prelude": self.prelude,
            "category": self.category,
            "level": self.level,
            "source": self.source,
            "title": self.title,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CodeProblem:
        """The inverse of `to_json`."""
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise ValueError(f"unknown CodeProblem fields {unknown}; known: {sorted(fields)}")
        values = dict(data)
        values["check"] = OutputCheck.from_json(values.get("check"))
        return cls(**values)

    def round_trip(self) -> CodeProblem:
        """This problem after a trip through JSON text."""
        return CodeProblem.from_json(json.loads(json.dumps(self.to_json())))
