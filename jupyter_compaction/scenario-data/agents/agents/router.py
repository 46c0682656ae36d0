"""Route tool calls from the model to the functions that carry them out.

The model answers with ``tool_use`` blocks; each block names a tool and carries a JSON
object of arguments. ``route_tool_call`` looks the name up, runs the handler and wraps
whatever happens (output or failure) into a ``tool_result`` block for the next request.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

Handler = Callable[[dict[str, Any]], str]

PROJECT_ROOT = Path.cwd()
MAX_OUTPUT_CHARS = 20_000


def _inside_project(raw: str) -> Path:
    path = (PROJECT_ROOT / raw).resolve()
    if not path.is_relative_to(PROJECT_ROOT):
        raise ValueError(f"{raw} is outside the project")
    return path


def handle_read_file(args: dict[str, Any]) -> str:
    path = _inside_project(args["path"])
    text = path.read_text(encoding="utf-8")
    start = int(args.get("offset", 0))
    limit = int(args.get("limit", 400))
    lines = text.splitlines()[start : start + limit]
    return "\n".join(f"{start + i + 1:>5}  {line}" for i, line in enumerate(lines))


def handle_write_file(args: dict[str, Any]) -> str:
    path = _inside_project(args["path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(args["content"], encoding="utf-8")
    return f"wrote {len(args['content'])} characters to {args['path']}"


def handle_search_code(args: dict[str, Any]) -> str:
    query = args["query"]
    hits: list[str] = []
    for file in sorted(PROJECT_ROOT.rglob("*.py")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if query in line:
                hits.append(f"{file.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}")
            if len(hits) >= 50:
                return "\n".join(hits) + "\n(stopped after 50 matches)"
    return "\n".join(hits) or f"no match for {query!r}"


def handle_run_tests(args: dict[str, Any]) -> str:
    target = args.get("target", "tests")
    completed = subprocess.run(
        ["python", "-m", "pytest", "-q", "-x", target],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_ROOT,
    )
    return f"exit code {completed.returncode}\n{completed.stdout[-4000:]}"


# The dispatch table: tool name (as the model spells it) -> handler.
TOOL_HANDLERS: dict[str, Handler] = {
    "read_file": handle_read_file,
    "write_file": handle_write_file,
    "search_code": handle_search_code,
    "run_tests": handle_run_tests,
}


def route_tool_call(block: dict[str, Any]) -> dict[str, Any]:
    """Run one tool_use block and return the matching tool_result block."""
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block["id"]}
    handler = TOOL_HANDLERS.get(block["name"])
    if handler is None:
        known = ", ".join(sorted(TOOL_HANDLERS))
        return {**result, "is_error": True, "content": f"unknown tool; known: {known}"}
    try:
        output = handler(block.get("input") or {})
    except KeyError as exc:
        return {**result, "is_error": True, "content": f"missing argument {exc.args[0]!r}"}
    except Exception as exc:  # noqa: BLE001 - the model should see every failure
        return {**result, "is_error": True, "content": f"{type(exc).__name__}: {exc}"}
    if len(output) > MAX_OUTPUT_CHARS:
        dropped = len(output) - MAX_OUTPUT_CHARS
        output = output[:MAX_OUTPUT_CHARS] + f"\n[{dropped} characters cut]"
    return {**result, "content": output}


def route_all(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answer every tool_use block of one assistant turn, in order."""
    return [route_tool_call(b) for b in blocks if b.get("type") == "tool_use"]


if __name__ == "__main__":
    demo = {"type": "tool_use", "id": "toolu_01", "name": "search_code", "input": {"query": "def "}}
    print(json.dumps(route_tool_call(demo), indent=2)[:800])
