"""The Jupyter layer: magics, the live token chart, the lab, and their text fallbacks.

`%load_ext jupyter_compaction` calls `load_ipython_extension()`, which registers the
magics (`magics.py`, plus `%check` from `grading`) once per shell, however often it is
called. Nothing here imports plotly, ipywidgets or anthropic at load time; they are
imported when a chart, the lab or a Claude model is first used, so loading the extension
stays fast.

Left out: a JupyterLab frontend extension; the widgets are plain ipywidgets and plotly.
"""

from __future__ import annotations

from typing import Any

MAGICS_CLASS = "CompactionMagics"
CHECK_MAGIC = "check"


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics on `ipython` (a second call does nothing)."""
    if MAGICS_CLASS in ipython.magics_manager.registry:
        return
    from ..grading import register_magics as register_check
    from .magics import CompactionMagics

    ipython.register_magics(CompactionMagics(ipython))
    register_check(ipython)  # %check exN, for the lessons' exercises
    from .replay_magic import register as register_replay

    register_replay(ipython)  # %replay PATH


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics registered by `load_ipython_extension()`."""
    manager = ipython.magics_manager
    instance = manager.registry.pop(MAGICS_CLASS, None)
    if instance is None:
        return
    manager.magics["line"].pop(CHECK_MAGIC, None)
    manager.magics["line"].pop("replay", None)
    for kind, names in instance.magics.items():
        for name in names:
            if getattr(manager.magics[kind].get(name), "__self__", None) is instance:
                del manager.magics[kind][name]
