"""The simulated model's summary writer: what it answers when asked for a summary.

`summary_prompt(messages)` tells whether a request asks for a summary (in any wording)
and returns it as one standalone prompt; `write_summary(prompt, scenario, read)` answers
it. The request comes either alone (one user message holding the prompt and the
transcript) or appended to the conversation itself, as the last text block of its last
user message, naming the messages to cover ("Summarize messages 3 to 9 of this
conversation"); then the prompt is made of those messages of the conversation (and the
task, message 1), rendered as the transcript it would have been sent.

The prompt is cut into instructions and material by `summary_material.py` (the task, a
previous summary, and the turns, given as the library's transcript lines, as JSON
messages or as prose, which is read only for its `name = value` facts; prose without any
gets an honest "I cannot summarize these turns offline"). The instructions are parsed by
`summary_instructions.py`: the sections it names (as heading lines, quoted in a sentence
or listed), the lengths it states (words, tokens, sentences, lines or bullets;
`summary_words` words otherwise), which kinds of fact to keep or leave out (ids, paths,
names, numbers) and its focus; the words no rule reads are reported, not followed.
`write_summary` returns a `WrittenSummary`: the text, with what it followed and the words
it did not understand. The summary has those sections, in that order, under those
lengths, extracted from the turns and previous summary with the same reader the model
acts with, reading for the question of the task the prompt quotes (or, re-summarizing
without one, as a server compaction does, of the previous summary's Goal, as the model
does), and it says only what the turns show:
- progress: one line per call the turns show made (a call whose result is gone, cleared or
  failed, says so and stays a next step) or that a previous summary or note records; facts
  the task itself gives are not steps;
- next steps: the planned calls not done yet; files modified: only the files the agent
  wrote (a writing tool's path argument, or the file its output says it wrote), and those
  the previous summary lists; none in a read-only run.
A prompt that asks to keep no kind of fact verbatim gets a lossier summary: only the
newest steps keep their values; every fact of a kind it asks to leave out (an id, a path,
a name in code, a number) is replaced by `OMITTED`. A prompt that names a focus ("focus
on: X") keeps the steps whose line mentions a word of it: they keep their values in a
lossy summary, and under the length cap they lose them last.

Left out: language understanding beyond those small grammars, and files written other
than as a tool call names them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..evaluation import IDENTIFIER, kind
from ..history import Message, blocks, call_key
from ..scenarios.base import Scenario
from ..summaries import SECTIONS, message_goal, render_transcript, strip_prefix
from ..tokens import CHARS_PER_TOKEN
from ..vocab import (
    PLACEHOLDER,
    READ_NOTES,
    UNKNOWN,
    fact_line,
    is_unchanged,
    offloaded_path,
    read_cover,
    read_cover_phrase,
    read_facts,
    read_transcript,
)
from ..vocab import tagged as section
from .asked import asked, asked_of
from .summary_instructions import HEADING, Instructions, read_instructions
from .summary_material import Material, read_material

SUMMARY_WORDS = 200  # the summary's word cap when the prompt states none
LOSSY_KEEP = 3  # a prompt not asking for verbatim identifiers keeps values of this many steps
MAX_NEXT_STEPS = 5  # a summary names the next few steps, not the whole plan

SUMMARY_ASK = re.compile(r"\b(summar\w*|compress\w*|condens\w*|recap)\b", re.I)
# A tool that writes: a writing verb in its name; the file is its path argument or the
# file its output says it wrote.
WRITING_TOOL = re.compile(r"(?:^|_)(?:write|edit|append|create|save|update|delete|remove|move|"
                          r"rename|patch|replace)(?:_|$)")
PATH_ARGS = ("path", "file", "file_path", "filename", "dest", "destination", "target")
WROTE = re.compile(r"\b(?:[Ww]rote|[Ww]ritten|[Ss]aved|[Nn]oted|[Aa]ppended|[Cc]reated|"
                   r"[Ee]dited|[Mm]odified)\s+(?:to\s+|in\s+|into\s+)?`?([\w/-]+(?:\.[\w-]+)+)")
NO_RESULT = "(called; its result is gone)"  # a call whose result was cleared or failed
OMITTED = "[omitted]"  # what a fact becomes when the prompt asks to leave its kind out
# A name in code or data (TOOL_HANDLERS, RetryPolicy, use_reservation_index, DISPATCH):
# snake_case, CamelCase, or a capitalised word of three letters or more.
NAME = r"\b(?:[A-Za-z][A-Za-z0-9]*_\w+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{3,})\b"
FACT = re.compile(f"{IDENTIFIER.pattern}|{NAME}")  # every fact a prompt can ask to leave out
CANNOT_READ = ("I cannot summarize these turns offline: they are prose, and I read only the "
               "library's transcript lines, JSON messages and facts written as 'name = value'.")
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


def _progress(r: Any, steps: list[tuple[tuple[str, str], str | None]],
              given: dict[str, str], asked: Instructions) -> list[str]:
    """One line per step the turns show done (or a previous summary or note records),
    oldest first, with the values the prompt lets it keep; a call made whose result is
    gone (cleared, or an error) says so. Facts the task itself gives are no step."""
    done, lines = _done(r, steps, given), []
    for n, call in enumerate(done):
        line = _step_line(call, r)
        keep = asked.verbatim or n >= len(done) - LOSSY_KEEP or _about(line, asked.focus)
        lines.append(line if keep or line.endswith(NO_RESULT) else f"- {call.label}")
    return lines


def _done(r: Any, steps: list[tuple[tuple[str, str], str | None]],
          given: dict[str, str]) -> list[Any]:
    """The calls the turns show made or a record shows done, oldest first (those not
    in the turns first); facts the task gives are no step."""
    made = [k for k, _ in steps]
    done = [c for c in r.plan if c.key in made or (r.done(c) and not c.known(given))]
    done += list({c.key: c for c in r.extra}.values())
    return sorted(done, key=lambda c: made.index(c.key) if c.key in made else -1)


def _step_line(call: Any, r: Any) -> str:
    """A step's progress line with its facts; a call whose result is gone says so."""
    facts = call.record(r.seen[call.key]) if call.key in r.seen else {
        f.name: r.facts[f.name] for f in call.facts if f.name in r.facts}
    if not facts and not r.done(call):
        return f"- {call.label} {NO_RESULT}"
    return f"- {call.label}: {fact_line(facts)}" if facts else f"- {call.label}"


