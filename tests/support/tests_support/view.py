"""Run folders and browser helpers for the viewer's tests."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

from palaestra.agents.rollout import Episode


def episode(index: int, **changes: Any) -> dict[str, Any]:
    """One episode record as ``episodes.jsonl`` holds it: two turns, the second one solved."""
    step = changes.pop("step", 1 + index // 8)
    content = changes.pop("content", f"<guess>{index % 8 + 1}</guess>")
    fields: dict[str, Any] = dict(
        env_id="GuessNumber-v0",
        env_kwargs={"max_number": 8},
        seed=index,
        group_id=f"{step - 1}.0.{index // 2}:{index}",
        sample_index=index % 2,
        prompt_ids=[1, 2, 3],
        completion_ids=[10, 11, 12, 4, 5, 13, 14],
        loss_mask=[1, 1, 1, 0, 0, 1, 1],
        logprobs=[-0.5, -1.25, -0.75, 0.0, 0.0, -2.0, -0.125],
        turn_spans=[(0, 3), (5, 7)],
        turn_rewards=[-0.1, 1.0],
        reward_parts=[{"invalid": -0.1}, {"outcome": 1.0}],
        finish_reasons=["stop", "stop"],
        messages=[
            {"role": "user", "content": "I am thinking of an integer from 1 to 8."},
            {"role": "assistant", "content": "hmm"},
            {"role": "user", "content": "Invalid action"},
            {"role": "assistant", "content": content},
            {"role": "user", "content": "Correct!"},
        ],
        terminated=True,
        success=True,
    )
    fields.update(changes)
    return Episode(**fields).to_dict()


def write_run(
    folder: Path,
    episodes: list[dict[str, Any]] | None = None,
    metrics: list[dict[str, Any]] | None = None,
    config: dict[str, Any] | None = None,
) -> Path:
    """A run folder with the files given (None leaves a file out)."""
    folder.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    if metrics is not None:
        (folder / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    if episodes is not None:
        with open(folder / "episodes.jsonl", "w", encoding="utf-8") as handle:
            for record in episodes:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return folder


def rl_metrics(steps: int) -> list[dict[str, Any]]:
    """RL records with the keys the plots group, and an evaluation at the start and the end."""
    records: list[dict[str, Any]] = [{"phase": "eval", "step": 0, "eval_success": 0.0}]
    for step in range(1, steps + 1):
        records.append(
            {
                "phase": "rl",
                "step": step,
                "reward": step / steps,
                "reward/outcome": step / steps,
                "success": step / steps,
                "kl_old": 0.01 * step,
                "entropy": 2.0 - step / steps,
                "clip_fraction": 0.1,
                "sampled_tokens_per_episode": 20.0 + step,
                "masked": 0.0,
            }
        )
    records.append({"phase": "eval", "step": steps, "eval_success": 1.0})
    return records


def chromium_path() -> str | None:
    """Debian's chromium (``PALAESTRA_CHROMIUM`` overrides), or None where it is missing."""
    found = os.environ.get("PALAESTRA_CHROMIUM") or shutil.which("chromium")
    return found or shutil.which("chromium-browser")


def open_page(page: Any, url: str) -> None:
    """Goes to ``url`` and waits until the app has drawn that route."""
    page.goto(url)
    hash_part = url.partition("#")[2]
    expected = f"#{hash_part}" if hash_part else "#/"
    page.wait_for_function(
        "expected => document.body.dataset.ready === expected", arg=expected, timeout=15_000
    )


def check_screenshot(page: Any, path: Path) -> None:
    """Takes a full-page screenshot and checks it is a drawn page, not a blank one."""
    import numpy as np
    from matplotlib.image import imread

    png = page.screenshot(path=str(path), full_page=True)
    pixels = imread(io.BytesIO(png))[..., :3]
    colours = np.unique((pixels.reshape(-1, 3) * 255).astype(np.uint8), axis=0)
    assert pixels.shape[0] >= 600 and pixels.shape[1] >= 1000
    assert len(colours) > 50, "the screenshot has almost no colours: a blank page?"

