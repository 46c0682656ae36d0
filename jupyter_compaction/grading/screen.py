"""The source screen: why a learner's source scores 0 before it runs, by named rule.

`screen(exercise, source)` reads the source's syntax tree (nothing runs) and returns one
line, `refused (rule: <rule>): <what it found>`, or None. The rules:

- `library implementation`: it names the library's own implementation of the exercise
  (`Exercise.library`), as an import, an attribute or a string;
- `module not allowed`: it imports a module outside `ALLOWED_MODULES`, or a relative one;
- `grading package`: it names the grading package (`jupyter_compaction.grading`,
  `.grading`, a string holding it);
- `builtin not allowed`: it names `eval`, `exec`, `compile`, `__import__`, `globals`,
  `locals`, `vars`, `setattr`, `delattr`, `open`, `breakpoint` or `input`;
- `dunder`: any `__name__`-style attribute or name (`__globals__`, `__class__`, ...);
- `non-literal attribute name`: `getattr`/`hasattr` with a name that is not a string
  literal (`getattr(m, "tu" + "rns")`);
- `module through attributes`: an attribute of an imported module or object that is a
  module it did not import (`jupyter_compaction.tokens.os`, `getattr(typing, "sys")`),
  found by looking the chain up on the real, already imported objects;
- `frame or code object`: attributes of frames, generators, tracebacks or code objects
  (`f_back`, `gi_frame`, `tb_frame`, `co_consts`, ...);
- `format-string attribute`: a string whose format fields read attributes or items
  (`"{0.f_globals}"`);
- `attribute store`: assigning or deleting an attribute other than `self.x`.

What it cannot catch: anything that does not show in the text (a value computed at run
time and used in a way these rules allow), and copied code: a learner who pastes the
library's implementation passes, as with any autograder. It is a screen, not the
boundary: the boundary is the sandbox (`sandbox.py`), where whatever slips through runs
without the grader's values, files, network or processes.

Left out: scope analysis (a name is refused wherever it appears, even as a local).
"""

from __future__ import annotations

import ast
import importlib
import string
import types
from typing import Any

from .base import Exercise
from .sources import parse

ALLOWED_MODULES = ("collections", "copy", "dataclasses", "functools", "itertools", "json",
                   "math", "re", "string", "textwrap", "typing", "__future__",
                   "jupyter_compaction")
GRADING = "jupyter_compaction.grading"
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "globals", "locals", "vars",
                   "setattr", "delattr", "open", "breakpoint", "input"}
NAME_GETTERS = {"getattr", "hasattr"}
FRAME_ATTRIBUTES = {
    "f_back", "f_builtins", "f_code", "f_globals", "f_lasti", "f_lineno", "f_locals",
    "f_trace", "gi_code", "gi_frame", "gi_yieldfrom", "cr_await", "cr_code", "cr_frame",
    "ag_await", "ag_code", "ag_frame", "tb_frame", "tb_lasti", "tb_lineno", "tb_next",
    "co_code", "co_consts", "co_filename", "co_names", "co_varnames", "co_freevars",
    "co_cellvars", "co_name", "co_qualname"}
ALLOWED_DUNDER_NAMES = {"__name__"}


def refused(rule: str, found: str) -> str:
    return f"refused (rule: {rule}): {found}"


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _module_problem(module: str, level: int) -> str | None:
    if module == GRADING or module.startswith(GRADING + "."):
        return refused("grading package", f"imports {module}")
    if level or module.split(".")[0] not in ALLOWED_MODULES:
        return refused("module not allowed", f"imports {'.' * level}{module} (allowed: "
                       f"{', '.join(m for m in ALLOWED_MODULES if m != '__future__')})")
    return None


def _imports(tree: ast.AST) -> tuple[str | None, dict[str, Any]]:
    """A problem with an import, or every name the imports bind, with its real object."""
    bound: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problem = _bind_import(node, bound)
        elif isinstance(node, ast.ImportFrom):
            problem = _bind_import_from(node, bound)
        else:
            continue
        if problem:
            return problem, bound
    return None, bound


def _bind_import(node: ast.Import, bound: dict[str, Any]) -> str | None:
    """`import a.b [as c]`: a problem, or the names it binds added to `bound`."""
    for alias in node.names:
        problem = _module_problem(alias.name, 0)
        if problem:
            return problem
        module = _import(alias.name)
        top = alias.asname or alias.name.split(".")[0]
        bound[top] = module if alias.asname else _import(top)
    return None


def _bind_import_from(node: ast.ImportFrom, bound: dict[str, Any]) -> str | None:
    """`from a import b [as c]`: a problem, or the names it binds added to `bound`."""
    problem = _module_problem(node.module or "", node.level)
    if problem:
        return problem
    module = _import(node.module or "")
    for alias in node.names:
        if alias.name == "grading" or _dunder(alias.name):
            return refused("grading package" if alias.name == "grading" else "dunder",
                           f"imports {alias.name} from {node.module}")
        value = getattr(module, alias.name, None) or _import(f"{node.module}.{alias.name}")
        if isinstance(value, types.ModuleType) and not _inside(value, module):
            return refused("module through attributes",
                           f"imports the module {value.__name__} from {node.module}")
        bound[alias.asname or alias.name] = value
    return None


