"""Tools from plain Python functions: schema from type hints, errors as tool results.

A tool is an ordinary function with type hints and a docstring. `tool_schema()` turns
it into the `{"name", "description", "input_schema"}` dict the Messages API expects, and
`Toolbox.call()` runs one `tool_use` block and always returns a `tool_result` block: an
exception becomes `is_error: true` with a one-line message, so a failing tool never ends
the run.

Left out: nested object parameters, enums and per-parameter descriptions (the first
docstring paragraph describes the tool; parameters are described by their names and
types). Async tools are not supported.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

MAX_RESULT_CHARS = 60_000  # a single tool result longer than this is truncated with a note

_NOTE = "\n… [{} more characters truncated]"
_TRUNCATED = re.compile(r"\n… \[(\d+) more characters truncated\]\Z")
_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


class ToolError(Exception):
    """Raised by a tool for bad input; its message is what the model sees."""


def _json_type(annotation: Any) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, Iterable) or annotation in (list, tuple):
        args = typing.get_args(annotation)
        item = _json_type(args[0]) if args else {}
        return {"type": "array", "items": item}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(options[0]) if len(options) == 1 else {}
    if origin is dict or annotation is dict:
        return {"type": "object"}
    return {"type": _JSON_TYPES[annotation]} if annotation in _JSON_TYPES else {}


def tool_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """The Messages-API tool definition of `fn`, derived from its signature and docstring."""
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        properties[name] = _json_type(hints.get(name, str))
        if param.default is inspect.Parameter.empty:
            required.append(name)
    doc = inspect.getdoc(fn) or fn.__name__
    return {
        "name": fn.__name__,
        "description": doc.split("\n\n")[0].replace("\n", " "),
        "input_schema": {"type": "object", "properties": properties, "required": required},
    }


def truncate(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """Cut `text` to `limit` characters, saying how many were left out.

    Text this function already cut is cut again from its body, and the note counts the
    characters left out both times, so it always gives the true total.
    """
    found = _TRUNCATED.search(text)
    body, hidden = (text[:found.start()], int(found.group(1))) if found else (text, 0)
    if len(body) <= limit:
        return text
    return body[:limit] + _NOTE.format(len(body) - limit + hidden)


def cut_chars(text: str) -> int:
    """How many characters `truncate` left out of `text` (0 for text it did not cut)."""
    found = _TRUNCATED.search(text)
    return int(found.group(1)) if found else 0


def kept_chars(text: str) -> int:
    """How many characters of `text` came through `truncate` (all of an uncut text)."""
    found = _TRUNCATED.search(text)
    return found.start() if found else len(text)


class Toolbox:
    """A set of tools by name, with their schemas, that turns calls into results."""

    def __init__(self, functions: Iterable[Callable[..., Any]] = ()):
        self.functions: dict[str, Callable[..., Any]] = {}
        self._schemas: list[dict[str, Any]] | None = None
        for fn in functions:
            self.add(fn)

    def add(self, fn: Callable[..., Any]) -> None:
        self.functions[fn.__name__] = fn
        self._schemas = None

    @property
    def schemas(self) -> list[dict[str, Any]]:
        """The tool definitions, derived once (the agent sends them every turn)."""
        if self._schemas is None:
            self._schemas = [tool_schema(fn) for fn in self.functions.values()]
        return self._schemas

    def call(self, block: dict[str, Any]) -> dict[str, Any]:
        """Run one `tool_use` block; return its `tool_result` block (never raises)."""
        result = {"type": "tool_result", "tool_use_id": block.get("id", "")}
        name = block.get("name", "")
        fn = self.functions.get(name) if isinstance(name, str) else None
        if fn is None:
            known = ", ".join(sorted(self.functions)) or "none"
            return {**result, "content": f"Unknown tool {block.get('name')!r}; tools: {known}.",
                    "is_error": True}
        args = block.get("input") or {}
        try:
            inspect.signature(fn).bind(**args)
        except TypeError as exc:
            message = f"Bad arguments for {fn.__name__}: {exc}"
            return {**result, "content": message, "is_error": True}
        try:
            output = fn(**args)
        except Exception as exc:  # a tool's failure is the model's information, not a crash
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return {**result, "content": f"{type(exc).__name__}: {message}", "is_error": True}
        return {**result, "content": truncate(output if isinstance(output, str) else str(output))}
