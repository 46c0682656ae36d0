"""Every piece of code a lesson's text quotes exists in the current source.

Lessons quote the library in three ways, and each is checked against the code as it is now
(a quote that a refactoring left behind fails here, not in front of a learner):

- `%psource X` (and `inspect.getsource(X)`) in a code cell: `X` resolves after the
  lesson's own imports (run alone, without the rest of the notebook).
- A ```python block in the text: every line of it occurs in the package's source, and in
  the source of `X` when the next cell is `%psource X` (the learner is asked to find the
  lines there).
- Inline code in backticks that calls or dots into something (`blocks(message)`,
  `Run.transcript`, `self.trigger`): every name it calls or reaches through a dot is
  defined in the package, in the lesson's own code, or by Python; a quote that starts with
  `self.` is a line from a method and must occur verbatim.

Left out: whether the prose says true things about the code (the lesson outputs show that).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from functools import cache
from pathlib import Path
from typing import Any

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "jupyter_compaction"
NOTEBOOKS = sorted((REPO / "lessons").glob("[0-9][0-9]_*.ipynb"))
PSOURCE = re.compile(r"^%psource\s+([\w.]+)\s*$|inspect\.getsource\(([\w.]+)\)", re.M)
FENCED = re.compile(r"```python\n(.*?)```", re.S)
INLINE = re.compile(r"`([^`\n]+)`")
CODE_LIKE = re.compile(r"[A-Za-z_][\w.]*(?:\(.*\))?(?:\.\w+(?:\(.*\))?)*")
FILE_NAME = re.compile(r"\.(?:py|md|json|ipynb|ya?ml|txt|log|toml|csv)$")
REACHED = re.compile(r"(?:(?<=\.)|^)([A-Za-z_]\w*)|([A-Za-z_]\w*)(?=\()")
PYTHON_NAMES = set(dir(builtins)) | {n for t in (dict, list, str, set, tuple) for n in dir(t)}

# Quotes the text still makes but the code no longer has: fixed by the lesson editors after
# merging (each one then passes, and its strict xfail turns into a failure to remove it).
KNOWN_STALE: dict[tuple[str, str], str] = {}


@cache
def sdk_names() -> set[str]:
    """The Anthropic client's attributes (`client.beta...` in lesson 10), imported on use."""
    return set(dir(pytest.importorskip("anthropic").Anthropic))


@cache
def package_lines() -> set[str]:
    return {line.strip() for path in PACKAGE.rglob("*.py")
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


@cache
def package_names() -> set[str]:
    """Every module, class, function, method, field and assigned name in the package."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        names.add(path.stem)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def python_of(cell_source: str) -> ast.Module:
    """A code cell as Python: magic lines become `pass` (their indentation kept)."""
    lines = [re.sub(r"^(\s*)[%!].*$", r"\1pass", line) for line in cell_source.splitlines()]
    return ast.parse("\n".join(lines))


def lesson_namespace(nb: Any) -> tuple[dict[str, Any], set[str]]:
    """The lesson's imports run alone, and every name its code defines."""
    namespace: dict[str, Any] = {}
    defined: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.source.startswith("%%"):
            continue  # a cell magic's body is not Python
        tree = python_of(cell.source)
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(imports, []), "<lesson imports>", "exec"), namespace)
        defined |= {getattr(n, "name", None) or getattr(n, "id", None) or getattr(n, "arg", "")
                    for n in ast.walk(tree)
                    if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.arg))
                    or (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))}
    return namespace, defined | set(namespace)


def quotes() -> list[Any]:
    """(lesson, kind, quote, context) for every quote, as pytest params."""
    found = []
    for path in NOTEBOOKS:
        cells = nbformat.read(path, as_version=4).cells
        for k, cell in enumerate(cells):
            if cell.cell_type == "code":
                found += [(path.stem, "psource", a or b, "")
                          for a, b in PSOURCE.findall(cell.source)]
                continue
            after = cells[k + 1].source if k + 1 < len(cells) else ""
            target = PSOURCE.search(after)
            for block in FENCED.findall(cell.source):
                found += [(path.stem, "line", line.strip(), target and (target[1] or target[2]))
                          for line in block.splitlines() if line.strip()]
            text = re.sub(r"```.*?```", "", cell.source, flags=re.S)
            found += [(path.stem, "inline", q, "") for q in INLINE.findall(text)
                      if CODE_LIKE.fullmatch(q) and ("." in q or "(" in q)
                      and not FILE_NAME.search(q)]
    params = []
    for lesson, kind, quote, context in dict.fromkeys(found):
        reason = KNOWN_STALE.get((lesson, quote))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(lesson, kind, quote, context, marks=marks,
                                   id=f"{lesson}:{kind}:{quote[:50]}"))
    return params


_LESSONS: dict[str, tuple[dict[str, Any], set[str]]] = {}


def lesson(stem: str) -> tuple[dict[str, Any], set[str]]:
    if stem not in _LESSONS:
        _LESSONS[stem] = lesson_namespace(
            nbformat.read(REPO / "lessons" / f"{stem}.ipynb", as_version=4))
    return _LESSONS[stem]


@pytest.mark.parametrize(("stem", "kind", "quote", "context"), quotes())
def test_quoted_code_exists(stem, kind, quote, context):
    namespace, defined = lesson(stem)
    if kind == "psource":
        try:
            eval(quote, dict(namespace))  # noqa: S307 (a dotted name from our own lesson)
        except (NameError, AttributeError) as err:
            pytest.fail(f"%psource {quote}: {err}")
    elif kind == "line":
        assert quote in package_lines(), f"{quote!r} is in no file of the package"
        if context:
            source = inspect.getsource(eval(context, dict(namespace)))  # noqa: S307
            assert quote in {line.strip() for line in source.splitlines()}, (
                f"{quote!r} is not in %psource {context}")
    elif quote.startswith("self."):
        assert any(quote in line for line in package_lines()), (
            f"{quote!r} is in no file of the package")
    else:
        reached = {a or b for a, b in REACHED.findall(quote)}
        unknown = sorted(reached - package_names() - defined - PYTHON_NAMES - sdk_names())
        assert not unknown, f"`{quote}` names {unknown}, defined nowhere"


def test_the_checks_catch_a_stale_quote():
    """The rules above fail on quotes that are not in the code."""
    assert "tokens = overhead + self.counter.count(run.messages)" not in package_lines()
    reached = {a or b for a, b in REACHED.findall("Run.no_such_field")}
    assert reached - package_names() == {"no_such_field"}
    assert "def safe_cut_index" not in "".join(package_lines())  # names come from the lesson
