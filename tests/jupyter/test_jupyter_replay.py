"""`%replay` in a real IPython shell: every shipped session, text and chart, bad input."""

import json

import pytest
from IPython.utils.capture import capture_output

from jupyter_compaction import sessions
from jupyter_compaction.jupyter import unload_ipython_extension
from jupyter_compaction.jupyter.replay_magic import ReplayChart
from jupyter_compaction.replay import run
from tests.support.quick import quick_first
from tests.support.shell import fresh_shell, usage_error

SHIPPED = sessions.shipped()


@pytest.fixture
def shell_text() -> bool:  # this module reads %replay's plain-text output
    return True


@pytest.mark.parametrize("path", quick_first(SHIPPED), ids=lambda p: p.name)
def test_replay_every_shipped_session(ip, path):
    with capture_output() as out:
        ip.run_line_magic("replay", f"{path} --budget 20000 --strategy trim")
    result = ip.user_ns["_replay"]
    assert out.stdout.strip().endswith(result.text().splitlines()[-1])
    assert result.strategy == "trim" and len(result.turns) == sum(
        m["role"] == "assistant" for s in sessions.load(path).segments for m in s)
    with capture_output() as out:
        ip.run_line_magic("replay", f"{path} --json")
    assert json.loads(out.stdout)["turns"][-1]["local"] == ip.user_ns["_replay"].turns[-1].local


def test_chart_has_the_reported_line_and_the_marks():
    result = run(str(SHIPPED[-1]), "progressive", 50_000)
    chart = ReplayChart(result)
    assert chart.turns == [t.turn for t in result.turns]
    assert len(chart.marks) == len(result.compactions)
    figure = chart.figure
    reported = next(t for t in figure.data if t.uid == "reported")
    assert list(reported.y) == [t.reported for t in result.turns if t.reported is not None]


def test_a_warning_is_shown_once_per_file(ip):
    line = f"{SHIPPED[-1]} --budget 50000 --strategy off"
    ip.magics_manager.registry["ReplayMagics"].warned.clear()  # the shell is shared
    with capture_output() as first:
        ip.run_line_magic("replay", line)
    with capture_output() as again:
        ip.run_line_magic("replay", line)
    assert first.stderr.count("warning: ") == 1 == len(ip.user_ns["_replay"].warnings)
    assert "warning: " not in again.stderr
    assert "1 warnings about this file shown before; all are in _replay.warnings" in again.stderr


def test_below_the_chart_the_report_head_is_printed(monkeypatch):
    import IPython.display

    from jupyter_compaction.jupyter import replay_magic

    ip = fresh_shell(monkeypatch, ("_replay",), text=False)
    shown = []
    monkeypatch.setattr(replay_magic, "widgets_enabled", lambda shell: True)
    monkeypatch.setattr(IPython.display, "display", shown.append)
    with capture_output() as out:
        ip.run_line_magic("replay", f"{SHIPPED[-1]} --budget 50000 --strategy compact")
    result = ip.user_ns["_replay"]
    assert out.stdout.strip() == "\n".join(result.head_lines())
    assert result.summary_line() in out.stdout and "offline stand-in summary" in out.stdout
    assert len(shown) == 1  # the chart


@pytest.mark.parametrize("line, error", [
    ("", "arguments are required"),
    ("x.jsonl --summarizer claude-haiku-4-5", "set ANTHROPIC_API_KEY"),
    ("x.jsonl --summarizer gpt", "unknown summarizer 'gpt'"),
    ("x.jsonl --budget lots", "positive whole number"),
    ("x.jsonl --strategy shrink", "unknown strategy 'shrink'"),
    ("missing.jsonl", "cannot read missing.jsonl"),
])
def test_bad_input_is_one_usage_error(ip, line, error):
    assert error in usage_error(ip.run_line_magic, "replay", line)


def test_unload_removes_replay(ip):
    unload_ipython_extension(ip)
    assert "replay" not in ip.magics_manager.magics["line"]
