"""Load real agent sessions into the engine: `sessions.load(path)` reads, by content, any
format an importer of this package registers (`registry.py`): today a Claude Code session
log and a Codex CLI rollout (JSON Lines), and an OpenAI Chat Completions or Anthropic
Messages message list (JSON).

It returns a `RecordedSession`: `.segments` (valid histories between the session's own
compactions), `.compactions`, `.usage` (reported per call), `.tools` and `.warnings`.
Problems in the file (damaged lines, unknown entries, a truncated end) are counted into a
few warning lines, a list rather than Python warnings so that a caller can show, count or
test them; nothing else of the file is lost. A file that cannot be a session (missing, a
directory, a FIFO or device, over the size limit, no known format) raises
`SessionFormatError`, a `ValueError` whose message is one line. `shipped()` lists the real
sessions that come with the package (see `data/README.md`).

Left out: writing sessions back.
"""

from __future__ import annotations

import importlib
import io
import itertools
import pkgutil
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from .base import (
    MAX_BYTES,
    Problems,
    RecordedSession,
    ReportedUsage,
    SessionCompaction,
    SessionFormatError,
    Utf8Lines,
    encoding_of,
    open_regular,
    parse_json,
    read_lines,
    shown,
)
from .registry import IMPORTERS, Importer, formats_help, of_kind, register

T = TypeVar("T")

DATA = "data"
SNIFF_LINES = 50  # the first objects of a JSON Lines file an importer sees to recognise it
RENAMED = {"Session": "RecordedSession", "Usage": "ReportedUsage"}  # an earlier round's names
_NOT_IMPORTERS = ("base", "registry")

for _module in pkgutil.iter_modules(__path__):
    if _module.name not in _NOT_IMPORTERS:
        importlib.import_module(f"{__name__}.{_module.name}")


def load(path: str | Path, max_bytes: int = MAX_BYTES) -> RecordedSession:
    """The session in the file at `path` (a regular file of at most `max_bytes`)."""
    path = Path(path)
    with open_regular(path, max_bytes) as stream:
        return _read(stream, shown(path))


def loads(text: str, source: str = "") -> RecordedSession:
    """A session from the text of a log or message file; the format is read from it."""
    return _read(io.BufferedReader(io.BytesIO(text.encode("utf-8", errors="replace"))),
                 shown(source))


def _read(stream: io.BufferedReader, source: str) -> RecordedSession:
    problems = Problems()
    encoding = encoding_of(stream.peek(4)[:4])
    if encoding != "utf-8":  # a byte-order mark, or UTF-16/32: read it as UTF-8
        stream = Utf8Lines(stream, encoding)
    head = list(itertools.islice(stream, SNIFF_LINES))
    first = next((ln for ln in head if ln and not ln.isspace()), b"").lstrip()
    if first.startswith(b"[") or (first.startswith(b"{") and _a_document(first)):
        session = _read_document(b"".join(head) + stream.read(), source, problems)
    else:
        del first
        rest = len(head) + 1
        parsed = list(read_lines(_drained(head), problems))  # each line let go as it is read
        importer = _one_of(of_kind("jsonl"), [e for _, e in parsed], source)
        lines = itertools.chain(_drained(parsed), read_lines(stream, problems, rest))
        session = importer.load(lines, source, problems)
    session.warnings = problems.lines()
    return session


def _drained(lines: list[T]) -> Iterator[T]:
    """The items of `lines`, each let go as it is taken (a long first line is not held
    for the rest of the load)."""
    lines.reverse()
    while lines:
        yield lines.pop()


def _a_document(line: bytes) -> bool:
    """Whether a first line starting with "{" begins one JSON document rather than JSON
    Lines: it is not a whole object, or only a document importer recognises it."""
    value, why = parse_json(line)
    if why:
        return True
    return (any(i.sniff(value) for i in of_kind("json"))
            and not any(i.sniff([value]) for i in of_kind("jsonl")))


def _read_document(data: bytes, source: str, problems: Problems) -> RecordedSession:
    document, why = parse_json(data.decode("utf-8", errors="replace"))
    if why:
        raise SessionFormatError(f"{source or 'input'}: {why}; pass a message list or a "
                                 "session log")
    return _one_of(of_kind("json"), document, source).load(document, source, problems)


def _one_of(importers: list[Importer], sample: Any, source: str) -> Importer:
    found = [i for i in importers if i.sniff(sample)]
    if len(found) == 1:
        return found[0]
    what = "more than one format" if found else "no known format"
    raise SessionFormatError(f"{source or 'input'}: {what}; pass {formats_help()}")


def shipped() -> list[Path]:
    """The real session logs bundled with the package, smallest first."""
    folder = resources.files(__name__).joinpath(DATA)
    return sorted((Path(str(f)) for f in folder.iterdir() if f.name.endswith(".jsonl")),
                  key=lambda p: p.stat().st_size)


def __getattr__(name: str) -> Any:
    """An old name is an error that names the new one (its deprecation period is over)."""
    if name in RENAMED:
        raise AttributeError(f"sessions.{name} is now sessions.{RENAMED[name]}: use that name")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["IMPORTERS", "MAX_BYTES", "RecordedSession", "ReportedUsage", "SessionCompaction",
           "SessionFormatError", "formats_help", "load", "loads", "register", "shipped", "shown"]
