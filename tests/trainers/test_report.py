"""``palaestra report RUN``: one self-contained page, every text from the run escaped."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from palaestra.trainers.config import TrainConfig
from palaestra.trainers.report import write_report

HOSTILE = "<script>alert('owned')</script><img src=x onerror=alert(1)>"


class Page(HTMLParser):
    """The tags (with attributes), the text, and the text of each episode block."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.episodes: list[str] = []
        self._depth = 0  # nesting inside an episode block
        self.feed(source)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if self._depth:
            self._depth += 1
        elif tag == "div" and attributes.get("class") == "episode":
            self._depth = 1
            self.episodes.append("")

    def handle_endtag(self, tag):
        if self._depth:
            self._depth -= 1

    def handle_data(self, data):
        self.text.append(data)
        if self._depth:
            self.episodes[-1] += data


def episode(index: int, rewards: list[float], answer: str = "<guess>4</guess>") -> dict:
    return {
        "env_id": "GuessNumber-v0",
        "seed": 100 + index,
        "group_id": f"0.0.{index}:{100 + index}",
        "turn_spans": [[0, 3]] * len(rewards),
        "turn_rewards": rewards,
        "reward_parts": [{"outcome": r} for r in rewards],
        "messages": [
            {"role": "user", "content": f"episode {index}: guess a number"},
            {"role": "assistant", "content": answer},
        ],
        "status": "ok",
        "success": sum(rewards) > 0.5,
        "step": 1 + index // 4,
        "verdict": {"score": sum(rewards), "status": "incorrect", "reason": f"reason {index}"},
    }


def make_run(folder: Path, *, episodes: list[dict] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = TrainConfig(env_kwargs={"max_number": 8, "label": HOSTILE}, output_dir=str(folder))
    (folder / "config.json").write_text(json.dumps(config.to_dict()))
    records = [
        {"phase": "eval", "step": 0, "eval_success": 0.25, "eval_greedy_success": 0.0},
        {"phase": "rl", "step": 1, "reward": 0.1, "success": 0.2, "episodes": 4, "masked": 1},
        {"phase": "rl", "step": 2, "reward": 0.6, "success": 0.5, "episodes": 4, "masked": 0},
        {"phase": "eval", "step": 2, "eval_success": 0.75, "eval_greedy_success": 0.5},
    ]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if episodes is None:
        # Returns 0.0, 0.1, ..., 1.1; the best one's answer is hostile markup.
        episodes = [episode(i, [i / 10]) for i in range(12)]
        episodes[11] = episode(11, [0.5, 0.6], answer=HOSTILE)
        episodes[11]["verdict"]["reason"] = HOSTILE
        del episodes[0]["verdict"], episodes[0]["step"]  # a record from before they were kept
    (folder / "episodes.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in episodes)
    )
    return folder


def test_the_report_shows_numbers_curves_and_the_best_and_worst_episodes(tmp_path):
    path = write_report(make_run(tmp_path / "run"))
    assert path == tmp_path / "run" / "report.html"
    page = Page(path.read_text())
    text = "".join(page.text)
    assert "GuessNumber-v0" in text and "grpo, gigpo advantages" in text
    assert "held-out success (sampled): step 0 -> 2" in text and "0.25 -> 0.75" in text
    assert "training reward: first -> last step" in text and "0.1 -> 0.6" in text
    images = [attrs["src"] for tag, attrs in page.tags if tag == "img"]
    assert len(images) == 1 and images[0].startswith("data:image/png;base64,")
    # Five best (returns 1.1, 1.0, 0.9, 0.8, 0.7), then five worst (0.0, 0.1, ..., 0.4).
    seeds = [int(block.split("seed ")[1].split(",")[0]) for block in page.episodes]
    assert seeds == [111, 110, 109, 108, 107, 100, 101, 102, 103, 104]
    assert "outcome 0.6" in page.episodes[0] and "episode 11: guess a number" in page.episodes[0]
    assert "step 3" in page.episodes[0] and "step" not in page.episodes[5].split("Verdict")[0]
    assert "Verdict: incorrect (score 0.1): reason 1" in page.episodes[6]
    assert "Verdict" not in page.episodes[5]  # episode 0 has none


def test_model_and_env_text_is_shown_as_text_never_run(tmp_path):
    source = write_report(make_run(tmp_path / "run")).read_text()
    page = Page(source)
    # Self-contained and inert: no scripts, no handlers, nothing loaded from elsewhere.
    assert [tag for tag, _ in page.tags if tag in ("script", "link", "iframe", "object")] == []
    assert all(not name.startswith("on") for _, attrs in page.tags for name in attrs)
    assert [tag for tag, _ in page.tags].count("img") == 1
    assert "http://" not in source and "https://" not in source
    # The completion and the config value read as the characters that were written.
    assert HOSTILE in page.episodes[0]
    assert f"Verdict: incorrect (score 1.1): {HOSTILE}" in page.episodes[0]
    assert "".join(page.text).count(HOSTILE) >= 3  # the answer, the verdict, the env_kwargs
    assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in source


def test_a_partial_run_gives_a_page_with_notes(tmp_path):
    run = make_run(tmp_path / "run")
    with open(run / "metrics.jsonl", "a") as handle:
        handle.write('{"phase": "rl", "step": 3, "rew')  # cut short mid-write
    (run / "episodes.jsonl").unlink()
    text = "".join(Page(write_report(run).read_text()).text)
    assert "metrics.jsonl: 1 line(s) could not be read" in text
    assert "episodes.jsonl is missing" in text
    assert "0.1 -> 0.6" in text  # the lines that were whole are read

    (run / "metrics.jsonl").unlink()
    (run / "episodes.jsonl").write_text(json.dumps(episode(0, [1.0])) + "\n" + "x" * 10 + "\n")
    text = "".join(Page(write_report(run).read_text()).text)
    assert "metrics.jsonl is missing" in text and "1 line(s) are not episodes" in text
    assert "seed 100" in text


def test_a_long_message_is_cut(tmp_path):
    long = episode(0, [1.0], answer="y" * 1_000_000)
    page = Page(write_report(make_run(tmp_path / "run", episodes=[long])).read_text())
    assert "y" * 2_000 in page.episodes[0] and "y" * 2_001 not in page.episodes[0]
    assert "[... 998,000 more characters]" in page.episodes[0]


def test_palaestra_report_writes_the_page_or_says_why_not(tmp_path, subprocess_env):
    run = make_run(tmp_path / "run")
    command = [sys.executable, "-m", "palaestra.cli", "report"]
    env = subprocess_env(COLUMNS="200")
    done = subprocess.run(
        [*command, str(run), "--output", str(tmp_path / "page.html")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"report: {tmp_path / 'page.html'}"
    assert "<title>GuessNumber-v0" in (tmp_path / "page.html").read_text()

    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "missing"):
        done = subprocess.run(
            [*command, str(folder)], capture_output=True, text=True, timeout=120, env=env
        )
        assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
        assert done.stdout.startswith("error: ") and str(folder) in done.stdout


def test_overwrite_deletes_the_old_report(tmp_path):
    from palaestra.trainers.run import start_run

    (tmp_path / "report.html").write_text("an older run's page")
    start_run(TrainConfig(output_dir=str(tmp_path), overwrite=True))
    assert not (tmp_path / "report.html").exists()
