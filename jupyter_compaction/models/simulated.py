"""The offline model: a deterministic agent policy that sees only its request.

`SimulatedModel(scenario)` plays a bundled scenario with the scenario's real tools. On
every call it reads the request it was given (system prompt with task state, messages,
summaries) and nothing else, and decides:

1. with the task-state tools offered and no task state yet: set the goal and write the
   todo list (one todo per step);
2. with the notes tools offered and signs of an earlier compaction: read the notes;
3. record findings: `todo_update` a step whose result it can see, `write_note` it;
4. call the first step it has no evidence of having done; when all are done, redo any
   step whose finding is no longer visible anywhere (the "keeps re-reading" failure);
5. when every finding is visible, answer from the visible findings only.

Evidence that a step was done is its call still in the messages, a ticked todo, a
`[done]` line in an assistant-role summary, in the notes, or in a summary folded into the
task message itself (whole-history compaction). A user-role summary arriving as a later
user message is read as a new request, not as the model's own record, so the steps it
lists are done again. A
finding is visible when all its markers appear anywhere in the request. Each reply's
text notes the findings it just read, as a real model's reasoning would, so clearing old
tool output keeps the conclusions while trimming loses them.

Asked for a summary, it extracts one from the prompt (Goal, Progress, Key Decisions,
Files Modified, Next Steps) under a word cap, collapsing the oldest lines first, so a
summary of a summary loses more: summaries erode.

Left out: language understanding. It matches markers and labels exactly; it never
paraphrases, guesses or hallucinates.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ..history import Message, block_text, blocks, message_text
from ..scenarios import load
from ..scenarios.base import Scenario, Step
from ..strategies.clear import PLACEHOLDER
from ..summaries import ASSISTANT_PREFIX, INSTRUCTIONS, SECTIONS, USER_PREFIX
from ..tokens import TokenCounter
from .base import Reply, Usage

SUMMARY_WORDS = 200  # the summary's word cap: what makes summaries lossy
MAX_FILES_LISTED = 8
DONE = "[done]"


def _calls(messages: list[Message]) -> set[str]:
    return {_key(b["name"], b.get("input", {})) for m in messages for b in blocks(m)
            if b.get("type") == "tool_use"}


def _key(name: str, args: dict[str, Any]) -> str:
    return f"{name} {json.dumps(args, sort_keys=True)}"


def _summary_texts(messages: list[Message], prefix: str) -> str:
    return "\n".join(b["text"] for m in messages for b in blocks(m)
                     if b.get("type") == "text" and b["text"].startswith(prefix))


def _section(text: str, tag: str) -> str:
    found = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.S)
    return found.group(1) if found else ""


class SimulatedModel:
    """A deterministic stand-in for Claude that plays one scenario."""

    def __init__(self, scenario: Scenario | str = "agents", *, summary_words: int = SUMMARY_WORDS,
                 cache: bool = True, counter: TokenCounter | None = None):
        self.scenario = load(scenario) if isinstance(scenario, str) else scenario
        self.summary_words, self.cache = summary_words, cache
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
        prompt = message_text(messages[-1]) if messages else ""
        if len(messages) == 1 and prompt.startswith(INSTRUCTIONS[:60]):
            content = [{"type": "text", "text": self.summarize(prompt)}]
        else:
            content = self.act(system, messages, {t["name"] for t in tools})
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        usage = self._usage(system, messages, tools, content,
                            self.cache if cache is None else cache)
        return Reply(content, stop, usage, self.name)

    # --- acting -----------------------------------------------------------------------
    def evidence(self, system: str, messages: list[Message]) -> tuple[set[str], str]:
        """(ids of steps the request shows as done, all the request's visible text)."""
        text = system + "\n" + "\n".join(message_text(m) for m in messages)
        own_records = "\n".join([system, _summary_texts(messages, ASSISTANT_PREFIX),
                                 _summary_texts(messages[:1], USER_PREFIX),
                                 _results_of(messages, "read_notes")])
        calls = _calls(messages)
        done = {s.id for n, s in enumerate(self.scenario.steps, 1)
                if _key(s.tool, s.args) in calls or f"[x] {n}. {s.label}" in system
                or f"{DONE} {s.label}" in own_records}
        return done, text

    def act(self, system: str, messages: list[Message], tools: set[str]) -> list[dict]:
        steps = self.scenario.steps
        if "todo_write" in tools and "<task_state>" not in system:
            goal = message_text(messages[0]).split("\n")[0][:200]
            todos = [{"id": str(n), "subject": s.label} for n, s in enumerate(steps, 1)]
            return [self._text("Planning the work as a todo list."),
                    self._call("task_set_goal", {"goal": goal}),
                    self._call("todo_write", {"todos": todos})]
        done, text = self.evidence(system, messages)
        compacted = any(mark in text for mark in (USER_PREFIX, ASSISTANT_PREFIX, PLACEHOLDER))
        if "read_notes" in tools and compacted and "read_notes" not in _calls_text(messages):
            return [self._text("Reading my notes first."), self._call("read_notes", {})]

        visible = {s.id for s in steps if s.visible_in(text)}
        calls = self._bookkeeping(system, text, tools, done & visible)
        todo = [s for s in steps if s.id not in done] or [
            s for s in steps if s.id not in visible]
        news = [s.fact for s in steps if s.id in visible and s.id in _latest_results(
            messages, steps)]
        said = " ".join(f"Noted: {fact}." for fact in news)
        if todo:
            nxt = todo[0]
            return [self._text(f"{said} Next: {nxt.label}.".strip()), *calls,
                    self._call(nxt.tool, dict(nxt.args))]
        if calls:
            return [self._text(f"{said} Recording what I found.".strip()), *calls]
        return [self._text(self.scenario.answer({s.id: s.fact for s in steps}))]

    def _bookkeeping(self, system: str, text: str, tools: set[str], found: set[str]) -> list:
        calls = []
        for n, step in enumerate(self.scenario.steps, 1):
            if step.id not in found:
                continue
            if "todo_update" in tools and f"[x] {n}. {step.label}" not in system:
                calls.append(self._call("todo_update",
                                        {"id": str(n), "status": "completed", "note": step.fact}))
            if "write_note" in tools and f"{DONE} {step.label}" not in text:
                note = f"{DONE} {step.label}: {step.fact}"
                calls.append(self._call("write_note", {"text": note}))
        return calls

    def _text(self, text: str) -> dict[str, str]:
        return {"type": "text", "text": text}

    def _call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self._calls += 1  # ids come from the request, so a restarted process makes new ones
        return {"type": "tool_use", "id": f"toolu_{self._request}_{self._calls}", "name": name,
                "input": args}

    # --- summarizing --------------------------------------------------------------------
    def summarize(self, prompt: str) -> str:
        """An extractive structured summary of the prompt, capped at `summary_words`."""
        turns, previous = _section(prompt, "turns"), _section(prompt, "previous-summary")
        goal = (_section(prompt, "task") or "(unknown)").split("\n")[0]
        seen = turns + "\n" + previous
        progress = [ln for ln in _section_lines(previous, "Progress") if ln.startswith("- ")]
        for step in self.scenario.steps:
            if f"[assistant called tool] {step.tool}({step.args})" not in turns:
                continue
            line = f"- {DONE} {step.label}" + (f": {step.fact}" if step.visible_in(seen) else "")
            if line not in progress:  # new, or redone: its line moves to the end, fresh
                progress = [ln for ln in progress if ln != f"- {DONE} {step.label}"] + [line]
        done_labels = " ".join(progress)
        earlier_files = re.findall(r"- read: (.*)", previous)
        files = sorted(set(re.findall(r"'path': '([^']+)'", turns))
                       | {f for line in earlier_files for f in line.split(", ")})
        pending = [s.label for s in self.scenario.steps if f"{DONE} {s.label}" not in done_labels]
        decisions = [f"- {s.fact}" for s in self.scenario.steps
                     if s.fact.lower().startswith("decision") and s.visible_in(seen)]

        def render(progress_lines: list[str]) -> str:
            parts = {
                "Goal": [goal],
                "Progress": progress_lines or ["- nothing finished yet"],
                "Key Decisions": decisions or ["- none recorded"],
                "Files Modified": [f"- read: {', '.join(files[-MAX_FILES_LISTED:])}"]
                if files else ["- none"],
                "Next Steps": [f"- {label}" for label in pending[:3]] or ["- write the answer"],
            }
            return "\n".join(f"## {name}\n" + "\n".join(parts[name]) for name in SECTIONS)

        summary = render(progress)
        while len(summary.split()) > self.summary_words and len(progress) > 1:
            progress = _erode(progress)
            summary = render(progress)
        return summary

    # --- usage --------------------------------------------------------------------------
    def _usage(self, system: str, messages: list[Message], tools: list[dict[str, Any]],
               content: list[dict], cache: bool) -> Usage:
        total = self.counter.count(messages, system, tools)
        output = self.counter.count_message({"role": "assistant", "content": content})
        if not cache:
            return Usage(input_tokens=total, output_tokens=output)
        tools_json = json.dumps(tools, sort_keys=True)
        read = 0
        if self._previous and self._previous[:2] == (system, tools_json):
            read = self.counter.count([], system, tools)
            for old, new in zip(self._previous[2], messages, strict=False):
                if old != new:
                    break
                read += self.counter.count_message(new)
        self._previous = (system, tools_json, list(messages))
        return Usage(input_tokens=0, output_tokens=output,
                     cache_creation_input_tokens=total - read, cache_read_input_tokens=read)


def _erode(progress: list[str]) -> list[str]:
    """One step of forgetting: the oldest line keeping a finding loses it ("read a.py:
    defines X" becomes "read a.py"); once none keeps one, the oldest lines merge into a
    count ("3 earlier steps done"), and their labels are gone too."""
    for n, line in enumerate(progress):
        if line.startswith(f"- {DONE} ") and ": " in line:
            return [*progress[:n], line.split(": ", 1)[0], *progress[n + 1:]]
    merged = 1
    if progress[0].startswith("- earlier:"):
        merged += int(progress[0].split()[2])
        progress = progress[1:]
    return [f"- earlier: {merged} steps done (details dropped)", *progress[1:]]


def _results_of(messages: list[Message], tool: str) -> str:
    """The text of every visible result of `tool` (for example the notes read back)."""
    ids = {b["id"] for m in messages for b in blocks(m)
           if b.get("type") == "tool_use" and b["name"] == tool}
    return "\n".join(block_text(b) for m in messages for b in blocks(m)
                     if b.get("type") == "tool_result" and b["tool_use_id"] in ids)


def _calls_text(messages: list[Message]) -> str:
    return " ".join(b["name"] for m in messages for b in blocks(m) if b.get("type") == "tool_use")


def _latest_results(messages: list[Message], steps: tuple[Step, ...]) -> set[str]:
    """Ids of the steps whose results arrived in the last user message."""
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return set()
    asked = {b["id"]: _key(b["name"], b.get("input", {})) for b in blocks(messages[-2])
             if b.get("type") == "tool_use"}
    answered = {asked.get(b.get("tool_use_id")) for b in blocks(messages[-1])
                if b.get("type") == "tool_result" and not b.get("is_error")}
    return {s.id for s in steps if _key(s.tool, s.args) in answered}


def _section_lines(summary: str, name: str) -> list[str]:
    found = re.search(rf"## {re.escape(name)}\n(.*?)(?=\n## |\Z)", summary, re.S)
    return found.group(1).split("\n") if found else []
