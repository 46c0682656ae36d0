"""`benchmarks/run.py --quick` runs end to end and writes every table and the HTML page.

Structure, not speed: the numbers depend on the machine, the sections and tables do not.
It runs in this process on the smallest inputs that still fill every table (one short
scenario, one learner, a few repeats; `SMALL`): the full-size runs are the benchmarks'
own job (`python benchmarks/run.py`), and each benchmark's numbers are checked by its own
test in this folder.
"""

import re
from pathlib import Path

import pytest

from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "run.py"
SCENARIO = "logistics"  # the one short scenario every table is filled from
LONG = "agents"  # stands in for the long scenario (49 turns) in the long table
# benchmark module -> {attribute: smaller value}; what run.py --quick reads stays the same
SMALL = {
    "bench_overhead": {"TURNS": {"quick": {"fast": 3, "approx": {100: 2, 1_000: 1},
                                           "slow": {100: 1, 1_000: 1},
                                           "trigger": {100: 1, 1_000: 1}}}},
    "bench_counting": {"N_MESSAGES": 200,
                       "REPEATS": {"quick": {"small": 3, "scratch": 1}}},
    "bench_chart": {"REPEATS": {"quick": {"updates": 3, "processes": 1}}},
    "bench_quality": {"short_scenarios": lambda: [SCENARIO], "LONG": LONG},
    "bench_grading": {"QUICK_LEARNERS": 1},
}


def load_run():
    return load_script(RUN, "bench_run")


class OneScenario:
    """The `scenarios` registry as a benchmark sees it, cut down to `SCENARIO`."""

    def __init__(self, registry):
        self.load = registry.load

    @staticmethod
    def names() -> list[str]:
        return [SCENARIO]


# slow; and one worker runs this module, so `run.py --quick` (the `out` fixture) runs once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("run-quick")]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    run = load_run()
    with pytest.MonkeyPatch.context() as patch:
        for name, changes in SMALL.items():
            module = run.load(name)
            for attribute, value in changes.items():
                patch.setattr(module, attribute, value)
        for name in ("bench_engine", "bench_summarizer_cost"):
            module = run.load(name)
            patch.setattr(module, "scenarios", OneScenario(module.scenarios))
        assert run.main(["--quick", "--out", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def report(out):
    return (out / "RESULTS.md").read_text(encoding="utf-8")


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
    assert re.findall(r"^### Scenario `(\w+)`", section, re.M) == [SCENARIO]
    table = section.split(f"### Scenario `{SCENARIO}`")[1].split("###")[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| ") and "---" not in ln]
    strategies = [ln.split(" | ")[0].lstrip("| ") for ln in rows[1:]]
    assert strategies == [s for s in ("off", "clear", "trim", "summarize (assistant)",
                                      "summarize (user)", "compact", "progressive")
                          for _ in range(2)]
    assert "### The bar for `progressive` + task state" in section
    assert "`progressive` + task state at 5,000 tokens" in section
    long = section.split("### The long scenario: real code, 49 turns")[1].split("###")[0]
    assert f"Scenario `{LONG}`" in long
    assert "| off | no | correct |" in long and "| progressive | yes | correct |" in long
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
