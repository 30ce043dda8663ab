"""The curves of a run, as a PNG: with matplotlib when installed, else a small writer.

`plot_run` reads ``metrics.jsonl`` and draws up to three panels over the RL steps
(`run_panels`): the mean training reward and success; the reward's parts (format, tool,
outcome, ... as the env names them); and the held-out success of each evaluation, sampled
and greedy. The title names the run (`run_title`: env, algorithm, estimator). The fallback
writer needs only the standard library (``zlib``): the same panels stacked as lines on a
white canvas, with no text, so the core never requires matplotlib; the title then travels
as the PNG's ``Title`` text chunk (matplotlib's PNGs carry it there too).
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from palaestra.trainers.config import TrainConfig

Series = tuple[str, Sequence[float], Sequence[float]]
"""(name, steps, values) of one line."""

Panel = tuple[str, list[Series]]
"""(heading, lines) of one plot."""

COLOURS = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40))


def read_lines(path: str | Path) -> tuple[list[dict[str, Any]], int]:
    """The records of a JSON Lines file and how many of its lines are not JSON records.

    A run cut short (or still running) can leave a partial last line; it is counted, not
    read.
    """
    records, bad = [], 0
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            if isinstance(record, dict):
                records.append(record)
            else:
                bad += 1
    return records, bad


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``metrics.jsonl`` (lines that are not records are left out)."""
    return read_lines(path)[0]


def run_panels(records: Sequence[dict[str, Any]]) -> list[Panel]:
    """The panels of a run's plot; a panel with nothing to draw is left out.

    1. ``reward and success``: mean training reward and success per RL step;
    2. ``reward parts``: the mean of each part of the reward (``reward/NAME``) per RL step,
       0 at a step whose episodes had none of it;
    3. ``held-out success``: sampled and greedy success at each evaluation (step 0: after
       the warm start).
    """
    rl = [r for r in records if r.get("phase") == "rl" and "reward" in r]
    steps = [r["step"] for r in rl]
    training = [
        ("train reward", steps, [r["reward"] for r in rl]),
        ("train success", steps, [r["success"] for r in rl]),
    ]
    names = sorted({k for r in rl for k in r if k.startswith("reward/")})
    parts = [(k.removeprefix("reward/"), steps, [r.get(k, 0.0) for r in rl]) for k in names]
    held_out = []
    for kind, key in (("sampled", "eval_success"), ("greedy", "eval_greedy_success")):
        evals = [r for r in records if key in r]
        held_out.append(
            (f"held-out success ({kind})", [r["step"] for r in evals], [r[key] for r in evals])
        )
    panels = [
        ("reward and success", training),
        ("reward parts", parts),
        ("held-out success", held_out),
    ]
    out = []
    for heading, series in panels:
        drawn = [s for s in series if s[1]]
        if drawn:
            out.append((heading, drawn))
    return out


def run_title(config: TrainConfig) -> str:
    """The curve's title: env (with its arguments), algorithm and advantage estimator."""
    arguments = ", ".join(f"{k}={v!r}" for k, v in sorted((config.env_kwargs or {}).items()))
    env = f"{config.env_id} ({arguments})" if arguments else config.env_id
    return f"{env}: {config.algorithm}, {config.estimator} advantages"


def plot_run(metrics: str | Path, target: str | Path, title: str | None = None) -> Path:
    """Draws a run's panels (`run_panels`) into ``target`` (PNG) and returns its path."""
    panels = run_panels(read_metrics(metrics)) or [("reward and success", [])]
    target = Path(target)
    try:
        import matplotlib
    except ImportError:
        write_png(target, *render_panels(panels), title=title)
        return target
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(
        len(panels), 1, figsize=(7, 1.2 + 2.4 * len(panels)), dpi=120, sharex=True, squeeze=False
    )
    for axis, (heading, series) in zip(axes[:, 0], panels, strict=True):
        for name, xs, ys in series:
            style = "o--" if name.startswith("held-out") else "-"
            axis.plot(xs, ys, style, label=name)
        axis.set_title(heading, fontsize=9, loc="left")
        axis.grid(alpha=0.3)
        if series:
            axis.legend(loc="best", fontsize=7)
    axes[-1, 0].set_xlabel("RL step (0: after the warm start)")
    if title:
        figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(target, metadata={"Title": title} if title else None)
    plt.close(figure)
    return target


