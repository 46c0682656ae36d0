"""Plain data across the sandbox's pipe: what a case gives the learner's function and what
the function gives back.

`encode(value)` turns a value into JSON-ready data and `decode(data)` turns it back into
exactly the same types: `None`, `bool`, `int`, `float`, `str`, `list`, `tuple`, `dict`
(keys of those scalar types) and the library's shapes the exercises pass (`Usage`,
`ReplayTurn`, and the counters `TokenCounter` and `FixedCounter`, by encoding name, with
the texts they have counted and their counts: the grader hands a learner's function a
counter that has counted the case's request, so the worker counts that request without
building tiktoken's encoder, about half a second of CPU; the grader itself never takes
counts from a worker, see `decode`).
Anything else is `NotPlainData`, so a learner's function cannot return an object whose
`__eq__` always says yes: the grader compares only values it rebuilt itself, type by type.
An exception crosses as `one_line(exc)`, its type and the first line of its message.

Each value is one line of JSON (`dumps`, `loads`), written and read by the C parts of
the standard library's json (`_json`), as `json.dumps` and `json.loads` use them, without
importing json: `import json` imports `re` and compiles its patterns, about 15 ms of CPU
at every worker's start.

Left out: sets, bytes, numpy values and other shapes no exercise takes or returns (the
learner copy says what each function returns).
"""

from __future__ import annotations

import importlib
import math
import sys

try:  # json's C parts: every CPython has them, and only the sandbox's pipe uses them
    from _json import encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # a build without them (a browser's Python), where check() needs none
    encode_basestring_ascii = make_encoder = make_scanner = None

TYPE_CHECKING = False  # not typing's: importing typing costs every sandboxed worker's start
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 60  # nested lists/dicts deeper than this are not an exercise's data
MAX_BYTES = 8_000_000  # a reply longer than this is refused before decoding
SCALARS = (type(None), bool, int, str)
COUNTERS = {"TokenCounter": "jupyter_compaction.tokens",
            "FixedCounter": "jupyter_compaction.grading.counters"}  # rebuilt by encoding name
SHAPES = {"Usage": "jupyter_compaction.models.base",  # rebuilt from their fields; each
          "ReplayTurn": "jupyter_compaction.replay_turn"}  # module imported by its own decode
TAG = "$"  # {"$": kind, "v": ...} for every value JSON cannot tell apart itself


class NotPlainData(TypeError):
    """A value that cannot cross the sandbox's pipe."""


def _shape(name: Any, load: bool) -> type | None:
    """The library's class `name` (`SHAPES`), or None: its module is imported only when
    `load` (decoding), since a value of the class means the module is imported already."""
    module = SHAPES.get(name) if isinstance(name, str) else None
    if module is None:
        return None
    found = importlib.import_module(module) if load else sys.modules.get(module)
    return getattr(found, name, None)


def encode(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-ready data that `decode` turns back into the same types."""
    if depth > MAX_DEPTH:
        raise NotPlainData("the value is nested too deeply")
    kind = type(value)
    if kind in SCALARS:
        return value
    if kind is float:
        return value if math.isfinite(value) else {TAG: "float", "v": repr(value)}
    if kind is list:
        return [encode(v, depth + 1) for v in value]
    if kind is tuple:
        return {TAG: "tuple", "v": [encode(v, depth + 1) for v in value]}
    if kind is dict:
        return {TAG: "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)]
                                  for k, v in value.items()]}
    name = kind.__name__
    if _shape(name, load=False) is kind:
        return {TAG: name, "v": encode(dict(vars(value)), depth + 1)}
    if name in COUNTERS and kind.__module__ == COUNTERS[name]:
        return {TAG: name, "v": value.encoding_name, "counted": list(value.counted().items())}
    raise NotPlainData(f"a {name} is not plain data (return lists, dicts, tuples, str, "
                       "int, float, bool or None)")


def decode(data: Any, counts: bool = False) -> Any:
    """The value `encode` was given (the same types, rebuilt here). A counter keeps the
    counts it was sent only with `counts`: the worker trusts the grader's counts, the
    grader never trusts a worker's (a counter it gets back counts for itself)."""
    if isinstance(data, list):
        return [decode(v, counts) for v in data]
    if not isinstance(data, dict):
        return data
    kind, inner = data.get(TAG), data.get("v")
    if kind == "float":
        return float(inner)
    if kind == "tuple":
        return tuple(decode(v, counts) for v in inner)
    if kind == "dict":
        return {_key(decode(k, counts)): decode(v, counts) for k, v in inner}
    if kind in COUNTERS:
        counter = getattr(importlib.import_module(COUNTERS[kind]), kind)
        return counter(str(inner), counted=_counted(data.get("counted")) if counts else None)
    shape = _shape(kind, load=True)
    if shape is not None:
        return shape(**decode(inner))
    raise NotPlainData(f"unknown data kind {kind!r}")


def _counted(pairs: Any) -> dict[str, int]:
    """A counter's `[[text, count], ...]` as a dict, each text a str and each count an int."""
    counted = {}
    for text, count in pairs or ():
        if type(text) is not str or type(count) is not int:
            raise NotPlainData("a counted text must be a str and its count an int")
        counted[text] = count
    return counted


def _key(key: Any) -> Any:
    if type(key) not in (*SCALARS, float, tuple):
        raise NotPlainData(f"a {type(key).__name__} cannot be a dict key here")
    return key


def one_line(exc: BaseException) -> str:
    """`TypeError: message` on one line (the first line of the message)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _not_json(value: Any) -> Any:
    raise TypeError(f"a {type(value).__name__} is not JSON")


class _Reading:
    """What json's C scanner reads from its context: `json.loads`'s defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int

    def parse_constant(self, name: str) -> float:  # NaN, Infinity, -Infinity
        return float(name)


def dumps(value: Any) -> str:
    """One line of JSON (no newline inside) for the pipe: `json.dumps(value,
    separators=(",", ":"))`, by the same C encoder."""
    write = make_encoder({}, _not_json, encode_basestring_ascii, None, ":", ",", False, False,
                         True)
    return "".join(write(value, 0))


def loads(line: bytes | str) -> Any:
    """The JSON value of one line (UTF-8), as `json.loads` reads it, by the same C
    scanner; ValueError where the line is not one JSON value."""
    if len(line) > MAX_BYTES:
        raise NotPlainData(f"the reply is over {MAX_BYTES:,} bytes")
    text = (line.decode("utf-8") if isinstance(line, bytes) else line).strip(" \t\n\r")
    try:
        value, end = make_scanner(_Reading())(text, 0)
    except StopIteration:
        raise ValueError("not a JSON value") from None
    if end != len(text):
        raise ValueError("more than one JSON value")
    return value
