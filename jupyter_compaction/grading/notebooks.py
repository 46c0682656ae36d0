"""`jupyter-compaction release`: learner copies of the lesson notebooks.

In a lesson's code cells, a solution sits between a line `### BEGIN SOLUTION` and a line
`### END SOLUTION`. `release_notebook()` replaces each such block, markers included, with
`raise NotImplementedError("write your solution here")` at the indentation of the
`### BEGIN SOLUTION` line, so a stub inside a function body stays inside it, as
nbgrader's `generate_assignment` does. Outputs, execution counts and timing records are
cleared, except in cells that start with `# NBVAL_CHECK_OUTPUT` (they show the same
numbers in the learner copy, and nbval checks both); saved widget state is dropped, and
so are nbgrader's autograded test cells (`nbgrader_cells.py`), which fail until the
exercise is solved.
`release()` does that for every notebook under a folder and copies the other files (a
README, data) as they are, keeping the folder layout; it also fixes the grade's
hidden-case seeds in the source folder (`seeds.ensure`), a file it never copies. The
course's learner copies are `release("lessons", "learn")`, the defaults of
`jupyter-compaction release`.

Left out: hidden tests inside the notebooks (the hidden cases' generators live in the
package, their seeds in the source folder) and partial solutions (a block is replaced
whole).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from .seeds import SEEDS_FILE, ensure

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = 'raise NotImplementedError("write your solution here")'
SKIP_DIRS = {".ipynb_checkpoints", "__pycache__", ".git", ".hypothesis"}  # tools' caches
CHECKED = "# NBVAL_CHECK_OUTPUT"
SOURCES, LEARNER_COPIES = "lessons", "learn"
NB_VERSION = 4


class ReleaseError(ValueError):
    """A notebook cannot be released (unbalanced markers, or a bad destination)."""


def strip_solutions(source: str, where: str = "cell") -> str:
    """`source` with every solution block replaced by the stub line."""
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise ReleaseError(f"{where}, line {number}: {BEGIN} inside another solution")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            ending = "\n" if line.endswith("\n") else ""
            out.append(f"{indent}{STUB}{ending}")
        elif marker == END:
            if not inside:
                raise ReleaseError(f"{where}, line {number}: {END} without {BEGIN}")
            inside = False
            if not line.endswith("\n") and out and out[-1].endswith("\n"):
                out[-1] = out[-1][:-1]  # the block ended the cell: so does the stub
        elif not inside:
            out.append(line)
    if inside:
        raise ReleaseError(f"{where}: {BEGIN} without {END}")
    return "".join(out)


def release_notebook(nb: Any, name: str = "notebook") -> Any:
    """Strip solutions and clear outputs in `nb` (an nbformat NotebookNode), in place."""
    from .nbgrader_cells import is_test_cell

    nb.cells = [cell for cell in nb.cells if not is_test_cell(cell)]
    for index, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, f"{name}, cell {index}")
        if not cell.source.startswith(CHECKED):
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    return nb


def _guard(source: Path, target: Path) -> None:
    if not source.is_dir():
        raise ReleaseError(f"no such folder: {source}")
    src, out = source.resolve(), target.resolve()
    if out == src or src in out.parents:
        raise ReleaseError(f"refusing to write into the source folder {source}; pick another OUT")


def release(source: str | Path, target: str | Path) -> list[Path]:
    """Write learner copies of every notebook under `source` (and copy the other files)
    into `target`, which is created; returns the paths written."""
    import nbformat

    source, target = Path(source), Path(target)
    _guard(source, target)
    files = sorted(p for p in source.rglob("*")
                   if p.is_file() and not SKIP_DIRS.intersection(p.relative_to(source).parts))
    files = [p for p in files if p.relative_to(source) != Path(SEEDS_FILE)]  # the teacher's
    notebooks = {p: nbformat.read(p, as_version=NB_VERSION)
                 for p in files if p.suffix == ".ipynb"}
    for path, nb in notebooks.items():  # every notebook is checked before anything is written
        release_notebook(nb, str(path.relative_to(source)))
    ensure(source)
    written = []
    for path in files:
        dest = target / path.relative_to(source)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path in notebooks:
            nbformat.write(notebooks[path], dest)
        else:
            shutil.copy2(path, dest)
        written.append(dest)
    return written
