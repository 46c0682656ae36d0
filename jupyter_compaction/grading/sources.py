"""The learner's source for an exercise, collected from a notebook.

`collect(cells, function)` reads a notebook's code cells *as text* (IPython magics are
turned into Python by IPython's own transformer, and cells that still do not parse are
skipped) and returns the newest `def function` with everything it needs from the top
level: the imports, helper functions, classes and constants it names, and theirs in
turn, in notebook order (`collect_all` reads the cells once for several functions).
Nothing else comes along, so a cell that patches the grading package, redefines
`check`/`report` or prints a score never reaches the grader.

Left out: deciding whether the source may run (`screen.py`).
"""

from __future__ import annotations

import ast
import builtins
import functools
import threading
from collections.abc import Iterable
from dataclasses import dataclass

BUILTINS = set(dir(builtins))
PARSE_LOCK = threading.Lock()
CACHED_CELLS, CACHED_CHARS = 2048, 20_000  # at most about 80 MB of cells kept
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | \
    ast.AnnAssign | ast.Import | ast.ImportFrom


@dataclass(frozen=True)
class Binding:
    """A top-level statement that binds `name`, and where it sits in the notebook."""

    name: str
    order: tuple[int, int]  # (cell, line)
    source: str
    node: ast.AST


def parse(source: str) -> ast.Module:
    """`ast.parse`, one thread at a time: CPython 3.11's AST conversion keeps its recursion
    depth in shared state, and the grader parses notebooks in several threads at once
    ("SystemError: AST constructor recursion depth mismatch" otherwise)."""
    with PARSE_LOCK:
        return ast.parse(source)


def python_of(cell: str) -> str:
    """A cell's source with IPython magics and shell escapes turned into Python (cached up
    to `CACHED_CHARS`: the lesson's own cells recur in every learner's copy of it)."""
    return _transformed(cell) if len(cell) <= CACHED_CHARS else _transform(cell)


def _transform(cell: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(cell)


_transformed = functools.lru_cache(maxsize=CACHED_CELLS)(_transform)


def _names_bound(node: ast.AST) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _one_import(node: ast.Import | ast.ImportFrom, name: str) -> str:
    """The import statement reduced to the alias that binds `name`."""
    names = [a for a in node.names if (a.asname or a.name).split(".")[0] == name]
    if isinstance(node, ast.Import):
        return ast.unparse(ast.Import(names=names))
    return ast.unparse(ast.ImportFrom(module=node.module, names=names, level=node.level))


def bindings(cells: Iterable[str]) -> dict[str, Binding]:
    """The newest top-level binding of every name in the notebook's code cells."""
    found: dict[str, Binding] = {}
    for index, cell in enumerate(cells):
        try:
            tree = parse(python_of(cell))
        except SyntaxError:
            continue
        for node in tree.body:
            if not isinstance(node, Definition) or "get_ipython" in ast.unparse(node):
                continue
            for name in _names_bound(node):
                source = (_one_import(node, name) if isinstance(node, ast.Import | ast.ImportFrom)
                          else ast.unparse(node))
                found[name] = Binding(name, (index, node.lineno), source, node)
    return found


def _free_names(node: ast.AST) -> set[str]:
    """Names `node` reads but never binds itself (an approximation: no scope analysis)."""
    loaded, bound = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loaded if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
    return loaded - bound - BUILTINS


def collect(cells: Iterable[str], function: str) -> str | None:
    """`function`'s newest definition and the top-level names it needs, or None."""
    return collect_all(cells, [function])[function]


def collect_all(cells: Iterable[str], functions: Iterable[str]) -> dict[str, str | None]:
    """`collect` for each of `functions`, reading the cells once."""
    found = bindings(cells)
    return {function: _needed(found, function) for function in functions}


def _needed(found: dict[str, Binding], function: str) -> str | None:
    if function not in found:
        return None
    needed: dict[str, Binding] = {}
    todo = [function]
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed[name] = found[name]
        todo += [n for n in _free_names(found[name].node) if n in found]
    chosen = sorted(needed.values(), key=lambda b: (b.order, b.name))
    return "\n\n".join(dict.fromkeys(b.source for b in chosen)) + "\n"
