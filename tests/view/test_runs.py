"""Reading run folders: the episode index, its filters and paging, and the notes for bad files."""

from __future__ import annotations

import json

import pytest
from tests_support.view import episode, write_run

from palaestra.view.runs import SHOWN_CHARS, SHOWN_TOKENS, Filters, RunFolder, open_runs


def varied_episodes(count: int) -> list[dict]:
    """Episodes that differ in env, step, status, mask, success, return and text."""
    out = []
    for i in range(count):
        status = ["ok", "ok", "ok", "error", "timeout"][i % 5]
        out.append(
            episode(
                i,
                env_id=["GuessNumber-v0", "Wordle-v0", "Sokoban-v0"][i % 3],
                step=1 + i // 10,
                status=status,
                mask=status != "ok",
                error=None if status == "ok" else "sandbox died",
                success=[True, False, None][i % 7 % 3],
                turn_rewards=[-0.1, (i % 11) / 10],
                content=f"<guess>{i}</guess>" + (" Needle here" if i % 13 == 0 else ""),
            )
        )
    return out


def expected(records: list[dict], f: Filters) -> list[int]:
    """The filter written plainly over the records, to compare the index with."""
    kept = []
    for i, r in enumerate(records):
        step = 1 + i // 10
        total = sum(r["turn_rewards"])
        text = "\n".join(m["content"] for m in r["messages"]).casefold()
        status = r["mask"] if f.status == "masked" else r["status"] == f.status
        if (
            (f.env is None or r["env_id"] == f.env)
            and (f.step_min is None or step >= f.step_min)
            and (f.step_max is None or step <= f.step_max)
            and (f.status is None or status)
            and (f.success is None or r["success"] is f.success)
            and (f.reward_min is None or total >= f.reward_min)
            and (f.reward_max is None or total <= f.reward_max)
            and f.text.casefold() in text
        ):
            kept.append(i)
    return kept


FILTERS = [
    Filters(),
    Filters(env="Wordle-v0"),
    Filters(step_min=3, step_max=5),
    Filters(status="error"),
    Filters(status="masked", env="Sokoban-v0"),
    Filters(success=False),
    Filters(success=True, reward_min=0.3, reward_max=0.71),
    Filters(env="no-such-env"),
    Filters(text="NEEDLE"),
    Filters(text="needle", status="ok"),
    Filters(text="<guess>12</guess>"),
]


@pytest.mark.parametrize("filters", FILTERS, ids=repr)
def test_filters_and_paging_match_a_plain_filter(tmp_path, filters):
    records = varied_episodes(120)
    run = RunFolder(write_run(tmp_path / "run", episodes=records))
    want = expected(records, filters)
    seen = []
    offset = 0
    while True:
        page = run.episodes.page(filters, offset=offset, limit=7)
        seen += [row["index"] for row in page.rows]
        if len(page.rows) < 7:
            break
        offset += 7
    assert seen == want
    first = run.episodes.page(filters, limit=1000)
    assert first.exact and first.total == len(want)


def test_a_text_search_stops_reading_once_the_page_is_full(tmp_path):
    records = varied_episodes(120)
    run = RunFolder(write_run(tmp_path / "run", episodes=records))
    page = run.episodes.page(Filters(text="guess"), offset=0, limit=5)
    assert [row["index"] for row in page.rows] == [0, 1, 2, 3, 4]
    assert not page.exact and page.total == 6  # it read one more than the page to know


def test_rows_carry_the_list_fields(tmp_path):
    record = episode(0, status="error", mask=True, error="judge unreachable", success=None)
    run = RunFolder(write_run(tmp_path / "run", episodes=[record]))
    (row,) = run.episodes.page(Filters()).rows
    assert row == {
        "index": 0,
        "line": 1,
        "env_id": "GuessNumber-v0",
        "step": 1,
        "status": "error",
        "mask": True,
        "success": None,
        "reward": pytest.approx(0.9),
        "turns": 2,
        "sampled_tokens": 5,
        "bytes": len(json.dumps(record, ensure_ascii=False).encode()),
    }


