"""`jupyter-compaction lab`: open the lessons in JupyterLab, from a checkout or anywhere.

Finds the learner copies, `learn/` (next to the package in a source checkout, else in the
current folder): the lessons with every exercise's solution replaced by a stub, written
by `jupyter-compaction release` from the solved sources in `lessons/`. It starts
JupyterLab on the first lesson with that folder as its root.
Running as root (a container, a fresh cloud machine) is common for a classroom image, so
`--allow-root` is passed only then.

Left out: installing anything; the `lab` extra brings JupyterLab and the widgets.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LESSONS = "learn"  # the learner copies; the solved sources stay in lessons/
FIRST_LESSON = "01_why_compaction.ipynb"


def lessons_dir(cwd: Path | None = None) -> Path:
    """The learner copies' folder: the checkout's own, else `./learn`."""
    for candidate in (Path(__file__).resolve().parents[1] / LESSONS,
                      (cwd or Path.cwd()) / LESSONS):
        if (candidate / FIRST_LESSON).is_file():
            return candidate
    raise FileNotFoundError("no learn/ folder found; run this from the repository root "
                            "(git clone the project, then pip install -e \".[lab]\")")


def lab_command(folder: Path, *, port: int | None = None, browser: bool = True,
                is_root: bool | None = None) -> list[str]:
    """The `jupyter lab` command line that opens the first lesson in `folder`."""
    command = [sys.executable, "-m", "jupyter", "lab", str(folder / FIRST_LESSON),
               f"--ServerApp.root_dir={folder}"]
    if port:
        command.append(f"--port={port}")
    if not browser:
        command.append("--no-browser")
    if is_root if is_root is not None else (hasattr(os, "geteuid") and os.geteuid() == 0):
        command.append("--allow-root")
    return command