def estimate_tokens(text: str) -> int:
    """Tokens by the chars/4 rule, for a caller without a token counter."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class WrittenSummary:
    """A summary's text with what its writer read in the prompt: the instructions it
    followed, the words it did not understand, and the form of the turns."""

    text: str
    asked: Instructions
    material: Material

    def followed(self) -> list[str]:
        """What it followed, one line each: how it read the turns first."""
        return [self.material.described(), *self.asked.followed()]

    @property
    def not_understood(self) -> tuple[str, ...]:
        return self.asked.not_understood


def understand(prompt: str) -> WrittenSummary:
    """What a summary prompt asks and hands over, before any summary is written."""
    material = read_material(prompt)
    return WrittenSummary("", read_instructions(material.instructions), material)


SIZES: dict[str, Callable[[str], int]] = {  # how a summary is measured, per unit of a limit
    "words": lambda text: len(text.split()),
    "sentences": lambda text: sum(max(1, len(re.findall(r"[.!?](?=\s|$)", line)))
                                  for line in text.split("\n")
                                  if line.strip() and not line.startswith("#")),
    "lines": lambda text: len([ln for ln in text.split("\n") if ln.strip()]),
    "bullets": lambda text: len(re.findall(r"^- ", text, re.M)),
}


def write_summary(prompt: str, scenario: Scenario, read: Reader, *,
                  summary_words: int = SUMMARY_WORDS,
                  count_tokens: Callable[[str], int] = estimate_tokens) -> WrittenSummary:
    """A summary with the sections `prompt` names, under the lengths it states, of what
    `read` finds in its turns, with what it followed and did not understand."""
    reading = understand(prompt)
    material, asked = reading.material, reading.asked
    if not material.readable:
        return WrittenSummary(CANNOT_READ, asked, material)
    steps = _observed(material.turns)
    # the newest question: of the turns (a follow-up), the previous Goal, or the task
    task = asked_of(material.task, material.previous, read_transcript(material.turns))
    r = read(scenario, task, [material.previous, _assistant_lines(material.turns),
                              material.prose], {k: v for k, v in steps if v is not None})
    parts = _parts(r, task, steps, material.previous)
    names = list(asked.sections or SECTIONS)
    limits = {"words": summary_words, **asked.limits}
    sizes = {**SIZES, "tokens": count_tokens}

    def render(progress: list[str]) -> str:
        body = {name: parts.get(_kind(name), progress or ["- nothing done yet"])
                for name in names}
        return _without("\n".join(f"## {name}\n" + "\n".join(body[name]) for name in names),
                        asked.dropped)

    def too_long(text: str) -> bool:
        return any(sizes[unit](text) > limit for unit, limit in limits.items())

    lines = _progress(r, steps, read(scenario, task, [], {}).facts, asked)
    if noted := {name: value for _, name, value in read_facts(material.prose)}:
        lines.insert(0, f"- noted: {fact_line(noted)}")  # prose: the facts it states
    summary = render(lines)
    while too_long(summary) and lines:
        lines = _erode(lines, asked.focus)
        summary = render(lines)
    kept = summary.split("\n")
    while len(kept) > 1 and too_long("\n".join(kept)):
        kept.pop()  # still too long: whole lines go from the end, never half a record
    return WrittenSummary("\n".join(kept), asked, material)


def _parts(r: Any, task: str, steps: list[tuple[tuple[str, str], str | None]],
           previous: str) -> dict[str, list[str]]:
    """The lines of every section kind but progress."""
    return {
        "goal": [task.split("\n")[0] or UNKNOWN],
        "next": [f"- {c.label}" for c in r.plan if not r.done(c)][:MAX_NEXT_STEPS]
        or ["- write the answer"],
        "decisions": [f"- {name} = {value}" for name, value in {
            f.name: r.facts[f.name] for c in r.plan + r.extra for f in c.facts
            if f.decision and f.name in r.facts}.items()] or ["- none yet"],
        "files": [f"- {path}" for path in _written(steps, previous)] or ["- none"],
    }


def _written(steps: list[tuple[tuple[str, str], str | None]], previous: str) -> list[str]:
    """The files the agent wrote: named by a writing tool's path argument or by its
    output ("Noted in notes.md."), and those a previous summary lists as modified."""
    found = set(_section(previous, "files"))
    for (tool, args), output in steps:
        if not WRITING_TOOL.search(tool) or output is None:
            continue  # a call that only reads, or that failed, wrote nothing
        given = json.loads(args)
        found |= {v for k, v in given.items() if k in PATH_ARGS and isinstance(v, str)}
        found |= set(WROTE.findall(output))
    return sorted(found)


def _section(summary: str, kind: str) -> list[str]:
    """The bullet items of `summary`'s sections of `kind` (see SECTION_KINDS)."""
    items, current = [], None
    for line in strip_prefix(summary).split("\n"):
        if found := HEADING.match(line):
            current = _kind(found.group(1))
        elif current == kind and line.startswith("- ") and line[2:].strip() != "none":
            items.append(line[2:].strip())
    return items


