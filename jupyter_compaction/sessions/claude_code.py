"""Claude Code session logs (`~/.claude/projects/.../<session>.jsonl`) as histories.

Each line is an entry. Conversation entries (`user`, `assistant`, `system`) form a tree
through `uuid`/`parentUuid`; the live thread is the chain back from the newest leaf.
Reading it right takes a few rules, each applied here:

- an assistant reply streamed in several blocks is several entries sharing `message.id`,
  and with parallel calls its blocks alternate with the results or sit on side branches;
  all entries of one `message.id` merge back into one assistant message, followed by one
  user message of results;
- results of parallel calls can sit on side branches too: they are found by `tool_use_id`;
- `progress`, `file-history-snapshot`, `queue-operation` and other `system` entries are
  bookkeeping, not conversation;
- a `system` entry with `subtype: compact_boundary` is where Claude Code compacted: its
  `compactMetadata` holds the trigger and the reported tokens before, its
  `logicalParentUuid` links back to the thread before it, and the next `user` entry marked
  `isCompactSummary` is the summary it wrote, the first message of the new segment;
- `message.usage` on assistant entries is what the API reported for that call.

A missing parent (a damaged line) is bridged to the nearest entry above it in the file not
yet on the thread, with a warning, so nothing before the gap is lost; finding it is a
near-constant step (`_Above`), so bridging many gaps stays linear. Every field read is
type-checked first: a line with a wrong type is skipped and counted.

Left out: sidechain (subagent) entries inside a main log (a subagent's own log loads on its
own) and tool definitions, which Claude Code does not write to the log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import (
    Problems,
    RecordedSession,
    ReportedUsage,
    SessionCompaction,
    Thread,
    as_blocks,
    checked,
    count_of,
    shown,
    wrong_field,
)
from .registry import Importer, register

CONVERSATION = ("user", "assistant", "system")
BOOKKEEPING = ("progress", "file-history-snapshot", "queue-operation", "summary",
               "custom-title", "tag", "agent-name")
BOUNDARY = "compact_boundary"
ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "type": str, "uuid": str, "parentUuid": str, "logicalParentUuid": str, "timestamp": str,
    "isSidechain": bool, "isCompactSummary": bool, "subtype": str, "compactMetadata": dict,
    "message": dict}
MESSAGE_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "usage": dict, "content": (str, list, dict)}
TREE_FIELDS = ("type", "uuid", "parentUuid", "logicalParentUuid", "timestamp", "isSidechain")
KEPT_FIELDS = (*TREE_FIELDS, "message", "isCompactSummary", "subtype", "compactMetadata")
USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def sniff(entries: list[dict[str, Any]]) -> bool:
    return any("parentUuid" in e or e.get("type") in BOOKKEEPING for e in entries)


class _Above:
    """For entries in file order: the nearest one above a position not yet taken, with
    path compression (each lookup is near-constant however many are taken)."""

    def __init__(self, size: int):
        self._next = list(range(size))

    def take(self, position: int) -> None:
        self._next[position] = position - 1

    def find(self, position: int) -> int:
        """The nearest untaken position at or before `position` (-1 if none)."""
        root = position
        while root >= 0 and self._next[root] != root:
            root = self._next[root]
        while position > root:  # compress the path just walked
            position, self._next[position] = self._next[position], root
        return root


def _live_thread(entries: list[dict[str, Any]], problems: Problems) -> list[dict[str, Any]]:
    """The entries on the chain back from the newest leaf, oldest first."""
    by_uuid: dict[str, dict[str, Any]] = {}
    for e in entries:
        uid = e.get("uuid")
        if isinstance(uid, str):
            if uid in by_uuid:
                problems.note("entries appeared twice; the first of each was kept", e["_line"],
                              f"entry {shown(uid)} appears twice; the first is kept")
                continue
            by_uuid[uid] = e
    parents = {e.get("parentUuid") for e in by_uuid.values()}
    leaves = [e for e in by_uuid.values() if e["uuid"] not in parents
              and e.get("type") in CONVERSATION]
    main = [e for e in leaves if not e.get("isSidechain")]
    leaves = main or leaves  # a subagent's own log is all sidechain
    if not leaves:
        return []
    leaf = max(leaves, key=lambda e: (str(e.get("timestamp", "")), e["_line"]))
    ordered = list(by_uuid.values())  # file order: entries arrive line by line
    position = {e["uuid"]: n for n, e in enumerate(ordered)}
    above = _Above(len(ordered))
    chain, entry = [], leaf
    while entry is not None:
        chain.append(entry)
        here = position[entry["uuid"]]
        above.take(here)
        parent = entry.get("parentUuid") or entry.get("logicalParentUuid")
        if parent is None:
            break
        if parent in by_uuid and above.find(position[parent]) == position[parent]:
            entry = by_uuid[parent]
        elif parent in by_uuid:
            break  # a cycle: the parent is already on the thread
        else:
            problems.note("parents were not in the log; each thread continued from the "
                          "entry above", entry["_line"], f"its parent {shown(parent)} is not in "
                          "the log; continuing from the entry above it")
            n = above.find(here)
            entry = ordered[n] if n >= 0 else None
    return chain[::-1]


def _entries(lines: Iterable[tuple[int, dict[str, Any]]], problems: Problems
             ) -> list[dict[str, Any]]:
    """The entries worth keeping, type-checked, with only the fields read here (a user
    entry's `toolUseResult` copy of its output is not kept; bookkeeping keeps its links)."""
    entries = []
    for number, e in lines:
        kind = e.get("type")
        if kind not in CONVERSATION and kind not in BOOKKEEPING:
            problems.skip(number, "an unknown entry type" if isinstance(kind, str)
                          else "an entry without a type")
            continue
        message = e.get("message")
        bad = wrong_field(e, ENTRY_FIELDS) or (
            wrong_field(message, MESSAGE_FIELDS) if isinstance(message, dict) else None)
        if bad:
            problems.skip(number, bad)
            continue
        e = {k: e[k] for k in (TREE_FIELDS if kind in BOOKKEEPING else KEPT_FIELDS) if k in e}
        e["_line"] = number
        entries.append(e)
    return entries


def _message_id(entry: dict[str, Any]) -> str | None:
    message = entry.get("message")
    return message.get("id") if isinstance(message, dict) else None


def load(lines: Iterable[tuple[int, dict[str, Any]]], source: str,
         problems: Problems) -> RecordedSession:
    session = RecordedSession("claude-code", [], source=source)
    entries = _entries(lines, problems)
    chain = _live_thread(entries, problems)
    on_chain = {id(e) for e in chain}
    side_results = {b["tool_use_id"]: b for e in entries if id(e) not in on_chain
                    and e.get("type") == "user" for b in _content(e)
                    if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
                    and isinstance(b.get("content", ""), str | list)}
    streamed: dict[str, list[dict[str, Any]]] = {}  # message.id -> its entries
    for e in entries:
        mid = _message_id(e)
        if e.get("type") == "assistant" and isinstance(mid, str):
            streamed.setdefault(mid, []).append(e)
    for parts in streamed.values():  # the order they were written, whatever the line order
        parts.sort(key=lambda e: (str(e.get("timestamp", "")), e["_line"]))
    thread, done = Thread(problems), set()
    reported: dict[tuple[int, int], dict[str, Any]] = {}

    def close_segment() -> None:
        nonlocal thread
        if len(thread):
            session.segments.append(checked(thread.finish(side_results), problems))
        thread = Thread(problems)

    for e in chain:
        kind = e["type"]
        if kind == "system" and e.get("subtype") == BOUNDARY:
            close_segment()
            meta = e.get("compactMetadata") or {}
            before = meta.get("preTokens")
            session.compactions.append(SessionCompaction(
                len(session.segments), shown(meta.get("trigger", "unknown")),
                count_of(before) if isinstance(before, int) else None, ""))
        if kind not in ("user", "assistant"):
            continue
        if not isinstance(e.get("message"), dict) or "content" not in e["message"]:
            problems.note("entries without a message were skipped", e["_line"],
                          f"a {kind} entry without a message; skipped")
            continue
        if kind == "user":
            content = _content(e)
            if e.get("isCompactSummary") and session.compactions:
                session.compactions[-1].summary = "\n".join(
                    b["text"] for b in content
                    if b.get("type") == "text" and isinstance(b.get("text"), str))
            thread.add("user", content, e["_line"])
            continue
        mid = _message_id(e)
        if mid in done:
            continue  # already taken with the first part of its reply
        parts = streamed.get(mid, [e]) if isinstance(mid, str) else [e]
        done.add(mid)
        for part in parts:
            thread.add("assistant", _content(part), part["_line"])
        usages = [p["message"]["usage"] for p in parts
                  if isinstance(p["message"].get("usage"), dict)]
        if usages and len(thread):
            reported[(len(session.segments), len(thread) - 1)] = usages[-1]
    close_segment()
    session.usage = [_usage(seg, i, raw) for (seg, i), raw in sorted(reported.items())]
    _left_out(session, entries, on_chain, done, problems)
    return session


def _left_out(session: RecordedSession, entries: list[dict[str, Any]], on_chain: set[int],
              done: set, problems: Problems) -> None:
    """A note for each conversation entry off the live thread that was not taken."""
    answered = {b.get("tool_use_id") for seg in session.segments for m in seg
                for b in as_blocks(m["content"]) if b.get("type") == "tool_result"}
    for e in entries:
        if id(e) in on_chain or e["type"] not in ("user", "assistant"):
            continue
        results = [b["tool_use_id"] for b in _content(e) if b.get("type") == "tool_result"
                   and isinstance(b.get("tool_use_id"), str)]
        taken = (_message_id(e) in done if e["type"] == "assistant"
                 else results and set(results) <= answered)
        if not taken:
            problems.note("entries off the live thread were left out", e["_line"],
                          f"a {e['type']} entry off the live thread (an abandoned branch or "
                          "a broken link); left out")


def _content(entry: dict[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    return as_blocks(message.get("content")) if isinstance(message, dict) else []


def _usage(segment: int, index: int, raw: dict[str, Any]) -> ReportedUsage:
    read_tokens = sum(count_of(raw.get(k)) for k in USAGE_KEYS)
    return ReportedUsage(segment, index, read_tokens, count_of(raw.get("output_tokens")), raw)


register(Importer("claude-code", "a Claude Code .jsonl log", "jsonl", sniff, load))
