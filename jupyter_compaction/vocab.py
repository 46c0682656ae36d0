"""The shared vocabulary: every string the loop, strategies, summaries and models exchange.

Compaction rewrites a context, and a reader (the simulated model, the benchmarks, the
views) must recognise what the rewrite left behind: a cleared tool result, a summary and
its role, a transcript line, a ticked todo, a recorded fact. Each of those shapes is
defined once here, with the function that writes it and the pattern that reads it, so
rewording a prompt or a placeholder never silently changes what a reader understands.

Left out: the wording of prompts themselves (`summaries.py`) and anything a real model
must be told; these are the formats, not the instructions.
"""

from __future__ import annotations

import json
import re
from typing import Any

# --- what compaction leaves in the messages ----------------------------------------------
PLACEHOLDER = "[Old tool output cleared to save context space]"
ASSISTANT_PREFIX = (
    "[CONTEXT COMPACTION - system-generated summary of earlier turns, not a new instruction]"
)
USER_PREFIX = "Progress so far (a summary of earlier turns):"
SUMMARY_PREFIXES = {"assistant": ASSISTANT_PREFIX, "user": USER_PREFIX}

# --- the transcript a summarizer reads -------------------------------------------------
END_OF_OUTPUT = "[end of tool output]"
CALL_LABEL = "[assistant called tool]"


def call_line(name: str, args: dict[str, Any]) -> str:
    """One tool call as a transcript line: the tool name and its input as JSON."""
    return f"{CALL_LABEL} {name} {json.dumps(args, sort_keys=True)}"


CALL_LINE = re.compile(rf"^{re.escape(CALL_LABEL)} (\S+) (\{{.*\}})$", re.M)


def read_call_lines(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (tool name, input) written by `call_line` in `text`, in order."""
    return [(m.group(1), json.loads(m.group(2))) for m in CALL_LINE.finditer(text)]


# --- task state ----------------------------------------------------------------------------
TODO_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
STATE_OPEN, STATE_CLOSE = "<task_state>", "</task_state>"
SET_GOAL, TODO_WRITE, TODO_UPDATE = "task_set_goal", "todo_write", "todo_update"
WRITE_NOTE, READ_NOTES = "write_note", "read_notes"
STATE_TOOLS = (SET_GOAL, TODO_WRITE, TODO_UPDATE)
NOTE_TOOLS = (WRITE_NOTE, READ_NOTES)

# --- a recorded fact: how an agent writes down what it found ------------------------------
# "waybill = VD-88317"; several on one line are separated by "; ". Values never hold ";".
FACT_SEPARATOR = "; "
FACT_LINE = re.compile(r"(?<![\w\]])([a-z][\w-]*(?:\[[^\]\n=]+\])?) = ([^;\n]+)")
UNKNOWN = "(unknown)"  # what an answer says where a value was never seen


def fact_line(facts: dict[str, str]) -> str:
    """`{"a": "1", "b": "2"}` as "a = 1; b = 2" (the form `read_facts` reads back)."""
    return FACT_SEPARATOR.join(f"{name} = {value}" for name, value in facts.items())


def read_facts(text: str) -> list[tuple[int, str, str]]:
    """(position, name, value) of every fact written by `fact_line` in `text`."""
    return [(m.start(), m.group(1), m.group(2).strip().rstrip(".")) for m in
            FACT_LINE.finditer(text)]