def _without(text: str, kinds: frozenset[str]) -> str:
    """`text` with every fact of the `kinds` left out (ids, paths, names, numbers)
    replaced by OMITTED; headings stay."""
    if not kinds:
        return text
    def omit(found: re.Match[str]) -> str:
        return OMITTED if fact_kind(found.group(0)) in kinds else found.group(0)
    return "\n".join(line if line.startswith("#") else FACT.sub(omit, line)
                     for line in text.split("\n"))


def fact_kind(found: str) -> str:
    """Which of `summary_instructions.KINDS` a fact `FACT` found is."""
    return kind(found) if IDENTIFIER.fullmatch(found) else "names"


def _is_summary_request(messages: list[Message]) -> bool:
    """One user message that hands over turns to summarize (a tagged `turns` section,
    JSON messages or transcript lines) and asks, outside that material, for a summary. A
    task that merely says "summarize" hands over no turns: it is a task."""
    if len(messages) != 1:
        return False
    material = read_material(message_goal(messages[0]))
    return material.given and bool(SUMMARY_ASK.search(material.instructions))


def _appended_ask(messages: list[Message]) -> str | None:
    """The summary request appended to a conversation's last user message, if any: a
    text block, last, naming the messages to cover outside any quoted material."""
    last = blocks(messages[-1]) if messages and messages[-1]["role"] == "user" else []
    if len(messages) < 2 or not last or last[-1].get("type") != "text":
        return None
    text = last[-1]["text"]
    found = read_cover_phrase(text)
    return text if found and SUMMARY_ASK.search(found) else None


def _in_transcript(messages: list[Message], request: str) -> str:
    """The appended request as a standalone prompt: the task and the covered messages of
    the conversation it was appended to, as a transcript."""
    first, last = read_cover(request) or (1, 0)
    conversation = [*messages[:-1], {**messages[-1], "content": blocks(messages[-1])[:-1]}]
    task = asked(conversation)[1]  # the newest question, which may be a follow-up
    turns = render_transcript(conversation[max(first, 1) - 1:last])
    return f"{request}\n\n{section('task', task)}\n\n{section('turns', turns)}"


def _kind(section: str) -> str:
    return next((kind for kind, words in SECTION_KINDS if re.search(words, section, re.I)),
                "progress")


def _observed(turns: str) -> list[tuple[tuple[str, str], str | None]]:
    """(call key, visible output or None) for each call in a transcript, in order."""
    entries = read_transcript(turns)
    calls = [(e.who, e.args) for e in entries if e.kind == "call"]
    outputs = [("error" if e.error else "output", e.body) for e in entries
               if e.kind == "output"]
    out = []
    for (name, args), (made, text) in zip(calls, outputs, strict=False):
        visible = (made == "output" and text != PLACEHOLDER and name != READ_NOTES
                   and offloaded_path(text) is None and not is_unchanged(text))  # a part
        # or a stand-in is no output to extract from: what it led to is in the assistant's
        # "Noted:" lines
        out.append((call_key(name, args), text if visible else None))
    return out


def _assistant_lines(turns: str) -> str:
    """The model's own words in a transcript (where its "Noted:" records are)."""
    return "\n".join("[assistant] " + e.body.split("\n")[0] for e in read_transcript(turns)
                     if e.kind == "said" and e.who == "assistant")


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
