"""Scenario "agents": read every file of a small agent codebase, find the dispatch tables.

Twelve Python modules under `agents/` (about 42 KB). Four of them map tool names to
handler functions, each under a different name; the other eight do neighbouring agent
jobs (retries, prompts, memory, logging, storage, rate limits, schemas, the loop itself),
and two of those talk about tools without holding such a table. This is the seed's
"read all files under agents/" task: long enough to need compaction twice at 8k tokens,
and every file read is a finding that a lossy summary can drop.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from pathlib import Path

from jupyter_compaction.scenarios.base import (
    EXCLUDE,
    LIST_SEPARATOR,
    Fact,
    Known,
    Question,
    Scenario,
    Step,
    make_list_files,
    make_read_file,
)
from jupyter_compaction.scenarios.truth import files as workspace_files
from jupyter_compaction.scenarios.truth import module_body
from jupyter_compaction.vocab import UNKNOWN
from jupyter_compaction.workspace import Workspace

NONE = "none"
# Each concept a file can define: its name, how a task names it (synonyms), its fact's
# prefix and the extractor that finds it in a file's text.
CONCEPTS = (
    ("tool dispatch table", r"dispatch|tool (?:table|registry|map)|maps? tool names|handler "
     r"(?:table|registry)|routing table", "table",
     r"^([A-Z][A-Z_]+): dict\[str, *(?:Callable|Handler)"),  # NAME: dict[str, Callable...]
    ("retry policy", r"retr(?:y|ies)|back-?off", "retry", r"^class (\w*Retry\w*)"),
)
FOLDER = Fact("folder", r"(?i)\b(?:(?:under|in|inside|within|from|of|across)\s+(?:the\s+)?|"
                        r"the\s+)`?([\w.-]+)/")
PATH = Fact("path", r"(?i)\b(?:does|is|in|of|file|inside|check|read)\s+`?([\w.-]+/[\w./-]+\.py)\b")
EXCLUDING = Fact(EXCLUDE, r"(?i)\b(?:except(?: for)?|excluding|ignor(?:e|ing)|skip(?:ping)?|"
                 r"without|leav(?:e|ing) out|but not)\s+`?([\w.-]+/[\w./-]+\.py)", many=True)
LISTING = r"\b(?:list|which|what|enumerate|inventory|name)\b"  # asking for the files themselves

STEPS = (
    Step("list the {folder}/ folder", "list_files", {"folder": "{folder}"}, (
        Fact("files", r"^(\S+\.py)  [\d,]+ bytes$", many=True),)),
    Step("read {item}", "read_file", {"path": "{item}"}, tuple(
        Fact(f"{prefix}[{{item}}]", pattern, default=NONE) for *_, prefix, pattern in CONCEPTS),
        each="files"),
    Step("read {path}", "read_file", {"path": "{path}"}, tuple(
        Fact(f"{prefix}-of-path", pattern, default=NONE) for *_, prefix, pattern in CONCEPTS)),
)


def _files(f: Known) -> list[str]:
    """The listed files, less those the task leaves out."""
    left_out = set(f[EXCLUDE].split(LIST_SEPARATOR)) if EXCLUDE in f else set()
    return [p for p in f["files"].split(LIST_SEPARATOR) if p not in left_out] \
        if "files" in f else []


def _which_files(concept: str, prefix: str) -> Callable[[Known], str]:
    def compose(f: Known) -> str:
        """Every listed file with the `concept` it defines (or none)."""
        files = _files(f)
        if not files:
            return f"Files that define a {concept}: {UNKNOWN}."
        found = [f"{p} ({f[f'{prefix}[{p}]']})" for p in files
                 if f[f"{prefix}[{p}]"] not in (NONE, UNKNOWN)]
        per_file = "; ".join(f"{p}: {f[f'{prefix}[{p}]']}" for p in files)
        return (f"Files that define a {concept}: {', '.join(found) or NONE}. "
                f"Every file under {f['folder']}/ with its {concept}: {per_file}.")

    return compose


def _one_file(concept: str, prefix: str) -> Callable[[Known], str]:
    def compose(f: Known) -> str:
        """The `concept` one file defines (or none)."""
        return f"The {concept} that {f['path']} defines: {f[f'{prefix}-of-path']}."

    return compose


def list_files(f: Known) -> str:
    """The Python files under the folder."""
    files = _files(f)
    return (f"Python files under {f['folder']}/ ({len(files) if files else UNKNOWN}): "
            f"{', '.join(files) or UNKNOWN}.")


compose = _which_files(*CONCEPTS[0][::2])  # the full task: the dispatch tables
QUESTIONS = (
    *(Question(f"{prefix}-of-file", f"which {concept} one file defines", (synonyms,),
               (f"{prefix}-of-path",), _one_file(concept, prefix), slots=(PATH,),
               example=f"Does agents/router.py define a {concept}?")
      for concept, synonyms, prefix, _ in CONCEPTS),
    *(Question(f"{prefix}-files", f"which files under a folder define a {concept}, "
               "optionally leaving some out", (synonyms,), ("files", f"{prefix}[{{item}}]"),
               _which_files(concept, prefix), slots=(FOLDER,), optional=(EXCLUDING,),
               example=f"Which files in agents/ define a {concept}?")
      for concept, synonyms, prefix, _ in CONCEPTS),
    Question("files", "which Python files a folder holds", (LISTING, r"\bfiles?\b|modules?"),
             ("files",), list_files, slots=(FOLDER,), optional=(EXCLUDING,),
             example="List the Python files under agents/."),
)


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws)]


def _is_table(node: ast.stmt) -> str | None:
    """The name of a top-level `NAME: dict[str, Callable[...] | Handler] = ...`."""
    if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
            and node.target.id.isupper() and isinstance(node.annotation, ast.Subscript)
            and ast.unparse(node.annotation.value) == "dict"):
        return None
    pair = node.annotation.slice
    if not (isinstance(pair, ast.Tuple) and len(pair.elts) == 2):
        return None
    key, value = (ast.unparse(e) for e in pair.elts)
    return node.target.id if key == "str" and value.startswith(("Callable", "Handler")) else None


def _is_retry(node: ast.stmt) -> str | None:
    return node.name if isinstance(node, ast.ClassDef) and "Retry" in node.name else None


FINDERS = {"table": _is_table, "retry": _is_retry}


def _defines(root: Path, path: str, prefix: str) -> str:
    """What a file defines of a concept, read with `ast` (strings and comments are not
    code), or "none"."""
    found = [name for node in module_body(root, path) if (name := FINDERS[prefix](node))]
    return found[0] if found else NONE


def truth(root: Path, slots: Mapping[str, str]) -> dict[str, str]:
    """Each Python file of the folder, and what each defines, read with `ast`."""
    facts = dict(slots)
    if "folder" in slots and (root / slots["folder"]).is_dir():
        paths = workspace_files(root, slots["folder"], ".py")
        facts["files"] = LIST_SEPARATOR.join(paths)
        facts |= {f"{prefix}[{p}]": _defines(root, p, prefix) for p in paths
                  for prefix in FINDERS}
    if "path" in slots and (root / slots["path"]).is_file():
        facts |= {f"{prefix}-of-path": _defines(root, slots["path"], prefix)
                  for prefix in FINDERS}
    return facts


SCENARIO = Scenario(
    name="agents",
    title="Find the tool dispatch tables in an agent codebase",
    task=(
        "Read every file under `agents/` and report which ones define a tool dispatch "
        "table (a dict that maps tool names to the functions that handle them). Name each "
        "file and its table."
    ),
    given=(),
    steps=STEPS,
    must_keep=(
        "agents/browser_tools.py",
        "ACTION_TABLE",
        "agents/mcp_bridge.py",
        "HANDLER_REGISTRY",
        "agents/router.py",
        "TOOL_HANDLERS",
        "agents/shell_agent.py",
        "DISPATCH",
    ),
    compose=compose,
    make_tools=make_tools,
    questions=QUESTIONS,
    read_truth=truth,
)