def test_the_step_comes_from_the_record_or_the_trainers_group_id(tmp_path):
    records = [
        episode(0, group_id="4.1.0:77"),  # the trainer's step index 4 is metrics.jsonl's step 5
        {**episode(1, group_id="0.0.1:1"), "step": 9},  # the record's own field comes first
        episode(2, group_id="custom"),
    ]
    run = RunFolder(write_run(tmp_path / "run", episodes=records))
    assert [row["step"] for row in run.episodes.page(Filters()).rows] == [5, 9, None]
    assert [r["index"] for r in run.episodes.page(Filters(step_max=100)).rows] == [0, 1]
    assert [r["index"] for r in run.episodes.page(Filters(step_min=0)).rows] == [0, 1]


@pytest.mark.parametrize(
    "query, message",
    [
        ({"stp": "3"}, "unknown filter 'stp'"),
        ({"step_min": "three"}, "step_min='three' is not a valid int"),
        ({"success": "maybe"}, "success='maybe' is not a valid boolean"),
        ({"reward_max": "nan"}, "reward_max='nan' is not a valid number"),
    ],
)
def test_bad_filters_are_rejected_by_name(query, message):
    with pytest.raises(ValueError, match=message):
        Filters.from_query(query)


def test_query_values_are_read_with_their_types():
    filters = Filters.from_query(
        {"env": "Wordle-v0", "step_min": "2", "success": "false", "reward_max": "0.5", "text": ""}
    )
    assert filters == Filters(env="Wordle-v0", step_min=2, success=False, reward_max=0.5)


def test_paging_limits_are_checked(tmp_path):
    run = RunFolder(write_run(tmp_path / "run", episodes=[episode(0)]))
    with pytest.raises(ValueError, match="limit in 1..1000"):
        run.episodes.page(Filters(), limit=0)
    with pytest.raises(ValueError, match="offset must be >= 0"):
        run.episodes.page(Filters(), offset=-1)


def test_an_incomplete_last_line_is_noted_then_indexed_once_written(tmp_path):
    records = [episode(i) for i in range(3)]
    folder = write_run(tmp_path / "run", episodes=records[:2], metrics=[], config={})
    line = json.dumps(records[2]) + "\n"
    with open(folder / "episodes.jsonl", "a") as handle:
        handle.write(line[:50])  # a run killed while writing
    run = RunFolder(folder)
    summary = run.summary()
    assert summary["episodes"] == 2
    assert any("incomplete line (50 bytes" in note for note in summary["notes"])
    with open(folder / "episodes.jsonl", "a") as handle:
        handle.write(line[50:])  # the run goes on
    summary = run.summary()
    assert summary["episodes"] == 3 and summary["notes"] == []
    assert run.episode(2)["seed"] == 2


def test_a_broken_line_is_skipped_with_its_number(tmp_path):
    folder = write_run(tmp_path / "run", episodes=[episode(0)], metrics=[], config={})
    with open(folder / "episodes.jsonl", "a") as handle:
        handle.write("{not json\n[1, 2]\n")
        handle.write(json.dumps(episode(1)) + "\n")
    run = RunFolder(folder)
    notes = run.summary()["notes"]
    assert [row["line"] for row in run.episodes.page(Filters()).rows] == [1, 4]
    assert any(n.startswith("episodes.jsonl line 2 is not an episode") for n in notes)
    assert any(n.startswith("episodes.jsonl line 3 is not an episode") for n in notes)


def test_a_replaced_file_is_indexed_again(tmp_path):
    folder = write_run(tmp_path / "run", episodes=[episode(i) for i in range(5)])
    run = RunFolder(folder)
    assert len(run.episodes.page(Filters()).rows) == 5
    write_run(folder, episodes=[episode(7, env_id="Wordle-v0")])  # --overwrite
    (row,) = run.episodes.page(Filters()).rows
    assert row["env_id"] == "Wordle-v0" and run.episode(0)["seed"] == 7


