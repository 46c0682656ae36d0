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

A missing parent (a damaged line) is bridged to the entry just above it in the file, with a
warning, so nothing before the gap is lost.

Left out: sidechain (subagent) entries inside a main log (a subagent's own log loads on its
own) and tool definitions, which Claude Code does not write to the log.
"""

from __future__ import annotations

from typing import Any

from .base import Session, SessionCompaction, Thread, Usage, as_blocks, read_jsonl

CONVERSATION = ("user", "assistant", "system")
BOOKKEEPING = ("progress", "file-history-snapshot", "queue-operation", "summary",
               "custom-title", "tag", "agent-name")
BOUNDARY = "compact_boundary"


def looks_like(entries: list[dict[str, Any]]) -> bool:
    return any("parentUuid" in e or e.get("type") in BOOKKEEPING for e in entries[:50])


def _live_thread(entries, warn) -> list[dict[str, Any]]:
    """The entries on the chain back from the newest leaf, oldest first."""
    by_uuid: dict[str, dict[str, Any]] = {}
    for e in entries:
        uid = e.get("uuid")
        if isinstance(uid, str):
            if uid in by_uuid:
                warn(f"line {e['_line']}: entry {uid} appears twice; the first is kept")
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
    ordered = sorted(by_uuid.values(), key=lambda e: e["_line"])
    chain, seen, entry = [], set(), leaf
    while entry is not None and entry["uuid"] not in seen:
        chain.append(entry)
        seen.add(entry["uuid"])
        parent = entry.get("parentUuid") or entry.get("logicalParentUuid")
        if parent is None:
            break
        if parent not in by_uuid:
            above = [e for e in ordered if e["_line"] < entry["_line"] and e["uuid"] not in seen]
            warn(f"line {entry['_line']}: its parent {parent} is not in the log; "
                 "continuing from the entry above it")
            entry = above[-1] if above else None
        else:
            entry = by_uuid[parent]
    return chain[::-1]


def load(text: str, source: str = "") -> Session:
    session = Session("claude-code", [], source=source)
    warn = session.warnings.append
    entries = []
    for number, e in read_jsonl(text, warn):
        e["_line"] = number
        kind = e.get("type")
        if kind not in CONVERSATION and kind not in BOOKKEEPING:
            warn(f"line {number}: unknown entry type {kind!r}; skipped")
            continue
        entries.append(e)
    chain = _live_thread(entries, warn)
    on_chain = {id(e) for e in chain}
    side_results = {b["tool_use_id"]: b for e in entries if id(e) not in on_chain
                    and e.get("type") == "user" for b in _content(e, warn)
                    if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)}
    streamed: dict[str, list[dict[str, Any]]] = {}  # message.id -> its entries
    for e in entries:
        mid = e.get("message", {}).get("id") if isinstance(e.get("message"), dict) else None
        if e.get("type") == "assistant" and isinstance(mid, str):
            streamed.setdefault(mid, []).append(e)
    for parts in streamed.values():  # the order they were written, whatever the line order
        parts.sort(key=lambda e: (str(e.get("timestamp", "")), e["_line"]))
    thread, done = Thread(warn), set()
    reported: dict[tuple[int, int], dict[str, Any]] = {}

    def close_segment() -> None:
        nonlocal thread
        if thread.messages:
            session.segments.append(thread.finish(side_results))
        thread = Thread(warn)

    for e in chain:
        kind = e["type"]
        if kind == "system" and e.get("subtype") == BOUNDARY:
            close_segment()
            meta = e.get("compactMetadata") or {}
            session.compactions.append(SessionCompaction(
                len(session.segments), str(meta.get("trigger", "unknown")),
                meta.get("preTokens"), ""))
        if kind == "user":
            content = _content(e, warn)
            if e.get("isCompactSummary") and session.compactions:
                session.compactions[-1].summary = "\n".join(
                    b.get("text", "") for b in content if b.get("type") == "text")
            thread.add("user", content)
        elif kind == "assistant":
            mid = e["message"].get("id") if isinstance(e.get("message"), dict) else None
            if mid in done:
                continue  # already taken with the first part of its reply
            parts = streamed.get(mid, [e]) if isinstance(mid, str) else [e]
            done.add(mid)
            for part in parts:
                thread.add("assistant", _content(part, warn))
            usages = [p["message"]["usage"] for p in parts
                      if isinstance(p["message"].get("usage"), dict)]
            if usages and thread.messages:
                reported[(len(session.segments), len(thread.messages) - 1)] = usages[-1]
    close_segment()
    session.usage = [_usage(seg, i, raw) for (seg, i), raw in sorted(reported.items())]
    answered = {b.get("tool_use_id") for seg in session.segments for m in seg
                for b in as_blocks(m["content"]) if b.get("type") == "tool_result"}
    for e in entries:
        if id(e) in on_chain or e["type"] not in ("user", "assistant"):
            continue
        mid = e["message"].get("id") if isinstance(e.get("message"), dict) else None
        results = [b.get("tool_use_id") for b in _content(e, lambda _: None)
                   if b.get("type") == "tool_result"]
        taken = mid in done if e["type"] == "assistant" else results and set(results) <= answered
        if not taken:
            warn(f"line {e['_line']}: a {e['type']} entry off the live thread (an abandoned "
                 "branch or a broken link); left out")
    return session


def _content(entry: dict[str, Any], warn) -> list[dict[str, Any]]:
    message = entry.get("message")
    if not isinstance(message, dict) or "content" not in message:
        warn(f"line {entry['_line']}: a {entry.get('type')} entry without a message; skipped")
        return []
    return as_blocks(message["content"])


def _usage(segment: int, index: int, raw: dict[str, Any]) -> Usage:
    read = sum(int(raw.get(k) or 0) for k in
               ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return Usage(segment, index, read, int(raw.get("output_tokens") or 0), raw)
