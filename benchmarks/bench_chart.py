"""Does the live token chart stay cheap on long runs, and does `%load_ext` stay fast?

Two claims of the Jupyter layer, measured:

  (a) chart update: the cost of one `TokenChart` update (one `TurnStarted`, and one
      `Compacted`) when the chart already holds 10 turns and when it holds 1,000, and the
      size of what one update sends to the browser. Each update sends the whole figure
      (plotly's output renderer draws it; see jupyter/chart.py for why not a
      FigureWidget), so both grow with the points: the question is by how much.
  (b) load time: what `%load_ext jupyter_compaction` adds to a fresh Python process:
      the median, over a few fresh processes, of `import IPython;
      InteractiveShell.instance()` alone, and of the same plus the `load_ext`; and which
      heavy modules (plotly, ipywidgets, anthropic) the `load_ext` imported (none is
      the claim).

Events are synthetic (deterministic); the figure is the chart's real widget, with no
browser attached, so the numbers are the Python side of an update: validation and
serialization of the figure, not the browser's redraw.

    python benchmarks/bench_chart.py [--quick]

Prints a Markdown table to stdout and writes nothing else. `run(quick)` returns the numbers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(ROOT))

from jupyter_compaction.events import Compacted, TurnStarted  # noqa: E402
from jupyter_compaction.jupyter.chart import PLOTLY_MIME, TokenChart  # noqa: E402

SIZES = (10, 1_000)
BUDGET = 20_000
COMPACT_EVERY = 25  # a synthetic compaction every this many turns
REPEATS = {"quick": {"updates": 15, "processes": 3}, "full": {"updates": 101, "processes": 7}}
HEAVY_MODULES = ("plotly", "ipywidgets", "anthropic")

PROBE = """
import json, sys, time
t0 = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
t1 = time.perf_counter()
if {load}:
    ip.run_line_magic("load_ext", "jupyter_compaction")
t2 = time.perf_counter()
print(json.dumps({{"shell": t1 - t0, "total": t2 - t0, "load_ext": t2 - t1,
                  "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def turn_event(n: int) -> TurnStarted:
    """A deterministic turn: the context grows, then drops after each compaction."""
    tokens = 2_000 + (n % COMPACT_EVERY) * 500
    parts = {"system": 1_000, "messages": tokens // 3, "tool_results": tokens - tokens // 3
             - 1_000, "summary": 0 if n < COMPACT_EVERY else 300}
    return TurnStarted(n, tokens, BUDGET, int(BUDGET * 0.8), parts)


def events(turns: int) -> list[Any]:
    out: list[Any] = []
    for n in range(1, turns + 1):
        if n % COMPACT_EVERY == 0:
            out.append(Compacted(n, "progressive", 14_000, 3_000, summary="s"))
        out.append(turn_event(n))
    return out


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1_000


def time_updates(size: int, repeats: int) -> dict[str, float]:
    """Median ms of one TurnStarted update and one Compacted update at `size` turns, and
    the bytes of the figure one update sends."""
    chart = TokenChart()
    _ = chart.figure  # build the widget before timing
    chart.feed(events(size))
    turn_samples, mark_samples = [], []
    for i in range(repeats):
        n = size + 1 + i
        start = time.perf_counter()
        chart(Compacted(n, "progressive", 14_000, 3_000))
        mid = time.perf_counter()
        chart(turn_event(n))
        end = time.perf_counter()
        mark_samples.append(mid - start)
        turn_samples.append(end - mid)
    sent = len(json.dumps(chart.figure.outputs[0]["data"][PLOTLY_MIME]))
    return {"turn_ms": _median_ms(turn_samples), "compaction_ms": _median_ms(mark_samples),
            "kb_sent": sent / 1_000}


def time_load_ext(processes: int) -> dict[str, Any]:
    """Median seconds of a fresh shell with and without `%load_ext jupyter_compaction`."""
    def probe(load: bool) -> dict[str, Any]:
        code = PROBE.format(load=load, heavy=HEAVY_MODULES)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=ROOT, timeout=300)
        return json.loads(out.stdout.strip().splitlines()[-1])

    bare = [probe(False) for _ in range(processes)]
    loaded = [probe(True) for _ in range(processes)]
    shell_s = statistics.median(p["total"] for p in bare)
    with_s = statistics.median(p["total"] for p in loaded)
    return {
        "processes": processes,
        "shell_s": shell_s,
        "shell_plus_load_ext_s": with_s,
        "added_s": with_s - shell_s,
        "load_ext_alone_s": statistics.median(p["load_ext"] for p in loaded),
        "heavy_modules_loaded": sorted({m for p in loaded for m in p["heavy"]}),
    }


def run(quick: bool = False) -> dict:
    """Every number of the benchmark, as a dict (see the module docstring)."""
    repeats = REPEATS["quick" if quick else "full"]
    by_size = {str(size): time_updates(size, repeats["updates"]) for size in SIZES}
    small, large = (by_size[str(s)] for s in SIZES)
    chart: dict[str, Any] = {
        "sizes": list(SIZES), "repeats": repeats["updates"], "by_size": by_size,
        "turn_ratio": large["turn_ms"] / small["turn_ms"],
        "compaction_ratio": large["compaction_ms"] / small["compaction_ms"],
    }
    return {"quick": quick, "chart": chart, "load_ext": time_load_ext(repeats["processes"])}


def table(result: dict) -> str:
    small, large = (str(s) for s in result["chart"]["sizes"])
    lines = [
        f"Chart update cost (median of {result['chart']['repeats']} updates, ms)",
        "",
        f"| update | at {small} turns | at {large} turns | ratio |",
        "|---|---:|---:|---:|",
    ]
    data = result["chart"]
    for update, key, ratio in (("turn (ms)", "turn_ms", "turn_ratio"),
                               ("compaction (ms)", "compaction_ms", "compaction_ratio")):
        lines.append(f"| {update} | {data['by_size'][small][key]:.2f} | "
                     f"{data['by_size'][large][key]:.2f} | {data[ratio]:.2f}x |")
    kb = [data["by_size"][s]["kb_sent"] for s in (small, large)]
    lines.append(f"| figure sent per update (kB) | {kb[0]:.1f} | {kb[1]:.1f} | "
                 f"{kb[1] / kb[0]:.2f}x |")
    load = result["load_ext"]
    lines += [
        "",
        f"`%load_ext jupyter_compaction` in a fresh process (median of {load['processes']})",
        "",
        "| measure | seconds |",
        "|---|---:|",
        f"| import IPython + InteractiveShell.instance() | {load['shell_s']:.3f} |",
        f"| the same + %load_ext jupyter_compaction | {load['shell_plus_load_ext_s']:.3f} |",
        f"| added by %load_ext (difference of medians) | {load['added_s']:.3f} |",
        f"| the load_ext call alone | {load['load_ext_alone_s']:.3f} |",
        "",
        "Heavy modules imported by %load_ext: "
        + (", ".join(load["heavy_modules_loaded"]) or "none"),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (CI)")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
