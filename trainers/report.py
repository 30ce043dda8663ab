"""``palaestra report RUN``: a run's summary as one self-contained HTML page.

The page holds the run's title (env, algorithm, estimator), its final numbers, the plot
(`palaestra.trainers.plot`, inline as a PNG), the five best and five worst episodes of
``episodes.jsonl`` by return, and the config and package versions. Everything comes from
the run's folder; nothing is loaded from elsewhere when the page opens (no scripts, no
links), so the file can be sent on its own. Every text from the run (config values, env
ids, transcripts the model or the env wrote) is HTML-escaped: it shows as text and never
runs. A folder with a missing file or an unreadable line still gives a page, with a note
saying what is missing.
"""

from __future__ import annotations

import base64
import heapq
import html
import json
import math
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from palaestra.trainers.config import TrainConfig
from palaestra.trainers.plot import plot_run, read_lines, run_title

SHOWN_EPISODES = 5
"""Best and worst episodes shown."""

MAX_MESSAGE = 2_000
"""Characters of one message shown; the rest is cut with a note."""

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
.note { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.4em 0.8em; }
.episode { border: 1px solid #ddd; margin: 1em 0; padding: 0.4em 0.8em; }
.message { white-space: pre-wrap; word-break: break-word; font-family: monospace;
           font-size: 12px; margin: 0.3em 0; padding: 0.3em; background: #f6f6f6; }
.role { font-weight: bold; }
img { max-width: 100%; }
"""


def write_report(run: str | Path, target: str | Path | None = None) -> Path:
    """Writes the run's report (by default ``RUN/report.html``) and returns its path.

    Raises:
        ValueError: ``run`` is not a folder, or holds neither ``metrics.jsonl`` nor
            ``config.json`` (not a run's folder).
    """
    folder = Path(run)
    if not folder.is_dir():
        raise ValueError(f"{str(folder)!r} is not a folder; give the output_dir of a run")
    if not (folder / "metrics.jsonl").is_file() and not (folder / "config.json").is_file():
        raise ValueError(
            f"{str(folder)!r} holds neither metrics.jsonl nor config.json: "
            "give the output_dir of a `palaestra train` run"
        )
    path = Path(target) if target is not None else folder / "report.html"
    path.write_text(render_report(folder), encoding="utf-8")
    return path


def render_report(folder: Path) -> str:
    """The report's HTML for the run in ``folder`` (see the module docstring)."""
    notes: list[str] = []
    config = _read_config(folder, notes)
    records = _read_records(folder / "metrics.jsonl", notes)
    title = run_title(config) if config is not None else folder.name
    body = [f"<h1>{_text(title)}</h1>", f"<p>Run folder: <code>{_text(str(folder))}</code></p>"]
    body.append("<h2>Final numbers</h2>")
    body.append(_table(final_numbers(records)) if records else "<p>No records.</p>")
    if records:
        body.append("<h2>Curves</h2>")
        body.append(_plot(folder / "metrics.jsonl", title))
    best, worst = extreme_episodes(folder / "episodes.jsonl", notes)
    body.append(f"<h2>The {SHOWN_EPISODES} best episodes (highest return)</h2>")
    body.extend(_episode(e) for e in best)
    body.append(f"<h2>The {SHOWN_EPISODES} worst episodes (lowest return)</h2>")
    body.extend(_episode(e) for e in worst)
    if config is not None:
        body.append("<h2>Config</h2>")
        body.append(_table(config.to_dict()))
    versions = _read_json(folder / "versions.json")
    if isinstance(versions, dict):
        body.append("<h2>Versions</h2>")
        body.append(_table(versions))
    if notes:
        body.insert(2, "".join(f'<p class="note">{_text(note)}</p>' for note in notes))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_text(title)}</title><style>{STYLE}</style></head>"
        "<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def final_numbers(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The numbers a reader looks for first, by name.

    Held-out success and return at the first and last evaluation, the training reward at
    the first and last RL step, the episodes played and masked.
    """
    rl = [r for r in records if r.get("phase") == "rl"]
    evals = [r for r in records if r.get("phase") == "eval"]
    out: dict[str, Any] = {"RL steps": len(rl)}
    if evals:
        first, last = evals[0], evals[-1]
        for key, name in (
            ("eval_success", "held-out success (sampled)"),
            ("eval_greedy_success", "held-out success (greedy)"),
            ("eval_return", "held-out return"),
        ):
            if key in first or key in last:
                out[f"{name}: step {first['step']} -> {last['step']}"] = (
                    f"{_number(first.get(key))} -> {_number(last.get(key))}"
                )
    rewarded = [r for r in rl if "reward" in r]
    if rewarded:
        out["training reward: first -> last step"] = (
            f"{_number(rewarded[0]['reward'])} -> {_number(rewarded[-1]['reward'])}"
        )
        out["training success: last step"] = _number(rewarded[-1].get("success"))
    out["episodes played"] = int(sum(r.get("episodes", 0) for r in rl))
    out["episodes masked (dropped)"] = int(sum(r.get("masked", 0) for r in rl))
    out["seconds in RL steps"] = f"{sum(r.get('seconds', 0.0) for r in rl):.0f}"
    return out


def extreme_episodes(
    path: Path, notes: list[str], count: int = SHOWN_EPISODES
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``count`` episodes of highest and of lowest return in an ``episodes.jsonl``.

    The file is read one line at a time, keeping only the episodes shown, so a run of any
    length fits in memory. Ties go to the later episode (the more trained policy). Lines
    that are not episodes are counted in ``notes``.
    """
    if not path.is_file():
        notes.append(
            "episodes.jsonl is missing: the run was made with --no-save-episodes, "
            "or has not finished its first step"
        )
        return [], []
    best: list[tuple[float, int, dict[str, Any]]] = []
    worst: list[tuple[float, int, dict[str, Any]]] = []
    bad = 0
    for index, episode in enumerate(_episodes(path)):
        total = math.nan if episode is None else episode_return(episode)
        if math.isnan(total):
            bad += 1
            continue
        _keep(best, (total, index, episode), count)
        _keep(worst, (-total, index, episode), count)
    if bad:
        notes.append(
            f"episodes.jsonl: {bad} line(s) are not episodes with numeric rewards "
            "(a run cut short or still writing) and were skipped"
        )
    ranked_best = [e for _, _, e in sorted(best, key=lambda t: (t[0], t[1]), reverse=True)]
    ranked_worst = [e for _, _, e in sorted(worst, key=lambda t: (t[0], t[1]), reverse=True)]
    return ranked_best, ranked_worst


def episode_return(episode: dict[str, Any]) -> float:
    """An episode record's return: the sum of its turn rewards (NaN if they are not numbers)."""
    rewards = episode.get("turn_rewards") or []
    if not all(isinstance(r, (int, float)) for r in rewards):
        return math.nan
    return float(sum(rewards))


def _keep(heap: list[tuple[float, int, dict[str, Any]]], entry: tuple, count: int) -> None:
    """Keeps the ``count`` largest ``(key, index, episode)`` entries in a min-heap.

    Indexes are unique, so two entries never compare their episodes.
    """
    if len(heap) < count:
        heapq.heappush(heap, entry)
    else:
        heapq.heappushpop(heap, entry)


def _episodes(path: Path) -> Iterator[dict[str, Any] | None]:
    """Each line's episode record, or None for a line that is not one."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                yield None
                continue
            yield record if isinstance(record, dict) else None


def _read_config(folder: Path, notes: list[str]) -> TrainConfig | None:
    data = _read_json(folder / "config.json")
    if data is None:
        notes.append("config.json is missing or not JSON: the run's options are unknown")
        return None
    try:
        return TrainConfig.from_dict(data)
    except (TypeError, ValueError) as e:
        notes.append(f"config.json is not a TrainConfig of this version: {e}")
        return None


def _read_records(path: Path, notes: list[str]) -> list[dict[str, Any]]:
    if not path.is_file():
        notes.append("metrics.jsonl is missing: no numbers or curves to show")
        return []
    records, bad = read_lines(path)
    if bad:
        notes.append(
            f"metrics.jsonl: {bad} line(s) could not be read (a run cut short or still "
            "writing) and were skipped"
        )
    return records


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _plot(metrics: Path, title: str) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        png = plot_run(metrics, Path(scratch) / "curves.png", title=title).read_bytes()
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{_text(title)}" src="data:image/png;base64,{data}">'


def _episode(episode: dict[str, Any]) -> str:
    facts = {
        "return": _number(episode_return(episode)),
        "success": episode.get("success"),
        "status": episode.get("status"),
        "turns": len(episode.get("turn_spans") or []),
        "env": episode.get("env_id"),
        "seed": episode.get("seed"),
        "group": episode.get("group_id"),
    }
    if episode.get("step") is not None:  # files from before episodes recorded their step
        facts["step"] = episode["step"]
    head = ", ".join(f"{k} <b>{_text(str(v))}</b>" for k, v in facts.items())
    parts = episode.get("reward_parts") or []
    rewards = episode.get("turn_rewards") or []
    rows = [
        f"<tr><td>{turn}</td><td>{_text(_number(reward))}</td><td>{_text(_parts(part))}</td></tr>"
        for turn, (reward, part) in enumerate(zip(rewards, parts, strict=False), 1)
    ]
    turns = (
        "<table><tr><th>turn</th><th>reward</th><th>reward parts</th></tr>"
        + "".join(rows)
        + "</table>"
        if rows
        else ""
    )
    why = f"<p>Error: {_text(str(episode['error']))}</p>" if episode.get("error") else ""
    verdict = episode.get("verdict")
    if isinstance(verdict, dict):
        score = _number(verdict.get("score"))
        said = f"{verdict.get('status', '?')} (score {score}): {verdict.get('reason') or '-'}"
        why += f'<p class="verdict">Verdict: {_text(said)}</p>'
    messages = "".join(_message(m) for m in episode.get("messages") or [])
    return f'<div class="episode"><p>{head}</p>{why}{turns}{messages}</div>'


def _parts(parts: Any) -> str:
    if not isinstance(parts, dict):
        return json.dumps(parts, ensure_ascii=False, default=repr)
    return ", ".join(f"{name} {_number(value)}" for name, value in parts.items())


def _message(message: Any) -> str:
    if not isinstance(message, dict):
        return f'<div class="message">{_text(repr(message))}</div>'
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if message.get("tool_calls"):
        text += "\n" + json.dumps(message["tool_calls"], ensure_ascii=False, default=repr)
    if len(text) > MAX_MESSAGE:
        text = text[:MAX_MESSAGE] + f"\n[... {len(text) - MAX_MESSAGE:,} more characters]"
    role = _text(str(message.get("role", "?")))
    return f'<div class="message"><span class="role">{role}:</span> {_text(text)}</div>'


def _table(values: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{_text(str(k))}</th><td>{_text(_value(v))}</td></tr>" for k, v in values.items()
    )
    return f"<table>{rows}</table>"


def _value(value: Any) -> str:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "-" if value is None else str(value)
    return f"{value:.4g}"


def _text(text: str) -> str:
    return html.escape(text, quote=True)
