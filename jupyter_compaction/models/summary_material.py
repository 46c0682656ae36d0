"""Where a summary request's material is, and in what form its turns are given.

`read_material(prompt)` splits a summary prompt into its instructions (the words the
summarizer is asked to follow) and its material: the task, a previous summary and the
turns to summarize. Material comes in the library's tagged sections (`vocab.tagged`), or,
untagged, as a JSON list of messages or as the library's transcript lines after the
instructions. The turns are read in any of three forms:

- "transcript": the library's transcript lines (`summaries.render_transcript`);
- "json": a JSON list of Messages-API messages (or `{"messages": [...]}`), rendered as
  transcript lines, so they are read exactly as the library's own;
- "prose": any other text, which the summarizer can read only for the facts written as
  `name = value` (`vocab.read_facts`); prose without one cannot be read at all.

Left out: other JSON shapes (an OpenAI export, a Claude Code log: `sessions/` loads those)
and untagged prose, which cannot be told apart from the instructions around it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..summaries import render_transcript
from ..vocab import read_facts, read_tagged, read_transcript, untagged

FORMS = ("transcript", "json", "prose", "none")
JSON_START = re.compile(r"^[ \t]*[\[{]", re.M)  # where an untagged JSON list may begin


@dataclass(frozen=True)
class Material:
    """A summary prompt cut into instructions and material (see the module docstring)."""

    instructions: str
    task: str = ""
    previous: str = ""
    turns: str = ""  # the turns as transcript lines ("" for prose or none)
    prose: str = ""  # turns given as prose
    form: str = "none"  # one of FORMS
    given: bool = False  # the prompt hands over turns (a tagged section, JSON or transcript)
    count: int = 0  # transcript entries or JSON messages

    @property
    def readable(self) -> bool:
        """Whether the summarizer can read anything of the turns it was given."""
        return self.form != "prose" or bool(read_facts(self.prose))

    def described(self) -> str:
        """How the turns were read, in words."""
        if self.form == "json":
            return f"turns: {self.count} JSON messages, read as transcript lines"
        if self.form == "transcript":
            return f"turns: {self.count} transcript entries"
        if self.form == "prose":
            facts = len(read_facts(self.prose))
            return (f"turns: prose, read for its {facts} 'name = value' facts" if facts else
                    "turns: prose it cannot read (it reads the library's transcript lines, "
                    "JSON messages and 'name = value' facts)")
        return "turns: none given"


def read_material(prompt: str) -> Material:
    """`prompt`'s instructions and material, its turns in the form they are given."""
    tagged = read_tagged(prompt)
    task, previous, rest = tagged.get("task", ""), tagged.get("previous-summary", ""), \
        untagged(prompt)
    if "turns" in tagged:
        return _read_turns(rest, task, previous, tagged["turns"])
    for start in JSON_START.finditer(rest):  # untagged: a JSON list of messages ...
        try:
            found, end = json.JSONDecoder().raw_decode(rest, start.end() - 1)
        except ValueError:
            continue
        if (messages := _messages(found)) is not None:
            return Material(rest[:start.start()] + rest[end:], task, previous,
                            render_transcript(messages), form="json", given=True,
                            count=len(messages))
    lines = rest.split("\n")  # ... or transcript lines, from the first one on
    first = next((n for n, line in enumerate(lines) if read_transcript(line)), None)
    if first is None:
        return Material(rest, task, previous)
    return _read_turns("\n".join(lines[:first]), task, previous, "\n".join(lines[first:]))


def _read_turns(instructions: str, task: str, previous: str, body: str | None) -> Material:
    """The material with `body`, the turns, read as JSON, transcript lines or prose."""
    if body is None or not body.strip():
        return Material(instructions, task, previous, given=body is not None)
    try:
        messages = _messages(json.loads(body))
    except ValueError:
        messages = None
    if messages is not None:
        return Material(instructions, task, previous, render_transcript(messages),
                        form="json", given=True, count=len(messages))
    if entries := read_transcript(body):
        return Material(instructions, task, previous, body, form="transcript", given=True,
                        count=len(entries))
    return Material(instructions, task, previous, prose=body, form="prose", given=True)


def _messages(found: Any) -> list[dict[str, Any]] | None:
    """`found` as a list of messages (each a dict with a user or assistant role and a
    content), else None."""
    if isinstance(found, dict) and "messages" in found:
        found = found["messages"]
    if not isinstance(found, list) or not found:
        return None
    if all(isinstance(m, dict) and m.get("role") in ("user", "assistant") and "content" in m
           for m in found):
        return found
    return None
