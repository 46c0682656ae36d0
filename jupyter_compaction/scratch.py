"""One temporary folder per run of a command, removed however the run ends.

`scratch()` is a context manager. It makes one folder in the system's temporary folder,
points `tempfile` and the `TMPDIR` variable at it for the run, so that everything the run
and its child processes make with `tempfile` (a grading process's sandbox folders, the
browser build's staging folder) lands inside it, and removes it when the run ends: on
success, on an exception, on Ctrl-C (SIGINT) and on SIGTERM, which it turns into
`SystemExit` for the run so that the stack unwinds as it does for Ctrl-C.

Left out: SIGKILL and a power cut end a process before any code can run, so they leave
the folder; `jupyter-compaction sessions clean` is the tool for the session store, and
the system's own temp cleaning for these. The signal handler is only installed in the
main thread (Python allows no other); elsewhere the folder is still removed on return or
exception.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

PREFIX = "compaction-run-"


def _exit_on_term(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # the shell's exit status for "killed by SIGTERM"


@contextmanager
def scratch(prefix: str = PREFIX) -> Iterator[Path]:
    """A fresh temporary folder for this run, the default one while the run lasts."""
    # 1. The folder, inside whatever temp folder is in force (a caller's TMPDIR, or an
    #    enclosing scratch folder).
    root = Path(tempfile.mkdtemp(prefix=prefix))
    # 2. Make it the default for this process and for the processes it starts.
    before = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = str(root), str(root)
    # 3. SIGTERM unwinds like Ctrl-C, so the `finally` below runs.
    in_main = threading.current_thread() is threading.main_thread()
    handler = signal.signal(signal.SIGTERM, _exit_on_term) if in_main else None
    try:
        yield root
    finally:
        # 4. Put everything back, then remove the folder and all it holds.
        if in_main:
            signal.signal(signal.SIGTERM, handler)
        tempfile.tempdir = before[0]
        if before[1] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before[1]
        shutil.rmtree(root, ignore_errors=True)


def default_signals() -> None:
    """Give a worker process the default SIGTERM action back (a pool's initializer): a
    terminated worker stops at once, and its parent's scratch folder is removed there."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
