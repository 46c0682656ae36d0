"""A folder the agent's tools may read (and append notes to), and nothing outside it.

`Workspace` turns a path given by a model into a real file under one root folder, or
refuses with a `ToolError` whose one-line message tells the model what to do instead.
A path is refused when it is empty, absolute (`/etc/passwd`, `C:\\x`, `~/x`, `\\\\server`),
contains a NUL byte, or lands outside the root once `..` and symlinks are resolved.
Backslashes count as separators, so `..\\x` is as unwelcome as `../x`. Reads refuse
folders, missing files, files over `max_file_bytes` and files that are not UTF-8;
listing never follows a symlink, skips file links that point outside the root, and
skips the run folder (`RUN_FOLDER`, at the root): what the agent's run keeps for itself,
such as the results it offloaded (`offload.py`), is not among the task's files.

Left out: write access beyond appending (tools that edit files are not needed to teach
compaction), locking, and protection against a symlink swapped in between the check and
the read (the workspace is a copy the tools own, not a hostile shared folder).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from jupyter_compaction.tools import ToolError

MAX_FILE_BYTES = 256_000  # larger files are refused, not truncated: say so, let the model choose
RUN_FOLDER = ".run"  # the run's own files, beside the notes and memory: never listed
_DRIVE = re.compile(r"^[A-Za-z]:")  # C:\x, C:/x and C:x are all Windows-absolute


class Workspace:
    """A sandboxed folder: every path is relative to `root` and must stay inside it."""

    def __init__(self, root: str | Path, *, max_file_bytes: int = MAX_FILE_BYTES):
        resolved = Path(root).expanduser().resolve()
        if not resolved.is_dir():
            raise NotADirectoryError(f"workspace root {str(root)!r} is not an existing folder")
        self.root: Path = resolved
        self.max_file_bytes = max_file_bytes

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def resolve(self, path: str) -> Path:
        """The absolute path of `path` (relative to the root); ToolError if it could escape."""
        if not isinstance(path, str):
            raise ToolError(f"Path must be text, not {type(path).__name__}; e.g. 'notes.md'.")
        if not path.strip():
            raise ToolError("Empty path; give a path relative to the workspace, e.g. 'notes.md'.")
        if "\x00" in path:
            raise ToolError(f"Path {path!r} contains a NUL byte; remove it.")
        candidate = path.replace("\\", "/")
        if candidate.startswith(("/", "~")) or _DRIVE.match(candidate):
            raise ToolError(
                f"Path {path!r} is absolute; give a path relative to the workspace root."
            )
        try:
            full = (self.root / candidate).resolve()  # follows every symlink that exists
            full.exists()  # raises here, not later, for names the system refuses
        except (OSError, RuntimeError) as exc:  # symlink loops, over-long names
            raise ToolError(f"Path {path!r} cannot be resolved ({type(exc).__name__}).") from None
        if not full.is_relative_to(self.root):
            raise ToolError(
                f"Path {path!r} leads outside the workspace; use a path inside it, "
                "without '..' or links that point out."
            )
        return full

    def relative(self, full: Path) -> str:
        """`full` (inside the root) as the posix path the tools show, '.' for the root."""
        return full.relative_to(self.root).as_posix() or "."

    def read_text(self, path: str) -> str:
        """The text of a UTF-8 file inside the workspace, with `\\r\\n` turned into `\\n`."""
        full = self._existing_file(path)
        try:
            size = full.stat().st_size
            if size > self.max_file_bytes:
                raise ToolError(
                    f"{path!r} is {size:,} bytes, over the {self.max_file_bytes:,}-byte limit; "
                    "read a smaller file."
                )
            data = full.read_bytes()
        except OSError as exc:
            raise ToolError(f"Cannot read {path!r} ({type(exc).__name__}).") from None
        return self._decode(path, data).replace("\r\n", "\n")

    def list_files(self, folder: str = ".") -> list[str]:
        """Sorted posix paths (relative to the root) of every file under `folder`, recursively.

        Symlinked folders are not entered; symlinked files are listed only when they point
        at a file inside the root.
        """
        full = self.resolve(folder)
        if not full.exists():
            raise ToolError(f"No folder {folder!r} in the workspace; list '.' to see what exists.")
        if not full.is_dir():
            raise ToolError(f"{folder!r} is a file, not a folder; read it instead.")
        found: list[str] = []
        for dirpath, dirnames, filenames in os.walk(full, followlinks=False):
            if Path(dirpath) == self.root and RUN_FOLDER in dirnames:
                dirnames.remove(RUN_FOLDER)  # the run's own folder is not the task's
            for name in filenames:
                entry = Path(dirpath) / name
                if entry.is_symlink():
                    try:
                        target = entry.resolve()
                    except (OSError, RuntimeError):
                        continue
                    if not (target.is_relative_to(self.root) and target.is_file()):
                        continue
                elif not entry.is_file():
                    continue  # sockets, fifos and the like are not for reading
                found.append(entry.relative_to(self.root).as_posix())
        return sorted(found)

    def append_text(self, path: str, text: str) -> None:
        """Add `text` at the end of a UTF-8 file, creating it (and its folders) if needed."""
        full = self.resolve(path)
        if full == self.root or full.is_dir():
            raise ToolError(f"{path!r} is a folder, not a file; append to a file in it.")
        if full.exists() and not full.is_file():
            raise ToolError(f"{path!r} is not a regular file; append to a plain text file.")
        added = text.encode("utf-8")
        try:
            existing = full.read_bytes() if full.exists() else b""
        except OSError as exc:
            raise ToolError(f"Cannot read {path!r} ({type(exc).__name__}).") from None
        self._decode(path, existing)
        total = len(existing) + len(added)
        if total > self.max_file_bytes:
            raise ToolError(
                f"Appending would make {path!r} {total:,} bytes, over the "
                f"{self.max_file_bytes:,}-byte limit; keep notes shorter."
            )
        try:
            full.parent.mkdir(parents=True, exist_ok=True)
            with full.open("ab") as handle:
                handle.write(added)
        except OSError as exc:
            raise ToolError(f"Cannot write {path!r} ({type(exc).__name__}).") from None

    def _existing_file(self, path: str) -> Path:
        full = self.resolve(path)
        if not full.exists():
            raise ToolError(f"No file {path!r} in the workspace; list the folder to find it.")
        if full.is_dir():
            raise ToolError(f"{path!r} is a folder, not a file; list it instead.")
        if not full.is_file():
            raise ToolError(f"{path!r} is not a regular file; only plain text files can be read.")
        return full

    @staticmethod
    def _decode(path: str, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"{path!r} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start}); only text files can be read."
            ) from None