def render_panels(
    panels: Sequence[Panel], width: int = 640, panel_height: int = 220
) -> tuple[int, int, bytearray]:
    """The panels rasterised one under another, on one step axis: ``(w, h, pixels)``."""
    xs = [x for _, series in panels for _, sx, _ in series for x in sx] or [0.0, 1.0]
    pixels = bytearray()
    for _, series in panels:
        pixels += render_lines(series, width, panel_height, x_range=(min(xs), max(xs)))[2]
    return width, panel_height * len(panels), pixels


def render_lines(
    series: Sequence[Series],
    width: int = 640,
    height: int = 400,
    margin: int = 30,
    x_range: tuple[float, float] | None = None,
) -> tuple[int, int, bytearray]:
    """Rasterises line series onto an RGB canvas with axes: ``(width, height, pixels)``.

    ``x_range``: the steps the x axis spans (default: those of ``series``).
    """
    pixels = bytearray(b"\xff" * (width * height * 3))
    xs = list(x_range or [x for _, sx, _ in series for x in sx] or [0.0, 1.0])
    ys = [y for _, _, sy in series for y in sy if math.isfinite(y)] or [0.0, 1.0]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0, y1 = min(ys + [0.0]), max(ys + [1.0])

    def point(x: float, y: float) -> tuple[int, int]:
        px = margin + (x - x0) / (x1 - x0) * (width - 2 * margin)
        py = height - margin - (y - y0) / (y1 - y0) * (height - 2 * margin)
        return int(round(px)), int(round(py))

    def put(x: int, y: int, colour: tuple[int, int, int]) -> None:
        if 0 <= x < width and 0 <= y < height:
            i = (y * width + x) * 3
            pixels[i : i + 3] = bytes(colour)

    def line(a: tuple[int, int], b: tuple[int, int], colour: tuple[int, int, int]) -> None:
        steps = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1)
        for k in range(steps + 1):
            x = a[0] + (b[0] - a[0]) * k / steps
            y = a[1] + (b[1] - a[1]) * k / steps
            for dx in (0, 1):
                put(int(round(x)) + dx, int(round(y)), colour)

    grey = (90, 90, 90)
    line(point(x0, y0), point(x1, y0), grey)
    line(point(x0, y0), point(x0, y1), grey)
    if y0 < 0 < y1:
        line(point(x0, 0.0), point(x1, 0.0), (200, 200, 200))
    for index, (_, sx, sy) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        points = [point(x, y) for x, y in zip(sx, sy, strict=False) if math.isfinite(y)]
        for a, b in zip(points, points[1:], strict=False):
            line(a, b, colour)
        for x, y in points:
            for dx in range(-2, 3):
                for dy in range(-2, 3):
                    put(x + dx, y + dy, colour)
    return width, height, pixels


def write_png(
    path: str | Path,
    width: int,
    height: int,
    pixels: bytes | bytearray,
    title: str | None = None,
) -> None:
    """Writes 8-bit RGB ``pixels`` (row-major) as a PNG file, with ``title`` as its Title."""
    if len(pixels) != width * height * 3:
        raise ValueError(f"expected {width * height * 3} bytes of RGB pixels, got {len(pixels)}")
    rows = b"".join(
        b"\x00" + bytes(pixels[y * width * 3 : (y + 1) * width * 3]) for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return (
            struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    if title:  # tEXt is Latin-1; iTXt (uncompressed, no language) holds any text
        data += chunk(b"iTXt", b"Title\x00\x00\x00\x00\x00" + title.encode("utf-8"))
    data += chunk(b"IDAT", zlib.compress(rows, 9))
    Path(path).write_bytes(data + chunk(b"IEND", b""))
