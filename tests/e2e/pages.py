"""What the browser tests do in a JupyterLab page: run every cell, read a plotly chart.

Also the browser's settings and `Waits`, the quiet-machine timeouts scaled by the
session's measured slowdown. The server and browser themselves are fixtures (conftest.py).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
KERNEL_DIALOG_MS = 8_000  # a "select kernel" dialog shows by then or not at all (not scaled:
# every test without a dialog waits this long)


@dataclass(frozen=True)
class Waits:
    """Timeouts given for a quiet machine, stretched by the measured `slowdown`."""

    slowdown: float

    def seconds(self, quiet_s: float) -> float:
        return quiet_s * self.slowdown

    def ms(self, quiet_s: float) -> int:
        """Playwright's unit."""
        return round(quiet_s * self.slowdown * 1_000)


def plot_state(page, index: int) -> dict:
    """Points per trace and the budget line of the index-th plotly chart in the page."""
    return page.evaluate("""(i) => {
        const gd = document.querySelectorAll('.js-plotly-plot')[i];
        if (!gd || !gd.data) return null;
        const points = gd.data.map(t => (t.x ? t.x.length : 0));
        const budget = gd.data.find(t => t.name === 'budget');
        return {points, budget: budget ? Array.from(budget.y) : null,
                svg: gd.querySelectorAll('svg.main-svg').length};
    }""", index)


def accept_kernel_dialog(page) -> None:
    """JupyterLab may ask which kernel to start: take the preselected one."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):  # no dialog this time
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=KERNEL_DIALOG_MS)


def run_all_cells(page) -> None:
    accept_kernel_dialog(page)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


@dataclass
class LiteRun:
    """One lesson run in the JupyterLite site: its page, the seconds from opening it to an
    idle kernel and from "Run All Cells" to every cell done, and the tracebacks shown."""

    page: object
    kernel_s: float
    run_s: float
    tracebacks: list[str]


def _status(page) -> str:
    return page.evaluate("""() => {
        const e = document.querySelector('.jp-Notebook-ExecutionIndicator');
        return e ? e.getAttribute('data-status') : 'none'; }""")


def _prompts(page) -> list[str]:
    return page.evaluate("""() => Array.from(document.querySelectorAll(
        '.jp-CodeCell .jp-InputArea-prompt')).map(p => p.textContent.trim())""")


def outputs(page) -> list[str]:
    """The text of every output area in the page."""
    return page.evaluate("""() => Array.from(document.querySelectorAll(
        '.jp-OutputArea-output')).map(o => o.textContent)""")


def answer_dialog(page) -> None:
    """A "Select Kernel" dialog in front of the notebook (a slow page may open the notebook
    before it knows its kernels, and "Run All Cells" then asks which to start) gets its
    preselected kernel; any other dialog fails the test with its text."""
    dialog = page.locator(".jp-Dialog")
    if not dialog.count() or not dialog.first.is_visible():
        return
    text = " ".join(dialog.first.inner_text().split())
    assert text.startswith("Select Kernel"), f"a dialog stopped the run: {text[:400]}"
    dialog.first.locator(".jp-mod-accept").click()


def _run_all_menu(page) -> None:
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()  # the notebook is drawn
    answer_dialog(page)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def _stalled(page) -> bool:
    """The kernel idle, no cell queued or running, and a cell not run yet."""
    prompts = _prompts(page)
    return (_status(page) == "idle" and "[*]:" not in prompts
            and any(p in ("[ ]:", "") for p in prompts))


def _finished(page) -> bool:
    return _status(page) == "idle" and all(p not in ("[*]:", "[ ]:", "")
                                           for p in _prompts(page))


def run_lite_lesson(context, site_url: str, name: str, kernel_limit_s: float,
                    run_limit_s: float, poll_s: float = 3.0,
                    retry_after_s: float = 30.0, tries: int = 3) -> LiteRun:
    """Open lesson `name` of the site in a new page of `context`, wait for its kernel and
    run every cell. Finished means two idle polls in a row with every cell run; the time
    is taken at the first of them. A "Run All Cells" that left cells unrun with nothing
    queued (a busy page let the click go by, or ran only the selected cell) is asked
    again, `retry_after_s` after the last ask, at most `tries` times."""
    import time

    page = context.new_page()
    start = time.perf_counter()
    page.goto(f"{site_url}/lab/index.html?path={name}")
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                           timeout=kernel_limit_s * 1000)
    kernel_s = time.perf_counter() - start
    started = time.perf_counter()
    deadline, done_at, asked, asked_at = started + run_limit_s, None, 0, 0.0
    while time.perf_counter() < deadline:
        waited = time.perf_counter() - asked_at > retry_after_s
        if asked and waited and asked >= tries and _stalled(page):
            break  # every ask left cells unrun: the prompts below say which
        if not asked or (waited and _stalled(page)):
            _run_all_menu(page)  # again only when the last ask left cells unrun
            asked, asked_at = asked + 1, time.perf_counter()
        answer_dialog(page)  # one that opened after the click
        now = time.perf_counter()
        if not _finished(page):
            done_at = None
        elif done_at is None:
            done_at = now
        else:
            break
        time.sleep(poll_s)
    prompts = _prompts(page)
    tracebacks = [o for o in outputs(page) if "Traceback (most recent call last)" in o]
    assert tracebacks or (prompts and all(p.startswith("[") and p[1:-2].isdigit()
                                          for p in prompts)), f"cells left unrun: {prompts}"
    return LiteRun(page, kernel_s, (done_at or time.perf_counter()) - started, tracebacks)


@contextlib.contextmanager
def served(site: Path):
    """`site` served by `python -m http.server` on a free port of 127.0.0.1: its URL."""
    from tests.e2e.conftest import free_port  # the fixtures' module imports this one

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1", "--directory", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait()
