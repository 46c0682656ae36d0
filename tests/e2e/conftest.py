"""Shared by the browser tests: one JupyterLab server and one headless Chromium per session.

Starting JupyterLab and Chromium costs tens of seconds on a loaded machine, so every test
opens its own notebook (its own file, workspace and kernel) in the one server and a fresh
page of the one browser; its kernel is shut down when the test ends. Waits are scaled by
the session's measured `slowdown` (tests/conftest.py).

Without Debian's /usr/bin/chromium every test marked `browser` is skipped, and the run's
summary says so in one line.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.pages import CHROMIUM, FLAGS, Waits

BROWSER_GROUP = "browser"
SKIP_REASON = "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
START_S = 90  # for JupyterLab to answer, on a quiet machine
STOP_S = 15
VIEWPORT = {"width": 1400, "height": 1800}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("browser"):
            # under `-n N --dist loadgroup` one worker runs them all (one JupyterLab, one
            # browser), unless a module names its own group (the JupyterLite test does)
            if not item.get_closest_marker("xdist_group"):
                item.add_marker(pytest.mark.xdist_group(BROWSER_GROUP))
            if not os.path.exists(CHROMIUM):
                item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if SKIP_REASON in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(f"{len(skipped)} browser tests skipped: {SKIP_REASON}")


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: its URL, token and root folder (notebooks are written there)."""

    base: str
    token: str
    root: Path

    def api(self, path: str, method: str = "GET") -> bytes:
        request = urllib.request.Request(f"{self.base}/api/{path}?token={self.token}",
                                         method=method)
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.read()


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


@pytest.fixture(scope="session")
def waits(slowdown: float) -> Waits:
    return Waits(slowdown)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory, waits: Waits) -> Iterator[Lab]:
    """One JupyterLab on 127.0.0.1 with a token, for the whole session."""
    root = tmp_path_factory.mktemp("lab")
    port, token = free_port(), secrets.token_hex(16)
    state = tmp_path_factory.mktemp("lab-state")
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
           "JUPYTER_COMPACTION_TEXT": ""}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--ServerApp.allow_root=True",
         f"--LabApp.workspaces_dir={state / 'workspaces'}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    served = Lab(f"http://127.0.0.1:{port}", token, root)
    deadline = time.monotonic() + waits.seconds(START_S)
    while True:
        try:
            served.api("status")
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("jupyter lab did not start")
            time.sleep(0.5)
    try:
        yield served
    finally:
        server.terminate()
        try:
            server.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (Debian's), driven by Playwright, for the whole session."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
    try:
        yield chromium
    finally:
        chromium.close()
        playwright.stop()


@pytest.fixture
def open_notebook(request: pytest.FixtureRequest, lab: Lab, browser,
                  waits: Waits) -> Iterator[Callable[[list[str]], object]]:
    """`open_notebook(sources)`: a page with a new notebook of `sources` open, its kernel
    idle. The notebook, its workspace and its kernel are the test's own."""
    name = request.node.name.replace("[", "-").replace("]", "")
    contexts = []

    def open_(sources: list[str]):
        notebook(lab.root / f"{name}.ipynb", sources)
        context = browser.new_context(viewport=VIEWPORT)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{lab.base}/lab/workspaces/{name}/tree/{name}.ipynb?reset&token={lab.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=waits.ms(60))
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                               timeout=waits.ms(60))
        return page

    yield open_
    for context in contexts:
        context.close()
    for session in json.loads(lab.api("sessions")):  # free the CPU for the next test
        if session["path"] == f"{name}.ipynb":
            lab.api(f"sessions/{session['id']}", method="DELETE")
