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

import ast
from collections.abc import Callable, Mapping
from pathlib import Path

from jupyter_compaction.scenarios.base import (
    EXCLUDE,
    LIST_SEPARATOR,
    MISSING,
    Fact,
    Known,
    Question,
    Scenario,
    Step,
    listed,
    make_list_files,
    make_read_file,
    missing,
    operators,
    or_missing,
)
from jupyter_compaction.scenarios.grammar import Grammar, Role, Slot
from jupyter_compaction.scenarios.truth import files as workspace_files
from jupyter_compaction.scenarios.truth import module_body
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
        Fact("files", r"^(\S+\.py)  [\d,]+ bytes$", many=True),
        Fact("sizes", r"^(\S+\.py)  ([\d,]+) bytes$", many=True))),
    Step("read {item}", "read_file", {"path": "{item}"}, (
        Fact("imports[{item}]", IMPORT, default=NONE, many=True, joiner="", code=True),),
         each="files"),
    Step("read {path}", "read_file", {"path": "{path}"}, (
        Fact("imports-of-path", IMPORT, default=NONE, many=True, joiner="", code=True),
        missing("path", r"\bNo file '([^']+)' in the workspace"))),
)
def _files(f: Known) -> list[str]:
    """Every listed file (an import resolves against all of them)."""
    return f["files"].split(LIST_SEPARATOR) if "files" in f else []


def compose(f: Known) -> str:
    """One line per file: the package modules it imports."""
    lines = "; ".join(f"{p} imports {f[f'imports[{p}]']}" for p in _files(f))
    return f"Top-level imports of each Python file: {lines or UNKNOWN}."


def one_file(f: Known) -> str:
    """The package modules one file imports (yes or no first, when asked so), or how
    many."""
    found, ops = f["imports-of-path"], operators(f)
    if "count" in ops and found != UNKNOWN:
        return (f"{f['path']} imports {0 if found == NONE else len(found.split(LIST_SEPARATOR))}"
                " package modules at the top level.")
    answer = f"{f['path']} imports {found} at the top level."
    if "yesno" in ops and found != UNKNOWN:
        return ("No. " if found == NONE else "Yes. ") + answer
    return answer


def _chosen(f: Known, keep: Callable[[str, list[str]], bool], what: str) -> str:
    """The files whose path and import list `keep` accepts (or, negated, rejects),
    counted when the task asks how many; `what` says what they do."""
    files, ops = listed(f, "files"), operators(f)
    if not files or any(f[f"imports[{p}]"] == UNKNOWN for p in files):
        return f"Files that {what}: {UNKNOWN}."
    negated = "not" in ops
    found = [p for p in files
             if keep(p, f[f"imports[{p}]"].split(LIST_SEPARATOR)) != negated]
    which = f"do not {what.replace('import ', 'import ', 1)}" if negated else what
    count = f"{len(found)}: " if "count" in ops else ""
    return f"Files that {which}: {count}{', '.join(found) or NONE}."


def resolved(path: str, name: str, files: set[str]) -> str | None:
    """The workspace file an import written `name` in file `path` names: the module's
    file or its package's `__init__.py` (".util" in markdown/core.py and "..util" in
    markdown/extensions/toc.py: markdown/util.py), else the package a name is taken from
    (".Extension", `from . import Extension`, in markdown/extensions/toc.py:
    markdown/extensions/__init__.py); None when neither is a file of `files`."""
    dots = len(name) - len(name.lstrip("."))
    package = path.split("/")[:-1]
    parts = [*(package[:len(package) - dots + 1] if dots else []), *name.lstrip(".").split(".")]
    for named in (parts, parts[:-1]):  # the module itself, then the package it is taken from
        found = [c for c in ("/".join(named) + ".py", "/".join([*named, "__init__.py"]))
                 if c in files]
        if named and found:
            return found[0]
    return None


def importers(f: Known) -> str:
    """Rule: a file imports the module when its import list names it exactly, or, for a
    module named by its path, when one of its imports resolves to that file."""
    module, files = f["module"], set(_files(f))
    if not module.endswith(".py"):
        return _chosen(f, lambda _, names: module in names, f"import {module} at the top level")
    if files and module not in files:
        return f"{module} does not exist."
    return _chosen(f, lambda path, names: any(resolved(path, n, files) == module for n in names),
                   f"import {module} at the top level")


def standalone(f: Known) -> str:
    """Rule: a file with no package import stands alone."""
    return _chosen(f, lambda _, names: names == [NONE], "import nothing from the package")


