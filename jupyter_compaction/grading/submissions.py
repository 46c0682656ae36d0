"""Reading a class's submissions without trusting them: who the learners are, what their
notebooks' code cells say, and how their names and messages are shown.

`learners_in(folder)`: each subfolder is a learner (named by the folder) and so is each
notebook directly in `folder` (named by the file). Only regular files inside the learner's
own folder are read: a symlink (to a classmate's notebook, or out of the class), a FIFO or
a device is listed but never opened (it scores 0 with the reason), a symlinked folder is
not entered, and hidden folders and `.ipynb_checkpoints` are skipped.
`code_cells_of(path)` opens a notebook without following a link and without blocking,
refuses anything but a regular file of at most `MAX_NOTEBOOK_BYTES`, parses it, and
returns its code cells' sources, or raises `Unreadable` with the reason in one line (any
failure of the parse, a cell whose source is not text).
`shown(text)` is a file name or message as it may be printed: undecodable bytes and
control characters escaped, so no escape sequence reaches a terminal or a feedback file;
`message(text)` is also capped at `MAX_MESSAGE` characters.

Left out: grading (`grader.py`) and where the sources go (`sources.py`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

NOTEBOOK_SUFFIX = ".ipynb"
SKIPPED_DIRS = {".ipynb_checkpoints"}
MAX_NOTEBOOK_BYTES = 8 << 20  # a course notebook is tens of kilobytes
MAX_MESSAGE = 300  # characters of a failure message or problem kept in the gradebook


class Unreadable(Exception):
    """A submitted notebook that cannot be graded; the message says why."""


def shown(text: str) -> str:
    """`text` with undecodable bytes (a file name's surrogate escapes) and every
    non-printable character written as escapes."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def message(text: str) -> str:
    """A message from a learner's code, safe to print and store: `shown`, then capped."""
    text = shown(str(text))
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def notebooks_under(folder: Path) -> list[Path]:
    """The `.ipynb` entries under `folder` (links and FIFOs too, which `code_cells_of`
    then refuses with a reason), never through a symlinked folder."""
    found = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")
                         and not Path(top, d).is_symlink())
        found += [Path(top) / f for f in files
                  if f.endswith(NOTEBOOK_SUFFIX) and not f.startswith(".")]
    return sorted(found)


def learners_in(folder: Path) -> dict[str, list[Path]]:
    """Each learner (a subfolder, or a notebook directly in `folder`) and their notebooks."""
    found: dict[str, list[Path]] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        mode = os.lstat(entry).st_mode
        if stat.S_ISDIR(mode):
            notebooks = notebooks_under(entry)
        else:
            notebooks = [entry] if entry.name.endswith(NOTEBOOK_SUFFIX) else []
        if notebooks:
            found[entry.name] = notebooks
    return found


def _read_bytes(path: Path) -> bytes:
    """The file's bytes: opened without following a link or blocking on a FIFO, and only
    if it is a regular file no larger than the cap."""
    if path.is_symlink():
        raise Unreadable("a symbolic link: only regular files in the learner's folder are read")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise Unreadable(f"cannot open it ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file (a FIFO, device or folder)")
        if info.st_size > MAX_NOTEBOOK_BYTES:
            raise Unreadable(f"over {MAX_NOTEBOOK_BYTES >> 20} MB")
        data = file.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise Unreadable(f"over {MAX_NOTEBOOK_BYTES >> 20} MB")
    return data


def code_cells_of(path: Path) -> list[str]:
    """The sources of the notebook's code cells, or `Unreadable` saying why not."""
    import nbformat

    data = _read_bytes(path)
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
        cells = [c for c in nb.cells if c.get("cell_type") == "code"]
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds for a bad file
        raise Unreadable(f"not a notebook ({type(exc).__name__}: {message(str(exc))})"
                         ) from None
    sources = [c.get("source") for c in cells]
    bad = next((n for n, s in enumerate(sources) if not isinstance(s, str)), None)
    if bad is not None:
        raise Unreadable(f"code cell {bad + 1}'s source is not text")
    return sources
