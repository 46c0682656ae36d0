"""The README's chart, `docs/chart.png`: lesson 1's key figure, and the shape it had.

A figure's *shape* is what makes it the same figure: its traces with the points each
draws, the budget it is drawn at, and its size in pixels. The browser test
(test_lesson_figures.py) screenshots lesson 1's chart, stores the shape it saw in the
PNG's own text chunk and writes `test-artifacts/readme-chart.png`; it fails when that
shape differs from the committed `docs/chart.png`'s, and the fix is to copy the new file
over the old one. test_readme_chart.py checks the committed shape against lesson 1's
figure built in Python, without a browser.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "docs" / "chart.png"
SIGNATURE = b"\x89PNG\r\n\x1a\n"
KEY = b"figure-shape"
REFRESH = "cp test-artifacts/readme-chart.png docs/chart.png"


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of every chunk of a PNG file's bytes."""
    assert data[:8] == SIGNATURE, "not a PNG"
    out, at = [], 8
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        out.append((kind, data[at + 8:at + 8 + size]))
        at += 12 + size
    return out


def size(path: Path) -> tuple[int, int]:
    """(width, height) in pixels."""
    kind, header = chunks(path.read_bytes())[0]
    assert kind == b"IHDR"
    return struct.unpack(">II", header[:8])


def shape(path: Path) -> dict[str, Any] | None:
    """The figure shape stored in the PNG, or None."""
    for kind, data in chunks(path.read_bytes()):
        if kind == b"tEXt" and data.startswith(KEY + b"\0"):
            return json.loads(data[len(KEY) + 1:])
    return None


def chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data)))


def store_shape(path: Path, figure: dict[str, Any]) -> None:
    """Write `figure` into the PNG as a text chunk after its header (replacing one)."""
    text = KEY + b"\0" + json.dumps(figure, sort_keys=True).encode()
    kept = [(k, d) for k, d in chunks(path.read_bytes())
            if not (k == b"tEXt" and d.startswith(KEY + b"\0"))]
    path.write_bytes(SIGNATURE + b"".join(chunk(k, d) for k, d in
                                          [kept[0], (b"tEXt", text), *kept[1:]]))


def lesson_1_figure() -> dict[str, Any]:
    """Lesson 1's key figure built in Python: {"traces": {name: points}, "budget": n}."""
    from jupyter_compaction.jupyter.chart import TokenChart
    from jupyter_compaction.runner import play
    from tests.e2e.test_lesson_figures import FIGURES, figure_cells

    figure = next(f for f in FIGURES if f.lesson == 1)
    cells, budget = figure_cells(figure)
    options = dict(re.findall(r"--(scenario|strategy) (\w+)", cells[-1]))
    run = play(options.pop("scenario"), budget=budget, **options)
    chart = TokenChart()
    chart.feed(run.events)
    return {"traces": {t.name: len(t.x) if t.x is not None else 0 for t in chart.figure.data},
            "budget": budget}