def listing(f: Known) -> str:
    """The Python files of the package: all of them, how many, or the largest."""
    files, ops = listed(f, "files"), operators(f)
    if "largest" in ops:
        sizes = dict(item.split(" ", 1) for item in f["sizes"].split(LIST_SEPARATOR)) \
            if "sizes" in f else {}
        top = max(files, key=lambda p: int(sizes[p].replace(",", ""))) \
            if files and all(p in sizes for p in files) else None
        return f"The largest Python file: {f'{top} ({sizes[top]} bytes)' if top else UNKNOWN}."
    if "count" in ops:
        return f"Python files in the workspace: {len(files) if files else UNKNOWN}."
    return (f"Python files in the workspace ({len(files) if files else UNKNOWN}): "
            f"{', '.join(files) or UNKNOWN}.")


PATH_PATTERN = r"(?:markdown|tests)/[\w./-]*\w\.py"
# Other ways to say "import" ("depend on", "rely on", "use"), as heads and in the roles.
USES = (r"depend(?:s|ing)?\s+on|rel(?:y|ies|ying)\s+on|us(?:e|es|ing)|pull(?:s|ing|ed)?\s+in|"
        r"bring(?:s|ing)?\s+in|brought\s+in|lean(?:s|ing)?\s+on|borrow(?:s|ing|ed)?(?:\s+from)?|"
        r"load(?:s|ing|ed)?(?:\s+in)?|mak(?:e|es|ing)\s+use\s+of")
IMPORTS = Role("import", object=False, synonyms=USES)  # "what markdown/core.py imports"
# "which files import markdown/core.py", "files that have an import of .util"
IMPORTED = Role("import", object=True, synonyms=rf"{USES}|(?:an?|have|has)\s+import\s+of|"
                                                 r"import\s+(?:lines?|statements?)\s+(?:for|of)")
PATH = Slot("path", f"({PATH_PATTERN})", role=IMPORTS)
# A module as the code writes it (.util, ..util, markdown.util) or by its file's path.
# ("..x" and "markdown.x" are the task's placeholders for any module, not modules; "what
# it imports from markdown (package)" names the package its imports come from)
MODULE = Slot("module", rf"(?!(?:\.+|markdown\.)[xyz]\b)({PATH_PATTERN}|\.+\w[\w.]*\w|\.+\w|"
                        r"markdown(?:\.\w+)+|(?<!\bfrom\s)markdown(?!\s+package))",
              role=IMPORTED)
LEFT_OUT = Slot(EXCLUDE, f"({PATH_PATTERN})")
FILES = r"files?|modules?|python|\.?py|source|scripts"
PACKAGE = (r"(?:of|from)\s+the\s+(?:markdown\s+)?package|from\s+markdown|"
           r"(?:the\s+)?library's(?:\s+own)?|(?:this\s+|the\s+)?library|near\s+the\s+top|"
           r"(?:the\s+)?markdown\s+(?:package|modules?)|"
           r"package|internal|in-house|intra-package|package-internal|top-level|"
           r"(?:(?:at|in)\s+the\s+)?top(?:\s+level|-level|\s+of)|at\s+the\s+top|verbatim|"
           r"as\s+written|parts\s+of\s+the\s+package|elsewhere(?:\s+in\s+the\s+package)?|"
           r"(?:at\s+)?module(?:\s+|-)level|python-markdown|(?:in\s+its\s+)?opening\s+lines")
