"""The viewer in a real headless chromium: plots, filters, episode pages, escaping, exports.

Screenshots go to the test's tmp_path and are checked for being drawn pages; the checks on
what they show are DOM queries, not pixels.
"""

from __future__ import annotations

import pytest
from tests_support.view import check_screenshot, episode, open_page

from palaestra.view.export import export
from palaestra.view.runs import Filters, RunFolder, open_runs

HOSTILE = (
    '<script>window.__ran = 1</script><img src=x onerror="window.__ran = 2">'
    "<b id=injected>bold</b></pre><a href=javascript:alert(1)>link</a>"
)
HOSTILE_VERDICT = {"score": 0.0, "status": "<b>incorrect</b>", "reason": HOSTILE, "answer": HOSTILE}


def test_two_trained_runs_open_side_by_side_with_overlaid_plots(
    page, serve, trained_runs, tmp_path
):
    open_page(page, serve(*trained_runs))
    cards = page.locator(".run-card h2")
    assert cards.all_inner_texts() == ["Agrpo", "Brloo"]
    differ = page.locator("table.diff tr").all_inner_texts()
    assert any(row.split("\t")[:3] == ["estimator", '"grpo"', '"rloo"'] for row in differ)
    captions = page.locator(".plots > .plot figcaption").all_inner_texts()
    for title in [
        "Reward and its parts",
        "Success (train and held-out)",
        "KL",
        "Entropy",
        "Clip fraction",
        "Response length (sampled tokens per episode)",
        "Masked and dropped episodes",
    ]:
        assert title in captions
    reward = page.locator(".plot", has_text="Reward and its parts").first
    legend = reward.locator(".legend").inner_text()
    assert "A: reward" in legend and "B: reward" in legend
    # Three RL steps: each run's line has three points, run B's drawn dashed.
    for run in (0, 1):
        path = reward.locator(f"path.line.run-{run}[data-series$=': reward']")
        assert path.get_attribute("d").count("L") == 2
    assert reward.locator("path.line.run-1").first.evaluate(
        "p => getComputedStyle(p).strokeDasharray"
    ) not in ("none", "")
    success = page.locator(".plot", has_text="Success (train and held-out)").first
    assert "A: eval_success" in success.locator(".legend").inner_text()
    box = reward.locator("rect.overlay").bounding_box()
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    tip = reward.locator(".tip")
    assert tip.is_visible() and tip.inner_text().startswith("step 3")
    check_screenshot(page, tmp_path / "runs.png")


def test_the_episode_list_filters_and_pages(page, serve, synthetic_run, tmp_path):
    records = [
        episode(
            i,
            status="error" if i % 10 == 3 else "ok",
            mask=i % 10 == 3,
            error="sandbox died" if i % 10 == 3 else None,
            env_id="Wordle-v0" if i % 2 else "GuessNumber-v0",
            content="a rare word: zebra" if i in (7, 77) else "<guess>1</guess>",
        )
        for i in range(120)
    ]
    url = serve(synthetic_run(episodes=records))
    open_page(page, url + "#/episodes")
    assert page.locator("#count").inner_text() == ("Episodes 1–50 of 120 matching (120 in the run)")
    assert page.locator("#episode-table tbody tr").count() == 50
    page.locator("#next").click()
    page.wait_for_function("() => document.body.dataset.ready.includes('offset=50')")
    assert page.locator("#count").inner_text().startswith("Episodes 51–100 of 120")
    first = page.locator("#episode-table tbody tr td a").first.inner_text()
    assert first == "50"

    page.select_option("select[name=status]", "masked")
    page.select_option("select[name=env]", "Wordle-v0")
    page.click("#filters button")
    page.wait_for_function("() => document.body.dataset.ready.includes('status=masked')")
    rows = page.locator("#episode-table tbody tr")
    want = [i for i, r in enumerate(records) if r["mask"] and r["env_id"] == "Wordle-v0"]
    assert rows.locator("td a").all_inner_texts() == [str(i) for i in want]
    assert set(rows.locator("td:nth-child(4)").all_inner_texts()) == {"error (masked)"}

    page.select_option("select[name=status]", "")
    page.select_option("select[name=env]", "")
    page.fill("input[name=text]", "ZEBRA")
    page.click("#filters button")
    page.wait_for_function("() => document.body.dataset.ready.includes('text=ZEBRA')")
    assert rows.locator("td a").all_inner_texts() == ["7", "77"]
    check_screenshot(page, tmp_path / "list.png")

    rows.locator("td a").first.click()
    page.wait_for_function("() => document.body.dataset.ready === '#/episode/0/7'")
    assert "zebra" in page.locator("#conversation").inner_text()


