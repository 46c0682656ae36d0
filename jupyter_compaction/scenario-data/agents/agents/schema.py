"""Describe Python functions as JSON-schema tool definitions for the Messages API.

Only simple parameters are supported: str, int, float, bool and lists of those, plus
``X | None`` for optional values. The first paragraph of the docstring becomes the tool
description, and ``:param name:`` lines become parameter descriptions.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
PARAM_LINE = re.compile(r":param\s+(\w+):\s*(.+)")
NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class SchemaError(TypeError):
    """The function cannot be described as a tool; the message names the parameter."""


def json_type(annotation: Any, where: str) -> dict[str, Any]:
    if annotation in PRIMITIVES:
        return {"type": PRIMITIVES[annotation]}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (list, Iterable) and len(args) == 1:
        return {"type": "array", "items": json_type(args[0], where)}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return json_type(rest[0], where)
    raise SchemaError(f"{where}: unsupported annotation {annotation!r}")


def split_docstring(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    doc = inspect.getdoc(fn) or ""
    summary = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    params = {m.group(1): m.group(2).strip() for m in PARAM_LINE.finditer(doc)}
    return summary, params


def function_to_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """The tool definition (name, description, input_schema) of ``fn``."""
    name = fn.__name__
    if not NAME_RULE.match(name):
        raise SchemaError(f"tool name {name!r} does not match {NAME_RULE.pattern}")
    hints = typing.get_type_hints(fn)
    summary, param_docs = split_docstring(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise SchemaError(f"{name}: *args and **kwargs cannot be described")
        prop = json_type(hints.get(pname, str), f"{name}({pname})")
        if pname in param_docs:
            prop["description"] = param_docs[pname]
        if param.default is inspect.Parameter.empty:
            required.append(pname)
        else:
            prop["default"] = param.default
        properties[pname] = prop
    return {
        "name": name,
        "description": summary or name.replace("_", " "),
        "input_schema": {"type": "object", "properties": properties, "required": required},
    }


def schemas_for(functions: Iterable[Callable[..., Any]]) -> list[dict[str, Any]]:
    """Definitions for several functions, refusing two tools with the same name."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for fn in functions:
        schema = function_to_schema(fn)
        if schema["name"] in seen:
            raise SchemaError(f"two tools are named {schema['name']!r}")
        seen.add(schema["name"])
        out.append(schema)
    return out
