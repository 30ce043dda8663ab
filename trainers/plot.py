"""The reward curve of a run, as a PNG: with matplotlib when installed, else a small writer.

`plot_run` reads ``metrics.jsonl`` and draws the mean training reward and success per RL
step, with the held-out success of each evaluation as points, under a title that names the
run (`run_title`: env, algorithm, estimator). The fallback writer needs only the standard
library (``zlib``): lines on a white canvas, no text, so the core never requires
matplotlib; the title then travels as the PNG's ``Title`` text chunk (matplotlib's PNGs
carry it there too).
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

COLOURS = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40))


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``metrics.jsonl``."""
    records = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records


def run_series(records: Sequence[dict[str, Any]]) -> list[Series]:
    """(name, steps, values) of the training reward, training success and held-out success."""
    rl = [r for r in records if r.get("phase") == "rl" and "reward" in r]
    evals = [r for r in records if "eval_success" in r]
    series: list[Series] = [
        ("train reward", [r["step"] for r in rl], [r["reward"] for r in rl]),
        ("train success", [r["step"] for r in rl], [r["success"] for r in rl]),
        ("held-out success", [r["step"] for r in evals], [r["eval_success"] for r in evals]),
    ]
    return [s for s in series if s[1]]


def run_title(config: TrainConfig) -> str:
    """The curve's title: env (with its arguments), algorithm and advantage estimator."""
    arguments = ", ".join(f"{k}={v!r}" for k, v in sorted((config.env_kwargs or {}).items()))
    env = f"{config.env_id} ({arguments})" if arguments else config.env_id
    return f"{env}: {config.algorithm}, {config.estimator} advantages"


def plot_run(metrics: str | Path, target: str | Path, title: str | None = None) -> Path:
    """Draws a run's curve into ``target`` (PNG) and returns its path."""
    series = run_series(read_metrics(metrics))
    target = Path(target)
    try:
        import matplotlib
    except ImportError:
        write_png(target, *render_lines(series), title=title)
        return target
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4), dpi=120)
    for name, xs, ys in series:
        style = "o--" if name.startswith("held-out") else "-"
        axis.plot(xs, ys, style, label=name)
    axis.set_xlabel("RL step (0: after the warm start)")
    axis.set_ylabel("reward / success rate")
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right")
    if title:
        axis.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(target, metadata={"Title": title} if title else None)
    plt.close(figure)
    return target


def render_lines(
    series: Sequence[Series], width: int = 640, height: int = 400, margin: int = 30
) -> tuple[int, int, bytearray]:
    """Rasterises line series onto an RGB canvas with axes: ``(width, height, pixels)``."""
    pixels = bytearray(b"\xff" * (width * height * 3))
    xs = [x for _, sx, _ in series for x in sx] or [0.0, 1.0]
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
