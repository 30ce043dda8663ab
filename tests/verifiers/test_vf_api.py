"""The public API: registry, configs, context checking, the never-raise contract, light import."""

import dataclasses
import json
import subprocess
import sys

import pytest

from palaestra import verifiers
from palaestra.errors import UnknownArgumentError
from palaestra.verdict import Status as CoreStatus
from palaestra.verdict import Verdict as CoreVerdict
from palaestra.verifiers import Status, UnknownVerifierError, Verdict, Verifier, VerifierConfig


def test_verdict_and_status_are_the_core_types():
    assert Verdict is CoreVerdict and Status is CoreStatus


def test_builtin_names_are_registered():
    assert set(verifiers.available()) >= {
        "math",
        "numeric",
        "choice",
        "exact_match",
        "f1",
        "format",
        "json",
        "judge",
        "hybrid",
        "composite",
        "lean",
        "z3",
        "code",
    }


def test_importing_the_package_is_light():
    code = (
        "import sys, palaestra.verifiers as v; v.get('format'); v.get('choice'); "
        "print(any(m in sys.modules for m in ('sympy', 'math_verify', 'latex2sympy2_extended', 'z3', 'httpx')))"  # noqa: E501
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_names_fields_and_context_raise_with_suggestions():
    with pytest.raises(UnknownVerifierError, match="Did you mean 'math'"):
        verifiers.get("maths")
    with pytest.raises(UnknownArgumentError, match="timeout_s"):
        verifiers.get("math", timeout=3)
    with pytest.raises(UnknownArgumentError, match="choices"):
        verifiers.verify("choice", "\\boxed{A}", "A", choice=["x"])
    with pytest.raises(ValueError, match="timeout_s"):
        verifiers.get("math", timeout_s=-1)


def test_configs_are_frozen_versioned_and_round_trip():
    math = verifiers.get("math", timeout_s=2.0, min_answer_sig=4)
    config = math.config
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.timeout_s = 1.0
    data = config.to_dict()
    assert data["version"] == type(config).VERSION
    assert type(config).from_dict(json.loads(json.dumps(data))) == config
    with pytest.raises(ValueError, match="version"):
        type(config).from_dict({**data, "version": 999})
    assert math("\\boxed{0.3333}", "\\frac13").correct  # 4 significant digits now suffice
    assert verifiers.get("math") is verifiers.get("math")  # default instances are shared


def test_register_a_custom_verifier():
    @dataclasses.dataclass(frozen=True)
    class LengthConfig(VerifierConfig):
        limit: int = 10

    class Length(Verifier):
        name = "length-test"
        config_class = LengthConfig

        def _verify(self, completion, reference, context):
            ok = len(completion) <= self.config.limit
            return Verdict(float(ok), Status.CORRECT if ok else Status.INCORRECT)

    verifiers.register("length-test", Length)
    with pytest.raises(ValueError, match="already registered"):
        verifiers.register("length-test", Length)
    assert verifiers.verify("length-test", "short").correct
    assert not verifiers.get("length-test", limit=2)("short").correct
    v = verifiers.verify("length-test", "x")
    assert v.verifier == "length-test" and v.elapsed_s >= 0


@pytest.mark.parametrize(
    "completion",
    [
        None,
        42,
        b"\\boxed{1}",
        [],
        [{"role": "user", "content": "hi"}],
        {"content": None},
        "",
        "\x00" * 10,
        "\\boxed{" * 5000,
        "}" * 5000,
        "<think>" * 1000,
        "\\boxed{\\frac{\\frac{\\frac{1}{2}}{3}}{}}",
    ],
)
@pytest.mark.parametrize(
    "name", ["math", "numeric", "choice", "exact_match", "f1", "format", "json", "z3", "lean"]
)
def test_garbage_never_raises(name, completion):
    reference = {
        "z3": "(declare-const x Int) (assert (> x 1))",
        "choice": "A",
        "lean": "theorem t : True",
    }.get(name, "1")
    verdict = verifiers.verify(name, completion, reference)
    assert isinstance(verdict, Verdict)
    assert not verdict.correct


def test_chat_messages_are_accepted():
    messages = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "\\boxed{4}"}]
    assert verifiers.verify("math", messages, 4).correct
    assert verifiers.verify("math", {"role": "assistant", "content": "\\boxed{4}"}, "4").correct


@pytest.mark.parametrize("reference", [None, True, object(), ["1"], ""])
def test_bad_references_are_masked_errors(reference):
    verdict = verifiers.verify("math", "\\boxed{1}", reference)
    assert verdict.status is Status.ERROR and verdict.mask and verdict.score == 0.0


def test_verdicts_serialise():
    verdict = verifiers.verify("math", "\\boxed{1/2}", "0.5")
    assert Verdict.from_dict(json.loads(json.dumps(verdict.to_dict()))) == verdict


def test_verdicts_are_frozen_and_normalise_their_fields():
    verdict = Verdict(1, "correct", reason="ok")
    assert verdict.score == 1.0 and type(verdict.score) is float
    assert verdict.status is Status.CORRECT and not verdict.mask and verdict.details == {}
    assert Verdict(0.0, Status.INCORRECT).details is not Verdict(0.0, Status.INCORRECT).details
    assert Verdict(0.0, "error").mask  # an infrastructure error is always masked
    assert Verdict(0.0, Status.INCORRECT, details=None).details == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.score = 0.0
    with pytest.raises(ValueError):
        Verdict(1.0, "maybe")
    assert verdict.replace(score=0.5) == Verdict(0.5, Status.CORRECT, reason="ok")
    assert Verdict(1.0, Status.CORRECT, elapsed_s=3.0) == Verdict(1.0, Status.CORRECT)
    assert Verdict.from_dict(verdict.to_dict()) == verdict