def _import(name: str) -> types.ModuleType | None:
    """The module (allowed ones only reach here), or None where it does not import: the
    source then fails when it runs, with the reason."""
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure to import is the source's to report
        return None


def _inside(value: types.ModuleType, parent: types.ModuleType) -> bool:
    """`value` is `parent` itself or one of its submodules."""
    return value.__name__ == parent.__name__ or value.__name__.startswith(parent.__name__ + ".")


def _chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    """`a.b.c` as ("a", ["b", "c"]), or None when it does not start with a name."""
    attrs = []
    current: ast.AST = node
    while isinstance(current, ast.Attribute):
        attrs.append(current.attr)
        current = current.value
    return (current.id, attrs[::-1]) if isinstance(current, ast.Name) else None


def _through_modules(node: ast.Attribute, bound: dict[str, Any]) -> str | None:
    chain = _chain(node)
    if chain is None or chain[0] not in bound:
        return None
    value = bound[chain[0]]
    path = chain[0]
    for attr in chain[1]:
        parent, value = value, getattr(value, attr, None)
        path += f".{attr}"
        if isinstance(value, types.ModuleType) and not (
                isinstance(parent, types.ModuleType) and _inside(value, parent)):
            return refused("module through attributes",
                           f"{path} is the module {value.__name__}, reached through another")
        if value is None:
            return None
    return None


def _attribute_problem(name: str, where: str) -> str | None:
    if name == "grading":
        return refused("grading package", f"{where} .grading")
    if _dunder(name):
        return refused("dunder", f"{where} the attribute {name}")
    if name in FRAME_ATTRIBUTES:
        return refused("frame or code object", f"{where} the attribute {name}")
    return None


def _format_problem(text: str) -> str | None:
    if "{" not in text:
        return None
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return None
    if any("." in f or "[" in f for f in fields):
        return refused("format-string attribute", f"the format string {text[:40]!r} reads "
                       "attributes or items of its arguments")
    return None


def _name_problem(node: ast.Name, getters: set[int]) -> str | None:
    if node.id in NAME_GETTERS and id(node) not in getters:
        return refused("non-literal attribute name", f"{node.id} used as a value")
    if node.id in FORBIDDEN_CALLS:
        return refused("builtin not allowed", f"uses {node.id}()")
    if _dunder(node.id) and node.id not in ALLOWED_DUNDER_NAMES:
        return refused("dunder", f"uses the name {node.id}")
    if node.id == "grading":
        return refused("grading package", "uses the name grading")
    return None


def _attribute_node_problem(node: ast.Attribute, bound: dict[str, Any]) -> str | None:
    problem = _attribute_problem(node.attr, "uses") or _through_modules(node, bound)
    if problem:
        return problem
    if isinstance(node.ctx, ast.Store | ast.Del) and not (
            isinstance(node.value, ast.Name) and node.value.id == "self"):
        return refused("attribute store", f"assigns to .{node.attr}: build new values "
                       "instead of changing other objects")
    return None


def _getter_problem(node: ast.Call, bound: dict[str, Any]) -> str | None:
    """`getattr(x, name)` and its kin: only with a string literal, screened as `x.name`."""
    name = node.args[1] if len(node.args) > 1 else None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return refused("non-literal attribute name",
                       f"{node.func.id}() with a name that is not a string literal")
    return _attribute_problem(name.value, f"{node.func.id}() reads") or (
        _through_modules(ast.Attribute(value=node.args[0], attr=name.value), bound))


def _node_problem(node: ast.AST, bound: dict[str, Any], getters: set[int]) -> str | None:
    if isinstance(node, ast.Name):
        return _name_problem(node, getters)
    if isinstance(node, ast.Attribute):
        return _attribute_node_problem(node, bound)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
            node.func.id in NAME_GETTERS):
        return _getter_problem(node, bound)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if GRADING in node.value:
            return refused("grading package", f"the string {node.value[:40]!r}")
        return _format_problem(node.value)
    return None


def _library_use(exercise: Exercise, tree: ast.AST) -> str | None:
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        used = [n for n in names if n in exercise.library]
        if used:
            return refused("library implementation",
                           f"uses the library's {used[0]}, which is what {exercise.id} asks "
                           "you to write yourself")
    return None


def screen(exercise: Exercise, source: str) -> str | None:
    """Why `source` scores 0 without running (one line, naming the rule), or None."""
    try:
        tree = parse(source)
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    problem = _library_use(exercise, tree)
    if problem:
        return problem
    problem, bound = _imports(tree)
    if problem:
        return problem
    getters = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)
               and isinstance(n.func, ast.Name) and n.func.id in NAME_GETTERS}
    for node in ast.walk(tree):
        problem = _node_problem(node, bound, getters)
        if problem:
            return problem
    return None
