"""The judge: outcomes per test, verdicts, feedback that never shows hidden tests,
infrastructure errors."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from palaestra.envs.code.judge import (
    Judgement,
    TestResult,
    ajudge,
    build_request,
    judge,
    judge_many,
)
from palaestra.envs.code.problem import CodeProblem, OutputCheck
from palaestra.sandbox import RunResult
from palaestra.verdict import Status

ADD = CodeProblem(
    id="t/add",
    statement="Add two numbers.",
    style="function",
    entry="add",
    time_limit_s=2.0,
    public=[("add(1, 2)", 3), ("add(0, 0)", 0)],
    hidden=[
        ("add(2, 2)", 4),
        ("add(-1, 1)", 0),
        ("add(10**20, 1)", 10**20 + 1),
        ("add(0.1, 0.2)", 0.3),
    ],
)
SUM = CodeProblem(
    id="t/sum",
    statement="Print the sum of the numbers on the line.",
    style="stdio",
    time_limit_s=2.0,
    public=[("1 2\n", "3\n")],
    hidden=[("2 2\n", "4\n"), ("5 5 5\n", "15\n"), ("-4\n", "-4\n")],
)
GOOD_ADD = "def add(a, b):\n    return a + b\n"
GOOD_SUM = "print(sum(map(int, input().split())))\n"


def outcomes(judgement: Judgement) -> list[str]:
    return [r.outcome for r in judgement.results]


def test_a_correct_function_passes_every_test():
    judgement = judge(GOOD_ADD, ADD)
    assert judgement.status == "ok"
    assert outcomes(judgement) == ["passed"] * 6
    verdict = judgement.verdict()
    assert verdict.status is Status.CORRECT and verdict.score == 1.0 and verdict.verifier == "code"


def test_each_outcome_is_told_apart():
    code = (
        "def add(a, b):\n"
        "    if a == 2: return 5\n"  # wrong
        "    if a == -1: raise ValueError('no')\n"  # error
        "    if a == 10**20:\n        while True: pass\n"  # timeout
        "    if a == 0.1:\n        import os; os._exit(0)\n"  # missing
        "    return a + b\n"
    )
    judgement = judge(code, ADD)
    assert outcomes(judgement) == ["passed", "passed", "wrong", "error", "timeout", "missing"]
    assert judgement.passed(hidden=True) == 0 and judgement.passed(hidden=False) == 2
    assert judgement.verdict().score == 0.0
    assert judgement.verdict(partial=True).score == 0.0
    assert judgement.verdict(partial=True, hidden=None).score == pytest.approx(2 / 6)


def test_partial_credit_is_the_fraction_of_hidden_tests():
    judgement = judge("def add(a, b):\n    return a + b if a >= 0 else 99\n", ADD)
    assert judgement.fraction() == pytest.approx(3 / 4)
    assert judgement.verdict(partial=True).score == pytest.approx(3 / 4)
    assert judgement.verdict().score == 0.0 and judgement.verdict().status is Status.INCORRECT


SHOUT = CodeProblem(
    id="t/shout",
    statement="Print each word of the input in capitals, one a line.",
    style="stdio",
    time_limit_s=2.0,
    public=[("a b\n", "A\nB\n")],
    hidden=[("\n", ""), ("x\n", "X\n"), ("y z\n", "Y\nZ\n")],
)
FIND = CodeProblem(
    id="t/find",
    statement="Return the index of x in xs, or None.",
    style="function",
    entry="find",
    time_limit_s=2.0,
    public=[("find([1], 1)", 0)],
    hidden=[("find([], 1)", None), ("find([2, 3], 3)", 1), ("find([4], 4)", 0)],
)


def test_tests_an_empty_output_passes_count_only_beside_a_test_that_expects_output():
    for problem, nothing in ((SHOUT, "pass\n"), (FIND, "def find(xs, x):\n    pass\n")):
        judgement = judge(nothing, problem)
        assert [r.trivial for r in judgement.results] == [False, True, False, False]
        assert judgement.passed() == 1 and judgement.fraction() == 0.0
        assert judgement.verdict(partial=True).score == 0.0
        # Version 0 of the code envs counted them alone.
        assert judgement.fraction(count_trivial=True) == pytest.approx(1 / 3)
    first_word = "import sys\nfor w in sys.stdin.read().split()[:1]:\n    print(w.upper())\n"
    assert judge(first_word, SHOUT).fraction() == pytest.approx(2 / 3)
    every_word = "import sys\nprint('\\n'.join(sys.stdin.read().upper().split()))\n"
    assert judge(every_word, SHOUT).fraction() == 1.0


def test_stdin_programs_are_compared_by_the_problems_check():
    assert judge(GOOD_SUM, SUM).all_passed(hidden=None)
    spaced = "print(' ' + str(sum(map(int, input().split()))))\n"
    assert not judge(spaced, SUM).all_passed(hidden=None)
    tokens = dataclasses.replace(SUM, check=OutputCheck("tokens"))
    assert judge(spaced, tokens).all_passed(hidden=None)


def test_stdin_programs_may_exit_normally_read_descriptor_zero_and_write_stderr():
    program = (
        "import os, sys\n"
        "data = open(0).read().split()\n"
        "print('debugging', file=sys.stderr)\n"
        "print(sum(map(int, data)))\n"
        "sys.exit(0)\n"
    )
    assert judge(program, SUM).all_passed(hidden=None)
    assert judge(
        "import os\nprint(sum(map(int, os.read(0, 100).split())))\nexit()\n", SUM
    ).all_passed(hidden=None)
    failing_status = judge(GOOD_SUM + "import sys\nsys.exit(3)\n", SUM)
    assert set(outcomes(failing_status)) == {"error"}


def test_a_prelude_runs_before_the_candidates_code():
    problem = CodeProblem(
        id="t/deque",
        statement="Return a deque's length.",
        style="function",
        entry="size",
        public=[],
        hidden=[("size([1, 2, 3])", 3)],
        prelude="from collections import deque",
    )
    assert judge("def size(xs):\n    return len(deque(xs))\n", problem).all_passed()


def test_feedback_reports_failing_public_tests_and_never_hidden_ones():
    code = (
        "def add(a, b):\n    if b == 2: return 'three'\n"
        "    if a == 0: raise KeyError(a)\n    return a - b\n"
    )
    judgement = judge(code, ADD)
    feedback = judgement.feedback(ADD)
    assert "0 of 2 public tests passed" in feedback
    assert "add(1, 2)" in feedback and "expected: 3" in feedback and "got: 'three'" in feedback
    assert "raised KeyError" in feedback
    for test in ADD.hidden:
        assert test.input not in feedback
    assert judge(GOOD_ADD, ADD).feedback(ADD) == "All 2 public tests passed."


def test_stdio_feedback_shows_input_expected_and_actual_output():
    feedback = judge("print(42)\n", SUM).feedback(SUM)
    assert "input:\n1 2" in feedback and "expected: 3" in feedback and "got: 42" in feedback


def test_missing_or_oversized_code_is_not_run():
    assert judge(None, ADD).verdict().status is Status.NO_ANSWER
    assert judge("   \n", ADD).verdict().status is Status.NO_ANSWER
    too_long = judge("x = 1\n" * 30_000, ADD)
    assert too_long.status == "too_long" and too_long.verdict().status is Status.BAD_FORMAT


def test_only_the_inputs_enter_the_sandbox():
    request = build_request(GOOD_ADD, ADD, ADD.tests)
    shipped = json.loads(request.files["tests.json"])
    assert shipped == [{"call": t.input} for t in ADD.tests]
    everything = b"".join(request.files.values()).decode()
    assert str(10**20 + 1) not in everything and "0.3" not in everything


class _BrokenBackend:
    name = "broken"

    def run(self, request):
        return RunResult.failure("the engine is gone")

    async def arun(self, request):
        return RunResult.failure("the engine is gone")


class _RaisingBackend(_BrokenBackend):
    def run(self, request):
        raise OSError("no such device")

    async def arun(self, request):
        raise OSError("no such device")


@pytest.mark.parametrize(
    "backend", [_BrokenBackend(), _RaisingBackend()], ids=["error-result", "raises"]
)
def test_an_infrastructure_failure_is_an_error_never_a_zero(backend):
    for judgement in (
        judge(GOOD_ADD, ADD, backend=backend),
        asyncio.run(ajudge(GOOD_ADD, ADD, backend=backend)),
    ):
        assert judgement.status == "error"
        verdict = judgement.verdict()
        assert verdict.status is Status.ERROR and verdict.mask


def test_many_submissions_are_judged_concurrently_in_order():
    items = [(GOOD_ADD, ADD), ("def add(a, b):\n    return 0\n", ADD), (GOOD_SUM, SUM)]
    results = judge_many(items)
    assert [j.all_passed() for j in results] == [True, False, True]


def test_timeouts_alone_give_a_timeout_verdict():
    problem = CodeProblem(
        id="t/slow",
        statement="Never returns.",
        style="function",
        entry="f",
        time_limit_s=0.5,
        public=[],
        hidden=[("f()", 1)],
    )
    verdict = judge("def f():\n    while True:\n        pass\n", problem).verdict()
    assert verdict.status is Status.TIMEOUT and verdict.score == 0.0


def test_time_scale_stretches_the_limits():
    problem = CodeProblem(
        id="t/nap",
        statement="Sleep a little.",
        style="function",
        entry="nap",
        time_limit_s=0.2,
        public=[],
        hidden=[("nap()", 1)],
    )
    code = "import time\ndef nap():\n    time.sleep(0.6)\n    return 1\n"
    assert outcomes(judge(code, problem)) == ["timeout"]
    assert outcomes(judge(code, problem, time_scale=20.0)) == ["passed"]


def test_test_results_know_whether_they_passed():
    assert TestResult(0, True, "", "passed").passed and not TestResult(0, True, "", "wrong").passed
