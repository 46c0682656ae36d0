"""End to end: real JupyterLab, real headless Chromium (Debian's), driven by Playwright.

Starts `jupyter lab` on 127.0.0.1 with a token, opens a notebook, runs a `%agent` cell
and the lab, and checks in the page itself that the plotly chart rendered with one point
per turn, and that moving the lab's budget slider and pressing Run redraws the chart.
A screenshot lands in `test-artifacts/`. Skipped only where /usr/bin/chromium is missing
(`.ci/run` installs it, so CI runs this test).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
START_TIMEOUT = 90  # seconds for JupyterLab to answer
CELLS = [
    "%load_ext jupyter_compaction",
    "%agent --scenario agents --budget 8000",
    "from jupyter_compaction.jupyter.lab import Lab\n"
    "lab = Lab(scenario='agents', budget=8000)\nlab",
]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian chromium")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def notebook(path: Path, sources: list[str]) -> None:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": src} for src in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}))


@contextlib.contextmanager
def jupyter_lab(tmp_path: Path, sources: list[str]):
    """JupyterLab serving `e2e.ipynb` (a notebook of `sources`); yields (base URL, token)."""
    notebook(tmp_path / "e2e.ipynb", sources)
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_COMPACTION_TEXT": ""}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={tmp_path}", "--ServerApp.allow_root=True",
         "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("jupyter lab did not start")
            time.sleep(0.5)
    try:
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture
def lab_server(tmp_path):
    with jupyter_lab(tmp_path, CELLS) as (base, token):
        yield base, token, tmp_path


@contextlib.contextmanager
def notebook_page(playwright, base: str, token: str, tmp_path: Path):
    """Headless Chromium with `e2e.ipynb` open and its kernel idle; yields the page."""
    browser = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=FLAGS,
        viewport={"width": 1400, "height": 1800})
    try:
        page = browser.new_page()
        page.goto(f"{base}/lab/tree/e2e.ipynb?token={token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=60_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                               timeout=60_000)
        yield page
    finally:
        browser.close()


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


def test_chart_renders_and_lab_controls_redraw_it(lab_server):
    from playwright.sync_api import sync_playwright

    base, token, tmp_path = lab_server
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p, notebook_page(p, base, token, tmp_path) as page:
        try:
            run_all_and_check(page)
        finally:
            page.screenshot(path=str(ARTIFACTS / "jupyterlab-e2e.png"), full_page=True)


def accept_kernel_dialog(page) -> None:
    """JupyterLab may ask which kernel to start: take the preselected one."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):  # no dialog this time
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=8_000)


def run_all_cells(page) -> None:
    accept_kernel_dialog(page)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def run_all_and_check(page) -> None:
    run_all_cells(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2",
                           timeout=120_000)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot')[1].data[0].x.length > 3",
        timeout=60_000)

    run_chart = plot_state(page, 0)
    assert run_chart["svg"] >= 1, "the plot's SVG is in the page"
    assert max(run_chart["points"]) > 3, "one point per turn was added during the run"
    before = plot_state(page, 1)
    assert before["budget"] and before["budget"][0] == 8000

    slider_readout = page.locator(".widget-slider .widget-readout").first
    slider_readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("6000")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function(
        "Array.from(document.querySelectorAll('.js-plotly-plot')[1].data"
        ".find(t => t.name === 'budget').y)[0] === 6000", timeout=60_000)
    after = plot_state(page, 1)
    assert after["budget"][0] == 6000
    assert after["points"] != before["points"], "another budget redraws the curves"
