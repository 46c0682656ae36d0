"""Scenario "agents": read every file of a small agent codebase, find the dispatch tables.

Twelve Python modules under `agents/` (about 42 KB). Four of them map tool names to
handler functions, each under a different name; the other eight do neighbouring agent
jobs (retries, prompts, memory, logging, storage, rate limits, schemas, the loop itself),
and two of those talk about tools without holding such a table. This is the seed's
"read all files under agents/" task: long enough to need compaction twice at 8k tokens,
and every file read is a finding that a lossy summary can drop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from jupyter_compaction.scenarios.base import Scenario, Step, make_list_files, make_read_file
from jupyter_compaction.workspace import Workspace

# (file name, distinctive name it defines, is it a dispatch table, what the file does)
FILES = [
    ("browser_tools.py", "ACTION_TABLE", True, "maps browser tool names to page actions"),
    ("logging_setup.py", "JsonLineFormatter", False, "writes JSON log lines, secrets masked"),
    ("loop.py", "run_agent_loop", False, "runs the agent loop with an injected executor"),
    ("mcp_bridge.py", "HANDLER_REGISTRY", True, "maps MCP tool names to functions, via @register"),
    ("memory.py", "ConversationMemory", False, "keeps a window of recent whole turns"),
    ("prompts.py", "render_system_prompt", False, "fills the system prompt template"),
    ("rate_limiter.py", "TokenBucket", False, "limits requests and tokens per minute"),
    ("retry.py", "with_backoff", False, "retries passing failures with backoff"),
    ("router.py", "TOOL_HANDLERS", True, "maps tool_use names to handler functions"),
    ("schema.py", "function_to_schema", False, "derives tool schemas from signatures"),
    ("session_store.py", "SessionStore", False, "stores sessions and messages in SQLite"),
    ("shell_agent.py", "DISPATCH", True, "maps shell tool names to allow-listed commands"),
]
LIST_ID = "list-agents"


def _fact(name: str, symbol: str, positive: bool, does: str) -> str:
    if positive:
        return f"agents/{name} defines a tool dispatch table ({symbol}) that {does}"
    return f"agents/{name} defines {symbol} ({does}); no tool dispatch table"


def _read_id(name: str) -> str:
    return "read-" + name.removesuffix(".py").replace("_", "-")


# step id -> (path, symbol, defines a dispatch table)
READS = {_read_id(name): (f"agents/{name}", symbol, table) for name, symbol, table, _ in FILES}

STEPS = (
    Step(
        id=LIST_ID,
        label="list the agents/ folder",
        tool="list_files",
        args={"folder": "agents"},
        fact=f"12 files under agents/: {', '.join(name for name, *_ in FILES)}",
        markers=("12 files under agents/",),
    ),
    *(
        Step(
            id=_read_id(name),
            label=f"read agents/{name}",
            tool="read_file",
            args={"path": f"agents/{name}"},
            fact=_fact(name, symbol, positive, does),
            markers=(symbol,),
        )
        for name, symbol, positive, does in FILES
    ),
)


def compose(facts: Mapping[str, str]) -> str:
    """The report, from the files whose findings are visible."""
    read = [step_id for step_id in READS if step_id in facts]
    found = sorted(READS[step_id][:2] for step_id in read if READS[step_id][2])
    if LIST_ID in facts:
        opening = f"Read {len(read)} of the {len(FILES)} files under agents/."
    else:
        opening = f"Read {len(read)} files under agents/."
    if not found:
        return f"{opening} None of them defines a tool dispatch table."
    tables = ", ".join(f"{path} ({symbol})" for path, symbol in found)
    others = len(read) - len(found)
    return (
        f"{opening} Files that define a tool dispatch table: {tables}. "
        f"The other {others} files do not."
    )


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
    steps=STEPS,
    must_keep=(
        "12 files",
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
