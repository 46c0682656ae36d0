"""Large tool results kept outside the context: a file of the run, and a preview.

The cheapest tier before any summary (AWS Strands' `context_manager="auto"` stores a
result over 1,500 tokens the same way): a tool result over `Settings.offload_threshold`
tokens (a share of the budget, or a number of tokens) is written whole to a file in the
run's own folder (`workspace.RUN_FOLDER`, beside the notes and memory, never listed by
the workspace's file tools), and the context gets a preview in its place: a first line
saying what the result was, how large, and where it is kept (`vocab.offload_head`), then
its first lines. Two tools bring it back piece by piece: `read_offloaded(path, start,
end)` returns a range of numbered lines and `search_offloaded(path, pattern)` the
numbered lines a regular expression matches, so the agent reads again only what it
needs, and a fact compaction dropped can still be found by searching the file.

Steps of one offload (`Offload.on_result`), for each tool result:
1. leave errors, results at or under the threshold, the offload tools' own results and
   the agent's own state read back (notes, memory: what it keeps so as not to need the
   context; `loop_guard.own_state`) as they are;
2. write the whole text to `offloaded/<tool-use id>.txt` in the run folder, and beside it
   the call whose result it is: a search or range of the file names that call in its
   first line, so it still says what it read once the preview was compacted away;
3. put the preview in the context instead.

Left out: offloading results that are not text, removing a run's files (they are the
run's record, like the notes file), and a preview chosen by content (it is always the
first lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .history import input_json
from .hooks import Feature
from .loop_guard import own_state
from .tokens import TokenCounter
from .tools import ToolError
from .vocab import READ_OFFLOADED, SEARCH_OFFLOADED, offload_head, offload_source

if TYPE_CHECKING:
    from .run import Run

OFFLOAD_FOLDER = "offloaded"  # inside the run folder
PREVIEW_LINES = 10  # the first lines a preview shows
PREVIEW_CHARS = 600  # at most this many characters of them
MAX_HITS = 100  # a search shows at most this many matching lines, and counts the rest
MAX_RANGE = 400  # a range read returns at most this many lines
SOURCE_SUFFIX = ".source"  # beside each file: the call whose result it holds
_UNSAFE = re.compile(r"[^\w.-]")  # characters a file name made from a tool-use id drops


@dataclass(frozen=True)
class OffloadFolder:
    """The offloaded results of a run, under `root` (the run folder)."""

    root: Path

    def save(self, name: str, text: str, source: str = "") -> str:
        """Write `text` as `offloaded/<name>.txt` and what it holds (`source`, the call
        whose result it is) beside it; the path (relative to the run folder) the preview
        and the tools name it by."""
        relative = f"{OFFLOAD_FOLDER}/{_UNSAFE.sub('_', name) or 'result'}.txt"
        full = self.root / relative
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")
        full.with_suffix(SOURCE_SUFFIX).write_text(source, encoding="utf-8")
        return relative

    def source(self, path: str) -> str:
        """What the offloaded file `path` holds, as its results name it: " (the result of
        read_file {...})", or "" when it was not recorded."""
        about = (self.root / str(path)).with_suffix(SOURCE_SUFFIX)
        text = about.read_text(encoding="utf-8") if about.is_file() else ""
        return f" {text}" if text else ""

    def lines(self, path: str) -> list[str]:
        """The lines of the offloaded file `path`; a `ToolError` for any other path."""
        folder = (self.root / OFFLOAD_FOLDER).resolve()
        full = (self.root / str(path)).resolve()
        if not (full.is_relative_to(folder) and full.is_file()):
            raise ToolError(f"No offloaded file {path!r}; use the path a preview gave, "
                            f"e.g. '{OFFLOAD_FOLDER}/toolu_1.txt'.")
        return full.read_text(encoding="utf-8").splitlines()

    def tools(self) -> list[Callable[..., str]]:
        """`read_offloaded` and `search_offloaded`, bound to this folder."""

        def read_offloaded(path: str, start: int, end: int) -> str:
            """Read lines start to end (numbered from 1, end included) of an offloaded
            result, by the path its preview gave."""
            lines = self.lines(path)
            if start < 1 or end < start:
                raise ToolError(f"Give 1 <= start <= end; got start {start}, end {end}.")
            end = min(end, len(lines), start + MAX_RANGE - 1)
            shown = [f"{n}: {lines[n - 1]}" for n in range(start, end + 1)]
            head = f"Lines {start}-{end} of {len(lines)} of {path}{self.source(path)}:"
            return "\n".join([head, *shown])

        def search_offloaded(path: str, pattern: str) -> str:
            """Show the numbered lines of an offloaded result that match a regular
            expression (by the path its preview gave)."""
            lines = self.lines(path)
            try:
                regex = re.compile(pattern)
            except re.error as exc:
                raise ToolError(f"Bad pattern {pattern!r}: {exc}; escape special "
                                "characters.") from None
            hits = [f"{n}: {line}" for n, line in enumerate(lines, 1) if regex.search(line)]
            head = f"{len(hits)} of {len(lines)} lines of {path}{self.source(path)} match:"
            more = [f"... {len(hits) - MAX_HITS} more matches not shown"] * (len(hits) > MAX_HITS)
            return "\n".join([head, *hits[:MAX_HITS], *more])

        read_offloaded.__name__, search_offloaded.__name__ = READ_OFFLOADED, SEARCH_OFFLOADED
        return [read_offloaded, search_offloaded]


def preview(text: str, what: str, tokens: int, path: str) -> str:
    """What the context keeps of an offloaded result: the head line, then its first
    `PREVIEW_LINES` lines (at most `PREVIEW_CHARS` characters)."""
    lines, shown, size = text.splitlines(), [], 0
    for line in lines[:PREVIEW_LINES]:  # whole lines only: a reader may count on them
        size += len(line) + 1
        if size > PREVIEW_CHARS:
            break
        shown.append(line)
    return "\n".join([offload_head(what, tokens, len(lines), path),
                      f"First {len(shown)} lines:", *shown])


class Offload(Feature):
    """Moves each tool result over `over` tokens into `folder`, leaving a preview."""

    def __init__(self, folder: OffloadFolder, over: int, counter: TokenCounter):
        self.folder, self.over, self.counter = folder, over, counter

    def tools(self, run: Run) -> list[Callable[..., Any]]:
        return self.folder.tools()

    def on_result(self, run: Run, call: dict[str, Any], result: dict[str, Any]
                  ) -> dict[str, Any]:
        text = result.get("content")
        if (result.get("is_error") or not isinstance(text, str)  # 1. left as it is
                or call.get("name") in (READ_OFFLOADED, SEARCH_OFFLOADED)
                or own_state(call.get("name", ""), call.get("input") or {})
                or (tokens := self.counter.count_text(text)) <= self.over):
            return result
        name, args = call.get("name", ""), call.get("input") or {}
        path = self.folder.save(str(call.get("id", "")), text,  # 2. the whole text
                                offload_source(name, input_json(args)))
        what = f"{name} {_inputs(args)}"
        return {**result, "content": preview(text, what, tokens, path)}  # 3. the preview


def _inputs(args: dict[str, Any]) -> str:
    """A call's input, short: `path=markdown/core.py`."""
    return ", ".join(f"{name}={value}" for name, value in args.items()) or "(no input)"
