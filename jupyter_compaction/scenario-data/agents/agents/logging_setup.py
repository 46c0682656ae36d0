"""Structured logging for agent runs: one JSON object per line, secrets masked.

Every record carries the run id and turn number when the caller passes them through
``extra=``. API keys and bearer tokens that slip into messages are masked before the
line is written, because agent logs get pasted into issues and chat threads.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

SECRET_PATTERNS = [
    re.compile(r"sk-ant-[A-Za-z0-9_-]{10,}"),
    re.compile(r"sk-[A-Za-z0-9]{20,}"),
    re.compile(r"(?i)bearer\s+[A-Za-z0-9._-]{16,}"),
    re.compile(r"(?i)(api[_-]?key|token|password)\s*[=:]\s*\S+"),
]
CONTEXT_FIELDS = ("run_id", "turn", "tool", "tokens_in", "tokens_out")


def mask_secrets(text: str) -> str:
    for pattern in SECRET_PATTERNS:
        text = pattern.sub("[masked]", text)
    return text


class JsonLineFormatter(logging.Formatter):
    """Formats a record as a single JSON line with a UTC timestamp."""

    def format(self, record: logging.LogRecord) -> str:
        created = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, object] = {
            "ts": created.isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": mask_secrets(record.getMessage()),
        }
        for name in CONTEXT_FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry["exc"] = mask_secrets(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


class RunFilter(logging.Filter):
    """Adds the current run id to records that do not carry one."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "run_id"):
            record.run_id = self.run_id
        return True


def configure_logging(run_id: str, level: str = "INFO", log_dir: Path | None = None) -> None:
    """Send agent logs to stderr, and to ``log_dir/<run_id>.jsonl`` when given."""
    root = logging.getLogger("agents")
    root.setLevel(level.upper())
    root.handlers.clear()
    formatter = JsonLineFormatter()
    run_filter = RunFilter(run_id)

    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(formatter)
    console.addFilter(run_filter)
    root.addHandler(console)

    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(log_dir / f"{run_id}.jsonl", encoding="utf-8")
        file_handler.setFormatter(formatter)
        file_handler.addFilter(run_filter)
        root.addHandler(file_handler)
    root.propagate = False
