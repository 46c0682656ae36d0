"""The simulated model's summary writer: what it answers when asked for a summary.

`summary_prompt(messages)` tells whether a request asks for a summary (in any wording)
and returns it as one standalone prompt; `write_summary(prompt, scenario, read)` answers
it. The request comes either alone (one user message holding the prompt and the
transcript) or appended to the conversation itself, as the last text block of its last
user message, naming the messages to cover ("Summarize messages 3 to 9 of this
conversation"); then the prompt is made of those messages of the conversation (and the
task, message 1), rendered as the transcript it would have been sent.

The summary has the sections the prompt names, in that order, under the length it states
(`summary_words` otherwise), extracted from the transcript and previous summary with the
same reader the model acts with. A prompt that does not ask to keep identifiers verbatim
gets a lossier summary: only the newest steps keep their values. A prompt that names a
focus ("focus on: X") keeps the steps whose line mentions a word of it: they keep their
values in a lossy summary, and under the length cap they lose them last.

Left out: language understanding; the prompt is read with regular expressions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..history import Message, blocks
from ..scenarios.base import Scenario
from ..summaries import SECTIONS, is_summary, render_transcript, strip_prefix
from ..vocab import END_OF_OUTPUT, PLACEHOLDER, READ_NOTES, fact_line, read_call_lines

SUMMARY_WORDS = 200  # the summary's word cap when the prompt states none
LOSSY_KEEP = 3  # a prompt not asking for verbatim identifiers keeps values of this many steps
MAX_NEXT_STEPS = 5  # a summary names the next few steps, not the whole plan

SUMMARY_ASK = re.compile(r"\b(summar\w*|compress\w*|condens\w*|recap)\b", re.I)
WORD_CAP = re.compile(r"\b(?:under|at most|no more than|within|fewer than|max(?:imum)?(?: of)?|"
                      r"up to|less than)\s+(\d+)\s+words\b", re.I)
FOCUS = re.compile(r"\bfocus(?:ed)? on:?\s*(.+?)(?:\.\s|\.?$)", re.I | re.M)
FOCUS_WORD = re.compile(r"[\w./-]{3,}")
FOCUS_SKIP = {"the", "and", "for", "with", "about", "all", "any", "its", "our", "their", "what",
              "which", "that", "this", "how", "from", "into"}  # words that name no fact
VERBATIM = re.compile(r"\b(verbatim|exact(?:ly as written)?|word for word|identifiers?|IDs?)\b")
HEADING = re.compile(r"^#{1,6}\s*(.+?)\s*$", re.M)
COVER = re.compile(r"\b\w+ messages (\d+) to (\d+) of this conversation\b", re.I)
TAGGED = re.compile(r"<(task|previous-summary|turns)>\n(.*?)\n</\1>", re.S)
# Section names, by what they ask for (first match wins; anything else lists facts).
SECTION_KINDS = (("goal", r"goal|task|objective"), ("next", r"next|todo|remaining|open|pending"),
                 ("decisions", r"decision|conclusion"), ("files", r"file|path"))

# The model's own reader, `simulated.read` (it returns a `simulated.Reading`).
Reader = Callable[[Scenario, str, list[str], dict[tuple[str, str], str]], Any]


def summary_prompt(messages: list[Message]) -> str | None:
    """The summary request `messages` make, as one standalone prompt; None when they ask
    for something else."""
    if (asked := _appended_ask(messages)) is not None:
        return _in_transcript(messages, asked)
    if _is_summary_request(messages):
        return "\n".join(b["text"] for b in blocks(messages[0]) if b.get("type") == "text")
    return None


def write_summary(prompt: str, scenario: Scenario, read: Reader,
                  summary_words: int = SUMMARY_WORDS) -> str:
    """A summary with the sections `prompt` names, under the length it states, of what
    `read` finds in its transcript."""
    tagged = {tag: body for tag, body in TAGGED.findall(prompt)}
    asked = TAGGED.sub("", prompt)
    turns = tagged.get("turns", prompt if not tagged else "")
    previous = tagged.get("previous-summary", "")
    cap = int(m.group(1)) if (m := WORD_CAP.search(asked)) else summary_words
    keep_all = bool(VERBATIM.search(asked))
    focus = _focus_words(asked)
    names = HEADING.findall(asked) or list(SECTIONS)
    steps = _observed(turns)
    r = read(scenario, tagged.get("task", ""), [previous, _assistant_lines(turns)],
             {k: v for k, v in steps if v is not None})
    done = [c for c in r.plan if r.done(c)] + list({c.key: c for c in r.extra}.values())
    order = [k for k, _ in steps]
    done.sort(key=lambda c: order.index(c.key) if c.key in order else -1)
    lines = []
    for n, call in enumerate(done):
        facts = call.record(r.seen[call.key]) if call.key in r.seen else {
            f.name: r.facts[f.name] for f in call.facts if f.name in r.facts}
        line = f"- {call.label}: {fact_line(facts)}" if facts else f"- {call.label}"
        keep = keep_all or n >= len(done) - LOSSY_KEEP or _about(line, focus)
        lines.append(line if keep else f"- {call.label}")
    parts = {
        "goal": [(tagged.get("task") or _goal_of(previous)).split("\n")[0] or "(unknown)"],
        "next": [f"- {c.label}" for c in r.plan if not r.done(c)][:MAX_NEXT_STEPS]
        or ["- write the answer"],
        "decisions": [f"- {f.name} = {r.facts[f.name]}" for c in done for f in c.facts
                      if f.decision and f.name in r.facts] or ["- none yet"],
        "files": sorted({f"- {a}" for k, _ in steps for a in json.loads(k[1]).values()
                         if isinstance(a, str) and "." in a and "/" in a}) or ["- none"],
    }

    def render(progress: list[str]) -> str:
        body = {name: parts.get(_kind(name), progress or ["- nothing done yet"])
                for name in names}
        return "\n".join(f"## {name}\n" + "\n".join(body[name]) for name in names)

    summary = render(lines)
    while len(summary.split()) > cap and lines:
        lines = _erode(lines, focus)
        summary = render(lines)
    kept = summary.split("\n")
    while len(kept) > 1 and len("\n".join(kept).split()) > cap:
        kept.pop()  # still too long: whole lines go from the end, never half a record
    return "\n".join(kept)


def _is_summary_request(messages: list[Message]) -> bool:
    """One user message asking, outside any quoted material, for a summary."""
    if len(messages) != 1:
        return False
    asked = "\n".join(b["text"] for b in blocks(messages[0])
                      if b.get("type") == "text" and not is_summary(b["text"]))
    return bool(SUMMARY_ASK.search(TAGGED.sub("", asked)))


def _appended_ask(messages: list[Message]) -> str | None:
    """The summary request appended to a conversation's last user message, if any: a
    text block, last, naming the messages to cover outside any quoted material."""
    last = blocks(messages[-1]) if messages and messages[-1]["role"] == "user" else []
    if len(messages) < 2 or not last or last[-1].get("type") != "text":
        return None
    text = last[-1]["text"]
    found = COVER.search(TAGGED.sub("", text))
    return text if found and SUMMARY_ASK.search(found.group(0)) else None


def _in_transcript(messages: list[Message], asked: str) -> str:
    """The appended request as a standalone prompt: the task and the covered messages of
    the conversation it was appended to, as a transcript."""
    first, last = (int(n) for n in COVER.search(TAGGED.sub("", asked)).groups())
    conversation = [*messages[:-1], {**messages[-1], "content": blocks(messages[-1])[:-1]}]
    task = "\n".join(b["text"] for b in blocks(messages[0])
                     if b.get("type") == "text" and not is_summary(b["text"]))
    turns = render_transcript(conversation[max(first, 1) - 1:last])
    return f"{asked}\n\n<task>\n{task}\n</task>\n\n<turns>\n{turns}\n</turns>"


def _kind(section: str) -> str:
    return next((kind for kind, words in SECTION_KINDS if re.search(words, section, re.I)),
                "progress")


def _observed(turns: str) -> list[tuple[tuple[str, str], str | None]]:
    """(call key, visible output or None) for each call in a transcript, in order."""
    calls = read_call_lines(turns)
    outputs = re.findall(r"^\[tool (output|error) from [^\]]*\]\n(.*?)\n"
                         + re.escape(END_OF_OUTPUT), turns, re.S | re.M)
    out = []
    for (name, args), (kind, text) in zip(calls, outputs, strict=False):
        visible = kind == "output" and text != PLACEHOLDER and name != READ_NOTES
        out.append(((name, json.dumps(args, sort_keys=True)), text if visible else None))
    return out


def _assistant_lines(turns: str) -> str:
    """The model's own words in a transcript (where its "Noted:" records are)."""
    return "\n".join(ln for ln in turns.splitlines() if ln.startswith("[assistant] "))


