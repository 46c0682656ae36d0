"""The importers: one per file format, each registered by its own module.

An importer says what it reads (`label`, for help texts and errors), how its files are
laid out (`kind`: "jsonl", one JSON object per line, or "json", one document), how to
recognise one (`sniff`: given the first objects of a JSON Lines file, or the parsed
document), and how to read it (`load`). `sessions.load` picks the one importer whose
sniff accepts the file, so the order of registration never matters; an importer's sniff
must therefore reject the others' files. Adding a format is one module in this package
that calls `register` (it is imported with the package), plus its tests: see the recipe
in CONTRIBUTING.md.

Left out: choosing between importers that both accept a file (that is an error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .base import Problems, RecordedSession

KINDS = ("jsonl", "json")


@dataclass(frozen=True)
class Importer:
    """One format: `load(lines_or_document, source, problems) -> RecordedSession`."""

    name: str
    label: str  # what a user would call the file, e.g. "a Claude Code .jsonl log"
    kind: str
    sniff: Callable[[Any], bool]
    load: Callable[[Iterable[tuple[int, dict[str, Any]]] | Any, str, Problems],
                   RecordedSession]


IMPORTERS: dict[str, Importer] = {}


def register(importer: Importer) -> Importer:
    """Add `importer` (a second one of the same name is a mistake)."""
    if importer.kind not in KINDS:
        raise ValueError(f"an importer's kind is one of {KINDS}, not {importer.kind!r}")
    if importer.name in IMPORTERS:
        raise ValueError(f"an importer named {importer.name!r} is already registered")
    IMPORTERS[importer.name] = importer
    return importer


def of_kind(kind: str) -> list[Importer]:
    return sorted((i for i in IMPORTERS.values() if i.kind == kind), key=lambda i: i.name)


def formats_help() -> str:
    """The formats read, in words: "a Claude Code .jsonl log, a Codex .jsonl log or ..."."""
    labels = [i.label for kind in KINDS for i in of_kind(kind)]
    return ", ".join(labels[:-1]) + " or " + labels[-1] if len(labels) > 1 else "".join(labels)
