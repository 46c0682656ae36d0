"""The session chain on disk: every message ever exchanged, kept across compactions.

Each run starts a *session*, a folder under the store's root. A compaction does not edit
a session; it starts a child session whose `parent_session_id` points at the one before
and whose `context.json` holds the compacted context it starts from. Messages and events
are appended to `messages.jsonl` / `events.jsonl` as they happen, one JSON line per
write, and small state files are replaced atomically (write to a temporary file, then
rename), so a crash at any point leaves every earlier record readable. The full
transcript of a run is the concatenation of `messages.jsonl` along its chain; nothing is
ever deleted.

Reading is forgiving: a session folder with a missing or corrupted `meta.json` is
reported in `problems` and skipped; a torn last line of a JSONL file is skipped too.

Left out: concurrent writers to one session, and pruning old sessions.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .history import Message

DEFAULT_ROOT = "compaction_sessions"
META, CONTEXT, STATE = "meta.json", "context.json", "state.json"
MESSAGES, EVENTS = "messages.jsonl", "events.jsonl"


def write_atomic(path: Path, data: Any) -> None:
    """Replace `path` with `data` as JSON, all or nothing."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def append_line(path: Path, record: Any) -> None:
    line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()


def read_lines(path: Path, problems: list[str] | None = None) -> list[Any]:
    """Every complete JSON line of `path`; unreadable lines are reported and skipped."""
    if not path.exists():
        return []
    records = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if problems is not None:
                problems.append(f"{path}: line {n} is not valid JSON (skipped)")
    return records


@dataclass
class SessionInfo:
    session_id: str
    parent_session_id: str | None
    run_id: str
    created: str
    meta: dict[str, Any] = field(default_factory=dict)


class SessionStore:
    """Sessions under `root` (created on first write, never at construction)."""

    def __init__(self, root: str | Path = DEFAULT_ROOT):
        self.root = Path(root)
        self.problems: list[str] = []

    def __repr__(self) -> str:
        return f"SessionStore({str(self.root)!r})"

    def _dir(self, session_id: str) -> Path:
        return self.root / session_id

    def start(self, meta: dict[str, Any], *, parent: str | None = None,
              context: list[Message] | None = None) -> str:
        """Create a session (a child of `parent` when given) and return its id."""
        session_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
        folder = self._dir(session_id)
        folder.mkdir(parents=True, exist_ok=False)
        run_id = self.info(parent).run_id if parent else session_id
        if context is not None:
            write_atomic(folder / CONTEXT, context)
        write_atomic(folder / META, {**meta, "session_id": session_id, "run_id": run_id,
                                     "parent_session_id": parent,
                                     "created": datetime.now(UTC).isoformat()})
        return session_id

    def append_message(self, session_id: str, message: Message) -> None:
        append_line(self._dir(session_id) / MESSAGES, message)

    def append_event(self, session_id: str, event: dict[str, Any]) -> None:
        append_line(self._dir(session_id) / EVENTS, event)

    def save_state(self, session_id: str, state: dict[str, Any]) -> None:
        write_atomic(self._dir(session_id) / STATE, state)

    def info(self, session_id: str) -> SessionInfo:
        meta = json.loads((self._dir(session_id) / META).read_text(encoding="utf-8"))
        return SessionInfo(meta["session_id"], meta.get("parent_session_id"), meta["run_id"],
                           meta["created"], meta)

    def state(self, session_id: str) -> dict[str, Any]:
        path = self._dir(session_id) / STATE
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def list(self) -> list[SessionInfo]:
        """Every readable session, oldest first; broken ones go to `problems`."""
        self.problems = []
        sessions = []
        for folder in sorted(self.root.iterdir()) if self.root.is_dir() else []:
            if not folder.is_dir():
                continue
            try:
                sessions.append(self.info(folder.name))
            except (OSError, ValueError, KeyError) as exc:
                self.problems.append(f"{folder.name}: unreadable session ({type(exc).__name__})"
                                     " skipped")
        return sorted(sessions, key=lambda s: (s.created, s.session_id))

    def chain(self, session_id: str) -> list[SessionInfo]:
        """The sessions from the run's root down to `session_id`."""
        chain = [self.info(session_id)]
        while chain[0].parent_session_id:
            chain.insert(0, self.info(chain[0].parent_session_id))
        return chain

    def transcript(self, session_id: str) -> list[Message]:
        """Every message of the run, in order, across all its compactions."""
        return [m for s in self.chain(session_id)
                for m in read_lines(self._dir(s.session_id) / MESSAGES, self.problems)]

    def events(self, session_id: str) -> list[dict[str, Any]]:
        return [e for s in self.chain(session_id)
                for e in read_lines(self._dir(s.session_id) / EVENTS, self.problems)]

    def context(self, session_id: str) -> list[Message]:
        """The live context at the end of `session_id`: its start plus what came after."""
        folder = self._dir(session_id)
        start = (json.loads((folder / CONTEXT).read_text(encoding="utf-8"))
                 if (folder / CONTEXT).exists() else [])
        return start + read_lines(folder / MESSAGES, self.problems)

    def latest(self, run_id: str) -> str | None:
        """The newest session of a run (the end of its chain)."""
        ids = [s.session_id for s in self.list() if s.run_id == run_id]
        return ids[-1] if ids else None
