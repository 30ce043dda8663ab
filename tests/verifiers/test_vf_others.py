"""numeric, choice, exact_match, f1, format, json, z3, lean, composite and code."""

import pytest

from palaestra import verifiers
from palaestra.verifiers.code import read_channel, sandbox_available
from palaestra.verifiers.composite import CompositeConfig, Part
from palaestra.verifiers.format import FormatConfig
from palaestra.verifiers.lean import audit_output, audit_source, strip_comments

CHOICES = ["London", "Paris", "Rome", "Oslo"]


def test_numeric():
    assert verifiers.verify("numeric", "\\boxed{42}", 42).correct
    assert not verifiers.verify("numeric", "\\boxed{42.001}", 42).correct
    assert verifiers.get("numeric", abs_tol=0.01)("\\boxed{42.001}", 42).correct
    assert verifiers.get("numeric", rel_tol=0.02)("\\boxed{3.1}", 3.14159).correct
    assert verifiers.verify("numeric", "\\boxed{x}", 42).status.value == "incorrect"
    assert verifiers.verify("numeric", "\\boxed{10^{10^{10}}}", 42).status.value == "timeout"
    assert verifiers.verify("numeric", "\\boxed{1}", "pi").status.value == "error"


@pytest.mark.parametrize(
    "answer, status",
    [
        ("B", "correct"),
        ("(B)", "correct"),
        ("\\text{B}", "correct"),
        ("Option B", "correct"),
        ("B. Paris", "correct"),
        ("Paris", "correct"),
        ("C", "incorrect"),
        ("B. London", "incorrect"),
        ("A B C D", "incorrect"),
        ("B or C", "incorrect"),
        ("B, C", "incorrect"),
        ("ABCD", "incorrect"),
    ],
)
def test_choice(answer, status):
    verdict = verifiers.verify("choice", f"\\boxed{{{answer}}}", "B", choices=CHOICES)
    assert verdict.status.value == status, verdict.reason


def test_choice_mapping_and_bad_reference():
    assert verifiers.verify(
        "choice", "<answer>b</answer>".upper(), "B", choices={"A": "x", "B": "y"}
    ).correct
    assert verifiers.verify("choice", "\\boxed{A}", "Z").status.value == "error"


def test_exact_match_and_f1():
    assert verifiers.verify(
        "exact_match", "<answer>The Eiffel Tower.</answer>", ["Eiffel Tower", "Tour Eiffel"]
    ).correct
    assert not verifiers.verify("exact_match", "<answer>Eiffel</answer>", "Eiffel Tower").correct
    f1 = verifiers.verify("f1", "<answer>Eiffel</answer>", "Eiffel Tower")
    assert f1.status.value == "incorrect" and f1.score == pytest.approx(2 / 3)
    assert verifiers.get("f1", correct_at=0.5)("<answer>Eiffel</answer>", "Eiffel Tower").correct
    assert (
        verifiers.verify("f1", "<answer>a, b</answer> <answer>c</answer>", "c").status.value
        == "incorrect"
    )


@pytest.mark.parametrize(
    "completion, ok",
    [
        ("<think>x</think><answer>5</answer>", True),
        ("<think>x</think>\n\n<answer>5</answer>\n", True),
        ("<think></think><answer>5</answer>", False),
        ("<think>x<answer>5</answer></think>", False),
        ("<answer>5</answer><think>x</think>", False),
        ("<think>x</think>", False),
        ("pre <think>x</think><answer>5</answer>", False),
        ("<think>x</think><answer>5</answer><think>y</think>", False),
    ],
)
def test_format(completion, ok):
    assert verifiers.verify("format", completion).correct is ok