def test_an_episode_page_shades_the_sampled_tokens_and_shows_reward_parts(
    page, serve, trained_runs, tmp_path
):
    run = RunFolder(trained_runs[0])
    shown = run.episode(2)
    open_page(page, serve(trained_runs[0]) + "#/episode/0/2")
    tokens = page.locator("#tokens .tok")
    assert tokens.count() == len(shown["tokens"]["ids"])
    sampled = page.locator("#tokens .tok.sampled")
    assert sampled.count() == sum(shown["tokens"]["mask"]) > 0
    assert page.locator("#tokens .tok.env").count() == shown["tokens"]["mask"].count(0) > 0
    assert page.locator("#tokens .tok.prompt").count() == shown["tokens"]["prompt_length"]
    assert sampled.first.evaluate("t => getComputedStyle(t).backgroundColor") != (
        page.locator("#tokens .tok.env").first.evaluate("t => getComputedStyle(t).backgroundColor")
    )
    first = shown["tokens"]["prompt_length"] + shown["tokens"]["mask"].index(1)
    logprob = shown["tokens"]["logprobs"][first - shown["tokens"]["prompt_length"]]
    assert sampled.first.get_attribute("title").startswith(f"token {first} · id ")
    assert f"log-prob {logprob:.4f}" in sampled.first.get_attribute("title")
    assert page.locator("#tokens").inner_text().startswith("<|im_start|>user")

    parts = page.locator("#reward-parts tr")
    names = sorted({name for turn in shown["reward_parts"] for name in turn})
    assert parts.first.locator("th").all_inner_texts() == ["turn", *names, "reward"]
    assert parts.count() == len(shown["turn_rewards"]) + 2
    turns = page.locator("#conversation .message.role-assistant header")
    assert turns.count() == len(shown["turn_rewards"])
    assert turns.first.inner_text().split("\n")[:2] == ["ASSISTANT", "turn 1"]
    check_screenshot(page, tmp_path / "episode.png")


def test_an_episode_page_shows_the_verdict_of_a_trained_run(page, serve, judged_run, tmp_path):
    shown = RunFolder(judged_run).episode(3)
    open_page(page, serve(judged_run) + "#/episode/0/3")
    verdict = page.locator("#verdict")
    assert verdict.locator(".reason").inner_text() == shown["verdict"]["reason"] != ""
    assert verdict.locator(".verdict-status").inner_text() == shown["verdict"]["status"]
    assert verdict.locator(".verdict-verifier").inner_text() == "integer"
    score = verdict.locator(".verdict-score").inner_text()
    assert float(score) == shown["verdict"]["score"] == shown["reward"]
    check_screenshot(page, tmp_path / "verdict.png")


def test_text_the_model_wrote_shows_as_text_and_never_runs(page, serve, synthetic_run):
    records = [
        episode(
            0, content=HOSTILE, env_id="<i>Env</i>", status="<b>ok</b>", verdict=HOSTILE_VERDICT
        ),
        episode(1, messages=[{"role": "<script>x</script>", "content": HOSTILE}]),
    ]
    url = serve(synthetic_run(episodes=records))
    open_page(page, url + "#/episodes")
    assert page.locator("#episode-table tbody tr").first.inner_text().split("\t")[2] == (
        "<i>Env</i>"
    )
    for index in (0, 1):
        open_page(page, url + f"#/episode/0/{index}")
        assert HOSTILE in page.locator("#conversation").inner_text()
        assert page.locator("#conversation b, #conversation img, #conversation script").count() == 0
        assert page.locator("#injected").count() == 0
        assert page.evaluate("window.__ran") is None
    open_page(page, url + "#/episode/0/0")
    assert page.locator("#verdict .reason").inner_text() == HOSTILE
    assert page.locator("#verdict .verdict-answer").inner_text() == HOSTILE
    assert page.locator("#verdict .verdict-status").inner_text() == "<b>incorrect</b>"
    assert page.locator("#verdict b, #verdict img, #verdict script").count() == 0
    assert page.evaluate("window.__ran") is None
    open_page(page, url + "#/episode/0/1")
    assert page.locator("#verdict p.muted").inner_text().startswith("No verdict:")


