"""Fixtures for the viewer's tests: run folders (trained and synthetic), a server, a browser."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests_support.view import chromium_path, episode, rl_metrics, write_run


@pytest.fixture
def synthetic_run(tmp_path):
    """Writes a run folder: ``synthetic_run(name, episodes=..., metrics=..., config=...)``."""

    def build(name: str = "run", **files: Any) -> Path:
        files.setdefault("config", {"env_id": "GuessNumber-v0", "algorithm": "grpo"})
        files.setdefault("metrics", rl_metrics(4))
        files.setdefault("episodes", [episode(i) for i in range(32)])
        return write_run(tmp_path / name, **files)

    return build


def train_run(folder: Path, **changes: Any) -> Path:
    """Trains the tiny model for a few steps into ``folder`` (keyword arguments change fields)."""
    from palaestra.agents.tiny import tiny_model, tiny_tokenizer
    from palaestra.trainers.config import TrainConfig
    from palaestra.trainers.loop import train

    tokenizer = tiny_tokenizer()
    values: dict[str, Any] = dict(
        env_kwargs={"max_number": 8},
        output_dir=str(folder),
        warmup_steps=2,
        warmup_tasks=4,
        steps=3,
        tasks_per_step=2,
        group_size=2,
        max_tokens=8,
        eval_tasks=2,
        eval_every=3,
        plot=False,
        progress=False,
        seed=3,
    )
    config = TrainConfig(**{**values, **changes})
    model = tiny_model(tokenizer, num_hidden_layers=1, hidden_size=64, intermediate_size=128)
    # In a thread of its own: the rollout engine runs its own event loop, and a session's
    # browser (Playwright's sync API) may already run one in this thread.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(train, config, model=model, tokenizer=tokenizer).result()
    return folder


@pytest.fixture(scope="session")
def trained_runs(tmp_path_factory) -> list[Path]:
    """Two short runs of the trainer that differ in their estimator (run once per session)."""
    return [
        train_run(tmp_path_factory.mktemp("trained") / estimator, estimator=estimator)
        for estimator in ("grpo", "rloo")
    ]


@pytest.fixture(scope="session")
def judged_run(tmp_path_factory) -> Path:
    """A short run on a single-turn env, whose every episode ends with the verifier's verdict.

    (The tiny model's GuessNumber episodes end by the invalid-action allowance, which gives
    no verdict.)
    """
    folder = tmp_path_factory.mktemp("trained") / "arithmetic"
    return train_run(folder, env_id="Arithmetic-v0", env_kwargs={"level": 1}, steps=2, eval_every=0)


@pytest.fixture
def serve():
    """Serves run folders for one test: ``url = serve(folder, ...)``."""
    from palaestra.view.runs import open_runs
    from palaestra.view.server import background

    servers: list[Any] = []

    def start(*folders: Path) -> str:
        server = background(open_runs(list(folders)))
        servers.append(server)
        return server.__enter__()

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless chromium driven by Playwright (nothing is downloaded: .ci/setup-browser.sh).

    Module-scoped: while Playwright's sync API runs, its event loop counts as running in
    this thread, and the next module's `asyncio.run` would fail.
    """
    executable = chromium_path()
    if executable is None:
        pytest.skip("chromium is not installed: run .ci/setup-browser.sh as root")
    playwright_api = pytest.importorskip("playwright.sync_api", reason='pip install -e ".[dev]"')
    with playwright_api.sync_playwright() as playwright:
        # Root in a container cannot use chromium's own sandbox; the pages are our own.
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that fails the test on any script error it reports."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    opened.errors = errors
    yield opened
    context.close()
    assert not errors, f"the page reported errors: {errors}"
