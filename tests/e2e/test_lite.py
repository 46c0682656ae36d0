"""End to end: the course as a JupyterLite site, in headless Chromium, with no network.

The site is built once (`jupyter_compaction.lite.build`, downloads kept in the build's
cache folder) and served by `python -m http.server` on 127.0.0.1; the browser aborts
every request to any other host, and the test fails if one was made. Lesson 1 (the
learner copy) runs top to bottom in the Pyodide kernel: no cell raises, the chart shows
its budget line, `check("ex1")` prints its table and says it is practice; a screenshot
lands in test-artifacts/lite-lesson-01.png. Every other lesson then runs top to bottom too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jupyter_compaction.grading.check import IN_BROWSER
from tests.e2e.pages import ARTIFACTS, CHROMIUM, FLAGS, outputs, plot_state, run_lite_lesson, served
from tests.support.needs import needs

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.xdist_group("lite"),  # its own worker: it needs no JupyterLab
              needs("jupyterlite_pyodide_kernel", "lite"),
              pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm (apt-get "
                                 "install npm): the build takes Pyodide from npm"),
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium")]

LEARN = Path(__file__).resolve().parents[2] / "learn"
LESSONS = sorted(p.name for p in LEARN.glob("[0-9]*.ipynb"))
KERNEL_START_S = 240  # a cold Pyodide start on a loaded 2-core machine
RUN_S = 720  # one lesson, every cell: a hang guard (lesson 8 plays 13 long-task runs)
POLL_S = 3
RUN_ALL_TRIES = 3  # "Run All Cells" asked at most this often, RUN_ALL_WAIT_S apart
RUN_ALL_WAIT_S = 30


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    from jupyter_compaction import lite

    site = lite.build(tmp_path_factory.mktemp("lite") / "site")
    print(f"site: {site.size / 1e6:.0f} MB, built in {site.seconds:.0f} s")
    with served(site.path) as url:
        yield url


@pytest.fixture
def site_browser(browser, site_url, tmp_path):
    """A fresh Chromium per lesson (one kernel per browser, as a learner's tab has),
    started by the session's Playwright (`browser` in conftest.py: a process runs one);
    `site_browser.blocked` lists every refused request."""
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True,
        args=FLAGS, viewport={"width": 1400, "height": 1800})
    context.blocked = []

    def only_the_site(route):
        if route.request.url.startswith(site_url + "/"):
            route.continue_()
        else:
            context.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_site)
    yield context
    context.close()


def run_lesson(browser, site_url: str, name: str):
    """Open lesson `name`, wait for the kernel, run every cell; return (page, seconds to
    a ready kernel). Fails if a cell is left unrun or raised."""
    run = run_lite_lesson(browser, site_url, name, KERNEL_START_S, RUN_S, POLL_S,
                          RUN_ALL_WAIT_S, RUN_ALL_TRIES)
    assert not run.tracebacks, f"{name}: {run.tracebacks[0][:600]}"
    assert not browser.blocked, f"requests beyond the site: {browser.blocked[:5]}"
    return run.page, run.kernel_s


def test_lesson_1_runs_in_the_browser_with_its_chart_and_check(site_browser, site_url):
    page, kernel_s = run_lesson(site_browser, site_url, LESSONS[0])
    print(f"kernel ready {kernel_s:.0f} s after opening the lesson")
    charts = page.evaluate("() => document.querySelectorAll('.js-plotly-plot').length")
    states = [plot_state(page, i) for i in range(charts)]
    budget = next(s for s in states if s and s["budget"])
    assert budget["svg"] > 0 and len(set(budget["budget"])) == 1 and budget["budget"][0] > 0
    checked = [o for o in outputs(page) if o.startswith("ex1:")]
    assert checked and "score:" in checked[0] and IN_BROWSER in checked[0]
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lite-lesson-01.png"))
    page.close()


@pytest.mark.parametrize("name", LESSONS[1:])
def test_every_other_lesson_runs_top_to_bottom(site_browser, site_url, name):
    page, _ = run_lesson(site_browser, site_url, name)
    page.close()
