"""ex6c (lesson 6): `add_note`, append a decision to the notes file (C14).

The notes file is how a decision outlives every compaction: the agent writes it to a
file outside the context and reads it back later. The learner returns the file's new
text after one note; the expected text is what the library's `write_note` tool
(`task_state.notes_tools`) leaves in `NOTES.md` of a temporary workspace holding the
given text (no file when `notes` is None): the note stripped of surrounding whitespace,
as a `- ` line of its own at the end (a file that does not end with a newline gets one
first), every earlier note kept as it was. The tool refuses a blank note; then the
learner returns `notes` unchanged. The teeth: the `- ` prefix and the newline, a line of
its own after a file without a final newline, stripping, appending (not prepending, not
replacing), no file yet, an empty file, a blank note, a note of several lines, and
duplicates kept (a note is a record, not a set).

Left out: reading notes back (`read_notes` returns the file as it is) and the file's
size limit (notes here are short).
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..task_state import NOTES_FILE, notes_tools
from ..tools import ToolError
from ..workspace import Workspace
from .base import Case, Exercise, Space, Test, call, compare, numbered
from .histories import random_id

HIDDEN_CASES = 8
NOTES = "- policy: GPL-3.0 is forbidden\n- ORD-1042 ships from the Leeds depot\n"


def expected(notes: str | None, text: str) -> str | None:
    with tempfile.TemporaryDirectory(prefix="compaction-notes-") as root:
        if notes is not None:
            (Path(root) / NOTES_FILE).write_bytes(notes.encode("utf-8"))
        write_note, _ = notes_tools(Workspace(root))
        try:
            write_note(text)
        except ToolError:
            return notes
        return (Path(root) / NOTES_FILE).read_bytes().decode("utf-8")


def same_as_tool(notes: str | None, text: str) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        return compare(fn(notes, text), expected(notes, text),
                       call("add_note", notes=notes, text=text) + " returned")
    return test


CASES = (
    Case("a note is a '- ' line at the end",
         "add_note('- a\\n', 'b') returns '- a\\n- b\\n': keep every earlier note, then '- ',"
         " the note and a newline", same_as_tool(NOTES, "chose the pinned mirror for ORD-7")),
    Case("no notes file yet",
         "notes is None when the file does not exist yet: return '- <note>\\n'",
         same_as_tool(None, "first finding: VD-311 is the slow vendor")),
    Case("an empty notes file", "an empty file gets the note as its first line",
         same_as_tool("", "INC-88: restart fixed it")),
    Case("a file without a final newline",
         "each note is a line of its own: add_note('- a', 'b') returns '- a\\n- b\\n' (add the "
         "missing newline first, never glue two notes)", same_as_tool("- a", "b")),
    Case("the note is stripped",
         "strip spaces and newlines around the note (text.strip()); spaces inside stay",
         same_as_tool(NOTES, "   decided:  keep   retries at 3 \n\n")),
    Case("a blank note changes nothing",
         "a note that is empty or only whitespace is refused: return notes unchanged",
         same_as_tool(NOTES, " \n ")),
    Case("a blank note and no file",
         "a refused note creates no file: return None when notes is None",
         same_as_tool(None, "")),
    Case("a note of several lines",
         "only the ends are stripped: a note's inner newlines stay as they are",
         same_as_tool(NOTES, "GW-12 timeout\nraised to 30 s\n")),
    Case("the same note twice is kept twice",
         "append even when the same note is already there: notes are a record, in order",
         same_as_tool(NOTES, "policy: GPL-3.0 is forbidden")),
)


def random_note(rng: random.Random) -> str:
    body = rng.choice(("decided: {}", "{} is the cause", "checked {}: fine", "{}\nthen {}"))
    note = body.format(random_id(rng), random_id(rng))
    return rng.choice(("", " ", "\n")) + note + rng.choice(("", " ", "\n", "  \n"))


def hidden_case(n: int, rng: random.Random) -> Case:
    notes: str | None = None if rng.random() < 0.2 else ""
    if notes is not None:
        for _ in range(rng.randint(0, 4)):
            notes = expected(notes, random_note(rng))
    text = rng.choice((random_note(rng), random_note(rng), rng.choice(("", "  ", "\n\t"))))
    return Case(f"hidden case {n}", f"add_note(<{'no file' if notes is None else 'a file'}>,"
                f" {text!r})", same_as_tool(notes, text))


def notes_inputs():
    """No file (None), an empty file, notes with or without a final newline; notes that
    are empty, blank, multi-line or not ASCII."""
    from hypothesis import strategies as st

    notes = st.one_of(st.none(), st.sampled_from(("", NOTES, "- a", "- a\n\n")))
    text = st.one_of(st.sampled_from(("", " ", "\n", "x\ny", "  padded  ", "ORD-7 \u00e9")),
                     st.text(max_size=30))
    return st.tuples(notes, text)


SPACE = Space(same_as_tool, notes_inputs, edges=(
    (None, ""), ("", ""), (None, "first"), ("", " "), ("- a", "b"), (NOTES, "x\ny"),
    (NOTES, "  padded  ")))


EXERCISE = Exercise(
    id="ex6c", lesson=6, function="add_note",
    signature="add_note(notes, text)",
    contract="`notes` is the text of the notes file (None when there is none yet). Return "
             "its new text with the note appended as the line '- <text stripped>\\n', a line "
             "of its own (a file not ending in a newline gets one first), every earlier note "
             "kept; a blank note changes nothing (return notes as it was).",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("notes_tools", "append_text", "write_note"),
    space=SPACE,
)
