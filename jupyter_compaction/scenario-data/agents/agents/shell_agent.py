"""A small agent that may run a fixed set of shell commands for the model.

Commands are never passed to a shell: the first word must be on ``ALLOWED_PROGRAMS`` and
the rest is split with ``shlex`` into arguments. Every run has a time limit and its
output is clipped, so a chatty command cannot flood the context window.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path

ALLOWED_PROGRAMS = frozenset({"ls", "cat", "head", "tail", "wc", "git", "python", "pytest"})
COMMAND_TIMEOUT_S = 60
OUTPUT_LIMIT = 8_000
WORKDIR = Path(os.environ.get("SHELL_AGENT_WORKDIR", ".")).resolve()


class CommandRefused(Exception):
    """The command is not allowed; the message says why."""


def _clip(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    half = OUTPUT_LIMIT // 2
    return f"{text[:half]}\n... [{len(text) - OUTPUT_LIMIT} characters omitted] ...\n{text[-half:]}"


def _run_command(command: str) -> str:
    argv = shlex.split(command)
    if not argv:
        raise CommandRefused("empty command")
    if argv[0] not in ALLOWED_PROGRAMS:
        allowed = ", ".join(sorted(ALLOWED_PROGRAMS))
        raise CommandRefused(f"{argv[0]} is not allowed; use one of: {allowed}")
    try:
        done = subprocess.run(
            argv, cwd=WORKDIR, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {COMMAND_TIMEOUT_S}s: {command}"
    body = done.stdout + (f"\n[stderr]\n{done.stderr}" if done.stderr else "")
    return _clip(f"$ {command}\n(exit {done.returncode})\n{body}")


def _list_dir(path: str = ".") -> str:
    target = (WORKDIR / path).resolve()
    if not target.is_relative_to(WORKDIR):
        raise CommandRefused(f"{path} is outside {WORKDIR}")
    entries = sorted(target.iterdir(), key=lambda p: (not p.is_dir(), p.name))
    return "\n".join(f"{e.name}/" if e.is_dir() else e.name for e in entries) or "(empty)"


def _git_status() -> str:
    return _run_command("git status --short --branch")


def _which(program: str) -> str:
    if program not in ALLOWED_PROGRAMS:
        return f"{program}: not on the allow list"
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return f"{program}: not installed"


# Tool name -> implementation. The model only ever sees these four names.
DISPATCH: dict[str, Callable[..., str]] = {
    "run_command": _run_command,
    "list_dir": _list_dir,
    "git_status": _git_status,
    "which": _which,
}


def execute(name: str, arguments: dict[str, str]) -> tuple[str, bool]:
    """Run tool ``name``; return (text for the model, whether it failed)."""
    implementation = DISPATCH.get(name)
    if implementation is None:
        return f"no tool named {name!r}; tools: {', '.join(DISPATCH)}", True
    try:
        return implementation(**arguments), False
    except CommandRefused as refused:
        return f"refused: {refused}", True
    except TypeError as bad_args:
        return f"bad arguments for {name}: {bad_args}", True
    except OSError as failure:
        return f"{name} failed: {failure.strerror or failure}", True


def tool_descriptions() -> list[dict[str, object]]:
    """Short JSON descriptions of the shell tools, for the request's ``tools`` field."""
    text = {"type": "string"}
    return [
        {
            "name": "run_command",
            "description": "Run an allowed program.",
            "input_schema": {
                "type": "object",
                "properties": {"command": text},
                "required": ["command"],
            },
        },
        {
            "name": "list_dir",
            "description": "List a folder of the working directory.",
            "input_schema": {"type": "object", "properties": {"path": text}},
        },
        {
            "name": "git_status",
            "description": "Show the branch and changed files.",
            "input_schema": {"type": "object", "properties": {}},
        },
        {
            "name": "which",
            "description": "Find where an allowed program is installed.",
            "input_schema": {
                "type": "object",
                "properties": {"program": text},
                "required": ["program"],
            },
        },
    ]