QUESTIONS = (
    Question("imports-of-file", "which package modules one file imports",
             Grammar((rf"imports?|imported|importing|{USES}",),
                     (PACKAGE, FILES,
                      r"anything|by|are|of|written|as\s+(?:they\s+)?appear|code|rest|other|pieces|bits|parts"),
                     (PATH,), ("yesno", "count")),
             ("imports-of-path",), or_missing(one_file),
             example="What does markdown/core.py import?"),
    Question("importers", "which files import a given module of the package",
             Grammar((rf"import(?:s|ing|ed)?|{USES}",),
                     (FILES, PACKAGE, r"every|that|who|where|the\s+module|lines?|statements?"),
                     (MODULE,),
                     ("exclude", "not", "count"), LEFT_OUT),
             ("files", "imports[{item}]"), importers, example="Which files import .util?"),
    Question("standalone", "which files import nothing from the package",
             Grammar((r"import(?:s|ing)?\s+nothing|tak(?:e|es|ing)\s+nothing(?:\s+in)?|(?:pull|bring)(?:s|ing)?\s+in\s+nothing|borrow(?:s|ing)?\s+nothing|nothing|no\s+(?:package(?:-internal)?\s+|internal\s+|"
                      r"other\s+|top-level\s+|in-house\s+)*imports?|"
                      r"without\s+(?:a\s+single\s+|any\s+|one\s+)?(?:package\s+|internal\s+)?imports?|"
                      r"without\s+(?:using|importing|bringing\s+in|pulling\s+in|loading)|"
                      r"(?:depend(?:s|ing)?|rel(?:y|ies|ying))\s+on\s+nothing|"
                      r"(?:do\s+not|don'?t)\s+(?:pull\s+in|bring\s+in|use|depend\s+on|rely\s+on|lean\s+on|borrow)|"
                      r"stand(?:s)?\s+alone|self-contained|"
                      r"stand(?:s)?\s+(?:entirely\s+|completely\s+)?on\s+(?:their|its)\s+own(?:\s+two\s+feet)?|"
                      r"zero\s+(?:package\s+|internal\s+|intra-package\s+|top-level\s+)*imports|"
                      r"(?:do\s+not|don'?t|not)\s+import(?:ing)?|(?:use|uses|using)\s+nothing|"
                      r"import(?:ing)?\s+no(?:\s+other)?(?:\s+package)?",),
                     (FILES, PACKAGE, r"anything|markdown|have|module|other|rest|single|"
                                       r"pulled(?:\s+in)?|imported|leaf(?:\s+nodes?)?|leaves|get\s+by|contains?|"
                                       r"parts?"), (),
                     ("exclude", "count"), LEFT_OUT),
             ("files", "imports[{item}]"), standalone,
             example="Which files import nothing from the package?"),
    Question("imports", "the top-level package imports of every Python file",
             Grammar((r"imports?|importing|import\s+map|dependency\s+(?:map|graph)|"
                      r"pull(?:s|ing|ed)?\s+in|brings?\s+in|depend(?:s|ing)?\s+on|borrow(?:s|ing|ed)?|"
                      r"rel(?:y|ies|ying)\s+on|"
                      r"loads?(?=\s+(?:from|at)\b)",), (
                 PACKAGE, FILES, r"as\s+(?:they\s+)?appear|appear", r"map|build|draw|every|each|"
                                                                    r"make|all|file[\s-]+by[\s-]+file|"
                                                                    r"whole|does|it|"
                                 r"report|workspace|here|snapshot|python-markdown|3\.5\.2|\.\.x|"
                                 r"markdown\.x|lines|written|as|code|dependency\s+graph|graph|"
                                 r"dependencies|per|pull(?:s|ed)?|table|write\s+down|rest|at\s+a\s+time|"
                                 r"markdown|per-file|whole|pull(?:s|ed)?\s+in|targets|dependency|picture|"
                                 r"spel(?:led|t)|uses?|bits|parts|pieces|names?|(?:note|jot)\s+down|"
                                 r"put\s+(?:that\s+|this\s+|it\s+)?(?:\w+\s+)?together|sibling(?:\s+modules?)?|"
                                 r"(?:the\s+)?way\s+(?:the\s+code|it|they)\s+(?:writes?|spells?)\s+them")),
             ("files", "imports[{item}]"), compose,
             example="Map the top-level imports of every Python file in this package."),
    Question("files", "which Python files the package holds",
             Grammar((r"files?|modules?|sources?|\.py",), (
                 r"python|\.?py|markdown|python-markdown|package|workspace|here|"
                 r"contains?|holds?|copy|(?:where\s+)?most\s+(?:of\s+the\s+)?code|lives?|"
                 r"hold|are|there|inventory|checkout|vendored|(?:this\s+|the\s+)?library|"
                 r"make\s+up|makes\s+up|comprises?|consists?\s+of|roll\s+call",),
                 (), ("exclude", "count", "largest"), LEFT_OUT),
             ("files", "sizes"), listing, example="List the Python files of this package."),
)


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws)]


def _imported(node: ast.stmt) -> list[str]:
    """The package modules one top-level import statement names, as the task writes
    them: `from . import util` is .util (one module per line: the first name),
    `from ..util import x` is ..util, `import markdown.x` is markdown.x."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return ["." * node.level + (node.module or node.names[0].name)]
        return [node.module] if (node.module or "").split(".")[0] == "markdown" else []
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "markdown"]
    return []


def _imports(root: Path, path: str) -> str:
    """A file's top-level package imports, read with `ast` (an import written inside a
    string or a comment is not one), or "none"."""
    found = [name for node in module_body(root, path) for name in _imported(node)]
    return LIST_SEPARATOR.join(dict.fromkeys(found)) or NONE


def truth(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """Every Python file of the workspace and its top-level package imports."""
    paths = workspace_files(root, ".", ".py")
    facts = dict(slots) | {"files": LIST_SEPARATOR.join(paths)}
    facts["sizes"] = LIST_SEPARATOR.join(f"{p} {(root / p).stat().st_size:,}" for p in paths)
    facts |= {f"imports[{p}]": _imports(root, p) for p in paths}
    if "path" in slots and (root / slots["path"]).is_file():
        facts["imports-of-path"] = _imports(root, slots["path"])
    elif "path" in slots:
        facts[f"{MISSING}path"] = slots["path"]
    return facts


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
    questions=QUESTIONS,
    read_truth=truth,
    # Twice the 49 calls plain `off` makes: a run that re-reads after compactions, or reads
    # its memory back in a turn of its own, still progresses past the settings' 60; one
    # that stops progressing is the loop guard's to stop (loop_guard.py).
    max_turns=98,
)
