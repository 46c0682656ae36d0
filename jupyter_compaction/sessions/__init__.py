"""Load real agent sessions into the engine: `sessions.load(path)` reads, by content,

- a Claude Code session log (JSONL, `claude_code.py`),
- a Codex CLI rollout (JSONL, `codex.py`),
- an OpenAI Chat Completions or Anthropic Messages message list (JSON, `messages_json.py`),

and returns a `Session`: `.segments` (valid histories between the session's own
compactions), `.compactions`, `.usage` (reported per call), `.tools` and `.warnings`.
Problems in the file (damaged lines, unknown entries, a truncated end) become one line
each in `.warnings`, a list rather than Python warnings so that a caller can show, count
or test them; nothing else of the file is lost. `shipped()` lists the real sessions that
come with the package (see `data/README.md`).

Left out: writing sessions back, and formats other than these four.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from . import claude_code, codex, messages_json
from .base import Session, SessionCompaction, Usage, read_jsonl

DATA = "data"


def loads(text: str, source: str = "") -> Session:
    """A session from the text of a log or message file; the format is read from it."""
    stripped = text.lstrip()
    if stripped.startswith("[") or (stripped.startswith("{") and _single_json(stripped)):
        return messages_json.load(text, source)
    sample = [entry for _, entry in read_jsonl("\n".join(text.splitlines()[:50]), lambda _: None)]
    if sample and codex.looks_like(sample):
        return codex.load(text, source)
    if sample and claude_code.looks_like(sample):
        return claude_code.load(text, source)
    raise ValueError(f"{source or 'input'}: not a Claude Code or Codex log nor a message list;"
                     " pass a .jsonl session log or a .json message list")


def load(path: str | Path) -> Session:
    """The session in the file at `path`; a one-line error if it is missing or unknown."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}; check the path") from None
    return loads(text, str(path))


def _single_json(text: str) -> bool:
    try:
        return messages_json.looks_like(json.loads(text))
    except ValueError:
        return False


def shipped() -> list[Path]:
    """The real session logs bundled with the package, smallest first."""
    folder = resources.files(__name__).joinpath(DATA)
    return sorted((Path(str(f)) for f in folder.iterdir() if f.name.endswith(".jsonl")),
                  key=lambda p: p.stat().st_size)


__all__ = ["Session", "SessionCompaction", "Usage", "load", "loads", "shipped"]
