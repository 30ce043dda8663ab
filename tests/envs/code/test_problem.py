"""The problem model: output checks (every line compared, tolerances), values, validation, JSON."""

from __future__ import annotations

import pytest

from palaestra.envs.code.problem import CodeProblem, OutputCheck, Test

LINES = OutputCheck("lines")
EXACT = OutputCheck("exact")
TOKENS = OutputCheck("tokens")


@pytest.mark.parametrize("check", [EXACT, LINES, TOKENS], ids=["exact", "lines", "tokens"])
def test_a_prefix_of_the_expected_output_never_passes(check):
    assert not check.same_text("1\n2\n", "1\n2\n3\n")
    assert not check.same_text("", "1\n")
    assert not check.same_text("1\n2\n3\n4\n", "1\n2\n3\n")
    assert check.same_text("1\n2\n3\n", "1\n2\n3\n")


def test_exact_allows_only_a_missing_final_newline():
    assert EXACT.same_text("a b\nc", "a b\nc\n")
    assert not EXACT.same_text("a b \nc\n", "a b\nc\n")
    assert not EXACT.same_text("a  b\nc\n", "a b\nc\n")
    assert not EXACT.same_text("a b\nc\n\n", "a b\nc\n")


def test_lines_ignores_trailing_spaces_and_blank_lines_but_not_inner_spacing():
    assert LINES.same_text("a b  \nc\n\n\n", "a b\nc\n")
    assert LINES.same_text("a b\r\nc\r\n", "a b\nc\n")
    assert not LINES.same_text("a  b\nc\n", "a b\nc\n")
    assert not LINES.same_text("a b c\n", "a b\nc\n")


def test_tokens_ignores_all_spacing_but_not_token_boundaries():
    assert TOKENS.same_text("1   2\n\n3", "1 2 3\n")
    assert not TOKENS.same_text("12 3", "1 2 3")


def test_float_tolerance_applies_to_numeric_tokens_only():
    check = OutputCheck("lines", float_tol=1e-6)
    assert check.same_text("0.3333333\n", "0.333333333\n")
    assert check.same_text("1e3 2\n", "1000.0000001 2\n")
    assert not check.same_text("0.334\n", "0.333\n")
    assert not check.same_text("nan\n", "nan \n".replace(" ", "") + "x")
    assert not check.same_text("1_000\n", "1000\n")
    assert not check.same_text("0.3333333 x\n", "0.333333333 y\n")
    assert not OutputCheck("lines").same_text("0.3333333\n", "0.333333333\n")


def test_values_compare_by_exact_type():
    check = OutputCheck()
    assert check.same_value([1, [2, "a"]], [1, [2, "a"]])
    assert not check.same_value(True, 1)
    assert not check.same_value(1, True)
    assert not check.same_value("1", 1)
    assert not check.same_value(1.0, 1)
    assert check.same_value(1, 1.0)
    assert check.same_value(0.1 + 0.2, 0.3)
    assert not check.same_value([1, 2], [1, 2, 3])
    assert not check.same_value({"a": 1}, {"a": 1, "b": 2})
    assert not check.same_value({"__float__": "nan"}, 1.0)
    assert OutputCheck(float_tol=1e-3).same_value(1.0004, 1.0)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"mode": "fuzzy"}, ValueError),
        ({"float_tol": -1.0}, ValueError),
        ({"float_tol": "0.1"}, TypeError),
        ({"mode": "exact", "float_tol": 1e-6}, ValueError),
    ],
)
def test_bad_checks_are_rejected(kwargs, error):
    with pytest.raises(error):
        OutputCheck(**kwargs)


def _problem(**changes):
    fields = dict(
        id="t/add",
        statement="Add.",
        style="function",
        entry="add",
        public=[("add(1, 2)", 3)],
        hidden=[("add(2, 2)", 4)],
    )
    fields.update(changes)
    return CodeProblem(**fields)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"hidden": []}, "hidden test"),
        ({"style": "sql"}, "style"),
        ({"entry": None}, "entry"),
        ({"statement": "  "}, "statement"),
        ({"time_limit_s": 0}, "time_limit_s"),
        ({"style": "stdio", "hidden": [("1\n", 2)]}, "stdio test's output"),
        ({"hidden": ["add(1, 1)"]}, r"hidden\[0\]"),
    ],
)
def test_malformed_problems_are_rejected_with_a_reason(changes, message):
    with pytest.raises((ValueError, TypeError), match=message):
        _problem(**changes)


def test_problems_survive_a_json_round_trip():
    problem = _problem(
        check=OutputCheck("tokens", 1e-6), wrong=("def add(a, b):\n    return 0\n",), level=2
    )
    assert problem.round_trip() == problem
    with pytest.raises(ValueError, match="unknown CodeProblem fields"):
        CodeProblem.from_json({**problem.to_json(), "extra": 1})


def test_the_signature_comes_from_the_starter_or_the_reference():
    assert (
        _problem(reference="import math\n\ndef add(a, b):\n    return a + b\n").signature()
        == "def add(a, b):"
    )
    assert (
        _problem(starter="class Solution:\n    def add(self, a, b):")
        .signature()
        .startswith("class Solution")
    )
    assert Test("x", 1, "performance").to_json() == {
        "input": "x",
        "output": 1,
        "label": "performance",
    }