def test_missing_files_and_a_cut_metrics_line_are_notes(tmp_path):
    folder = write_run(tmp_path / "run", episodes=[episode(0)])
    run = RunFolder(folder)
    summary = run.summary()
    assert summary["metrics"] == [] and summary["config"] is None
    assert any(n.startswith("metrics.jsonl is missing") for n in summary["notes"])
    assert any(n.startswith("config.json is missing") for n in summary["notes"])
    (folder / "metrics.jsonl").write_text('{"phase": "rl", "step": 1, "reward": 0.5}\n{"pha')
    (folder / "episodes.jsonl").unlink()
    summary = run.summary()
    assert summary["metrics"] == [{"phase": "rl", "step": 1, "reward": 0.5}]
    cut = "metrics.jsonl line 2 is not valid JSON (its last line is incomplete"
    assert any(n.startswith(cut) for n in summary["notes"])
    assert any(n.startswith("episodes.jsonl is missing") for n in summary["notes"])


def test_metrics_keep_plain_values_only(tmp_path):
    records = [{"phase": "rl", "step": 1, "reward": 0.5, "nested": {"a": 1}, "bad": float("nan")}]
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert RunFolder(folder).metrics() == ([{"phase": "rl", "step": 1, "reward": 0.5}], [])


def test_folders_that_are_not_runs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="is not a folder"):
        RunFolder(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds none of config.json, metrics.jsonl"):
        RunFolder(tmp_path / "empty")
    with pytest.raises(ValueError, match="one run or two side by side, got 3"):
        open_runs([tmp_path] * 3)


def test_a_one_megabyte_episode_opens_cut_with_a_note(tmp_path):
    big = "x" * (1 << 20)
    record = episode(0, content=big, completion_ids=list(range(50_000)), loss_mask=[1] * 50_000)
    record["logprobs"] = [-1.0] * 50_000
    run = RunFolder(write_run(tmp_path / "run", episodes=[record]))
    shown = run.episode(0)
    assert any(n.startswith("This episode is 1.") and "MB" in n for n in shown["notes"])
    message = shown["messages"][3]
    assert message["cut"] == len(big) and len(message["content"]) == SHOWN_CHARS
    assert len(shown["tokens"]["ids"]) == SHOWN_TOKENS and shown["tokens"]["total"] == 50_003
    assert len(shown["tokens"]["mask"]) == SHOWN_TOKENS - 3
    assert shown["messages"][0]["content"].startswith("I am thinking")  # short ones whole


def test_a_masked_episode_says_why(tmp_path):
    record = episode(0, status="error", mask=True, error="sandbox died: OOM")
    shown = RunFolder(write_run(tmp_path / "run", episodes=[record])).episode(0)
    assert shown["notes"][0].startswith("Masked: trainers drop this episode (status error)")
    assert "sandbox died: OOM" in shown["notes"][0]


def test_the_verdict_and_its_reason_are_shown_where_the_record_has_one(tmp_path):
    verdict = {
        "score": 0.0,
        "status": "incorrect",
        "answer": [3, 4],
        "reference": 5,
        "reason": "3 is not 5",
        "verifier": "integer",
        "details": {"judge": "a long transcript"},
    }
    old = episode(1)
    del old["verdict"], old["step"]  # written before records kept them
    records = [episode(0, verdict=verdict), old, episode(2, verdict={"reason": "x" * 300_000})]
    run = RunFolder(write_run(tmp_path / "run", episodes=records))
    assert run.episode(0)["verdict"] == {
        "status": "incorrect",
        "score": 0.0,
        "reason": "3 is not 5",
        "verifier": "integer",
        "answer": "[3, 4]",
    }
    assert run.episode(1)["verdict"] is None
    large = run.episode(2)["verdict"]
    assert large["status"] is None and large["score"] is None
    assert large["reason"] == "x" * SHOWN_CHARS + " [... 280,000 more characters]"


def test_without_a_tokenizer_tokens_are_ids_with_a_note(tmp_path):
    shown = RunFolder(write_run(tmp_path / "run", episodes=[episode(0)])).episode(0)
    assert shown["tokens"]["text"] is None
    assert shown["tokens"]["ids"] == [1, 2, 3, 10, 11, 12, 4, 5, 13, 14]
    assert any(n.startswith("Token text needs the run's tokenizer") for n in shown["notes"])


def test_a_trained_run_reads_whole_with_token_text(trained_runs):
    run = RunFolder(trained_runs[0])
    summary = run.summary()
    assert summary["notes"] == []
    assert [m["step"] for m in summary["metrics"] if m["phase"] == "rl"] == [1, 2, 3]
    rows = run.episodes.page(Filters()).rows
    assert len(rows) == 12 and {r["step"] for r in rows} == {1, 2, 3}
    records = [json.loads(line) for line in (trained_runs[0] / "episodes.jsonl").open()]
    assert [r["step"] for r in records] == [row["step"] for row in rows]
    assert [r["index"] for r in run.episodes.page(Filters(step_min=2, step_max=2)).rows] == [
        4,
        5,
        6,
        7,
    ]
    shown = run.episode(5)
    tokens = shown["tokens"]
    assert shown["notes"] == []
    assert tokens["text"][0] == "<|im_start|>"
    assert len(tokens["text"]) == len(tokens["ids"]) == tokens["total"]
    assert len(tokens["mask"]) == len(tokens["ids"]) - tokens["prompt_length"]
    sampled = "".join(
        t
        for t, m in zip(tokens["text"][tokens["prompt_length"] :], tokens["mask"], strict=True)
        if m
    )
    turns = [m["content"] for m in shown["messages"] if m["role"] == "assistant"]
    assert sampled.replace("\ufffd", "") == "".join(turns).replace("\ufffd", "")


def test_a_trained_runs_episodes_show_the_verifiers_verdict(judged_run):
    run = RunFolder(judged_run)
    records = [json.loads(line) for line in (judged_run / "episodes.jsonl").open()]
    assert len(records) == 8 and [r["step"] for r in records] == [1] * 4 + [2] * 4
    for position, record in enumerate(records):
        shown = run.episode(position)["verdict"]
        assert shown["reason"] == record["verdict"]["reason"] != ""
        assert shown["status"] == record["verdict"]["status"]
        assert shown["verifier"] == "integer"
        assert shown["score"] == sum(record["turn_rewards"])
    assert run.episodes.page(Filters(step_min=2)).total == 4


@pytest.mark.parametrize("block, block_bytes", [(4, 1 << 30), (4, 1), (1024, 1 << 30)])
def test_a_text_search_finds_the_same_lines_however_it_reads_them(
    tmp_path, monkeypatch, block, block_bytes
):
    import palaestra.view.runs as runs

    monkeypatch.setattr(runs, "_BLOCK", block)
    monkeypatch.setattr(runs, "_BLOCK_BYTES", block_bytes)
    records = varied_episodes(120)
    run = RunFolder(write_run(tmp_path / "run", episodes=records))
    for filters in [Filters(text="needle"), Filters(text="needle", env="Wordle-v0")]:
        assert [r["index"] for r in run.episodes.page(filters, limit=1000).rows] == expected(
            records, filters
        )


def test_token_arrays_written_inside_a_message_do_not_confuse_the_index(tmp_path):
    trick = 'see "loss_mask": [1, 1, 1, 1] and "prompt_ids": [9]'
    records = [episode(0, content=trick), {**episode(1), "loss_mask": [1, 2, 0]}]
    run = RunFolder(write_run(tmp_path / "run", episodes=records))
    rows = run.episodes.page(Filters()).rows
    assert [r["sampled_tokens"] for r in rows] == [5, 3]
    assert [r["index"] for r in run.episodes.page(Filters(text=trick)).rows] == [0]
    assert run.episode(0)["messages"][3]["content"] == trick
