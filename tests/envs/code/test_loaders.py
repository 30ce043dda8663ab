"""Loaders of public code datasets, on small fixture files in each format."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path

import pytest

import palaestra
from palaestra.envs.code.judge import judge_many
from palaestra.envs.code.loaders import (
    convert_row,
    decode_lcb_tests,
    detect_format,
    from_rows,
    load_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The APPS fixture holds one row without tests on purpose (see test_rows_without_tests_...).
pytestmark = pytest.mark.filterwarnings("ignore:skipped 1 rows without usable tests")


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / f"{name}.jsonl").read_text().splitlines()]


def test_each_fixture_row_is_recognised():
    for name in ("apps", "taco", "code_contests", "livecodebench"):
        assert {detect_format(row) for row in rows(name)} == {name}
    with pytest.raises(ValueError, match="cannot tell the format"):
        detect_format({"prompt": "x"})


def test_apps_rows_become_stdio_and_function_problems():
    problems = load_jsonl(FIXTURES / "apps.jsonl", skip_invalid=True)
    assert [p.id for p in problems] == ["apps/9001", "apps/9002", "apps/9003"]
    stdio, function, listed = problems
    assert (
        stdio.style == "stdio"
        and stdio.level == 1
        and len(stdio.public) == 2
        and len(stdio.hidden) == 2
    )
    assert stdio.reference.startswith("a, b = map(int")
    assert function.style == "function" and function.entry == "count_bits"
    assert [t.input for t in function.tests] == [
        "count_bits(0)",
        "count_bits(5)",
        "count_bits(255)",
        "count_bits(1024)",
    ]
    assert [t.output for t in function.tests] == [0, 2, 8, 1]
    assert listed.tests[0].input == "3\n1 9 4\n" and listed.tests[0].output == "9\n"
    assert listed.level == 3


def test_rows_without_tests_raise_unless_skipped():
    with pytest.raises(ValueError, match="row 3: input_output has no tests.*skip_invalid=True"):
        load_jsonl(FIXTURES / "apps.jsonl")
    with pytest.warns(UserWarning, match="skipped 1 rows"):
        assert len(load_jsonl(FIXTURES / "apps.jsonl", skip_invalid=True)) == 3


def test_taco_rows_keep_time_limits_and_leetcode_starters():
    pair, depth = load_jsonl(FIXTURES / "taco.jsonl")
    assert pair.time_limit_s == 2.0 and pair.level == 1
    assert (
        depth.style == "function"
        and depth.tests[0].input == "Solution().maxDepth('(1+(2*3)+((8)/4))+1')"
    )
    assert "from typing import *" in depth.prelude and depth.signature().startswith(
        "class Solution"
    )


def test_code_contests_rows_split_tests_and_pick_python3_solutions():
    (problem,) = load_jsonl(FIXTURES / "code_contests.jsonl", format="code_contests")
    assert len(problem.public) == 1 and len(problem.hidden) == 5
    assert problem.reference == "a, b = map(int, input().split())\nprint(a + b)\n"
    assert len(problem.wrong) == 2 and all("int main" not in w for w in problem.wrong)
    assert problem.time_limit_s == 1.5 and problem.check.mode == "tokens" and problem.level == 1
    (capped,) = load_jsonl(FIXTURES / "code_contests.jsonl", max_hidden=2)
    assert len(capped.hidden) == 2


def test_livecodebench_rows_decode_compressed_private_tests():
    stdin, leetcode, lists = load_jsonl(FIXTURES / "livecodebench.jsonl")
    assert stdin.style == "stdio" and [t.output for t in stdin.hidden] == ["0\n", "999\n"]
    assert leetcode.style == "function" and leetcode.entry == "addDigits"
    assert [t.input for t in leetcode.hidden] == [
        "Solution().addDigits(0)",
        "Solution().addDigits(9999)",
        "Solution().addDigits(10)",
    ]
    assert [t.output for t in leetcode.hidden] == [0, 9, 1] and leetcode.level == 2
    assert lists.tests[0].input == "Solution().scale([1, 2], 3)" and lists.tests[0].output == [3, 6]


def test_compressed_tests_with_code_in_them_are_refused():
    evil = base64.b64encode(zlib.compress(pickle.dumps(print))).decode()
    with pytest.raises(ValueError, match="refusing to load builtins.print"):
        decode_lcb_tests(evil)
    with pytest.raises(ValueError, match="neither JSON nor compressed"):
        decode_lcb_tests("not base64 at all!")
    row = dict(rows("livecodebench")[1], private_test_cases=evil)
    with pytest.raises(ValueError):
        convert_row(row)


def test_references_of_the_fixtures_pass_their_tests_in_the_sandbox():
    problems = [
        p
        for name in ("apps", "taco", "code_contests")
        for p in load_jsonl(FIXTURES / f"{name}.jsonl", skip_invalid=True)
    ]
    judgements = judge_many([(p.reference, p) for p in problems])
    assert [j.all_passed(hidden=None) for j in judgements] == [True] * len(problems)
    wrong = [(w, p) for p in problems for w in p.wrong]
    assert not any(j.all_passed(hidden=True) for j in judge_many(wrong))
    solution = (
        "class Solution:\n    def addDigits(self, num: int) -> int:\n"
        "        return 0 if num == 0 else 1 + (num - 1) % 9\n"
    )
    leetcode = load_jsonl(FIXTURES / "livecodebench.jsonl")[1]
    (judgement,) = judge_many([(solution, leetcode)])
    assert judgement.all_passed(hidden=None)


def test_hugging_face_rows_load_like_json_lines():
    datasets = pytest.importorskip("datasets", reason="the datasets extra is not installed")
    for name in ("apps", "code_contests", "livecodebench"):
        table = datasets.Dataset.from_list(rows(name))
        loaded = from_rows(table, skip_invalid=True)
        assert [p.id for p in loaded] == [
            p.id for p in load_jsonl(FIXTURES / f"{name}.jsonl", skip_invalid=True)
        ]


def test_palaestra_rows_round_trip(tmp_path):
    problems = load_jsonl(FIXTURES / "code_contests.jsonl")
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(json.dumps(p.to_json()) for p in problems) + "\n")
    assert load_jsonl(path) == problems


def test_bad_files_and_arguments_fail_clearly(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": 1}\n{not json\n')
    with pytest.raises(ValueError, match="broken.jsonl:2 is not valid JSON"):
        load_jsonl(broken)
    with pytest.raises(ValueError, match="unknown format"):
        from_rows(rows("apps"), format="leetcode")
    with pytest.raises(ValueError, match="max_hidden"):
        from_rows(rows("apps"), max_hidden=0)


def test_envs_accept_a_dataset_file():
    env = palaestra.make("CodeSynthesis-v1", problems=str(FIXTURES / "code_contests.jsonl"))
    observation, info = env.reset(seed=0)
    assert info["problem_id"] == "code_contests/9999_A. Pair Sum"
    assert "Example 1 input:" in observation[0]["content"]
    _, reward, terminated, _, _ = env.step(env.oracle_action())
    assert reward == 1.0 and terminated
    with pytest.raises(ValueError, match="do not apply with problems="):
        palaestra.make("CodeSynthesis-v1", problems=str(FIXTURES / "apps.jsonl"), level=1)
