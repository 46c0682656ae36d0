"""The package's shape: each knob's default is written once, every option is declared once
(its help and choices come from `Settings`), the trigger and target arithmetic is written
once, no `str` subclass carries data, and no import cycle.

All of them read the source with `ast`, so they see every signature and every import,
those under `if TYPE_CHECKING:` included, without running anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_compaction
from jupyter_compaction.settings import NAMES, OPTIONS, flag
from tests.support.needs import needs

PACKAGE = Path(jupyter_compaction.__file__).parent
HOME = PACKAGE / "settings.py"
DATA = PACKAGE / "scenario-data"  # the scenarios' files, not the package's code
NOT_KNOBS = {("jupyter_compaction.models.base", "model"),  # Reply.model: who replied
             ("jupyter_compaction.models.anthropic", "model"),  # which Claude, once chosen
             # whether one API request carries the memory tool's definition
             ("jupyter_compaction.api_context", "memory"),
             # a recorded session's budget: real sessions run far past the agent's default
             ("jupyter_compaction.replay", "budget")}
FLAGS = {flag(name): name for name in NAMES}
# Literal lists that hold the same words as an option's choices but mean something else.
NOT_OPTION_LISTS = {("jupyter_compaction.history", "ROLES"): "the API's message roles",
                    ("jupyter_compaction.vocab", "ROLES"): "who speaks in a transcript line"}
# Flags that name a setting but mean something else where they are declared.
OTHER_MEANINGS = {  # replay's --summarizer: who writes a replay's summaries (offline or Claude)
    ("jupyter_compaction.cli", "--summarizer"),
    ("jupyter_compaction.jupyter.replay_magic", "--summarizer")}
# The exercises' reference solutions: writing `trigger * budget` is the learner's task.
EXERCISES = "jupyter_compaction.grading.ex_"


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


def _declared(value: ast.expr) -> ast.expr:
    """A field's default: `knob(default, ...)` (settings.py's declaration) or the value."""
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id == "knob" and value.args):
        return value.args[0]
    return value


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
                        and _literal(_declared(item.value))):
                    found.append((item.target.id, item.lineno))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            option = str(node.args[0].value).lstrip("-").replace("-", "_")
            for keyword in node.keywords:
                if keyword.arg == "default" and option in NAMES and _literal(keyword.value):
                    found.append((option, keyword.value.lineno))
    return found


def test_each_knob_default_is_written_once_in_settings():
    home = {name for name, _ in literal_defaults(ast.parse(HOME.read_text()))}
    # None is their default: the strategy's own role; no compact tool; no offloading; no
    # instructions; the trigger share decides
    assert home == set(NAMES) - {"summary_role", "compact_at", "offload_at", "offload_over",
                                 "standing_instructions", "trigger_rule"}
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


# --- every option declared once ------------------------------------------------------------

def declared_options(tree: ast.Module) -> list[tuple[str, int]]:
    """(flag, line) for each `add_argument(...)` / IPython `argument(...)` written with a
    setting's flag, and for each `choices=` given a literal list."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        flags = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if name in ("add_argument", "argument"):
            found += [(f, node.lineno) for f in flags if f in FLAGS]
        found += [("choices=", node.lineno) for k in node.keywords
                  if k.arg == "choices" and isinstance(k.value, (ast.List, ast.Tuple))]
    return found


def option_lists(tree: ast.Module) -> list[tuple[str, str, int]]:
    """(constant, option, line) for each module constant whose words are exactly one
    option's choices: a private copy of that list."""
    choices = {frozenset(o.choices): n for n, o in OPTIONS.items() if len(o.choices) > 1}
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List,
                                                                    ast.Set)):
            words = frozenset(e.value for e in node.value.elts if isinstance(e, ast.Constant))
            if words in choices:
                found += [(t.id, choices[words], node.lineno) for t in node.targets
                          if isinstance(t, ast.Name)]
    return found


def test_every_option_is_declared_once_in_settings():
    elsewhere = [f"{path.relative_to(PACKAGE.parent)}:{line} {what}"
                 for module, path in modules().items() if path != HOME
                 for what, line in declared_options(ast.parse(path.read_text()))
                 if (module, what) not in OTHER_MEANINGS]
    copies = [f"{path.relative_to(PACKAGE.parent)}:{line} {name} copies {option}'s choices"
              for module, path in modules().items() if path != HOME
              for name, option, line in option_lists(ast.parse(path.read_text()))
              if (module, name) not in NOT_OPTION_LISTS]
    assert elsewhere == [] and copies == []


def test_the_option_checks_catch_a_private_copy():
    source = ("ROLES = ('user', 'assistant')\n"
              "parser.add_argument('--strategy', choices=['trim', 'clear'])\n"
              "@argument('--max-turns')\ndef f(): ...\n")
    tree = ast.parse(source)
    assert declared_options(tree) == [("--strategy", 2), ("choices=", 2), ("--max-turns", 3)]
    assert option_lists(tree) == [("ROLES", "summary_role", 1)]


