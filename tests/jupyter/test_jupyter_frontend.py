"""Text or widgets: the rule, and what a real kernel outputs in each mode."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from jupyter_compaction.jupyter.frontend import (
    TEXT_ENV,
    WidgetView,
    text_forced,
    widgets_enabled,
)

KERNEL_SHELL = SimpleNamespace(kernel=object())
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize(("value", "forced"), [
    (None, False), ("", False), ("0", False), ("false", False), ("No", False),
    ("1", True), ("yes", True), ("true", True)])
def test_the_environment_variable(monkeypatch, value, forced):
    if value is None:
        monkeypatch.delenv(TEXT_ENV, raising=False)
    else:
        monkeypatch.setenv(TEXT_ENV, value)
    assert text_forced() is forced
    assert widgets_enabled(KERNEL_SHELL) is not forced


def test_widgets_only_inside_a_kernel(monkeypatch):
    monkeypatch.delenv(TEXT_ENV, raising=False)
    assert widgets_enabled(SimpleNamespace()) is False  # terminal IPython, tests
    assert widgets_enabled(SimpleNamespace(kernel=None)) is False
    assert widgets_enabled(KERNEL_SHELL) is True


def test_no_shell_at_all(monkeypatch):
    monkeypatch.delenv(TEXT_ENV, raising=False)
    monkeypatch.setattr("IPython.get_ipython", lambda: None)
    assert widgets_enabled() is False


# --- a real kernel (what nbval and JupyterLab run) ----------------------------------------

CELLS = ["%load_ext jupyter_compaction",
         "%agent --scenario agents --budget 8000",
         "%context",
         "%summary"]


def execute(env_text: bool, monkeypatch) -> list[list[dict]]:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    if env_text:
        monkeypatch.setenv(TEXT_ENV, "1")  # the kernel inherits the test run's environment
    else:
        monkeypatch.delenv(TEXT_ENV, raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3").execute()
    return [[dict(o) for o in cell.outputs] for cell in nb.cells]


def streams(outputs: list[list[dict]]) -> list[str]:
    """Each cell's stdout, joined: a kernel may split one print into several messages
    (nbval joins them the same way before comparing)."""
    return ["".join(o["text"] for o in cell if o["output_type"] == "stream") for cell in outputs]


def mimes(outputs: list[list[dict]]) -> set[str]:
    return {key for cell in outputs for out in cell for key in out.get("data", {})}


@pytest.mark.slow
def test_kernel_with_text_forced_is_deterministic(monkeypatch):
    first, second = execute(True, monkeypatch), execute(True, monkeypatch)
    assert streams(first) == streams(second)
    assert WIDGET_MIME not in mimes(first)
    assert all(out["output_type"] == "stream" and out["name"] == "stdout"
               for cell in first for out in cell)
    text = "".join(streams(first))
    assert "compactions" in text and "live messages" in text
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-", text)


@pytest.mark.slow
def test_kernel_with_a_frontend_shows_widgets_and_html(monkeypatch):
    outputs = execute(False, monkeypatch)
    agent_cell = outputs[1]
    assert WIDGET_MIME in agent_cell[0]["data"]  # the live chart and log
    # what nbconvert stores and a viewer without widgets shows: a sentence, not a repr
    fallback = agent_cell[0]["data"]["text/plain"]
    assert "live token chart" in fallback and "VBox(" not in fallback, fallback
    assert "text/html" in agent_cell[-1]["data"]  # the result
    assert "<table" in outputs[2][0]["data"]["text/html"]


def test_a_widget_view_keeps_the_widget_and_gives_readable_text():
    ipywidgets = pytest.importorskip("ipywidgets")
    view = WidgetView(ipywidgets.VBox([ipywidgets.HTML("x")]), "[a chart]")
    bundle = view._repr_mimebundle_()
    assert WIDGET_MIME in bundle and bundle["text/plain"].startswith("[a chart] (a widget")
    assert TEXT_ENV in bundle["text/plain"] and repr(view) == bundle["text/plain"]


def test_the_lab_reads_as_its_settings_without_a_frontend():
    from jupyter_compaction.jupyter.lab import Lab

    bundle = Lab(budget=6_000)._repr_mimebundle_()
    assert WIDGET_MIME in bundle
    assert bundle["text/plain"].startswith("<Lab: scenario agents, budget 6000"), bundle