def test_format_prefilled_and_outside_text():
    assert verifiers.get("format", FormatConfig(prefilled=True))(
        "x</think><answer>5</answer>"
    ).correct
    assert verifiers.get("format", allow_text_outside=True)(
        "hi <think>x</think> so <answer>5</answer>"
    ).correct
    with pytest.raises(ValueError):
        FormatConfig(tags=("think", "think"))


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "text, status",
    [
        ('{"name": "x", "age": 3}', "correct"),
        ('```json\n{"name": "x", "age": 3, "tags": ["a"]}\n```', "correct"),
        ('{"name": "x"}', "bad_format"),
        ('{"name": "x", "age": -1}', "bad_format"),
        ('{"name": "x", "age": 3, "extra": 1}', "bad_format"),
        ('{"name": "x", "age": 3, "tags": ["a", "a"]}', "bad_format"),
        ('{"name": "x", "age": 3.5}', "bad_format"),
        ('{"name": "x", "age": true}', "bad_format"),
        ("not json", "bad_format"),
        ('{"name": "x", "name": "y", "age": 1}', "bad_format"),
    ],
)
def test_json_schema(text, status):
    assert verifiers.verify("json", text, schema=SCHEMA).status.value == status


def test_json_reference_and_bad_schema():
    assert verifiers.verify("json", '{"a": [1, 2.0]}', {"a": [1, 2]}).correct
    assert verifiers.verify("json", '{"a": true}', {"a": 1}).status.value == "incorrect"
    assert (
        verifiers.verify(
            "json", "{}", schema={"type": "object", "patternProperties": {}}
        ).status.value
        == "error"
    )


SMT = "(declare-const x Int) (declare-const r Real) (declare-const b Bool) (assert (> x 2)) (assert (= r (/ x 2))) (assert b)"  # noqa: E501


@pytest.mark.parametrize(
    "answer, status",
    [
        ('{"x": 3, "r": 1.5, "b": true}', "correct"),
        ("x = 4; r = 2; b = true", "correct"),
        ("x = 3, r = 3/2, b = false", "incorrect"),
        ("x = 3.5, r = 1.75, b = true", "incorrect"),
        ("x = 3", "incorrect"),
        ("nonsense", "bad_format"),
    ],
)
def test_z3(answer, status):
    assert verifiers.verify("z3", f"<answer>{answer}</answer>", SMT).status.value == status


STATEMENT = "theorem add_zero' (n : Nat) : n + 0 = n"


def test_lean_source_audit():
    assert audit_source("by simp", STATEMENT) == (None, f"{STATEMENT} := by simp")
    assert audit_source(f"{STATEMENT} := by simp", STATEMENT)[0] is None
    assert "sorry" in audit_source("by sorry", STATEMENT)[0]
    assert "sorry" not in (audit_source("by simp -- no sorry here", STATEMENT)[0] or "")
    assert "axiom" in audit_source("axiom c : False\nby exact c.elim", STATEMENT)[0]
    assert "statement" in audit_source("theorem add_zero' : True := trivial", STATEMENT)[0]
    assert strip_comments("a /- b /- c -/ d -/ e -- f\ng") == "a  e \ng"