def test_a_broken_run_folder_opens_with_notes(page, serve, synthetic_run, tmp_path):
    big = episode(1, content="y" * (1 << 20))
    folder = synthetic_run(episodes=[episode(0), big], metrics=None)
    with open(folder / "episodes.jsonl", "a") as handle:
        handle.write('{"env_id": "GuessNumber-v0", "prompt_ids": [1, 2')  # cut off
    url = serve(folder)
    open_page(page, url)
    notes = page.locator(".notes li").all_inner_texts()
    assert any(n.startswith("metrics.jsonl is missing") for n in notes)
    assert any("ends in an incomplete line" in n for n in notes)
    assert page.locator("#runs-page").inner_text().count("No metrics to plot yet.") == 1
    open_page(page, url + "#/episode/0/1")
    notes = page.locator(".notes li").all_inner_texts()
    assert any(n.startswith("This episode is 1.0 MB") for n in notes)
    assert "(cut: 1,048,576 characters in all)" in page.locator("#conversation").inner_text()
    check_screenshot(page, tmp_path / "broken.png")


@pytest.mark.parametrize("which", ["trained", "hostile"])
def test_an_exported_copy_opens_from_disk(page, trained_runs, synthetic_run, tmp_path, which):
    if which == "trained":
        folders = trained_runs
    else:
        # An unknown step and a NaN return, which no filter on them lets through.
        records = [
            episode(0, group_id="custom"),
            episode(1, content=HOSTILE, turn_rewards=[float("nan"), 0.0], verdict=HOSTILE_VERDICT),
            episode(2),
        ]
        folders = [synthetic_run(episodes=records)]
    index = export(open_runs(folders), tmp_path / "copy")
    url = index.as_uri()
    open_page(page, url)
    assert page.locator(".run-card").count() == len(folders)
    assert page.locator(".plot path.line").count() > 5
    # The copy filters in the page: it must keep what the server keeps.
    listed = RunFolder(folders[0]).episodes
    for query in [
        "success=true",
        "success=false",
        "step_min=0",
        "reward_max=5",
        "step_max=2&status=ok",
        "status=masked",
        "reward_min=0.2&text=GUESS",
    ]:
        open_page(page, url + f"#/episodes?{query}")
        filters = Filters.from_query(dict(pair.split("=") for pair in query.split("&")))
        expected = [r["index"] for r in listed.page(filters, limit=50).rows]
        shown = page.locator("#episode-table tbody tr td a").all_inner_texts()
        assert shown == [str(i) for i in expected], query
    open_page(page, url + "#/episode/0/1")
    assert page.locator("#tokens .tok").count() > 0
    assert page.locator("#reward-parts tr").count() >= 3
    if which == "hostile":
        assert HOSTILE in page.locator("#conversation").inner_text()
        assert page.locator("#verdict .reason").inner_text() == HOSTILE
        assert page.evaluate("window.__ran") is None


def test_tool_calls_and_their_outputs_show_in_the_conversation(page, serve, synthetic_run):
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "python", "arguments": '{"code": "print(6 * 7)"}'},
    }
    messages = [
        {"role": "system", "content": "You can run Python."},
        {"role": "user", "content": "What is 6 * 7?"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "name": "python", "content": "42\n"},
        {"role": "assistant", "content": "<answer>42</answer>"},
    ]
    url = serve(synthetic_run(episodes=[episode(0, messages=messages)]))
    open_page(page, url + "#/episode/0/0")
    assert page.locator(".message").count() == 5
    shown_call = page.locator(".message.role-assistant .tool-call")
    assert shown_call.locator("b").inner_text() == "tool call python"
    assert shown_call.locator("pre").inner_text() == '{"code": "print(6 * 7)"}'
    tool = page.locator(".message.role-tool")
    assert "python · call_1" in tool.locator("header").inner_text()
    assert tool.locator("pre.content").inner_text() == "42\n"
    headers = page.locator(".message.role-assistant header").all_inner_texts()
    assert [h.split("\n")[1] for h in headers] == ["turn 1", "turn 2"]
