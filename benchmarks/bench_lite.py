"""What a lesson costs in the browser build: each lesson's time in JupyterLite next to the venv.

Builds the JupyterLite site once (`jupyter_compaction.lite.build`, downloads from its
cache), serves it on 127.0.0.1 and, one lesson at a time, opens the learner copy in a
fresh headless Chromium (Debian's, a new profile each time, as a learner's first visit:
nothing cached), waits for the Pyodide kernel and runs every cell. The browser's time is
the kernel start (opening the page to an idle kernel) plus "Run All Cells" (to every cell
done, polled every `POLL_S`). The venv's time is the same learner copy run by nbclient in
this Python, kernel start included. A lesson whose cells raise is marked "failed".

On a shared machine the wall times stretch with the load, so the CPU seconds are reported
too: the browser's (every Chromium process of that profile: the page, the kernel's worker,
the GPU process) and the venv's (the kernel and this process), with the load average.

    python benchmarks/bench_lite.py [--lessons 01 08] [--site DIR] [--json FILE]

Needs `npm`, Playwright and /usr/bin/chromium (the e2e tests' browser); takes minutes.
Run by hand, not by `run.py`. Prints a Markdown table; `run()` returns the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the e2e tests' page driver

LEARN = ROOT / "learn"
GOAL_S = 30  # issue 39: every lesson under 30 s in the browser, the kernel start included
KERNEL_LIMIT_S = 240
RUN_LIMIT_S = 480
POLL_S = 0.5
VENV_LIMIT_S = 600


def lessons(prefixes: list[str] | None = None) -> list[Path]:
    """The learner copies, all or those whose names start with one of `prefixes`."""
    found = sorted(LEARN.glob("[0-9]*.ipynb"))
    return [p for p in found if not prefixes or any(p.name.startswith(x) for x in prefixes)]


def _cpu(processes) -> float:
    """User + system CPU seconds of `processes` (those that ended since are skipped)."""
    import psutil

    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _own_cpu() -> float:
    """CPU seconds of this process and of its children that ended (the kernels)."""
    me, children = (resource.getrusage(who) for who in
                    (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def venv_seconds(lesson: Path) -> tuple[float, float, bool]:
    """Seconds nbclient takes to start a kernel here and run every cell of `lesson`, in a
    copy of `learn/` (lessons write files), the CPU seconds that took (the kernel's and
    this process's), and whether every cell ran without raising."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(LEARN, tmp, dirs_exist_ok=True)
        notebook = nbformat.read(Path(tmp, lesson.name), as_version=4)
        client = NotebookClient(notebook, timeout=VENV_LIMIT_S, kernel_name="python3",
                                resources={"metadata": {"path": tmp}})
        start, cpu_before = time.perf_counter(), _own_cpu()
        try:
            client.execute()
            ok = True
        except CellExecutionError:
            ok = False
        return time.perf_counter() - start, _own_cpu() - cpu_before, ok


def browser_seconds(playwright, url: str, lesson: Path) -> dict:
    """The lesson run in a fresh Chromium profile: kernel start and run-all seconds, and
    the CPU seconds of the profile's Chromium processes."""
    import psutil

    from tests.e2e.pages import CHROMIUM, FLAGS, run_lite_lesson

    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1400, "height": 1800})
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            url + "/") else route.abort())  # the site only, as in the e2e test
        try:
            run = run_lite_lesson(context, url, lesson.name, KERNEL_LIMIT_S, RUN_LIMIT_S,
                                  POLL_S)
            cpu = _cpu(p for p in psutil.process_iter(["cmdline"])
                       if f"--user-data-dir={profile}" in " ".join(p.info["cmdline"] or []))
        finally:
            context.close()
    return {"kernel_s": run.kernel_s, "run_s": run.run_s, "browser_cpu_s": cpu,
            "browser_s": run.kernel_s + run.run_s, "browser_ok": not run.tracebacks,
            "load": os.getloadavg()[0]}


def run(prefixes: list[str] | None = None, site: Path | None = None) -> dict:
    """Build the site (unless `site` is given), then each lesson in the venv and the browser."""
    from playwright.sync_api import sync_playwright

    from jupyter_compaction import lite
    from tests.e2e.pages import served

    rows, built = [], None
    with tempfile.TemporaryDirectory() as tmp:
        if site is None:
            built = lite.build(Path(tmp) / "site")
            site = built.path
        with served(site) as url, sync_playwright() as playwright:
            for lesson in lessons(prefixes):
                venv_s, venv_cpu_s, venv_ok = venv_seconds(lesson)
                row = {"lesson": lesson.stem, "venv_s": venv_s, "venv_cpu_s": venv_cpu_s,
                       "venv_ok": venv_ok,
                       **browser_seconds(playwright, url, lesson)}
                print(json.dumps(row), file=sys.stderr, flush=True)
                rows.append(row)
    return {"rows": rows, "goal_s": GOAL_S,
            "build": {"seconds": built.seconds, "mb": built.size / 1e6} if built else None}


def markdown(result: dict) -> str:
    lines = ["| lesson | venv (nbclient) | browser: kernel start | browser: run all | "
             "browser total | browser / venv | under 30 s | venv CPU | browser CPU | load |",
             "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
    for r in result["rows"]:
        failed = "" if r["venv_ok"] and r["browser_ok"] else " (failed)"
        lines.append(f"| {r['lesson']}{failed} | {r['venv_s']:.1f} s | {r['kernel_s']:.1f} s | "
                     f"{r['run_s']:.1f} s | {r['browser_s']:.1f} s | "
                     f"{r['browser_s'] / r['venv_s']:.1f}x | "
                     f"{'yes' if r['browser_s'] < result['goal_s'] else '**no**'} | "
                     f"{r['venv_cpu_s']:.1f} s | {r['browser_cpu_s']:.1f} s | "
                     f"{r['load']:.1f} |")
    if result["build"]:
        lines.append(f"\nSite built in {result['build']['seconds']:.0f} s, "
                     f"{result['build']['mb']:.0f} MB.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="*", help="only lessons whose names start so")
    parser.add_argument("--site", type=Path, help="an already built site, not rebuilt")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    result = run(args.lessons, args.site)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print(markdown(result))
    return 0 if all(r["venv_ok"] and r["browser_ok"] for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
