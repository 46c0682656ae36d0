"""Persist agent sessions in SQLite so a run can be resumed, audited or replayed.

A session row holds the model name and an optional parent id: when the context is
compacted the agent starts a child session, and the chain of parents leads back to the
original conversation. Messages are stored as JSON, append-only, in turn order.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id          TEXT PRIMARY KEY,
    parent_id   TEXT REFERENCES sessions(id),
    model       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    title       TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    position    INTEGER NOT NULL,
    role        TEXT NOT NULL,
    body        TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SessionStore:
    """Sessions and their messages in one SQLite file."""

    def __init__(self, path: Path | str = "sessions.db") -> None:
        self.path = Path(path)
        with self._connect() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path)
        db.row_factory = sqlite3.Row
        try:
            yield db
            db.commit()
        finally:
            db.close()

    def create(self, model: str, parent_id: str | None = None, title: str = "") -> str:
        session_id = uuid.uuid4().hex[:12]
        with self._connect() as db:
            db.execute(
                "INSERT INTO sessions (id, parent_id, model, created_at, title) "
                "VALUES (?, ?, ?, ?, ?)",
                (session_id, parent_id, model, _now(), title),
            )
        return session_id

    def append(self, session_id: str, message: dict[str, Any]) -> int:
        with self._connect() as db:
            row = db.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            position = row[0]
            db.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?)",
                (session_id, position, message["role"], json.dumps(message)),
            )
        return position

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT body FROM messages WHERE session_id = ? ORDER BY position",
                (session_id,),
            ).fetchall()
        return [json.loads(r["body"]) for r in rows]

    def lineage(self, session_id: str) -> list[str]:
        """Ids from ``session_id`` back to the first session of the chain."""
        chain: list[str] = []
        current: str | None = session_id
        with self._connect() as db:
            while current is not None and current not in chain:
                chain.append(current)
                row = db.execute(
                    "SELECT parent_id FROM sessions WHERE id = ?", (current,)
                ).fetchone()
                current = row["parent_id"] if row else None
        return chain

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, parent_id, model, created_at, title FROM sessions "
                "ORDER BY created_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [dict(r) for r in rows]
