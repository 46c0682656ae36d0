"""What the browser tests do in a JupyterLab page: run every cell, read a plotly chart.

Also the browser's settings and `Waits`, the quiet-machine timeouts scaled by the
session's measured slowdown. The server and browser themselves are fixtures (conftest.py).
"""

from __future__ import annotations

import contextlib
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
