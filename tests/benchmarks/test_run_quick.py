"""`benchmarks/run.py --quick` runs end to end and writes every table and the HTML page.

Structure, not speed: the numbers depend on the machine, the sections and tables do not.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_compaction import scenarios
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "run.py"


def load_run():
    return load_script(RUN, "bench_run")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    done = subprocess.run([sys.executable, str(RUN), "--quick", "--out", str(folder)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return folder


@pytest.fixture(scope="module")
def report(out):
    return (out / "RESULTS.md").read_text(encoding="utf-8")


pytestmark = pytest.mark.slow


def test_every_section_heading_is_there_in_order(report):
    headings = re.findall(r"^## (.+)$", report, re.M)
    assert headings == list(load_run().HEADINGS)


def test_it_says_quick_mode_machine_and_versions(report):
    assert "run.py --quick" in report and "quick mode" in report
    for row in ("| CPU |", "| cores |", "| memory |", "| Python |", "| tiktoken |",
                "| langchain-core |", "| plotly |", "| date |"):
        assert row in report, row


def test_overhead_table_has_every_method_and_ratio(report):
    section = report.split("## 1. ")[1].split("\n## ")[0]
    for label in ("ours: `Tally.append` + decision", "naive: fresh full recount",
                  "`trim_messages` + tiktoken counter",
                  "`trim_messages` + `count_tokens_approximately`",
                  "floor: encode the new turn only",
                  "`trim_messages` + tiktoken / ours (goal >= 500x)",
                  "`trim_messages` + approx / ours (goal >= 20x)",
                  "ours / floor, same turn (goal <= 5x)"):
        assert f"| {label} |" in section, label
    assert "| 100 msgs | 1,000 msgs |" in section
    assert "tally equals a fresh exact count of the whole history at every size: yes" in section


def test_one_quality_table_per_scenario_with_every_strategy(report):
    section = report.split("## 4. ")[1].split("\n## ")[0]
    for name in [n for n in scenarios.names() if n != "markdown"]:  # the long one: part 2
        table = section.split(f"### Scenario `{name}`")[1].split("###")[0]
        rows = [ln for ln in table.splitlines() if ln.startswith("| ") and "---" not in ln]
        strategies = [ln.split(" | ")[0].lstrip("| ") for ln in rows[1:]]
        assert strategies == [s for s in ("off", "clear", "trim", "summarize (assistant)",
                                          "summarize (user)", "compact", "progressive")
                              for _ in range(2)], name
    assert "### The bar for `progressive` + task state" in section
    assert "`progressive` + task state at 5,000 tokens" in section
    long = section.split("### The long scenario: real code, 49 turns")[1].split("###")[0]
    assert "| off | no | correct | 49 |" in long and "| progressive | yes | correct |" in long
    erosion = section.split("### Erosion: recall after successive compactions")[1]
    assert "| compactions |" in erosion
    erosion = erosion.split("| compactions |")[1]
    assert [ln.split(" | ")[0] for ln in erosion.splitlines()[2:10]] == [
        f"| {k}" for k in range(1, 9)]


def test_other_sections_say_what_they_did(report):
    assert "| (a) recount after appending one message (warm counter) |" in report
    lessons = report.split("## 5. ")[1]
    assert "skipped in quick mode" in lessons
    chart = report.split("## 3. ")[1].split("\n## ")[0]
    assert "Chart update cost" in chart or "Not available" in chart
    summarizer = report.split("## 7. ")[1]
    assert "| summarize / same (append) |" in summarizer
    assert "| compact / aux, Haiku |" in summarizer


def test_html_page_has_the_curves(out):
    page = (out / "results.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert page.count("cdn.plot.ly") == 1  # plotly.js from the CDN, once
    for title in ("Per-turn cost vs history size", "Summary erosion",
                  "Tokens sent per strategy at 5,000 tokens"):
        assert f"<h2>{title}</h2>" in page
    assert page.count('class="plotly-graph-div"') >= 3
