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
reported in `problems` and skipped; a torn or unreadable line of a JSONL file is skipped
too (and the next append starts a fresh line after it), and an unreadable ancestor ends a
chain where it is.

A run killed while starting a session leaves a folder without `meta.json` (and without
messages: they are appended only once `start()` has written it; its `context.json` is
never read, since the run resumes from the parent). `incomplete()` finds such folders and
`clean()` removes them (`jupyter-compaction sessions clean`): only folders named like a
session, holding nothing but the store's own files, and untouched for `SETTLE_SECONDS` (a
session being started right now gets its `meta.json` in milliseconds). Sessions that have
one, even a damaged one, are never removed.

Left out: concurrent writers to one session, and pruning old (complete) sessions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .history import Message

DEFAULT_ROOT = "compaction_sessions"
META, CONTEXT, STATE = "meta.json", "context.json", "state.json"
MESSAGES, EVENTS = "messages.jsonl", "events.jsonl"
STORE_FILES = (META, CONTEXT, STATE, MESSAGES, EVENTS)
SESSION_NAME = re.compile(r"\d{8}T\d{6}-[0-9a-f]{8}")  # as `start()` names a session's folder
TEMP_FILE = re.compile(r"\.[\w.]+\.\d+\.tmp")  # `write_atomic`'s file before its rename
SETTLE_SECONDS = 60  # a folder without meta.json younger than this may still be starting


def encode(data: Any, **options: Any) -> bytes:
    """`data` as UTF-8 JSON; text with lone surrogates (not encodable) as `\\uXXXX` escapes,
    which read back exactly."""
    try:
        return json.dumps(data, ensure_ascii=False, **options).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, ensure_ascii=True, **options).encode("ascii")


def write_atomic(path: Path, data: Any) -> None:
    """Replace `path` with `data` as JSON, all or nothing."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(encode(data))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def append_line(path: Path, record: Any) -> None:
    """Append `record` as one JSON line. If a crash left a torn last line (no newline at
    the end), the new record starts on a line of its own instead of merging into it."""
    line = encode(record, default=str) + b"\n"
    with open(path, "ab+") as f:
        end = f.seek(0, os.SEEK_END)
        if end:
            f.seek(end - 1)
            if f.read(1) != b"\n":
                line = b"\n" + line
        f.write(line)
        f.flush()


def read_lines(path: Path, problems: list[str] | None = None) -> list[Any]:
    """Every complete JSON object line of `path`; unreadable lines are reported and skipped.

    Lines are split on "\\n" only: JSON text may hold U+2028, U+0085 and other characters
    that `str.splitlines()` would also split on.
    """
    if not path.exists():
        return []
    records = []
    lines = path.read_bytes().decode("utf-8", errors="replace").split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if isinstance(record, dict):
            records.append(record)
        elif problems is not None:
            problems.append(f"{path}: line {n} is not a JSON object (skipped)")
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
        """The session's `meta.json`; ValueError if it is not a well-formed record of it."""
        meta = json.loads((self._dir(session_id) / META).read_text(encoding="utf-8"))
        if not (isinstance(meta, dict)
                and all(isinstance(meta.get(k), str) for k in ("session_id", "run_id", "created"))
                and meta["session_id"] == session_id
                and isinstance(meta.get("parent_session_id"), str | None)):
            raise ValueError(f"{session_id}: {META} is not a session record")
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
        """The sessions from the run's root down to `session_id`.

        An unreadable (or looping) ancestor ends the chain there and goes to `problems`.
        """
        chain = [self.info(session_id)]
        seen = {session_id}
        while chain[0].parent_session_id:
            parent = chain[0].parent_session_id
            try:
                if parent in seen:
                    raise ValueError("the chain loops")
                chain.insert(0, self.info(parent))
            except (OSError, ValueError) as exc:
                self.problems.append(f"{parent}: parent of {chain[0].session_id} is unreadable "
                                     f"({type(exc).__name__}); the chain starts after it")
                break
            seen.add(parent)
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

    def incomplete(self, settle: float = SETTLE_SECONDS) -> list[Path]:
        """Session folders a killed run left without `meta.json` (see the module), by name."""
        if not self.root.is_dir():
            return []
        now = time.time()
        return [folder for folder in sorted(self.root.iterdir())
                if folder.is_dir() and not folder.is_symlink()
                and SESSION_NAME.fullmatch(folder.name) and not (folder / META).exists()
                and _only_store_files(folder) and now - _last_change(folder) >= settle]

    def clean(self, *, dry_run: bool = False, settle: float = SETTLE_SECONDS) -> list[Path]:
        """Remove the `incomplete()` folders (none when `dry_run`) and return them."""
        found = self.incomplete(settle)
        for folder in [] if dry_run else found:
            shutil.rmtree(folder)
        return found

    def latest(self, run_id: str) -> str | None:
        """The newest session of a run (the end of its chain)."""
        ids = [s.session_id for s in self.list() if s.run_id == run_id]
        return ids[-1] if ids else None


def _only_store_files(folder: Path) -> bool:
    return all(p.is_file() and not p.is_symlink()
               and (p.name in STORE_FILES or TEMP_FILE.fullmatch(p.name))
               for p in folder.iterdir())


def _last_change(folder: Path) -> float:
    """The newest modification time of `folder` and its files."""
    return max([folder.stat().st_mtime, *(p.stat().st_mtime for p in folder.iterdir())])
