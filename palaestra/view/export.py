r"""A static copy of the viewer: a folder a person opens from disk or sends to a colleague.

    DIR/index.html            the page (opened as a file: no server)
    DIR/static/               its script and style
    DIR/data/runs.js          every run's config, metrics, notes and episode list
    DIR/data/RUN/INDEX.js     one file per episode, loaded when its page opens

Pages opened from disk may not fetch files, so the data are scripts that hand their object
to the page (``PalaestraData.runs(...)``, ``PalaestraData.episode(...)``); the list's
filters run in the page. JSON inside a script is safe from the text it carries: every
``<`` is written as ``\u003c``, so no ``</script>`` can end it early.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from palaestra.view.runs import Filters, RunFolder, finite_json, searchable_text
from palaestra.view.server import static_folder

DATA_MARK = "<!-- data -->"


def export(runs: list[RunFolder], target: str | Path) -> Path:
    """Writes the static copy of ``runs`` into ``target`` (a new or empty folder).

    Returns:
        The page to open (``target/index.html``).

    Raises:
        ValueError: ``target`` is a file or a folder that holds something.
    """
    folder = Path(target).expanduser()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ValueError(
            f"--export {str(target)!r} is not an empty folder; name a new one "
            "(the copy is written there and nothing else is touched)"
        )
    static = static_folder()
    (folder / "static").mkdir(parents=True, exist_ok=True)
    for name in ("app.js", "style.css"):
        with (static / name).open("rb") as source, open(folder / "static" / name, "wb") as out:
            shutil.copyfileobj(source, out)
    summaries = []
    for number, run in enumerate(runs):
        summary = run.summary()
        everything = run.episodes.matching(Filters())
        rows = []
        (folder / "data" / str(number)).mkdir(parents=True, exist_ok=True)
        for position in everything.tolist():
            row = run.episodes.row(position)
            row["text"] = searchable_text(run.episodes.read(position))
            rows.append(row)
            _write_script(
                folder / "data" / str(number) / f"{position}.js",
                "PalaestraData.episode",
                [number, position, run.episode(position)],
            )
        summary["rows"] = rows
        summaries.append(summary)
    _write_script(folder / "data" / "runs.js", "PalaestraData.runs", [summaries])
    page = (static / "index.html").read_text(encoding="utf-8")
    scripts = '<script src="data/loader.js"></script>\n<script src="data/runs.js"></script>'
    (folder / "data" / "loader.js").write_text(
        "window.PalaestraData = {static: true, episodes: {},\n"
        "  runs(runs) { this.runList = runs; },\n"
        "  episode(run, index, data) { this.episodes[run + '/' + index] = data; }};\n",
        encoding="utf-8",
    )
    (folder / "index.html").write_text(page.replace(DATA_MARK, scripts), encoding="utf-8")
    return folder / "index.html"


def _write_script(path: Path, function: str, arguments: list[Any]) -> None:
    text = json.dumps(
        finite_json(arguments), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    # "<" escaped keeps "</script>" and "<!--" in a completion from ending the script, and
    # U+2028/9 are line ends in older JavaScript, though legal inside JSON strings.
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    path.write_text(f"{function}(...{text});\n", encoding="utf-8")
