"""The offline model: a deterministic agent policy that reads only its request.

`SimulatedModel(scenario)` plays a bundled scenario. It is a *reader*: the scenario says
how to read (extractors over tool output, argument templates over facts), and on every
call the model reads the request it was given, and nothing else:

- known facts: the `given` facts in the task text; facts recorded in the request as
  "name = value" lines (its own notes in assistant text, summaries, todo notes in the
  system prompt, notes read back); and the facts its extractors find in every tool result
  still visible next to its call (those win: they are the freshest evidence);
- the plan: every call whose arguments the known facts can fill; a call is done when its
  result is visible or all its facts are known. It makes the first call not done (with
  arguments filled from visible values only, so an id it lost is looked up again by
  redoing the call that revealed it), and answers when nothing is left to do, from the
  known facts as they are written: a wrong value in context gives a wrong answer, a
  missing one a partial answer;
- honest endings: it never repeats a call a third time in a row when the same call
  already returned the same visible result twice; it answers with what it has instead.
  It calls only the tools offered (none offered: it answers), and caps its reply at
  `max_tokens` (stop reason "max_tokens").

With the task-state tools offered it writes a todo list of the calls it can name so far
(rewritten when a listing reveals more) and ticks each with a note of its facts; with the
notes tools it writes its facts down and reads them back after a compaction.

Asked for a summary (recognised by what the request asks, in any wording), it writes
the sections the prompt names, in that order, under the length the prompt states
(`summary_words` otherwise), extracting from the transcript and previous summary it is
given. A prompt that does not ask to keep identifiers verbatim gets a lossier summary:
only the newest steps keep their values. The request comes either alone (one user message
holding the prompt and the transcript) or appended to the conversation itself, as the last
text block of its last user message, naming the messages to cover ("Summarize messages 3
to 9 of this conversation"); then it reads those messages of the conversation it was sent
(and the task, message 1), exactly as it would read them in a transcript. A prompt that names
a focus ("focus on: X") keeps the steps whose line mentions a word of it: they keep their
values in a lossy summary, and under the length cap they lose them last (the others erode
first).

The one assumption about model behaviour, `user_summary`, is how far it trusts a
summary written in the *user* role (assistant-role summaries are always trusted):
"trust" (the default) uses its records; "redo_last" uses them but redoes the newest step
it records; "redo_all" ignores them and redoes the work. Seed 000 argues that a
user-role compaction message reads as "the user just said this" and sets off a new plan
that often redoes finished work; "redo_last" and "redo_all" model that, in a milder and
a stronger form. The default is "trust" because the library's user-role summary says
plainly that it is a summary of earlier turns, and because whole-history compaction
always writes one: a model that redid work after each of those would loop whenever a
compaction follows every call. It is a modelling assumption, not a measured fact about
Claude; lesson 4 shows the three side by side.

Left out: language understanding. It reads with regular expressions and fixed formats
(`vocab.py`); a fact written any other way is invisible to it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..history import Message, blocks, result_text
from ..scenarios import load
from ..scenarios.base import Call, Scenario
from ..summaries import SECTIONS, is_summary, render_transcript, strip_prefix
from ..tokens import CHARS_PER_TOKEN, TokenCounter
from ..vocab import (
    ASSISTANT_PREFIX,
    PLACEHOLDER,
    READ_NOTES,
    SET_GOAL,
    STATE_OPEN,
    TODO_MARKS,
    TODO_UPDATE,
    TODO_WRITE,
    USER_PREFIX,
    WRITE_NOTE,
    fact_line,
    read_cover,
    read_cover_phrase,
    read_facts,
    read_tagged,
    read_transcript,
    untagged,
)
from ..vocab import tagged as section
from .base import Reply, Usage

SUMMARY_WORDS = 200  # the summary's word cap when the prompt states none
LOSSY_KEEP = 3  # a prompt not asking for verbatim identifiers keeps values of this many steps
MAX_NEXT_STEPS = 5  # a summary names the next few steps, not the whole plan
MAX_SAME_CALL = 2  # an identical call with an identical result, at most this many in a row
USER_SUMMARY = ("trust", "redo_last", "redo_all")
DEFAULT_USER_SUMMARY = "trust"

SUMMARY_ASK = re.compile(r"\b(summar\w*|compress\w*|condens\w*|recap)\b", re.I)
WORD_CAP = re.compile(r"\b(?:under|at most|no more than|within|fewer than|max(?:imum)?(?: of)?|"
                      r"up to|less than)\s+(\d+)\s+words\b", re.I)
FOCUS = re.compile(r"\bfocus(?:ed)? on:?\s*(.+?)(?:\.\s|\.?$)", re.I | re.M)
FOCUS_WORD = re.compile(r"[\w./-]{3,}")
FOCUS_SKIP = {"the", "and", "for", "with", "about", "all", "any", "its", "our", "their", "what",
              "which", "that", "this", "how", "from", "into"}  # words that name no fact
VERBATIM = re.compile(r"\b(verbatim|exact(?:ly as written)?|word for word|identifiers?|IDs?)\b")
HEADING = re.compile(r"^#{1,6}\s*(.+?)\s*$", re.M)
TODO_LINE = re.compile(r"^(\[.\]) (\S+)\. (.+?)(?: - (.*))?$", re.M)
# Section names, by what they ask for (first match wins; anything else lists facts).
SECTION_KINDS = (("goal", r"goal|task|objective"), ("next", r"next|todo|remaining|open|pending"),
                 ("decisions", r"decision|conclusion"), ("files", r"file|path"))


@dataclass
class Reading:
    """What one request shows: known facts, the results seen per call, the plan."""

    facts: dict[str, str] = field(default_factory=dict)
    seen: dict[tuple[str, str], str] = field(default_factory=dict)  # call key -> output
    plan: list[Call] = field(default_factory=list)
    extra: list[Call] = field(default_factory=list)  # seen calls the plan cannot name now

    def done(self, call: Call) -> bool:
        return call.key in self.seen or call.known(self.facts)


def read(scenario: Scenario, task: str, records: list[str],
         seen: dict[tuple[str, str], str]) -> Reading:
    """Known facts from the task, "name = value" records and visible results."""
    facts = scenario.read_task(task)
    for text in records:
        facts.update({name: value for _, name, value in read_facts(text)})
    reading = Reading(facts, seen)
    while True:  # results fill arguments, which name more calls whose results may be visible
        reading.plan, reading.extra = scenario.plan(facts), []
        planned = {c.key for c in reading.plan}
        learned = {}
        for call in reading.plan:
            if call.key in seen:
                learned.update(call.learn(seen[call.key]))
        for (tool, args), output in seen.items():  # a result whose call is no longer planned
            if (tool, args) not in planned and (call := scenario.match(tool, json.loads(args))):
                reading.extra.append(call)
                learned.update(call.learn(output))
        if all(facts.get(k) == v for k, v in learned.items()):
            return reading
        facts.update(learned)


class SimulatedModel:
    """A deterministic stand-in for Claude that reads one scenario's kind of output."""

    def __init__(self, scenario: Scenario | str = "agents", *, summary_words: int = SUMMARY_WORDS,
                 user_summary: str = DEFAULT_USER_SUMMARY, cache: bool = True,
                 counter: TokenCounter | None = None):
        if user_summary not in USER_SUMMARY:
            raise ValueError(f"user_summary must be one of {', '.join(USER_SUMMARY)}, "
                             f"not {user_summary!r}")
        self.scenario = load(scenario) if isinstance(scenario, str) else scenario
        self.summary_words, self.user_summary, self.cache = summary_words, user_summary, cache
        self.counter = counter or TokenCounter()
        self.name = "simulated"
        self._request = ""  # a digest of the request being answered (for tool-use ids)
        self._calls = 0
        self._previous: tuple[str, str, list[Message]] | None = None

    def __repr__(self) -> str:
        return f"SimulatedModel({self.scenario.name!r})"

    # --- the Model protocol -------------------------------------------------------------
    def create(self, *, system: str, messages: list[Message], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool | None = None) -> Reply:
        self._request = hashlib.sha1(json.dumps([system, messages], sort_keys=True,
                                                default=str).encode()).hexdigest()[:12]
        self._calls = 0
        offered = {t["name"] for t in tools}
        if (asked := _appended_ask(messages)) is not None:
            content = [{"type": "text", "text": self.summarize(_in_transcript(messages, asked))}]
        elif _is_summary_request(messages):
            content = [{"type": "text", "text": self.summarize(_text_of(messages[0]))}]
        else:
            content = self.act(system, messages, offered, max_tokens)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        content, stop = self._cap(content, stop, max_tokens)
        usage = self._usage(system, messages, tools, content,
                            self.cache if cache is None else cache)
        return Reply(content, stop, usage, self.name)

    # --- reading a request ----------------------------------------------------------------
    def reading(self, system: str, messages: list[Message]) -> Reading:
        """What `system` and `messages` show (see the module docstring)."""
        records, seen, names = [system], {}, {}
        for message in messages:
            for block in blocks(message):
                kind = block.get("type")
                if kind == "text":
                    records.append(self._trusted(block["text"]))
                elif kind == "tool_use":
                    names[block["id"]] = (block["name"], json.dumps(block["input"],
                                                                    sort_keys=True))
                elif kind == "tool_result" and block["tool_use_id"] in names:
                    key, text = names[block["tool_use_id"]], result_text(block)
                    if key[0] == READ_NOTES:
                        records.append(text)
                    elif text != PLACEHOLDER and not block.get("is_error"):
                        seen[key] = text
        task = "\n".join(b["text"] for b in blocks(messages[0])
                         if b.get("type") == "text" and not is_summary(b["text"]))
        return read(self.scenario, task, records, seen)

    def _trusted(self, text: str) -> str:
        """The part of a text block whose records the model believes."""
        if not text.startswith(USER_PREFIX) or self.user_summary == "trust":
            return text
        if self.user_summary == "redo_all":
            return ""
        lines = [ln for ln in text.splitlines() if read_facts(ln)]
        return text.replace(lines[-1], "") if lines else text

    # --- acting -----------------------------------------------------------------------
    def act(self, system: str, messages: list[Message], offered: set[str],
            max_tokens: int = 10**6) -> list[dict]:
        r = self.reading(system, messages)
        news = self._news(messages, r)
        said = f"Noted: {fact_line(news)}\n" if news else ""
        todo = [c for c in r.plan if not r.done(c) and c.tool in offered]
        if todo and self._repeating(messages, todo[0]):
            todo = []  # the same call keeps giving the same result: answer with what we have
        book = self._bookkeeping(system, messages, offered, r, news) if todo else []
        if todo:
            head = [self._text(f"{said}Next: {todo[0].label}.")]
            action = self._call(todo[0].tool, dict(todo[0].args))
            while book and self._tokens([*head, *book, action]) > max_tokens:
                if said:  # the bookkeeping records the same facts: say less
                    said, head = "", [self._text(f"Next: {todo[0].label}.")]
                    continue
                book.pop()  # bookkeeping that does not fit waits for a later turn
            return [*head, *book, action]
        return [self._text(self.scenario.answer(r.facts))]

    def _news(self, messages: list[Message], r: Reading) -> dict[str, str]:
        """Facts read from the results in the last message (what to note down now)."""
        if len(messages) < 2 or messages[-1]["role"] != "user":
            return {}
        asked = {b["id"]: (b["name"], json.dumps(b["input"], sort_keys=True))
                 for b in blocks(messages[-2]) if b.get("type") == "tool_use"}
        answered = {asked.get(b.get("tool_use_id")) for b in blocks(messages[-1])
                    if b.get("type") == "tool_result"}
        news: dict[str, str] = {}
        for call in r.plan:
            if call.key in answered and call.key in r.seen:
                news.update(call.record(r.seen[call.key]))
        return news

    def _repeating(self, messages: list[Message], call: Call) -> bool:
        """Whether `call` was the only call of each of the last MAX_SAME_CALL turns, with
        the same visible result each time."""
        outputs = []
        for n in range(len(messages) - 1, 0, -1):
            if messages[n - 1]["role"] != "assistant" or len(outputs) == MAX_SAME_CALL:
                continue
            uses = [b for b in blocks(messages[n - 1]) if b.get("type") == "tool_use"]
            keys = {(b["name"], json.dumps(b["input"], sort_keys=True)) for b in uses}
            if call.key not in keys:
                break
            outputs.append([result_text(b) for b in blocks(messages[n])
                            if b.get("type") == "tool_result"])
        return len(outputs) == MAX_SAME_CALL and outputs[0] == outputs[1]

    def _bookkeeping(self, system: str, messages: list[Message], offered: set[str],
                     r: Reading, news: dict[str, str]) -> list[dict]:
        calls = []
        if TODO_WRITE in offered:
            listed = {label: (mark, tid, note) for mark, tid, label, note in
                      TODO_LINE.findall(system)}
            if STATE_OPEN not in system and SET_GOAL in offered:
                goal = _text_of(messages[0]).split("\n")[0][:200]
                calls.append(self._call(SET_GOAL, {"goal": goal}))
            if any(c.label not in listed for c in r.plan):  # new work came into view
                calls.append(self._call(TODO_WRITE, {"todos": [
                    self._todo(c, r, listed.get(c.label)) for c in r.plan]}))
            elif TODO_UPDATE in offered:
                for call in r.plan:
                    mark, tid, _ = listed[call.label]
                    if mark != TODO_MARKS["completed"] and call.key in r.seen:
                        note = fact_line(call.record(r.seen[call.key]))
                        calls.append(self._call(TODO_UPDATE, {"id": tid, "status": "completed",
                                                              "note": note}))
        if WRITE_NOTE in offered and news:
            calls.append(self._call(WRITE_NOTE, {"text": fact_line(news)}))
        compacted = any(m in json.dumps(messages) for m in
                        (USER_PREFIX, ASSISTANT_PREFIX, PLACEHOLDER))
        called = {b["name"] for m in messages for b in blocks(m) if b.get("type") == "tool_use"}
        if READ_NOTES in offered and compacted and READ_NOTES not in called:
            calls.append(self._call(READ_NOTES, {}))
        return calls

    @staticmethod
    def _todo(call: Call, r: Reading, listed: tuple[str, str, str] | None) -> dict[str, str]:
        """One item of a rewritten todo list, keeping what the old list or a visible
        result says is done."""
        if r.done(call):
            facts = call.record(r.seen[call.key]) if call.key in r.seen else {
                f.name: r.facts[f.name] for f in call.facts}
            return {"subject": call.label, "status": "completed", "note": fact_line(facts)}
        if listed and listed[0] == TODO_MARKS["completed"]:
            return {"subject": call.label, "status": "completed", "note": listed[2]}
        return {"subject": call.label}

    def _tokens(self, content: list[dict]) -> int:
        return self.counter.count_message({"role": "assistant", "content": content})

    def _text(self, text: str) -> dict[str, str]:
        return {"type": "text", "text": text}

    def _call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self._calls += 1  # ids come from the request, so a restarted process makes new ones
        return {"type": "tool_use", "id": f"toolu_{self._request}_{self._calls}", "name": name,
                "input": args}

    def _cap(self, content: list[dict], stop: str, max_tokens: int) -> tuple[list[dict], str]:
        """The reply cut to `max_tokens` output tokens, as the API does (tool calls that
        do not fit are dropped whole)."""
        count = self.counter.count_message
        if self._tokens(content) <= max_tokens:
            return content, stop
        text = " ".join(b["text"] for b in content if b["type"] == "text")
        chars = max(0, max_tokens * CHARS_PER_TOKEN)
        while chars and count({"role": "assistant", "content": text[:chars]}) > max_tokens:
            chars = chars * 3 // 4
        return [self._text(text[:chars])], "max_tokens"

    # --- summarizing --------------------------------------------------------------------
    def summarize(self, prompt: str) -> str:
        """A summary with the sections `prompt` names, under the length it states."""
        tagged = read_tagged(prompt)
        asked = untagged(prompt)
        turns = tagged.get("turns", prompt if not tagged else "")
        previous = tagged.get("previous-summary", "")
        cap = int(m.group(1)) if (m := WORD_CAP.search(asked)) else self.summary_words
        keep_all = bool(VERBATIM.search(asked))
        focus = _focus_words(asked)
        names = HEADING.findall(asked) or list(SECTIONS)
        steps = _observed(turns)
        r = read(self.scenario, tagged.get("task", ""), [previous, _assistant_lines(turns)],
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

    # --- usage --------------------------------------------------------------------------
    def _usage(self, system: str, messages: list[Message], tools: list[dict[str, Any]],
               content: list[dict], cache: bool) -> Usage:
        total = self.counter.count(messages, system, tools)
        output = self.counter.count_message({"role": "assistant", "content": content})
        if not cache:
            return Usage(input_tokens=total, output_tokens=output)
        tools_json = json.dumps(tools, sort_keys=True)
        read_tokens = 0
        if self._previous and self._previous[:2] == (system, tools_json):
            read_tokens = self.counter.count([], system, tools)
            for old, new in zip(self._previous[2], messages, strict=False):
                if old != new:
                    break
                read_tokens += self.counter.count_message(new)
        self._previous = (system, tools_json, list(messages))
        return Usage(input_tokens=0, output_tokens=output,
                     cache_creation_input_tokens=total - read_tokens,
                     cache_read_input_tokens=read_tokens)


def _text_of(message: Message) -> str:
    return "\n".join(b["text"] for b in blocks(message) if b.get("type") == "text")


def _is_summary_request(messages: list[Message]) -> bool:
    """One user message asking, outside any quoted material, for a summary."""
    if len(messages) != 1:
        return False
    asked = "\n".join(b["text"] for b in blocks(messages[0])
                      if b.get("type") == "text" and not is_summary(b["text"]))
    return bool(SUMMARY_ASK.search(untagged(asked)))


def _appended_ask(messages: list[Message]) -> str | None:
    """The summary request appended to a conversation's last user message, if any: a
    text block, last, naming the messages to cover outside any quoted material."""
    last = blocks(messages[-1]) if messages and messages[-1]["role"] == "user" else []
    if len(messages) < 2 or not last or last[-1].get("type") != "text":
        return None
    text = last[-1]["text"]
    found = read_cover_phrase(text)
    return text if found and SUMMARY_ASK.search(found) else None


def _in_transcript(messages: list[Message], asked: str) -> str:
    """The appended request as a standalone prompt: the task and the covered messages of
    the conversation it was appended to, as a transcript."""
    first, last = read_cover(asked) or (1, 0)
    conversation = [*messages[:-1], {**messages[-1], "content": blocks(messages[-1])[:-1]}]
    task = "\n".join(b["text"] for b in blocks(messages[0])
                     if b.get("type") == "text" and not is_summary(b["text"]))
    turns = render_transcript(conversation[max(first, 1) - 1:last])
    return f"{asked}\n\n{section('task', task)}\n\n{section('turns', turns)}"


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
    for (name, args), (kind, text) in zip(calls, outputs, strict=False):
        visible = kind == "output" and text != PLACEHOLDER and name != READ_NOTES
        out.append(((name, json.dumps(args, sort_keys=True)), text if visible else None))
    return out


def _assistant_lines(turns: str) -> str:
    """The model's own words in a transcript (where its "Noted:" records are)."""
    return "\n".join("[assistant] " + e.body.split("\n")[0] for e in read_transcript(turns)
                     if e.kind == "said" and e.who == "assistant")


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
