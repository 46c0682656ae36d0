"""What a loaded session is, how its file is read safely, and the builder of valid histories.

A `RecordedSession` holds the conversation as `segments` (the message lists between the
session's own compactions, each valid by `history.validate`), those `compactions`, the
`usage` the API reported per call (`ReportedUsage`), the tool definitions when the log has
them, and `warnings`. Problems never stop a load and never drop the rest of the log; they
are gathered by `Problems`, which counts them by kind, so a log with 300 damaged lines
gives one warning that counts them ("300 lines skipped: 298 not valid JSON (lines 3, 4,
…), 2 …"), not 300. A file that cannot be read as a session at all raises
`SessionFormatError`, a `ValueError` with a one-line message.

Reading is one pass over the file's lines (`read_lines`), never a whole copy of it: only
regular files are opened (a FIFO or a device would never end), the file may hold at most
`MAX_BYTES` (settable per call) and is read no further than the size checked, a
byte-order mark or UTF-16/32 text is read as UTF-8 (`encoding_of`), a line nested deeper
than `MAX_DEPTH` is skipped, and text that a message shows is printed with control
characters escaped (`shown`).

`Thread` restores the rules of a valid history while entries arrive: a block the
history cannot hold is kept as text in its place (a warning), same-role messages merge
in one pass, results move first in their message, a call with no result gets an explicit "missing"
result, and a result with no call becomes plain text. `checked` makes sure of the result:
a segment that still breaks a rule has the offending message's blocks kept as text, with
a warning.

Left out: anything format-specific; each format has its own module (see `registry.py`).
"""

from __future__ import annotations

import codecs
import io
import json
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..history import (
    Block,
    InvalidHistory,
    Message,
    Rules,
    blocks,
    opens_with_compaction,
    tool_result_ids,
    tool_use_ids,
)
from ..history import _check_shape as check_message_shape

MISSING_RESULT = "[no result for this call in the session log]"
ORPHAN_PREFIX = "[tool result without its call in the session log]"
AS_TEXT_PREFIX = "[a block that broke a history rule, kept as text]"
SESSION_START = "[the session log starts here]"
MAX_BYTES = 2 * 1024**3  # the largest session file read (default of `load(max_bytes=)`)
MAX_DEPTH = 64  # the deepest JSON nesting a line may have
LISTED_LINES = 5  # line numbers named per kind of problem; the rest are counted


class SessionFormatError(ValueError):
    """A file that cannot be read as a session; the message is one line."""


@dataclass
class SessionCompaction:
    """A compaction the session itself did: `segment` is the index of the segment it starts."""

    segment: int
    trigger: str
    tokens_before: int | None
    summary: str


@dataclass
class ReportedUsage:
    """What the API reported for one call: `index` is the assistant message it produced."""

    segment: int
    index: int
    input_tokens: int  # everything the call read: fresh, cache writes and cache reads
    output_tokens: int
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class RecordedSession:
    format: str
    segments: list[list[Message]]
    compactions: list[SessionCompaction] = field(default_factory=list)
    usage: list[ReportedUsage] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    warnings: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def messages(self) -> list[Message]:
        """The newest segment: what the session's model saw last."""
        return self.segments[-1] if self.segments else []

    def __repr__(self) -> str:
        sizes = ", ".join(str(len(s)) for s in self.segments)
        return (f"RecordedSession({self.format!r}, segments=[{sizes}] messages, "
                f"compactions={len(self.compactions)}, warnings={len(self.warnings)})")


