"""Scenario "markdown": map the internal imports of a real package nobody here wrote.

The workspace is a vendored snapshot of Python-Markdown 3.5.2 (BSD 3-Clause; see
`scenario-data/markdown/VENDORED.md`): its 33 modules and its 14 extension tests, about
520 KB of real code. The task is to read all 47 files and say, for each, which modules of
the package it imports at the top level. That takes one listing and 47 reads, so
uncompacted the context grows far past any small budget: this is the scenario where
compaction's costs and savings show, which the 10-16-turn scenarios cannot.

Left out: imports inside functions and names imported from outside the package.
"""

from __future__ import annotations

from collections.abc import Callable

from jupyter_compaction.scenarios.base import (
    LIST_SEPARATOR,
    Fact,
    Known,
    Scenario,
    Step,
    make_list_files,
    make_read_file,
)
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace

NONE = "none"
# The module of the package a top-level import names: "from . import util" is .util,
# "from ..util import x" is ..util, "from markdown.test_tools import x" and
# "import markdown" are markdown.test_tools and markdown.
IMPORT = (r"^(?:from (\.+)(?:([\w.]+) import| import (\w+))|from (markdown\b[\w.]*) import"
          r"|import (markdown\b[\w.]*))")

STEPS = (
    Step("list the workspace", "list_files", {"folder": "."}, (
        Fact("files", r"^(\S+\.py)  [\d,]+ bytes$", many=True),)),
    Step("read {item}", "read_file", {"path": "{item}"}, (
        Fact("imports[{item}]", IMPORT, default=NONE, many=True, joiner=""),), each="files"),
)


def compose(f: Known) -> str:
    """One line per file: the package modules it imports."""
    files = f["files"].split(LIST_SEPARATOR) if "files" in f else []
    lines = "; ".join(f"{p} imports {f[f'imports[{p}]']}" for p in files)
    return f"Top-level imports of each Python file: {lines or UNKNOWN}."


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws)]


SCENARIO = Scenario(
    name="markdown",
    title="Map the imports of a real package (Python-Markdown 3.5.2)",
    task=(
        "This workspace is a snapshot of Python-Markdown 3.5.2. Read every Python file in it "
        "and report, for each file, which modules of the package it imports at the top "
        "level (its `from . import`, `from ..x import` and `from markdown.x import` lines), "
        "written exactly as in the code."
    ),
    given=(),
    steps=STEPS,
    must_keep=(
        "markdown/core.py", "markdown/extensions/toc.py", "markdown/test_tools.py",
        "tests/test_syntax/extensions/test_toc.py",
    ),
    compose=compose,
    make_tools=make_tools,
)
