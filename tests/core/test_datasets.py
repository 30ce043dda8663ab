"""Dataset export: rows of single-turn ids, JSON Lines and Hugging Face round trips, re-scoring."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import palaestra
import palaestra.errors
from palaestra import datasets as export
from palaestra.envs.tasks.base import Problem, TaskEnv
from palaestra.registration import load_entry_point
from palaestra.verdict import Status

TASK_ID = "Countdown-v0"
ENV_ID = "Arithmetic-v0"


def _single_turn_ids() -> list[str]:
    return [
        spec.id
        for spec in palaestra.list_envs()
        if "single-turn" in spec.tags and "needs-docker" not in spec.tags
    ]


def test_task_rows_have_the_documented_keys_and_rebuild_the_problem():
    rows = list(export.rows(TASK_ID, 3, seed=7, start=10, level=2))
    assert [r["index"] for r in rows] == [10, 11, 12]
    task = load_entry_point(palaestra.spec(TASK_ID).entry_point).task_class.from_level(2)
    for row in rows:
        assert tuple(row) == export.ROW_KEYS
        assert row["id"] == TASK_ID and row["seed"] == 7 and row["level"] == 2
        assert row["verifier"] == "task:countdown"
        assert json.loads(row["verifier_config"])["config"] == json.loads(
            json.dumps(task.config.__dict__)
        )
        problem = Problem.from_json(json.loads(row["problem"]))
        assert problem == task.problem(7, row["index"]).round_trip()
        assert row["prompt"] == [{"role": "user", "content": problem.prompt}]
        assert row["oracle"] == f"<answer>{row['reference']}</answer>"


def test_rows_are_deterministic_and_items_differ():
    first = list(export.rows(TASK_ID, 4, seed=3))
    again = list(export.rows(TASK_ID, 4, seed=3))
    assert first == again
    assert len({r["problem"] for r in first}) == 4
    assert list(export.rows(TASK_ID, 1, seed=3, start=1))[0] == first[1]


def test_task_rows_rescore_the_oracle_to_one_and_wrong_answers_to_zero():
    for row in export.rows(TASK_ID, 3, seed=1, level=4):
        assert export.score(row, row["oracle"]).score == 1.0
        wrong = export.score(row, "<answer>1 + 1</answer>")
        assert wrong.score == 0.0 and wrong.status is Status.INCORRECT
        assert export.score(row, None).status is Status.NO_ANSWER
        assert export.score(row, "<answer>" + "(" * 5000 + "</answer>").score == 0.0


def test_plain_single_turn_envs_export_through_reset_and_the_oracle():
    rows = list(export.rows(ENV_ID, 3, seed=5, level=2))
    assert len({r["prompt"][0]["content"] for r in rows}) == 3
    for row in rows:
        assert row["verifier"] == "env" and row["problem"] == "{}" and row["level"] == 2
        config = json.loads(row["verifier_config"])
        assert config["reset_seed"] == export.item_seed(5, row["index"])
        env = palaestra.make(ENV_ID, level=2)
        observation, _ = env.reset(seed=config["reset_seed"])
        assert row["prompt"] == [{"role": m["role"], "content": m["content"]} for m in observation]
        assert export.score(row, row["oracle"]).score == 1.0
        assert export.score(row, "<answer>-999999</answer>").score == 0.0
        assert export.score(row, None).score <= 0.0


def test_multi_turn_ids_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="not single-turn"):
        export.rows("GuessNumber-v0", 1)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="n must be"):
        export.rows(TASK_ID, -1)
    with pytest.raises(TypeError, match="does not accept"):
        export.rows(TASK_ID, 1, no_such_knob=2)
    with pytest.raises(palaestra.errors.UnknownEnvError):
        export.rows("NoSuchTask-v0", 1)
    with pytest.raises(ValueError, match="unknown verifier"):
        export.score({"id": TASK_ID, "verifier": "mystery", "verifier_config": "{}"}, "x")
    with pytest.raises(ValueError, match="not a dataset row"):
        export.score({"id": TASK_ID}, "x")


def test_per_id_kwargs_override_shared_ones():
    rows = list(export.rows({TASK_ID: {"level": 5}, "Game24-v0": {}}, 2, level=1))
    assert [(r["id"], r["level"]) for r in rows] == [
        (TASK_ID, 5),
        (TASK_ID, 5),
        ("Game24-v0", 1),
        ("Game24-v0", 1),
    ]


def test_jsonl_round_trip(tmp_path):
    rows = list(export.rows([TASK_ID, ENV_ID, "Caesar-v0"], 2, seed=2))
    path = tmp_path / "rows.jsonl"
    assert export.write_jsonl(path, rows) == 6
    back = export.read_jsonl(path)
    assert back == rows
    assert all(export.score(r, r["oracle"]).score == 1.0 for r in back)
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(ValueError, match="line 7"):
        export.read_jsonl(path)


def test_hugging_face_round_trip_mixes_families_in_one_schema():
    rows = list(export.rows([TASK_ID, ENV_ID, "PythonTrace-v0", "LinearEquations-v0"], 2, seed=4))
    dataset = export.to_hf_dataset(rows)
    assert len(dataset) == 8 and list(dataset.column_names) == list(export.ROW_KEYS)
    back = list(export.from_hf_dataset(dataset))
    assert back == rows
    assert all(export.score(r, r["oracle"]).score == 1.0 for r in back)


def _in_slot(env_id: str, answer: str) -> str:
    # Code envs read the last fenced Python block; every other single-turn env an <answer> tag.
    if palaestra.spec(env_id).entry_point.startswith("palaestra.envs.code."):
        return f"```python\n{answer}```"
    return f"<answer>{answer}</answer>"


@pytest.mark.parametrize("env_id", _single_turn_ids())
def test_every_registered_single_turn_id_exports_and_rescores_its_oracle(env_id):
    (row,) = export.rows(env_id, 1, seed=11)
    assert tuple(row) == export.ROW_KEYS
    row = json.loads(json.dumps(row))
    verdict = export.score(row, row["oracle"])
    assert verdict.score == 1.0, f"{env_id}: {verdict.reason}"
    factory = load_entry_point(palaestra.spec(env_id).entry_point)
    is_task = isinstance(factory, type) and issubclass(factory, TaskEnv)
    assert row["verifier"].startswith("task:") == is_task


@pytest.mark.parametrize("env_id", _single_turn_ids())
def test_the_reference_is_the_bare_answer_and_scores_one_in_the_envs_slot(env_id):
    (row,) = export.rows(env_id, 1, seed=11)
    assert "<answer>" not in row["reference"] and "</answer>" not in row["reference"]
    assert "```" not in row["reference"]
    assert row["reference"] in row["oracle"]
    verdict = export.score(row, _in_slot(env_id, row["reference"]))
    assert verdict.score == 1.0, f"{env_id}: {verdict.reason}"


def test_importing_the_module_leaves_hugging_face_datasets_unimported(subprocess_env):
    probe = "import sys, palaestra.datasets; print('datasets' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        check=True,
    )
    assert out.stdout.strip() == "False"
