"""Re-execute lesson notebooks and store the outputs nbval checks, nothing else.

    python tests/lessons/refresh_outputs.py                 # every lesson
    python tests/lessons/refresh_outputs.py lessons/03_*.ipynb

Run it after a change to the library or to a lesson changes what a `# NBVAL_CHECK_OUTPUT`
cell prints (read the diff before committing: a changed number is either an intended
change or a regression). Each notebook runs top to bottom in a fresh kernel, in its own
folder, with plain-text output forced and no API key, as nbval runs it; then the outputs
and execution counts of every other cell are cleared, and timing metadata is dropped.
nbval needs an execution count on a cell with stored output, so checked cells keep theirs.
Then the learner copies in `learn/` are released again from `lessons/`, so that their
checked outputs match (`test_learner_copies.py` keeps the two equal).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
CHECK = "# NBVAL_CHECK_OUTPUT"
TIMEOUT_S = 600


def strip(nb: nbformat.NotebookNode) -> None:
    """Keep only the checked cells' outputs (and their execution counts)."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code" and not cell.source.startswith(CHECK):
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    os.environ["JUPYTER_COMPACTION_TEXT"] = "1"
    for key in [k for k in os.environ if k.startswith("ANTHROPIC_")]:
        del os.environ[key]
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), saved.get("PYTHONPATH")) if p)
    try:
        NotebookClient(nb, timeout=TIMEOUT_S, kernel_name="python3", record_timing=False,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    if errors:
        raise SystemExit(f"{path}: {errors[0].ename}: {errors[0].evalue}")
    strip(nb)
    nbformat.write(nb, path)
    print(f"refreshed {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")


def main(argv: list[str]) -> int:
    paths = [Path(p).resolve() for p in argv] or sorted((REPO / "lessons").glob("[0-9]*.ipynb"))
    for path in paths:
        refresh(path)
    sys.path.insert(0, str(REPO))
    from jupyter_compaction.grading.notebooks import LEARNER_COPIES, SOURCES, release

    release(REPO / SOURCES, REPO / LEARNER_COPIES)
    print(f"released {LEARNER_COPIES}/ again from {SOURCES}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