RECORDED = {
    "clean": ("'add_zero'' depends on axioms: [propext]", "correct"),
    "none": ("'add_zero'' does not depend on any axioms", "correct"),
    "classical": (
        "'add_zero'' depends on axioms: [propext, Classical.choice, Quot.sound]",
        "correct",
    ),
    "sorry-warning": (
        "Proof.lean:3:8: warning: declaration uses 'sorry'\n'add_zero'' depends on axioms: [sorryAx]",  # noqa: E501
        "incorrect",
    ),
    "sorry-axiom": ("'add_zero'' depends on axioms: [propext, sorryAx]", "incorrect"),
    "cheat": ("'add_zero'' depends on axioms: [cheat]", "suspect"),
    "native-decide": ("'add_zero'' depends on axioms: [propext, Lean.ofReduceBool]", "suspect"),
    "error": (
        "Proof.lean:3:2: error: unsolved goals\n'add_zero'' depends on axioms: [propext]",
        "incorrect",
    ),
    "no-report": ("", "error"),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_lean_axiom_audit_on_recorded_output(name):
    output, status = RECORDED[name]
    assert audit_output(output, "add_zero'")[0].value == status


def test_lean_without_toolchain_is_a_masked_error():
    import shutil

    if shutil.which("lean"):
        pytest.skip("a Lean toolchain is installed here; this checks the no-toolchain path")
    verdict = verifiers.verify("lean", "```lean\nby simp\n```", STATEMENT)
    assert verdict.status.value == "error" and verdict.mask and "toolchain" in verdict.reason


def test_composite_keeps_format_as_its_own_term():
    good = verifiers.verify("composite", "<think>2+2</think><answer>\\boxed{4}</answer>", "4")
    assert good.correct and good.score == pytest.approx(1.1)
    assert good.details["reward_parts"] == {"outcome": 1.0, "format": pytest.approx(0.1)}
    wrong = verifiers.verify("composite", "<think>2+2</think><answer>\\boxed{5}</answer>", "4")
    assert wrong.status.value == "incorrect" and wrong.score == pytest.approx(0.1)
    unformatted = verifiers.verify("composite", "\\boxed{4}", "4")
    assert unformatted.correct and unformatted.details["reward_parts"]["format"] == 0.0
    batch = verifiers.verify_batch(
        "composite", [("<think>a</think><answer>\\boxed{4}</answer>", "4"), ("\\boxed{5}", "4")]
    )
    assert [v.score for v in batch] == [pytest.approx(1.1), 0.0]


def test_composite_masks_when_a_part_fails():
    config = CompositeConfig(parts=(Part("outcome", "choice", 1.0), Part("format", "format", 0.2)))
    verdict = verifiers.get("composite", config)("<think>x</think><answer>A</answer>", "Z")
    assert verdict.status.value == "error" and verdict.mask
    with pytest.raises(ValueError):
        CompositeConfig(status_from="nope")


TESTS = {"tests": [{"call": "add(1, 2)", "expected": 3}, {"call": "add(2, 2)", "expected": 4}]}
PROGRAM = {"tests": [{"stdin": "1 2\n", "stdout": "3\n"}, {"stdin": "5 5\n", "stdout": "10"}]}


def code_verifier(**kw):
    kw.setdefault("backend", "sandbox" if sandbox_available() else "subprocess")
    return verifiers.get("code", per_test_s=2.0, **kw)


def test_code_function_and_program_tests():
    check = code_verifier()
    assert check("```python\ndef add(a, b):\n    return a + b\n```", TESTS).correct
    wrong = check("```python\ndef add(a, b):\n    return a * b\n```", TESTS)
    assert wrong.status.value == "incorrect" and wrong.details["tests"] == ["passed", "passed"][
        :0
    ] + ["failed", "passed"]
    program = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    assert check(program, PROGRAM).correct
    partial = code_verifier(partial_credit=True)(
        "```python\ndef add(a, b):\n    return 3\n```", TESTS
    )
    assert partial.score == 0.5 and partial.status.value == "incorrect"
    assert check("no code here", TESTS).status.value == "no_answer"
    assert check("```python\npass\n```", {"tests": []}).status.value == "error"


def test_code_channel_rejects_duplicates_and_strangers():
    assert read_channel(b'{"test": 0, "value": 1}\n{"test": 0, "value": 1}\n', 1)[1] is not None
    assert read_channel(b'{"test": 5, "value": 1}\n', 1)[1] is not None
    assert read_channel(b'{"test": 0, "value": 1}\n{"done": 1}\n', 1) == (
        {0: {"test": 0, "value": 1}},
        None,
    )


@pytest.mark.parametrize("failure", ["raises", "reports"])
def test_code_sandbox_failures_are_infrastructure_errors_not_zeros(monkeypatch, failure):
    from palaestra import sandbox

    def broken_run(request, backend="local"):
        if failure == "raises":
            raise RuntimeError("the sandbox helper died")
        return sandbox.RunResult(exit_code=None, error="cgroup creation failed")

    monkeypatch.setattr(sandbox, "run", broken_run)
    verdict = verifiers.get("code", backend="sandbox")(
        "```python\ndef add(a, b):\n    return a + b\n```", TESTS
    )
    assert verdict.status.value == "error" and verdict.mask and verdict.score == 0.0
