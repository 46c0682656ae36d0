"""A lesson notebook's cells by id, for the tests that check its sentences and outputs."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import nbformat


class LessonCells:
    """Cells of one notebook, read once: the cell, its prose on one line, its printed text."""

    def __init__(self, path: Path):
        self.path = path

    @cached_property
    def _by_id(self) -> dict[str, nbformat.NotebookNode]:
        return {c.get("id"): c for c in nbformat.read(self.path, 4).cells}

    def cell(self, cell_id: str) -> nbformat.NotebookNode:
        return self._by_id[cell_id]

    def prose(self, cell_id: str) -> str:
        return " ".join(self.cell(cell_id).source.split())

    def output(self, cell_id: str) -> str:
        return "".join(o.get("text", "") for o in self.cell(cell_id).outputs)
