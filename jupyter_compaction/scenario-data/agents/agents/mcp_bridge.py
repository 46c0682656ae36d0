"""Expose local Python functions as tools over a minimal MCP-style JSON-RPC channel.

Functions join the registry through the ``@register`` decorator. The bridge answers
``tools/list`` with their descriptions and ``tools/call`` by running the registered
function. Messages arrive one JSON object per line on stdin; replies go to stdout.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

JSONRPC = "2.0"
PROTOCOL_VERSION = "2024-11-05"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601

# Filled by @register below: tool name -> the function that implements it.
HANDLER_REGISTRY: dict[str, Callable[..., Any]] = {}


def register(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in HANDLER_REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        HANDLER_REGISTRY[name] = fn
        return fn

    return decorate


@register("current_time")
def current_time(timezone: str = "UTC") -> str:
    """Return the current time in ISO 8601 (only UTC is supported)."""
    if timezone != "UTC":
        raise ValueError("only UTC is supported")
    return datetime.now(UTC).isoformat(timespec="seconds")


@register("word_count")
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


@register("json_query")
def json_query(document: str, path: str) -> Any:
    """Follow a dotted path (a.b.0.c) into a JSON document and return what is there."""
    value: Any = json.loads(document)
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def describe(name: str, fn: Callable[..., Any]) -> dict[str, Any]:
    params = inspect.signature(fn).parameters
    required = [p for p, spec in params.items() if spec.default is inspect.Parameter.empty]
    props = {p: {"type": "string"} for p in params}
    schema = {"type": "object", "properties": props, "required": required}
    return {"name": name, "description": inspect.getdoc(fn) or name, "inputSchema": schema}


def handle(message: dict[str, Any]) -> dict[str, Any] | None:
    """Answer one JSON-RPC request; notifications (no id) get no answer."""
    if "id" not in message:
        return None
    reply: dict[str, Any] = {"jsonrpc": JSONRPC, "id": message["id"]}
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        info = {"name": "local-tools", "version": "0.3.1"}
        reply["result"] = {
            "protocolVersion": PROTOCOL_VERSION,
            "serverInfo": info,
            "capabilities": {"tools": {}},
        }
    elif method == "tools/list":
        tools = [describe(n, f) for n, f in sorted(HANDLER_REGISTRY.items())]
        reply["result"] = {"tools": tools}
    elif method == "tools/call":
        fn = HANDLER_REGISTRY.get(params.get("name", ""))
        if fn is None:
            reply["error"] = {"code": INVALID_PARAMS, "message": "unknown tool"}
            return reply
        try:
            value = fn(**params.get("arguments", {}))
            content = [{"type": "text", "text": json.dumps(value)}]
            reply["result"] = {"content": content, "isError": False}
        except Exception as exc:  # noqa: BLE001 - tool errors are results, not crashes
            content = [{"type": "text", "text": f"{type(exc).__name__}: {exc}"}]
            reply["result"] = {"content": content, "isError": True}
    else:
        reply["error"] = {"code": METHOD_NOT_FOUND, "message": f"no method {method}"}
    return reply


def serve(stream_in=sys.stdin, stream_out=sys.stdout) -> None:
    for line in stream_in:
        if not line.strip():
            continue
        answer = handle(json.loads(line))
        if answer is not None:
            stream_out.write(json.dumps(answer) + "\n")
            stream_out.flush()


if __name__ == "__main__":
    serve()
