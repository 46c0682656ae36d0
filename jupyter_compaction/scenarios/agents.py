"""Scenario "agents": read every file of a small agent codebase, find the dispatch tables.

Twelve Python modules under `agents/` (about 42 KB). Four of them map tool names to
handler functions, each under a different name; the other eight do neighbouring agent
jobs (retries, prompts, memory, logging, storage, rate limits, schemas, the loop itself),
and two of those talk about tools without holding such a table. This is the seed's
"read all files under agents/" task: long enough to need compaction twice at 8k tokens,
and every file read is a finding that a lossy summary can drop.
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
TABLE = r"^([A-Z][A-Z_]+): dict\[str, *(?:Callable|Handler)"  # NAME: dict[str, Callable...]

STEPS = (
    Step("list the {folder}/ folder", "list_files", {"folder": "{folder}"}, (
        Fact("files", r"^(\S+\.py)  [\d,]+ bytes$", many=True),)),
    Step("read {item}", "read_file", {"path": "{item}"}, (
        Fact("table[{item}]", TABLE, default=NONE),), each="files"),
)


def compose(f: Known) -> str:
    """The report: every listed file with the dispatch table it defines (or none)."""
    files = f["files"].split(LIST_SEPARATOR) if "files" in f else []
    if not files:
        return f"Files that define a tool dispatch table: {UNKNOWN}."
    tables = [f"{p} ({f[f'table[{p}]']})" for p in files
              if f[f"table[{p}]"] not in (NONE, UNKNOWN)]
    per_file = "; ".join(f"{p}: {f[f'table[{p}]']}" for p in files)
    return (f"Files that define a tool dispatch table: {', '.join(tables) or NONE}. "
            f"Every file under {f['folder']}/ with its table: {per_file}.")


def make_tools(ws: Workspace) -> list[Callable[..., str]]:
    return [make_list_files(ws), make_read_file(ws)]


SCENARIO = Scenario(
    name="agents",
    title="Find the tool dispatch tables in an agent codebase",
    task=(
        "Read every file under `agents/` and report which ones define a tool dispatch "
        "table (a dict that maps tool names to the functions that handle them). Name each "
        "file and its table."
    ),
    given=(Fact("folder", r"under `?([\w.-]+)/"),),
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
)