# --- the trigger and target arithmetic is written once ---------------------------------------

def share_arithmetic(tree: ast.Module) -> list[int]:
    """Lines that multiply by a `trigger` or a `target` (a name or an attribute); a
    division is left alone (`folder / name` is a path)."""
    def share(node: ast.AST) -> bool:
        return getattr(node, "id", getattr(node, "attr", None)) in ("trigger", "target")

    return sorted(node.lineno for node in ast.walk(tree)
                  if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                  and (share(node.left) or share(node.right)))


def test_trigger_and_target_arithmetic_is_only_in_settings():
    assert share_arithmetic(ast.parse(HOME.read_text()))  # written there, once each
    elsewhere = [f"{path.relative_to(PACKAGE.parent)}:{line}"
                 for module, path in modules().items()
                 if path != HOME and not module.startswith(EXERCISES)
                 for line in share_arithmetic(ast.parse(path.read_text()))]
    assert elsewhere == []


def test_the_arithmetic_check_sees_names_and_attributes():
    source = "a = int(settings.trigger * budget)\nb = budget * target\nc = trigger + 1\n"
    assert share_arithmetic(ast.parse(source)) == [1, 2]


# --- no str subclass carrying data ------------------------------------------------------------

def str_subclasses(tree: ast.Module) -> list[str]:
    """Classes that subclass `str` (an enum of strings is fine: it carries no data)."""
    def name(base: ast.expr) -> str:
        return getattr(base, "id", getattr(base, "attr", ""))

    return [node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and "str" in map(name, node.bases)
            and not any(name(b).endswith("Enum") for b in node.bases)]


def test_no_str_subclass_carries_data():
    found = [f"{path.relative_to(PACKAGE.parent)} {name}" for path in modules().values()
             for name in str_subclasses(ast.parse(path.read_text()))]
    assert found == []


def test_the_str_subclass_check_sees_one():
    source = ("class Prompt(str):\n    pass\nclass Kind(str, enum.Enum):\n    A = 'a'\n"
              "class Plain:\n    pass\n")
    assert str_subclasses(ast.parse(source)) == ["Prompt"]
def test_no_scenario_workspace_file_is_a_module_of_the_package():
    """The scenarios' files are data: no import path reaches them, code scans skip them."""
    from jupyter_compaction.scenarios.base import WORKSPACES_DIR

    assert WORKSPACES_DIR == DATA and not DATA.name.isidentifier()
    assert not (DATA / "__init__.py").exists()
    assert sorted(DATA.rglob("*.py"))  # the vendored sources are there, as data
    assert not any(DATA in path.parents for path in modules().values())


# --- the loop alone in agent.py ----------------------------------------------------------------

AGENT = PACKAGE / "agent.py"
FEATURE_MODULES = {f"jupyter_compaction.{name}" for name in (
    "restore", "asked_compaction", "server_compaction", "memory_tool", "loop_guard",
    "backoff", "usage_anchor", "store", "recorder", "task_state", "fallback_summary",
    "summarizers")}
LOOP_SETTINGS = {"max_turns", "max_output_tokens", "result_cap", "with_changes"}  # the loop's own
MAX_AGENT_LINES = 200


def settings_read(tree: ast.Module) -> set[str]:
    """The attributes read of anything named `settings` (`self.settings.x`, `settings.x`)."""
    def named_settings(node: ast.expr) -> bool:
        return getattr(node, "id", getattr(node, "attr", None)) == "settings"

    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and named_settings(node.value)}


def class_lines(tree: ast.Module, name: str) -> int:
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    return node.end_lineno - node.lineno + 1


def test_agent_holds_the_loop_alone():
    tree = ast.parse(AGENT.read_text())
    assert imports("jupyter_compaction.agent", AGENT, set(modules())) & FEATURE_MODULES == set()
    assert settings_read(tree) <= LOOP_SETTINGS
    assert class_lines(tree, "Agent") < MAX_AGENT_LINES


def test_the_loop_checks_see_a_feature_creeping_back(tmp_path):
    module = tmp_path / "agent.py"
    module.write_text("from .usage_anchor import UsageAnchor\n"
                      "class Agent:\n    def f(self):\n        return self.settings.restore\n")
    tree = ast.parse(module.read_text())
    found = imports("jupyter_compaction.agent", module, set(modules()))
    assert found & FEATURE_MODULES == {"jupyter_compaction.usage_anchor"}
    assert settings_read(tree) == {"restore"} and class_lines(tree, "Agent") == 3


# --- no deprecation shim ------------------------------------------------------------------------

SHIMS_LEFT: set[str] = set()  # none: a module named here may keep a deprecated alias


def shims(tree: ast.Module) -> list[int]:
    """Lines that warn of a deprecation: an old name or parameter kept as an alias."""
    return sorted(node.lineno for node in ast.walk(tree)
                  if isinstance(node, ast.Name) and node.id == "DeprecationWarning")


