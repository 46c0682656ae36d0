"""How the simulated model reads a result that was offloaded to a file (`offload.py`).

The rule, fixed before anything was measured: a preview is a part of a result, so the
model does not read its facts from the preview alone. For each fact the call reveals it
searches the offloaded file with the fact's own pattern (`search_offloaded`). When no
line matches, the search settles it (the fact's default); when the matching lines are
whole (for a fact read from code: each parses as a statement on its own), it reads its
facts from them. Otherwise (a statement goes on past its first line) it reads the range
of lines from the preview's end to `SLACK` lines past the last match (`read_offloaded`),
and reads its facts from the preview and that range together, as one text from line 1.
It never reads the whole offloaded file again when a range serves, and the searches and
range reads go in the same reply as its next step (they do not depend on each other).
It decides from what is visible only: a preview, search or range that compaction removed
is searched or read again; a preview removed with its call is a read it redoes, unless a
search or range of its file is still visible: their first line names the call whose result
the file holds, and the model goes on reading that file (added after the 4,000-token runs
of RESULTS.md section 13, where a preview trimmed away between a search and its range made
the model read the whole file again each time).

Left out: facts whose pattern spans lines (a search matches one line at a time), and a
matching line inside a string of code that parses as a statement on its own (read from
matching lines alone, it counts as code).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..scenarios.base import Call
from ..vocab import READ_OFFLOADED, SEARCH_OFFLOADED, offloaded_from, offloaded_path

SLACK = 10  # lines read past the last match, so a statement that starts there can end
_NUMBERED = re.compile(r"^(\d+): ?(.*)$")


@dataclass
class OffloadReading:
    """The offloaded results a request shows: previews, searches and ranges by file."""

    previews: dict[tuple[str, str], str] = field(default_factory=dict)  # call -> file
    lines: dict[str, dict[int, str]] = field(default_factory=dict)  # file -> its seen lines
    hits: dict[tuple[str, str], dict[int, str]] = field(default_factory=dict)  # by search
    ranged: set[str] = field(default_factory=set)  # files with a range read visible

    def take(self, key: tuple[str, str], text: str) -> bool:
        """Keep `key`'s result `text` when it is a preview, a search or a range of an
        offloaded file (True); False for any other result."""
        args = json.loads(key[1]) if key[0] in (SEARCH_OFFLOADED, READ_OFFLOADED) else {}
        if args and (source := offloaded_from(text.split("\n", 1)[0])):
            self.previews[source] = args.get("path", "")  # its file, named by its head
        if key[0] == SEARCH_OFFLOADED:
            found = _numbered(text.split("\n", 1)[-1])
            self.hits[(args.get("path", ""), args.get("pattern", ""))] = found
        elif key[0] == READ_OFFLOADED:
            self.lines.setdefault(args.get("path", ""), {}).update(_numbered(text))
            self.ranged.add(args.get("path", ""))
        elif path := offloaded_path(text):
            self.previews[key] = path
            body = text.split("\n", 2)[2] if text.count("\n") >= 2 else ""
            self.lines.setdefault(path, {}).update(enumerate(body.splitlines(), 1))
        else:
            return False
        return True

    def settle(self, call: Call) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
        """The text `call`'s facts are read from, once its searches (and range) are
        visible; else None and the calls to make first."""
        path = self.previews[call.key]
        patterns = [f.pattern for f in call.facts if not f.from_error]
        missing = [p for p in patterns if (path, p) not in self.hits]
        if missing:
            return None, [(SEARCH_OFFLOADED, {"path": path, "pattern": p}) for p in missing]
        found = {n: line for p in patterns for n, line in self.hits[(path, p)].items()}
        if not found:
            return "", []  # no line matches: every fact is its default
        if not any(f.code for f in call.facts) or all(map(_statement, found.values())):
            return "\n".join(found[n] for n in sorted(found)), []  # the lines say it all
        return self._ranged(path, max(found) + SLACK)

    def _ranged(self, path: str, end: int) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
        """Lines 1 to `end` of `path` as one text, once they are visible (a range read
        visible is what there is); else None and the range to read first."""
        seen = self.lines.get(path, {})
        known = _contiguous(seen)
        if end > known and path not in self.ranged:  # a match past what it has seen
            return None, [(READ_OFFLOADED, {"path": path, "start": known + 1, "end": end})]
        return "\n".join(seen[n] for n in range(1, min(end, known) + 1)), []


def _statement(line: str) -> bool:
    """Whether `line` is a whole Python statement on its own."""
    try:
        ast.parse(line)
    except SyntaxError:
        return False
    return True


def _contiguous(lines: dict[int, str]) -> int:
    """The last line number up to which every line from 1 is known."""
    n = 0
    while n + 1 in lines:
        n += 1
    return n


def _numbered(text: str) -> dict[int, str]:
    """Lines written "N: text" (a search's or a range's), by number."""
    found = (_NUMBERED.match(line) for line in text.splitlines())
    return {int(m.group(1)): m.group(2) for m in found if m}