def _goal_of(summary: str) -> str:
    found = re.search(r"^#+\s*Goal\s*\n(.+)", strip_prefix(summary), re.M)
    return found.group(1) if found else ""


def _focus_words(asked: str) -> frozenset[str]:
    """The words of the focus a summary prompt names ("focus on: X"), lower-cased."""
    found = FOCUS.search(asked)
    words = FOCUS_WORD.findall(found.group(1).lower()) if found else []
    return frozenset(w.strip("./-") for w in words) - FOCUS_SKIP - {""}


def _about(line: str, focus: frozenset[str]) -> bool:
    """Whether a summary line mentions a word of the focus."""
    text = line.lower()
    return any(word in text for word in focus)


def _erode(lines: list[str], focus: frozenset[str] = frozenset()) -> list[str]:
    """One step of forgetting: the oldest line with values loses them; once none has
    any, the oldest two lines merge into a count and their labels are gone too. Lines
    about the `focus` come last each time: they lose their values only when no other
    line has any, and merge only when they are all that is left."""
    order = sorted(range(len(lines)), key=lambda n: _about(lines[n], focus))  # stable
    for n in order:
        line = lines[n]
        if ": " in line and not line.startswith("- earlier"):
            return [*lines[:n], line.split(": ", 1)[0], *lines[n + 1:]]
    merged = 1
    if lines[0].startswith("- earlier:"):
        merged += int(lines[0].split()[2])
        lines = lines[1:]
    if not lines:
        return []
    n = min(range(len(lines)), key=lambda n: _about(lines[n], focus))  # the oldest other
    return [f"- earlier: {merged} steps done (details dropped)", *lines[:n], *lines[n + 1:]]