def test_no_deprecation_shim_is_left():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}"
             for module, path in modules().items() if module not in SHIMS_LEFT
             for line in shims(ast.parse(path.read_text()))]
    assert found == []


def test_the_shim_check_sees_one():
    source = ("import warnings\ndef __getattr__(name):\n"
              "    warnings.warn('old', DeprecationWarning)\n")
    assert shims(ast.parse(source)) == [3]


# --- which settings a surface exposes is read from Settings -------------------------------------

def setting_name_lists(tree: ast.Module) -> list[int]:
    """Lines of a literal tuple, list or set of two or more setting names: a hand-written
    copy of which settings a surface offers (`settings.exposed` derives it)."""
    names = set(NAMES)
    return sorted(node.lineno for node in ast.walk(tree)
                  if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) > 1
                  and all(isinstance(e, ast.Constant) and e.value in names for e in node.elts))


def test_no_hand_written_list_of_setting_names():
    # an exercise's answer keys (ex8's) are what learners type, not a surface's options
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}"
             for module, path in modules().items()
             if path != HOME and not module.startswith(EXERCISES)
             for line in setting_name_lists(ast.parse(path.read_text()))]
    assert found == []


def test_the_list_check_sees_one():
    source = "SHOWN = ('budget', 'strategy')\nPAIR = ('budget', 'other')\n"
    assert setting_name_lists(ast.parse(source)) == [1]


# --- no function over 15 by cyclomatic complexity ------------------------------------------------

MAX_COMPLEXITY = 15
# The issue's exceptions: the scenarios' truths and the Claude Code importer are rewritten
# by their own issues (understood-or-refused; secrets and importers).
EXCEPTED = {"scenarios/debug.py:truth", "scenarios/logistics.py:truth",
            "scenarios/audit.py:truth", "sessions/claude_code.py:load"}
# Over the limit today, each with its score: none may grow, none may be added, and each
# comes off this list when it is split (the test says so when one is no longer over).
STILL_OVER = {
    "sessions/claude_code.py:_live_thread": 20}


def complexities() -> dict[str, int]:
    """Every function's and method's cyclomatic complexity, by `path:Class.name`."""
    from radon.complexity import cc_visit
    from radon.visitors import Function

    found = {}
    for path in modules().values():
        where = path.relative_to(PACKAGE).as_posix()
        for block in cc_visit(path.read_text()):
            for item in (block, *getattr(block, "methods", ())):
                if isinstance(item, Function):
                    found[f"{where}:{item.fullname}"] = item.complexity
    return found


@needs("radon", "test")
def test_no_function_is_over_15_by_cyclomatic_complexity():
    scores = complexities()
    over = {name: score for name, score in scores.items()
            if score > MAX_COMPLEXITY and name not in EXCEPTED}
    new = {name: score for name, score in over.items() if name not in STILL_OVER}
    grown = {name: score for name, score in over.items() if score > STILL_OVER.get(name, score)}
    fixed = sorted(name for name in STILL_OVER if scores.get(name, 0) <= MAX_COMPLEXITY)
    assert new == {} and grown == {}, "split these functions (radon cc -s)"
    assert fixed == [], "no longer over 15: take them off STILL_OVER"


# --- each vocab string is written once ----------------------------------------------------------
VOCAB = PACKAGE / "vocab.py"
DISTINCT = 8  # shorter strings ("; ") and plain words ("compaction") have other meanings here
# Written again where another issue's module is being rewritten; each comes off with it.
VOCAB_ELSEWHERE: set[tuple[str, str]] = set()


def vocab_strings() -> set[str]:
    """The formats vocab.py names at its top level (its private regexes, short separators
    and plain words aside)."""
    return {node.value.value for node in ast.parse(VOCAB.read_text()).body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str) and len(node.value.value) >= DISTINCT
            and not node.value.value.isidentifier()
            and all(isinstance(t, ast.Name) and not t.id.startswith("_") for t in node.targets)}


def literals(tree: ast.Module) -> list[tuple[int, str]]:
    """The string literals of a module, docstrings aside (they may quote a format)."""
    docs = {id(body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and (body := node.body) and isinstance(body[0], ast.Expr)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def test_each_vocab_string_is_written_once():
    strings = vocab_strings()
    assert len(strings) >= 8
    found = {(str(path.relative_to(PACKAGE)), text)
             for path in modules().values() if path != VOCAB
             for _, literal in literals(ast.parse(path.read_text()))
             for text in strings if text in literal}
    assert found - VOCAB_ELSEWHERE == set()
    assert found >= VOCAB_ELSEWHERE, "written once now: take it off VOCAB_ELSEWHERE"


def test_the_vocab_check_sees_a_copy_and_skips_docstrings():
    tree = ast.parse('"""quotes [end of tool output]"""\nX = "[end of tool output]"\n')
    assert [text for _, text in literals(tree)] == ["[end of tool output]"]