def shown(text: Any) -> str:
    """`text` as one printable line: control characters (newlines too) escaped."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def _numbers(lines: list[int], count: int) -> str:
    named = ", ".join(map(str, lines[:LISTED_LINES]))
    more = f" and {count - LISTED_LINES} more" if count > LISTED_LINES else ""
    return f"line{'s' if count > 1 else ''} {named}{more}"


class Problems:
    """A load's warnings, counted by kind: `skip(line, why)` for a line left out,
    `note(kind, line, detail)` for a repair. `lines()` gives one warning per kind (and one
    for all skipped lines); a kind met once reads "line N: detail"."""

    def __init__(self) -> None:
        self._skipped: dict[str, list[int]] = {}
        self._skip_counts: dict[str, int] = {}
        self._notes: dict[str, tuple[list[int], int, str]] = {}

    def skip(self, line: int, why: str) -> None:
        kept = self._skipped.setdefault(why, [])
        if len(kept) < LISTED_LINES:
            kept.append(line)
        self._skip_counts[why] = self._skip_counts.get(why, 0) + 1

    def note(self, kind: str, line: int | None = None, detail: str = "") -> None:
        lines, count, first = self._notes.get(kind, ([], 0, detail or kind))
        if line is not None and len(lines) < LISTED_LINES:
            lines.append(line)
        self._notes[kind] = (lines, count + 1, first)

    def lines(self) -> list[str]:
        out = []
        total = sum(self._skip_counts.values())
        if total == 1:
            (why, (line,)), = self._skipped.items()
            out.append(f"line {line}: {why}; skipped")
        elif total:
            parts = [f"{self._skip_counts[why]} {why} ({_numbers(lines, self._skip_counts[why])})"
                     for why, lines in self._skipped.items()]
            out.append(f"{total} lines skipped: " + "; ".join(parts))
        for kind, (lines, count, first) in self._notes.items():
            if count == 1:
                out.append(f"line {lines[0]}: {first}" if lines else first)
            else:
                where = f", {_numbers(lines, count)}" if lines else ""
                out.append(f"{kind} ({count} times{where})")
        return out


def open_regular(path: Path, max_bytes: int = MAX_BYTES) -> IO[bytes]:
    """`path` opened for reading; a `SessionFormatError` unless it is a regular file of at
    most `max_bytes` (a directory, FIFO or device is refused before it is opened)."""
    name = shown(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SessionFormatError(f"cannot read {name}: {exc.strerror}; check the path") from None
    if not stat.S_ISREG(info.st_mode):
        kind = ("a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO"
                if stat.S_ISFIFO(info.st_mode) else "a device or special file")
        raise SessionFormatError(f"{name} is {kind}, not a session file; pass a log file")
    if info.st_size > max_bytes:
        raise SessionFormatError(f"{name} is {info.st_size} bytes, over the {max_bytes}-byte "
                                 "limit; pass max_bytes= to read it anyway")
    try:
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 (the caller closes it)
    except OSError as exc:
        raise SessionFormatError(f"cannot read {name}: {exc.strerror}; check the path") from None
    return io.BufferedReader(_Bounded(raw, info.st_size))


class _Bounded(io.RawIOBase):
    """A file read no further than `limit` bytes, the size checked before it was opened
    (a log another process appends to while it loads is read as it was checked)."""

    def __init__(self, raw: IO[bytes], limit: int):
        self._raw, self._left = raw, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self._raw.readinto(memoryview(buffer)[:self._left]) or 0
        self._left -= count
        return count

    def close(self) -> None:
        self._raw.close()
        super().close()


# Byte-order marks, longest first (a UTF-32-LE mark starts with the UTF-16-LE one).
BOMS = ((codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_BE, "utf-16"),
        (codecs.BOM_UTF16_LE, "utf-16"))


def encoding_of(head: bytes) -> str:
    """The encoding of a JSON text starting with `head` (its first four bytes): a byte-order
    mark names it; without one, the zero bytes around the first ASCII character do
    (RFC 4627, section 3); else UTF-8."""
    for mark, name in BOMS:
        if head.startswith(mark):
            return name
    zeros = tuple(b == 0 for b in head[:4].ljust(4, b"\x01"))
    return {(True, True, True, False): "utf-32-be", (False, True, True, True): "utf-32-le",
            }.get(zeros) or {(True, False): "utf-16-be", (False, True): "utf-16-le",
                             }.get(zeros[:2], "utf-8")


class Utf8Lines:
    """A stream of text in another encoding, read as UTF-8 bytes: iterated line by line
    (each line re-encoded as it is read), or `read()` for the rest."""

    def __init__(self, stream: IO[bytes], encoding: str):
        self._text = io.TextIOWrapper(stream, encoding=encoding, errors="replace",
                                      newline="\n")

    def __iter__(self) -> Iterator[bytes]:
        return (line.encode("utf-8") for line in self._text)

    def read(self) -> bytes:
        return self._text.read().encode("utf-8")


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests lists and dicts deeper than `limit` (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                   else item))
    return False


def parse_json(text: str | bytes) -> tuple[Any, str | None]:
    """(the value, None) for JSON `text` nested at most `MAX_DEPTH` deep, else (None, why).
    Bytes are parsed as they are (no decoded copy); bytes that are not UTF-8 are decoded
    with replacement characters first."""
    try:
        value = json.loads(text)
    except RecursionError:
        return None, f"nested deeper than {MAX_DEPTH} levels"
    except UnicodeDecodeError:
        return parse_json(bytes(text).decode("utf-8", errors="replace"))
    except ValueError:
        return None, "not valid JSON (damaged or truncated)"
    opening = text.count(b"[" if isinstance(text, bytes) else "[") + text.count(
        b"{" if isinstance(text, bytes) else "{")
    if opening > MAX_DEPTH and too_deep(value):
        return None, f"nested deeper than {MAX_DEPTH} levels"
    return value, None


def read_lines(raw: Iterable[bytes], problems: Problems, first: int = 1
               ) -> Iterator[tuple[int, dict[str, Any]]]:
    """`(line number, object)` for every line of `raw` that is a JSON object; every other
    non-blank line is a skipped-line problem. One line in memory at a time: it is decoded
    (UTF-8, a bad byte replaced) and let go before it is parsed, so a long line costs its
    text and the value parsed from it, never a third copy (no `enumerate`, whose reused
    result tuple would hold the line)."""
    number = first - 1
    for line in raw:
        number += 1
        if not line or line.isspace():  # no stripped copy of a long line
            continue
        text = line.decode("utf-8-sig", errors="replace")
        del line
        entry, why = parse_json(text)
        del text
        if why:
            problems.skip(number, why)
        elif not isinstance(entry, dict):
            problems.skip(number, f"a JSON {type(entry).__name__}, not an object")
        else:
            yield number, entry


def wrong_field(entry: dict[str, Any], kinds: dict[str, type | tuple[type, ...]]) -> str | None:
    """The first key of `kinds` whose value in `entry` is neither absent, null nor of its
    type, as a problem ("wrong type for parentUuid"); None when all are right."""
    for key, kind in kinds.items():
        value = entry.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)
                                  and kind is not bool):
            return f"wrong type for {key}"
    return None


def count_of(value: Any) -> int:
    """A reported token count: a non-negative whole number, or 0 for anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def as_blocks(content: Any) -> list[Block]:
    """Log content (a string, a block, or a list of them) as a list of dict blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [content]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def as_text(block: Block) -> Block:
    """`block` kept as a text block (for a block the history cannot hold)."""
    return {"type": "text", "text": f"{AS_TEXT_PREFIX} {json.dumps(block, default=str)}"}


def fit_block(role: str, block: Block) -> Block | None:
    """`block` as the history can hold it in a `role` message: itself, a tool result with
    its content as text, or None when it cannot be held at all."""
    try:
        check_message_shape(0, {"role": role, "content": [block]})
        return block
    except InvalidHistory:
        pass
    if role == "user" and block.get("type") == "tool_result" and isinstance(
            block.get("tool_use_id"), str) and block["tool_use_id"]:
        content = block.get("content")
        return {**block, "content": content if isinstance(content, str)
                else json.dumps(content, default=str)}
    return None


class Thread:
    """A growing message list that stays valid; `problems` receives one note per repair.

    Same-role entries merge into the open (last) message in one pass: its results and its
    other blocks are kept in two lists and joined once, when the message is read or closed,
    so a reply streamed as thousands of entries costs one append per block."""

    def __init__(self, problems: Problems):
        self._closed: list[Message] = []
        self._role: str | None = None
        self._results: list[Block] = []  # the open message's tool results (they go first)
        self._rest: list[Block] = []  # ... and its other blocks, in order
        self.problems = problems
        self._ids: set[str] = set()
        self.last_assistant: int | None = None  # the index of the newest assistant message

    def __len__(self) -> int:
        return len(self._closed) + (self._role is not None)

    @property
    def messages(self) -> list[Message]:
        """The messages so far (the open one joined: read it once, not after every add)."""
        return [*self._closed, *self._open()]

    def _open(self) -> list[Message]:
        if self._role is None:
            return []
        return [{"role": self._role, "content": [*self._results, *self._rest]}]

    def add(self, role: str, content: Any, line: int | None = None) -> None:
        new = [b for b in (self._fitted(role, block, line) for block in as_blocks(content))
               if not self._duplicate(b, line)]
        if not new:
            return
        if role == "assistant" and self._role is None and not self._closed:
            self.problems.note("the log starts with an assistant message; a user marker was "
                               "put first")
            self._closed.append({"role": "user", "content": SESSION_START})
        if role != self._role:  # a new message: close the open one
            self._closed.extend(self._open())
            self._role, self._results, self._rest = role, [], []
        if role == "assistant":
            self.last_assistant = len(self) - 1
        for b in new:
            (self._results if b.get("type") == "tool_result" else self._rest).append(b)

    def _fitted(self, role: str, block: Block, line: int | None) -> Block:
        """`block` as the history can hold it, or else as a text block in its place."""
        fitted = fit_block(role, block)
        if fitted is not None:
            return fitted
        self.problems.note("blocks the history cannot hold were kept as text", line,
                           f"a {shown(block.get('type'))!s} block with missing or wrong "
                           f"fields in a {role} message; kept as text")
        return as_text(block)

    def _duplicate(self, block: Block, line: int | None) -> bool:
        key = block.get("id") if block.get("type") == "tool_use" else (
            "result:" + block["tool_use_id"] if block.get("type") == "tool_result" else None)
        if key is None:
            return False
        if key in self._ids:
            self.problems.note("tool blocks appeared twice and were kept once", line,
                               f"{block['type']} {shown(key.removeprefix('result:'))} "
                               "appears twice; kept once")
            return True
        self._ids.add(key)
        return False

    def _missing(self, tid: str) -> Block:
        self.problems.note("tool calls had no result in the log and were marked as missing",
                           None, f"tool call {shown(tid)} has no result in the log; marked "
                                 "as missing")
        return {"type": "tool_result", "tool_use_id": tid, "content": MISSING_RESULT,
                "is_error": True}

    def finish(self, found_results: dict[str, Block] | None = None) -> list[Message]:
        """The valid history: each call answered (by `found_results` when its result sat
        elsewhere in the log, else by an explicit missing-result block), each result next
        to its call, orphan results kept as text. One pass: messages alternate already."""
        found_results = found_results or {}
        out = self.messages
        for i, message in enumerate(out):
            if message["role"] == "user":
                out[i] = self._answered(tool_use_ids(out[i - 1]) if i else [], message,
                                        found_results)
        if out and out[-1]["role"] == "assistant" and tool_use_ids(out[-1]):
            out.append({"role": "user", "content": [self._found(tid, found_results)
                                                    for tid in tool_use_ids(out[-1])]})
        return out

    def _answered(self, asked: list[str], message: Message,
                  found_results: dict[str, Block]) -> Message:
        """User `message` with a result for each call `asked` just before it, first."""
        calls = set(asked)
        results, rest, orphans = [], [], []
        for b in blocks(message):
            if b.get("type") != "tool_result":
                rest.append(b)
            elif b["tool_use_id"] in calls:
                results.append(b)
            else:
                self.problems.note(
                    "tool results had no call right before them and were kept as text",
                    None, f"tool result {shown(b['tool_use_id'])} has no call right "
                          "before it; kept as text")
                orphans.append({"type": "text",
                                "text": f"{ORPHAN_PREFIX} {json.dumps(b, default=str)}"})
        answered = set(tool_result_ids({"content": results}))
        extra = [self._found(tid, found_results) for tid in asked if tid not in answered]
        return {"role": "user", "content": [*results, *extra, *rest, *orphans]}

    def _found(self, tid: str, found_results: dict[str, Block]) -> Block:
        """The result of call `tid` found elsewhere in the log (fitted to what the history
        can hold: content it cannot hold is kept as text), else a missing-result block."""
        found = found_results.get(tid)
        fitted = fit_block("user", found) if found is not None else None
        return fitted or self._missing(tid)


def checked(segment: list[Message], problems: Problems) -> list[Message]:
    """`segment`, valid by `history.validate`: a message that still breaks a rule has its
    blocks kept as text (and is dropped if that cannot help), with a warning each time.
    Each message is checked once, in order, after the ones kept (`history.Rules`), so
    however many messages need repair the check stays linear."""
    kept: list[Message] = []
    rules = Rules()
    pending = segment[::-1]  # the messages still to check, the next one last
    while pending:
        message = pending.pop()
        if not kept:  # the first message kept says whether the history opens compacted
            rules = Rules(opens_with_compaction([message]))
        try:
            rules.take(message)
        except InvalidHistory as err:
            problems.note("messages broke a history rule and were kept as text", None,
                          f"{shown(err)}; the message was kept as text")
            if not all(b.get("type") == "text" for b in blocks(message)):
                pending.append({"role": message["role"], "content": [
                    {"type": "text", "text": f"{AS_TEXT_PREFIX} {json.dumps(b, default=str)}"}
                    if b.get("type") != "text" else b for b in blocks(message)]})
            continue  # an all-text message that breaks a rule is dropped
        kept.append(message)
    return kept
