"""Helpers for the scenarios' independent ground truth: careful readers of workspace files.

A scenario's `truth` reads its files the way a careful engineer would, with ordinary
Python (json, ast, line-by-line parsing), and is written apart from the model's steps and
extractors: so a plan or extractor mistake of the model is graded wrong. It skips the
decoys such an engineer would skip: a copy marked superseded or not deployed, commented-out
code, an import written inside a string.

Left out: general YAML (only the indented key/value subset the bundled configs use).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

DECOY_MARKS = ("SUPERSEDED", "NOT DEPLOYED", "DO NOT USE")  # a header that retires a copy
HEADER_LINES = 5  # a retired copy says so in its first lines
PARSED_SOURCES = 512  # parsed files kept: every run grades its files again, unchanged


def files(root: Path, folder: str = ".", suffix: str = "") -> list[str]:
    """Workspace-relative paths of the files under `folder`, sorted, as list_files shows."""
    base = (root / folder).resolve()
    return sorted(p.relative_to(root.resolve()).as_posix() for p in base.rglob(f"*{suffix}")
                  if p.is_file() and "__pycache__" not in p.parts)


def retired(text: str) -> bool:
    """Whether a file's header marks it as a retired copy (superseded, not deployed)."""
    head = "\n".join(text.splitlines()[:HEADER_LINES]).upper()
    return any(mark in head for mark in DECOY_MARKS)


def live(root: Path, candidates: list[str]) -> str | None:
    """The one candidate file that is not a retired copy (the first, if several)."""
    found = [p for p in candidates if not retired((root / p).read_text())]
    return found[0] if found else None


def yaml_value(text: str, *keys: str) -> str | None:
    """The scalar at `keys` in an indented `key: value` file (comments dropped)."""
    depth, want, indents = 0, list(keys), []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip() or ":" not in line:
            continue
        indent = len(line) - len(line.lstrip())
        while indents and indent <= indents[-1]:
            indents.pop()
            depth -= 1
        key, _, value = line.strip().partition(":")
        if depth < len(want) and key.strip().strip("\"'") == want[depth]:
            if depth == len(want) - 1:
                return value.strip().strip("\"'") or None
            indents.append(indent)
            depth += 1
    return None


def find(data: object, key: str) -> object | None:
    """The first value stored under `key` anywhere in a parsed JSON document (document
    order), or None."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        items = list(data.values())
    elif isinstance(data, list):
        items = data
    else:
        return None
    for item in items:
        if (found := find(item, key)) is not None:
            return found
    return None


def module_body(root: Path, path: str) -> tuple[ast.stmt, ...]:
    """The top-level statements of a Python file (empty if it does not parse); read-only,
    since an unchanged text shares its parse with earlier calls."""
    return _parsed((root / path).read_text())


@functools.lru_cache(maxsize=PARSED_SOURCES)
def _parsed(source: str) -> tuple[ast.stmt, ...]:
    try:
        return tuple(ast.parse(source).body)
    except SyntaxError:
        return ()
