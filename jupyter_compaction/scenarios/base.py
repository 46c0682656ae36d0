"""What a scenario is: a task, the steps that solve it, and the findings each step yields.

A `Scenario` bundles a user task, a folder of real files (its workspace), the tools that
read them, and a list of `Step`s. Each step names a tool call and the one-line `fact` it
yields; its `markers` are substrings found both in that call's output and in the fact, so
a reader (the simulated model, a benchmark) can tell whether the finding is still visible
in a context: all markers present means visible. `compose` builds the final answer from
whichever facts are visible, so losing a finding to compaction makes the answer wrong.

This module also holds the file tools several scenarios share (`list_files`, `read_file`,
`grep`), built as closures over a `Workspace`.

Left out: tools that change files (the scenarios only read), and randomness: every
scenario plays out the same way every time.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_compaction.tools import ToolError
from jupyter_compaction.workspace import Workspace

WORKSPACES_DIR = Path(__file__).resolve().parent / "workspaces"
MAX_GREP_LINES = 200  # more matches than this are counted, not shown


@dataclass(frozen=True)
class Step:
    """One tool call of a scenario's solution and the finding it yields."""

    id: str
    label: str
    tool: str
    args: dict[str, Any] = field(hash=False)
    fact: str
    markers: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.markers:
            raise ValueError(f"step {self.id!r} needs at least one marker")
        missing = [m for m in self.markers if m not in self.fact]
        if missing:
            raise ValueError(f"step {self.id!r}: markers {missing} are not in its fact")
        if "\n" in self.fact:
            raise ValueError(f"step {self.id!r}: the fact must be one line")

    def visible_in(self, text: str) -> bool:
        """Whether this step's finding can be read in `text` (all markers present)."""
        return all(marker in text for marker in self.markers)


@dataclass(frozen=True)
class Scenario:
    """A task with its workspace, tools, solution steps and must-keep identifiers."""

    name: str
    title: str
    task: str
    steps: tuple[Step, ...]
    must_keep: tuple[str, ...]
    compose: Callable[[Mapping[str, str]], str]
    make_tools: Callable[[Workspace], list[Callable[..., str]]]

    def __post_init__(self) -> None:
        for attr in ("id", "label"):
            values = [getattr(s, attr) for s in self.steps]
            if len(set(values)) != len(values):
                raise ValueError(f"scenario {self.name!r}: step {attr}s must be unique")

    def tools(self, workspace: Workspace) -> list[Callable[..., str]]:
        """The scenario's tools, bound to `workspace`."""
        return self.make_tools(workspace)

    def step(self, step_id: str) -> Step:
        """The step with id `step_id` (KeyError if there is none)."""
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(f"scenario {self.name!r} has no step {step_id!r}")

    def run_step(self, step: Step, workspace: Workspace) -> str:
        """Call `step`'s tool with its arguments on `workspace` and return the output."""
        tools = {fn.__name__: fn for fn in self.tools(workspace)}
        return tools[step.tool](**step.args)

    @property
    def facts(self) -> dict[str, str]:
        """Every step's finding, by step id: what a complete investigation knows."""
        return {s.id: s.fact for s in self.steps}

    def answer(self, facts: Mapping[str, str]) -> str:
        """The final answer that can be written from `facts` ({step_id: fact}) alone."""
        return self.compose(facts)

    @property
    def expected_answer(self) -> str:
        return self.answer(self.facts)

    def is_correct(self, answer: str) -> bool:
        return answer.strip() == self.expected_answer.strip()

    @property
    def workspace_dir(self) -> Path:
        """The bundled files (inside the package: read them, never write there)."""
        return WORKSPACES_DIR / self.name

    def prepare(self, dest: str | Path) -> Workspace:
        """Copy the bundled workspace into `dest` (new or empty) and return a Workspace on it."""
        target = Path(dest)
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise FileExistsError(f"{str(target)!r} is not an empty folder; pick a fresh one")
        # Copy contents only, not permissions: a read-only install still gives a writable copy.
        for src in sorted(self.workspace_dir.rglob("*")):
            if "__pycache__" in src.parts or src.suffix == ".pyc":
                continue
            dst = target / src.relative_to(self.workspace_dir)
            if src.is_dir():
                dst.mkdir(parents=True, exist_ok=True)
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
        target.mkdir(parents=True, exist_ok=True)
        return Workspace(target)


def have(facts: Mapping[str, str], *step_ids: str) -> bool:
    """Whether every one of `step_ids` has a visible fact."""
    return all(step_id in facts for step_id in step_ids)


# -- file tools shared by several scenarios ------------------------------------------------


def make_list_files(ws: Workspace) -> Callable[..., str]:
    def list_files(folder: str = ".") -> str:
        """List every file under a folder of the workspace, recursively, with sizes.

        Paths are relative to the workspace root; pass one of them to read_file.
        """
        paths = ws.list_files(folder)
        where = ws.relative(ws.resolve(folder))
        place = "the workspace root" if where == "." else f"{where}/"
        sizes = [(ws.root / p).stat().st_size for p in paths]
        lines = [f"{len(paths)} files under {place} ({sum(sizes):,} bytes):"]
        lines += [f"{p}  {size:,} bytes" for p, size in zip(paths, sizes, strict=True)]
        return "\n".join(lines)

    return list_files


def make_read_file(ws: Workspace) -> Callable[..., str]:
    def read_file(path: str) -> str:
        """Return the full text of one file of the workspace (a path from list_files)."""
        return ws.read_text(path) or f"({path} is empty)"

    return read_file


def make_grep(ws: Workspace) -> Callable[..., str]:
    def grep(pattern: str, path: str) -> str:
        """Show the numbered lines of one file that match a regular expression.

        The match is case-sensitive; use a plain word such as 'timeout' or a pattern such
        as 'duration_ms=\\d{5}'.
        """
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"Bad pattern {pattern!r}: {exc}; escape special characters.") from None
        lines = ws.read_text(path).splitlines()
        hits = [f"{n}: {line}" for n, line in enumerate(lines, start=1) if regex.search(line)]
        if not hits:
            return f"No line of {path} matches {pattern!r} ({len(lines)} lines searched)."
        head = f"{len(hits)} of {len(lines)} lines of {path} match {pattern!r}:"
        shown = hits[:MAX_GREP_LINES]
        if len(hits) > len(shown):
            shown.append(f"... {len(hits) - len(shown)} more matches not shown")
        return "\n".join([head, *shown])

    return grep


def read_record(ws: Workspace, folder: str, key: str, *, kind: str, example: str) -> str:
    """The text of `folder/<key>.json`, for a key shaped like `example` (e.g. ORD-1042).

    The key must have the example's prefix and be digits after it, so no path can be
    smuggled in; a well-formed key with no record is a ToolError too.
    """
    prefix = example.rstrip("0123456789")
    clean = key.strip().upper() if isinstance(key, str) else ""
    if not re.fullmatch(re.escape(prefix) + r"\d{1,8}", clean):
        raise ToolError(f"{key!r} is not a {kind} ID; {kind} IDs look like {example}.")
    if not ws.resolve(f"{folder}/{clean}.json").is_file():
        raise ToolError(f"No {kind} {clean!r} on record; check the ID and try again.")
    return ws.read_text(f"{folder}/{clean}.json")
