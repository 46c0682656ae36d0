"""Every renderer escapes hostile content, truncates visibly and never shows the API key."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from IPython.utils.capture import capture_output

from jupyter_compaction.events import Compacted, ToolCalled, TurnStarted
from jupyter_compaction.jupyter import context_view, render, result_view, summary_view
from jupyter_compaction.jupyter.chart import TokenChart
from jupyter_compaction.jupyter.compare import HEADERS, Comparison
from jupyter_compaction.jupyter.event_log import EventLog
from tests.support.shell import HOSTILE

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
KEY = "sk-ant-api03-SECRET-0123456789"


def assert_safe(html: str, shows_content: bool = True) -> None:
    lowered = html.lower()
    for raw in ("<script", "<img", "<a ", 'href="javascript'):
        assert raw not in lowered, raw
    if shows_content:
        assert ESCAPED in html


def renderings(run) -> dict[str, str]:
    log = EventLog()
    for event in run.events:
        log(event)
    comparison = Comparison("hostile", {"compact": run},
                            [("compact", 1, 2, 3, 4, "50%", HOSTILE, HOSTILE)])
    return {
        "context": context_view.view(run, full=True).html,
        "summary": summary_view.view(run).html,
        "result": result_view.view(run).html,
        "events": log.html(),
        "compare": comparison.view().html,
        "table": render.html_table([HOSTILE], [[HOSTILE]]),
        "pre": render.pre(HOSTILE),
        "esc": render.esc(HOSTILE),
    }


def test_every_html_renderer_escapes(hostile_run):
    for name, html in renderings(hostile_run).items():
        try:
            assert_safe(html)
        except AssertionError as err:
            raise AssertionError(f"{name}: {err}") from None
    assert_safe(context_view.view(hostile_run).html, shows_content=False)
    assert_safe(context_view.view(hostile_run, name=HOSTILE).html)


def test_escaped_content_is_still_shown(hostile_run):
    views = renderings(hostile_run)
    assert "javascript:alert(1)" in views["context"]  # shown as text, not as a link
    assert "&lt;img src=x onerror=alert(1)&gt;" in views["summary"]
    assert "Done: " + ESCAPED in views["result"]


def test_text_views_show_the_raw_text(hostile_run):
    text = context_view.view(hostile_run, full=True).text
    assert "<script>alert(1)</script>" in text  # plain text needs no escaping
    assert "&lt;" not in text


def test_lab_views_escape(hostile_run):
    pytest.importorskip("ipywidgets")
    from jupyter_compaction.jupyter.lab import Lab

    lab = Lab()
    lab.log.clear()
    for event in hostile_run.events:
        lab.log(event)
    lab._show(hostile_run)
    for widget in (lab.context_view, lab.summary_view, lab.events_view):
        assert_safe(widget.value)
    lab.say(HOSTILE)
    assert_safe(lab.message.value)


def test_chart_hover_text_is_escaped():
    chart = TokenChart()
    chart(Compacted(3, HOSTILE, 900, 300))
    chart(TurnStarted(3, 500, 1000, 800, {"system": 200, "messages": 300}))
    hover = chart.figure.data[-1].hovertext[0]
    assert "<script" not in hover and ESCAPED in hover


def test_truncation_is_visible():
    text = "x" * 2_500
    assert render.truncate(text, 2_000) == "x" * 2_000 + "… 500 more characters"
    assert render.truncate("short", 10) == "short"
    assert render.esc("<" * 30, 10) == "&lt;" * 10 + "… 20 more characters"


def test_long_tool_output_is_truncated_in_context_full():
    output = (HOSTILE + "\n") * 40
    messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "evil", "input": {"path": "x"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": output}]},
    ]
    run = SimpleNamespace(messages=messages, transcript=messages, events=[])  # Run-like
    view = context_view.view(run, full=True)
    more = len(output) - context_view.FULL_CHARS
    assert f"… {more} more characters" in view.text
    assert f"… {more} more characters" in view.html
    assert_safe(view.html)


def test_the_api_key_is_never_shown(monkeypatch, hostile_run):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    leaky = f"env dump: ANTHROPIC_API_KEY={KEY}"
    assert render.plain(leaky) == "env dump: ANTHROPIC_API_KEY=[redacted]"
    assert KEY not in render.esc(leaky) and KEY not in render.text_table(["k"], [[leaky]])
    log = EventLog()
    log(ToolCalled(1, "read_file", {"path": KEY}, "toolu_1"))
    assert KEY not in log.text() and KEY not in log.html()
    hostile_run.answer = leaky
    view = result_view.view(hostile_run)
    assert KEY not in view.text and KEY not in view.html


def test_short_values_are_not_treated_as_keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "abc")
    assert render.plain("abc def") == "abc def"


def test_control_characters_are_removed_from_text():
    assert render.plain("a\x1b[31mred\x07\tb\nc") == "ared\tb\nc"
    assert "\x1b" not in render.text_table(["h"], [["\x1b[2J"]])


def test_rich_shows_html_in_a_frontend_and_text_otherwise(ip):
    view = render.Rich("plain text", "<b>html</b>")
    with capture_output() as out:
        render.show(view, rich=False)
    assert out.stdout == "plain text\n" and not out.outputs
    with capture_output() as out:
        render.show(view, rich=True)
    assert out.outputs[0].data == {"text/plain": "plain text", "text/html": "<b>html</b>"}


def test_compare_table_headers():
    assert HEADERS == ("strategy", "peak tokens", "tokens sent", "compactions", "repeats",
                       "must-keep recall", "answer", "question")


def cell_styles(html: str) -> list[tuple[str, str, bool]]:
    """(tag, style, holds a <pre>) of every th and td of an HTML table."""
    from html.parser import HTMLParser

    cells: list[list] = []

    class Cells(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in ("th", "td"):
                cells.append([tag, dict(attrs).get("style", ""), False])
            elif tag == "pre" and cells:
                cells[-1][2] = True

    Cells().feed(html)
    return [tuple(c) for c in cells]


def test_table_words_never_break_mid_word_in_jupyterlab():
    """JupyterLab's outputs allow breaks anywhere; tables undo it ("peak cont ext")."""
    rows = [("peak context", "4655 tokens"), ("answer", "a long answer " * 40)]
    for html in (render.html_table(("strategy", "peak context"), rows),
                 render.html_table(("", ""), rows, pre_cells=True)):
        styles = cell_styles(html)
        assert styles
        for tag, style, holds_pre in styles:
            assert "overflow-wrap:normal" in style and "word-break:normal" in style, style
            if not holds_pre:
                assert "white-space:nowrap" in style, (tag, style)
        assert all("overflow-wrap:break-word" in s and "word-break:normal" in s
                   for s in html.split("<pre")[1:])
    assert "white-space:nowrap" not in render.CELL_STYLE  # texts in cells still wrap
