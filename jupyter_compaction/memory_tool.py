"""The memory tool, run on the client: six file commands inside one memory folder.

Claude's memory tool (`memory_20250818`) is defined by the API but executed by the
client: the model sends `tool_use` blocks named `memory` whose input holds a `command`
and its arguments, and the client answers each with a `tool_result`. Every path the
model writes starts with `/memories`; `MemoryFolder` maps that prefix onto one real
folder and runs the six commands there:

- `view`: a folder's files (two levels deep, with sizes), or a file with numbered lines
  (`view_range` picks lines `[first, last]`, `-1` meaning to the end);
- `create`: a new file with `file_text` (a file that exists is refused: edit it instead);
- `str_replace`: replace `old_str`, which must occur exactly once, by `new_str`;
- `insert`: put `insert_text` after line `insert_line` (0: at the top);
- `delete`: a file or a folder with everything in it;
- `rename`: move `old_path` to `new_path` (which must not exist yet).

A path outside `/memories` (another prefix, `..`, a link that leads out) is refused as
a path that does not exist, with the wording the API documents for a missing path. The
API's documentation asks implementers to refuse such paths but gives no wording of its
own for them: using the missing-path sentence is our guess. The other answers follow
the documented shapes (`File created successfully at: …`, numbered lines with a tab);
their exact wording is likewise our reading of the documentation, not a published spec.
Sizes are bounded: a file at most `MAX_FILE_CHARS` characters, the folder at most
`MAX_FILES` files; a command that would pass a bound is refused and changes nothing.

Left out: hidden files (a name starting with "." is neither listed nor written), binary
files, locking, and expiry of old memories.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .hooks import Feature
from .tools import ToolError
from .vocab import MEMORY_TOOL_NAME

if TYPE_CHECKING:
    from .run import Run

MEMORY_ROOT = "/memories"  # every path the model writes starts here
MEMORY_FOLDER = "memories"  # the agent's memory folder, inside its workspace
MAX_FILE_CHARS = 20_000  # a memory file may hold at most this many characters ...
MAX_FILES = 100  # ... and the folder at most this many files
VIEW_DEPTH = 2  # a folder view lists this many levels
LINE_NUMBER_WIDTH = 6
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")


def _size(n: int) -> str:
    """A byte count as a short human size: 120, 4.2K, 1.1M."""
    for unit in ("", "K", "M"):
        if n < 1024 or unit == "M":
            return f"{n}" if not unit else f"{n:.1f}{unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)  # not reached


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{n:>{LINE_NUMBER_WIDTH}}\t{line}"
                     for n, line in enumerate(lines, start=first))


class MemoryFolder:
    """One real folder seen by the model as `/memories`; `run()` executes a command."""

    def __init__(self, root: str | Path, *, max_file_chars: int = MAX_FILE_CHARS,
                 max_files: int = MAX_FILES):
        self.root = Path(root).expanduser().resolve()
        self.max_file_chars, self.max_files = max_file_chars, max_files

    def __repr__(self) -> str:
        return f"MemoryFolder({str(self.root)!r})"

    # --- paths ------------------------------------------------------------------------
    def resolve(self, path: str) -> Path:
        """The real path of a `/memories/...` path; ToolError if it is anywhere else."""
        missing = ToolError(f"The path {path} does not exist. Please provide a valid path.")
        if not isinstance(path, str) or "\x00" in path or "\\" in path:
            raise missing
        if path != MEMORY_ROOT and not path.startswith(MEMORY_ROOT + "/"):
            raise missing
        parts = [p for p in path[len(MEMORY_ROOT):].split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise missing
        self.root.mkdir(parents=True, exist_ok=True)
        full = self.root.joinpath(*parts).resolve()
        if not full.is_relative_to(self.root):
            raise missing
        return full

    def _shown(self, full: Path) -> str:
        rest = full.relative_to(self.root).as_posix()
        return MEMORY_ROOT if rest == "." else f"{MEMORY_ROOT}/{rest}"

    def _file(self, path: str) -> Path:
        full = self.resolve(path)
        if not full.is_file():
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        return full

    def _files(self) -> list[Path]:
        return [p for p in self.root.rglob("*") if p.is_file()] if self.root.exists() else []

    def _write(self, full: Path, text: str, new: bool) -> None:
        if len(text) > self.max_file_chars:
            raise ToolError(f"Error: {self._shown(full)} would hold {len(text):,} characters, "
                            f"over the {self.max_file_chars:,} allowed; keep memories shorter.")
        if new and len(self._files()) >= self.max_files:
            raise ToolError(f"Error: the memory folder already holds {self.max_files} files; "
                            "delete or merge some first.")
        if any(part.startswith(".") for part in full.relative_to(self.root).parts):
            raise ToolError(f"Error: {self._shown(full)} is hidden; use a name without a "
                            "leading dot.")
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")

    # --- the six commands -------------------------------------------------------------
    def view(self, path: str, view_range: list[int] | None = None) -> str:
        full = self.resolve(path)
        if full.is_dir():
            return self._view_folder(full)
        text = self._file(path).read_text(encoding="utf-8")
        lines = text.split("\n")
        first, last = 1, len(lines)
        if view_range is not None:
            if (not isinstance(view_range, list) or len(view_range) != 2
                    or not all(isinstance(n, int) for n in view_range)):
                raise ToolError("Error: view_range must be two line numbers, e.g. [1, 10].")
            first, last = view_range[0], len(lines) if view_range[1] == -1 else view_range[1]
            if not 1 <= first <= last <= len(lines):
                raise ToolError(f"Error: Invalid view_range {view_range}: lines run from 1 "
                                f"to {len(lines)}.")
        return (f"Here's the content of {path} with line numbers:\n"
                + _numbered(lines[first - 1:last], first))

    def _view_folder(self, full: Path) -> str:
        entries = [full, *sorted(p for p in full.rglob("*")
                                 if len(p.relative_to(full).parts) <= VIEW_DEPTH
                                 and not any(s.startswith(".")
                                             for s in p.relative_to(full).parts))]
        rows = []
        for entry in entries:
            size = (sum(p.stat().st_size for p in entry.rglob("*") if p.is_file())
                    if entry.is_dir() else entry.stat().st_size)
            rows.append(f"{_size(size)}\t{self._shown(entry)}")
        return (f"Here're the files and directories up to {VIEW_DEPTH} levels deep in "
                f"{self._shown(full)}, excluding hidden items:\n" + "\n".join(rows))

    def create(self, path: str, file_text: str) -> str:
        full = self.resolve(path)
        if full.exists():
            raise ToolError(f"Error: File {path} already exists")
        self._write(full, file_text, new=True)
        return f"File created successfully at: {path}"

    def str_replace(self, path: str, old_str: str, new_str: str = "") -> str:
        full = self._file(path)
        text = full.read_text(encoding="utf-8")
        count = text.count(old_str) if old_str else 0
        if count == 0:
            raise ToolError(f"No replacement was performed, old_str `{old_str}` did not "
                            f"appear verbatim in {path}.")
        if count > 1:
            at = [n for n, line in enumerate(text.split("\n"), start=1) if old_str in line]
            raise ToolError(f"No replacement was performed. Multiple occurrences of old_str "
                            f"`{old_str}` in lines: {at}. Please ensure it is unique")
        new_text = text.replace(old_str, new_str)
        self._write(full, new_text, new=False)
        start = text[:text.index(old_str)].count("\n") + 1
        shown = new_text.split("\n")[start - 1:start - 1 + new_str.count("\n") + 1]
        return f"The memory file has been edited.\n{_numbered(shown, start)}"

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        full = self._file(path)
        lines = full.read_text(encoding="utf-8").split("\n")
        if not isinstance(insert_line, int) or not 0 <= insert_line <= len(lines):
            raise ToolError(f"Error: Invalid `insert_line` parameter: {insert_line}. It "
                            f"should be within the range of lines of the file: "
                            f"[0, {len(lines)}]")
        added = insert_text.removesuffix("\n").split("\n")
        self._write(full, "\n".join([*lines[:insert_line], *added, *lines[insert_line:]]),
                    new=False)
        return f"The file {path} has been edited."

    def delete(self, path: str) -> str:
        full = self.resolve(path)
        if full == self.root:
            raise ToolError(f"Error: cannot delete the memory folder {MEMORY_ROOT} itself.")
        if not full.exists():
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        if full.is_dir():
            shutil.rmtree(full)
        else:
            full.unlink()
        return f"Successfully deleted {path}"

    def rename(self, old_path: str, new_path: str) -> str:
        old, new = self.resolve(old_path), self.resolve(new_path)
        if old == self.root or not old.exists():
            raise ToolError(f"The path {old_path} does not exist. Please provide a valid path.")
        if new.exists():
            raise ToolError(f"Error: The destination {new_path} already exists")
        new.parent.mkdir(parents=True, exist_ok=True)
        old.rename(new)
        return f"Successfully renamed {old_path} to {new_path}"

    # --- dispatch ---------------------------------------------------------------------
    def run(self, command: str, **args: object) -> str:
        """Run one command with the arguments the model sent; ToolError on bad input."""
        method = getattr(self, command, None) if command in COMMANDS else None
        if method is None:
            raise ToolError(f"Error: Unknown command {command!r}; the commands are: "
                            f"{', '.join(COMMANDS)}.")
        given = {k: v for k, v in args.items() if v is not None}
        try:
            return method(**given)
        except TypeError as exc:
            raise ToolError(f"Error: bad arguments for {command}: {exc}") from None

    def tool(self) -> Callable[..., str]:
        """The `memory` tool for a `Toolbox`, bound to this folder."""

        def memory(command: str, path: str | None = None, file_text: str | None = None,
                   old_str: str | None = None, new_str: str | None = None,
                   insert_line: int | None = None, insert_text: str | None = None,
                   old_path: str | None = None, new_path: str | None = None,
                   view_range: list[int] | None = None) -> str:
            """Read and write files in your memory folder /memories (view, create,
            str_replace, insert, delete, rename); it outlives every compaction."""
            return self.run(command, path=path, file_text=file_text, old_str=old_str,
                            new_str=new_str, insert_line=insert_line, insert_text=insert_text,
                            old_path=old_path, new_path=new_path, view_range=view_range)

        memory.__name__ = MEMORY_TOOL_NAME
        return memory


class Memory(Feature):
    """The memory tool in a run, over one folder (`folder`) that outlives the runs."""

    def __init__(self, folder: MemoryFolder):
        self.folder = folder

    def tools(self, run: Run) -> list[Callable[..., Any]]:
        return [self.folder.tool()]
