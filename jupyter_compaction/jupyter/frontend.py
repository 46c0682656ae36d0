"""Text or widgets: the one place that decides how the Jupyter layer shows things.

Widgets (the live plotly chart, the lab) need a frontend that renders them: a kernel
connected to JupyterLab, Notebook or VS Code. Everywhere else (terminal IPython, tests,
nbconvert, nbval) everything is printed as plain text, which is also deterministic.

The rule, in order:
1. `JUPYTER_COMPACTION_TEXT` set to anything but "", "0", "false" or "no" forces text.
   Lessons are validated by nbval with this variable set in the environment of the test
   run (the kernel inherits it), so their outputs never contain widget ids.
2. Otherwise widgets are used when the shell runs inside a kernel (`shell.kernel` exists)
   and ipywidgets and plotly can be imported.

A widget is displayed through `WidgetView`, which gives it a readable `text/plain` form:
a notebook executed by nbconvert (a kernel, so widgets, but no frontend to draw them) or
viewed without a widget renderer shows that line, not the widget's repr (`VBox(children=...`).

Left out: sniffing which frontend is connected (a kernel cannot know that reliably).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

TEXT_ENV = "JUPYTER_COMPACTION_TEXT"
FALSE_WORDS = ("", "0", "false", "no", "off")
WIDGET_MODULES = ("ipywidgets", "plotly")
NO_FRONTEND = (" (a widget: it shows in JupyterLab, Notebook or VS Code; "
               f"{TEXT_ENV}=1 prints text instead)")


def text_forced() -> bool:
    """Whether the environment asks for plain text only."""
    return os.environ.get(TEXT_ENV, "").strip().lower() not in FALSE_WORDS


def widgets_enabled(shell: Any = None) -> bool:
    """True when widgets can be shown: not forced to text, in a kernel, packages present."""
    if text_forced():
        return False
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if getattr(shell, "kernel", None) is None:
        return False
    return all(importlib.util.find_spec(name) is not None for name in WIDGET_MODULES)


class WidgetView:
    """`widget` displayed as itself, with `text` + `NO_FRONTEND` as its text/plain form."""

    def __init__(self, widget: Any, text: str):
        self.widget, self.text = widget, text + NO_FRONTEND

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = self.text
        return bundle

    def __repr__(self) -> str:
        return self.text
