"""The package's shape: each knob's default is written once, and no import cycle.

Both read the source with `ast`, so they see every signature and every import, those
under `if TYPE_CHECKING:` included, without running anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_compaction
from jupyter_compaction.settings import NAMES

PACKAGE = Path(jupyter_compaction.__file__).parent
HOME = PACKAGE / "settings.py"
DATA = PACKAGE / "scenario-data"  # the scenarios' files, not the package's code
NOT_KNOBS = {("jupyter_compaction.models.base", "model"),  # Reply.model: who replied
             ("jupyter_compaction.models.anthropic", "model"),  # which Claude, once chosen
             # a recorded session's budget: real sessions run far past the agent's default
             ("jupyter_compaction.replay", "budget")}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if DATA in path.parents:
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def literal_defaults(tree: ast.Module) -> list[tuple[str, int]]:
    """(knob, line) for each literal default given to a knob: a parameter, a class-level
    field, or an `--option`'s `default=`, written out or as a module constant such as
    `DEFAULT_TRIGGER = 0.8`; None is not a default, it means "not set"."""
    constants = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)}

    def _literal(node: ast.AST) -> bool:
        node = constants.get(node.id, node) if isinstance(node, ast.Name) else node
        try:
            return ast.literal_eval(node) is not None
        except ValueError:
            return False

    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults,
                          strict=True),
                     *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                       if d is not None)]
            found += [(a.arg, d.lineno) for a, d in pairs if a.arg in NAMES and _literal(d)]
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                        and item.target.id in NAMES and item.value is not None
                        and _literal(item.value)):
                    found.append((item.target.id, item.lineno))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            option = str(node.args[0].value).lstrip("-").replace("-", "_")
            for keyword in node.keywords:
                if keyword.arg == "default" and option in NAMES and _literal(keyword.value):
                    found.append((option, keyword.value.lineno))
    return found


def test_each_knob_default_is_written_once_in_settings():
    home = {name for name, _ in literal_defaults(ast.parse(HOME.read_text()))}
    assert home == set(NAMES) - {"summary_role"}  # None (the strategy's own) is its default
    elsewhere = [f"{path.relative_to(PACKAGE.parent)}:{line} {name}"
                 for module, path in modules().items() if path != HOME
                 for name, line in literal_defaults(ast.parse(path.read_text()))
                 if (module, name) not in NOT_KNOBS]
    assert elsewhere == []


def test_the_default_check_catches_a_second_literal_default():
    source = ("TRIGGER = 0.8\n"
              "def play(budget: int = 8_000, summary_role=None, *, trigger=TRIGGER): ...\n"
              "class Knobs:\n    strategy: str = 'trim'\n"
              "parser.add_argument('--max-turns', default=30)\n")
    assert sorted(literal_defaults(ast.parse(source))) == [
        ("budget", 2), ("max_turns", 5), ("strategy", 4), ("trigger", 2)]


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that module `name` imports (TYPE_CHECKING blocks included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in known else base)
    return (found & known) - {name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk of `graph` meets, each as a path back to its start."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        for child in sorted(graph[name]):
            if child in path:
                found.append(path[path.index(child):] + [child])
            elif child not in done:
                visit(child, [*path, child])
        done.add(name)

    for name in sorted(graph):
        if name not in done:
            visit(name, [name])
    return found


def test_no_import_cycle_in_the_package():
    graph = {name: imports(name, path, set(modules())) for name, path in modules().items()}
    assert "jupyter_compaction.agent" not in graph["jupyter_compaction.summarizers"]
    assert cycles(graph) == []


def test_the_cycle_check_sees_a_type_checking_import(tmp_path):
    module = tmp_path / "summarizers.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    from .agent import Agent\n")
    known = {"pkg.agent", "pkg.summarizers"}
    graph = {"pkg.summarizers": imports("pkg.summarizers", module, known),
             "pkg.agent": {"pkg.summarizers"}}
    assert cycles(graph) == [["pkg.agent", "pkg.summarizers", "pkg.agent"]]


def test_no_scenario_workspace_file_is_a_module_of_the_package():
    """The scenarios' files are data: no import path reaches them, code scans skip them."""
    from jupyter_compaction.scenarios.base import WORKSPACES_DIR

    assert WORKSPACES_DIR == DATA and not DATA.name.isidentifier()
    assert not (DATA / "__init__.py").exists()
    assert sorted(DATA.rglob("*.py"))  # the vendored sources are there, as data
    assert not any(DATA in path.parents for path in modules().values())
