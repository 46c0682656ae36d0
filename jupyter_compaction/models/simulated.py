"""The offline model: a deterministic agent policy that reads only its request.

`SimulatedModel(scenario)` plays a bundled scenario. It is a *reader*: the scenario says
what it can answer (its declared questions) and how to read (extractors over tool
output, argument templates over facts), and on every call the model reads the request
it was given, and nothing else:

- the question: the newest question its user asked (`asked.py`: a follow-up after an
  answer, or a summary's Goal that replaced it; else the first message) is parsed into
  one of the scenario's questions with its slots and operators (`scenarios/grammar.py`:
  every content word must be understood); its first reply to that question restates it. A
  task it does not fully understand gets, at once, an honest "I cannot do this offline"
  naming the words it did not understand, the nearest questions it can answer and how to
  use a real model, with the stop reason "refusal" (the run ends `unsupported`). A task
  of several questions ("X? and Y?", "X, and is Y?") is read part by part
  (`scenarios/parts.py`; a later part's "it" takes the entity the part before named): it
  plans every understood part in turn, each with its own slots (`merged`), and answers
  one line per part, saying which part it cannot answer and why; it refuses only a task
  none of whose parts it understands;

- known facts: the `given` facts and slots of the task text (these stand: no record or
  result changes the entity asked about); facts recorded in the request as
  "name = value" lines (its own notes in assistant text, summaries, todo notes in the
  system prompt, notes read back); and the facts its extractors find in every tool result
  still visible next to its call (those win over records: they are the freshest evidence);
- the plan, worked back from the facts the question needs: every call of those steps
  whose arguments the known facts can fill, and whose own words (a literal such as a
  policy topic) the request shows; a call is done when its result is visible, its needed
  facts are known, or it failed. It makes the first call not done (with arguments filled
  from visible values only, so an id it lost is looked up again by redoing the call that
  revealed it), and answers when nothing is left to do, from the known facts as they are
  written: a wrong value in context gives a wrong answer, a missing one a partial answer;
- errors: an error that says a record or file the task names does not exist is a fact
  (the answer says so); a call whose error lists valid values ("topics: a, b") is retried once with
  the closest listed value, whose result then stands for it; a call that keeps failing
  otherwise is given up, and the answer says (unknown) for what it would have found;
- instructions: mid-conversation `system` messages are read with the system prompt, not
  as turns; the output rules they state ("answer in one line", `models/output_rules.py`)
  shape its final answer only while a message stating them is in the request, so a rule
  whose message a compaction summarized away is forgotten;
- honest endings: it never repeats a call a third time in a row when the same call
  already returned the same visible result twice; it answers with what it has instead.
  It calls only the tools offered (none offered: it answers), and caps its reply at
  `max_tokens` (stop reason "max_tokens").

With the task-state tools offered it writes a todo list of the calls it can name so far
(rewritten when a listing reveals more) and ticks each with a note of its facts, from
the visible result or, when a compaction came before it ticked it, from the records that
kept them (a summary), so no later compaction leaves a finished item pending; with the
notes tools it writes its facts down and reads them back after a compaction; with the
memory tool it does the same in `/memories/findings.md`, viewing the folder first. Its
memory follows what the request shows: every fact the newest results show is written in
the reply that sees them, whether or not its plan can still name their call (a trim may
have dropped the listing that named a file, so the finding would be lost with the next
compaction; of such a call it writes only what the result shows), and after a
compaction it reads its memory back, in a reply of its own when no todo list is in view,
before it does again any step its memory may make needless (re-reading a file it
noted). Notes or memory read back that the agent's result
cap cut short are read up to their last whole line: the line cut mid-value is no record. A
result offloaded to a file (a preview in its place) is read back by searches and a line
range, never whole, by the rule stated in `simulated_offload.py`; a result that says it
is unchanged since an earlier turn leaves that earlier result standing. Offered
the `compact` tool, it calls it when the newest context-usage line says it is past the
share the line gives, with the step it is about to take as the focus (what the summary
must keep in most detail is what that step builds on), and makes that step only after the
compaction: the reply that asks for it makes no call on the task's tools.

With `thinking=True` it plays a model with extended thinking: each reply to its task opens
with a thinking block that restates its reading (the task, every fact it knows, the steps
left), so the thinking grows as the work does, as a model re-deriving its plan on every
call. It never reads thinking back (the facts it acts on come from text and results only),
so thinking changes what the requests cost and how soon the context fills, not what it
reads; it counts towards `max_tokens`, as the API's thinking does.

Asked for a summary (recognised by what the request asks, in any wording), it writes the
sections the prompt names, in that order, under the length the prompt states
(`summary_words` otherwise), keeping or leaving out the kinds of fact it names, extracting
from the turns (transcript lines, JSON messages or prose) and previous summary it is
given; `write_summary(prompt)` returns the summary with what it followed and the words of
the prompt it did not understand (`simulated_summary.py`). A prompt that asks to keep no kind
of fact verbatim gets a lossier summary: only the newest steps keep their values. The
request comes either alone (one user message holding the prompt and the transcript) or
appended to the conversation itself, as the last text block of its last user message,
naming the messages to cover ("Summarize messages 3 to 9 of this conversation"); then it
reads those messages of the conversation it was sent (and the task, message 1), exactly as
it would read them in a transcript. A prompt that names a focus ("focus on: X") keeps the
steps whose line mentions a word of it: they keep their values in a lossy summary, and
under the length cap they lose them last (the others erode first).

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

import difflib
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..asked_compaction import COMPACT_TOOL, read_usage_line
from ..history import SYSTEM, Message, blocks, call_key, result_text
from ..memory_tool import MEMORY_ROOT, MEMORY_TOOL_NAME
from ..scenarios import load
from ..scenarios.base import ALL_KNOWN, Call, Question, Scenario
from ..tokens import CHARS_PER_TOKEN, TokenCounter
from ..tools import cut_chars, kept_chars
from ..vocab import (
    ASSISTANT_PREFIX,
    PLACEHOLDER,
    READ_NOTES,
    READ_OFFLOADED,
    SEARCH_OFFLOADED,
    SET_GOAL,
    STATE_OPEN,
    TODO_MARKS,
    TODO_UPDATE,
    TODO_WRITE,
    USER_PREFIX,
    WRITE_NOTE,
    fact_line,
    is_unchanged,
    read_facts,
)
from .asked import asked
from .base import Reply, Usage
from .output_rules import apply, rules_in
from .simulated_offload import OffloadReading
from .simulated_summary import (
    SUMMARY_WORDS,
    WrittenSummary,
    summary_prompt,
    write_summary,
)

MAX_SAME_CALL = 2  # an identical call with an identical result, at most this many in a row
FOCUS_CHARS = 120  # the focus it gives `compact`: the step it is about to take, cut to this
MEMORY_FILE = f"{MEMORY_ROOT}/findings.md"  # where it keeps its findings with the memory tool
OUT_OF_SCOPE = "refusal"  # the stop reason of an honest "I cannot do this offline"
# The valid values an error lists at its end: "...; topics: a, b." or "use one of a, b."
LISTED = re.compile(r"(?:;\s*[\w ]+:|\bone of)\s+([\w./-]+(?:, [\w./-]+)*)\.?\s*$")
USER_SUMMARY = ("trust", "redo_last", "redo_all")
DEFAULT_USER_SUMMARY = "trust"

TODO_LINE = re.compile(r"^(\[.\]) (\S+)\. (.+?)(?: - (.*))?$", re.M)


@dataclass
class Reading:
    """What one request shows: known facts, the results seen per call, the plan."""

    facts: dict[str, str] = field(default_factory=dict)
    seen: dict[tuple[str, str], str] = field(default_factory=dict)  # call key -> output
    plan: list[Call] = field(default_factory=list)
    extra: list[Call] = field(default_factory=list)  # seen calls the plan cannot name now
    question: Question | None = None  # what the task asks (None: nothing in scope)
    failed: set[tuple[str, str]] = field(default_factory=set)  # calls that answered an error
    told: set[tuple[str, str]] = field(default_factory=set)  # errors that say a record is missing
    retry: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # calls to retry
    parts: dict[str, Reading] = field(default_factory=dict)  # a task of several questions:
    # each understood part's own reading (its slots, facts and plan), by its text
    pending: set[tuple[str, str]] = field(default_factory=set)  # offloaded, being read back
    follow: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # searches, ranges
    offloaded: dict[tuple[str, str], str] = field(default_factory=dict)  # call -> its file

    def done(self, call: Call) -> bool:
        """Its result is visible, its facts are known, it failed (the answer then says
        what could not be found) or it is offloaded and being read back; with parts, done
        for every part that plans it."""
        if self.parts:
            return all(part.done(call) for part in self.parts.values()
                       if call.key in {c.key for c in part.plan})
        return (call.key in self.seen or call.known(self.facts) or call.key in self.failed
                or call.key in self.pending)


def merged(parts: dict[str, Reading]) -> Reading:
    """One reading for a task of several questions: every part's plan in turn (each call
    once), their facts, failures and retries, and the offloaded results (the same for
    every part: they come from the request); `done` asks the parts."""
    plan = list({c.key: c for r in parts.values() for c in r.plan}.values())
    first = next(iter(parts.values()))
    facts = {k: v for r in reversed(parts.values()) for k, v in r.facts.items()}
    return Reading(facts, first.seen, plan, first.extra, first.question,
                   set().union(*(r.failed for r in parts.values())), first.told,
                   [t for r in parts.values() for t in r.retry if t not in first.retry]
                   + first.retry, parts, first.pending, first.follow, first.offloaded)


def read(scenario: Scenario, task: str, records: list[str],
         seen: dict[tuple[str, str], str], visible: str | None = None,
         errors: dict[tuple[str, str], str] | None = None) -> Reading:
    """Known facts from the task, "name = value" records and visible results; the plan
    is the question the task asks, worked back to calls (with `visible`, the request's
    text, only calls whose own words it shows). `errors` (call -> error text) tell the
    facts an error can show: that the record or file a slot names does not exist. What
    the task states (its given facts and slots) stands over any record or result: an
    earlier question's notes or results never change the entity asked about now."""
    asked = scenario.read_task(task)
    question = scenario.question_of(task) if task else None
    facts = {name: value for text in records for _, name, value in read_facts(text)} | asked
    reading = Reading(facts, seen, question=question)
    while True:  # results fill arguments, which name more calls whose results may be visible
        reading.plan, reading.extra = scenario.plan(facts, question, visible), []
        learned = {k: v for k, v in _learn(scenario, reading, errors or {}).items()
                   if k not in asked}
        if all(facts.get(k) == v for k, v in learned.items()):
            return reading
        facts.update(learned)


def _learn(scenario: Scenario, reading: Reading,
           errors: dict[tuple[str, str], str]) -> dict[str, str]:
    """The facts the visible results (and errors) of `reading`'s plan show, and those of
    results whose call is no longer planned (added to `reading.extra`)."""
    seen, planned, learned = reading.seen, {c.key for c in reading.plan}, {}
    for call in reading.plan:
        if call.key in seen:
            learned.update(call.learn(seen[call.key]))
        elif call.key in errors and (told := call.learn(errors[call.key], True)):
            reading.told.add(call.key)
            learned.update(told)
    for (tool, args), output in seen.items():
        if (tool, args) not in planned and (call := scenario.match(tool, json.loads(args))):
            reading.extra.append(call)
            learned.update(call.learn(output))
    return learned


class SimulatedModel:
    """A deterministic stand-in for Claude that reads one scenario's kind of output."""

    def __init__(self, scenario: Scenario | str = "agents", *, summary_words: int = SUMMARY_WORDS,
                 user_summary: str = DEFAULT_USER_SUMMARY, cache: bool = True,
                 counter: TokenCounter | None = None, thinking: bool = False):
        if user_summary not in USER_SUMMARY:
            raise ValueError(f"user_summary must be one of {', '.join(USER_SUMMARY)}, "
                             f"not {user_summary!r}")
        self.scenario = load(scenario) if isinstance(scenario, str) else scenario
        self.summary_words, self.user_summary, self.cache = summary_words, user_summary, cache
        self.thinking = thinking
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
        stop = ""
        # mid-conversation system messages are instructions: read with the system prompt
        said = "\n\n".join([system, *(_text_of(m) for m in messages if m["role"] == SYSTEM)])
        talk = [m for m in messages if m["role"] != SYSTEM]
        if (prompt := summary_prompt(talk)) is not None:
            content = [self._text(self.summarize(prompt))]
        elif not self.scenario.answerable(task := _task(talk)):
            content, stop = [self._text(self.out_of_scope(task))], OUT_OF_SCOPE
        else:
            content = self.act(said, talk, offered, max_tokens, _visible(said, talk, tools))
        stop = stop or ("tool_use" if any(b["type"] == "tool_use" for b in content)
                        else "end_turn")
        content, stop = self._cap(content, stop, max_tokens)
        usage = self._usage(system, messages, tools, content,
                            self.cache if cache is None else cache)
        return Reply(content, stop, usage, self.name)

    def out_of_scope(self, task: str = "") -> str:
        """The honest answer to a task it did not fully understand: the words it did not
        understand, the nearest questions it can answer, every question, a real model."""
        words, near = self.scenario.not_understood(task)
        asks = "\n".join(f"- {q.ask} (e.g. \"{q.example}\")" for q in self.scenario.questions)
        said = ", ".join(f'"{w}"' for w in words) or ALL_KNOWN
        nearest = "; ".join(f'"{q.example}"' for q in near)
        return (f"I cannot do this offline. I am the simulated model: I answer only the "
                f"questions the {self.scenario.name!r} scenario declares, and only when I "
                f"understand every word of the task. I did not understand: {said}. Nearest "
                f"questions I can answer: {nearest}. All I can answer:\n{asks}\nA real "
                f"model (a Claude model id such as claude-haiku-4-5, with ANTHROPIC_API_KEY "
                f"set) can take any task.")

    # --- reading a request ----------------------------------------------------------------
    def reading(self, system: str, messages: list[Message], task: str,
                visible: str | None = None) -> Reading:
        """What `system` and `messages` show (see the module docstring), read for `task`."""
        records, seen, names, offload = [system], {}, {}, OffloadReading()
        errors: list[tuple[tuple[str, str], str]] = []  # (call, error text), in order
        for block in (b for message in messages for b in blocks(message)):
            if block.get("type") == "text":
                records.append(self._trusted(block["text"]))
            elif block.get("type") == "tool_use":
                names[block["id"]] = call_key(block["name"], block["input"])
            elif block.get("type") == "tool_result" and block["tool_use_id"] in names:
                _result(names[block["tool_use_id"]], block, records, errors, seen, offload)
        pending, follow = self._offloaded(offload, seen)
        retried = _retries(errors, list(names.values()))
        for failed, retry in retried.items():  # a retry's result stands for the failed call
            if retry in seen:
                seen[failed] = seen[retry]
        r = read(self.scenario, task, records, seen, visible, dict(errors))
        r.failed, r.retry = _failed(errors, retried, seen, r.told)
        r.pending, r.follow, r.offloaded = pending, follow, offload.previews
        return r

    def _offloaded(self, offload: OffloadReading, seen: dict[tuple[str, str], str]
                   ) -> tuple[set[tuple[str, str]], list[tuple[str, dict[str, Any]]]]:
        """Offloaded results read as `simulated_offload.py` says: those settled go into
        `seen`; the others are pending, with the searches and ranges to make first."""
        pending, follow = set(), []
        for key in offload.previews:
            call = None if key in seen else self.scenario.match(key[0], json.loads(key[1]))
            if call is None:
                continue
            text, calls = offload.settle(call)
            if text is None:
                pending.add(key)
                follow += [c for c in calls if c not in follow]
            else:
                seen[key] = text
        return pending, follow

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
            max_tokens: int = 10**6, visible: str | None = None) -> list[dict]:
        """The reply to a request for its task: a retry, the next call (with its
        bookkeeping), the searches of offloaded results, or the answer; with `thinking`,
        opened by a thinking block that states its reading."""
        r = self._read_parts(system, messages, visible)
        content = self._reply(system, messages, offered, max_tokens, r)
        return [self._thought(_task(messages), r), *content] if self.thinking else content

    def _thought(self, task: str, r: Reading) -> dict[str, str]:
        """A thinking block: the task, the facts it knows and the steps left, as it read
        them."""
        known = "\n".join(f"{name} = {value}" for name, value in r.facts.items())
        left = "\n".join(c.label for c in r.plan if not r.done(c)) or "nothing: answer"
        text = f"The task:\n{task}\nWhat I know:\n{known}\nLeft to do:\n{left}"
        return {"type": "thinking", "thinking": text, "signature": f"simulated-{self._request}"}

    def _reply(self, system: str, messages: list[Message], offered: set[str],
               max_tokens: int, r: Reading) -> list[dict]:
        """`act`'s reply, without thinking, from the reading `r`."""
        news = self._news(messages, r)
        said = self._preface(messages, r, news)
        todo = [c for c in r.plan if not r.done(c) and c.tool in offered]
        if todo and self._repeating(messages, todo[0]):
            todo = []  # the same call keeps giving the same result: answer with what we have
        retry = [(tool, args) for tool, args in r.retry if tool in offered]
        book = self._bookkeeping(system, messages, offered, r, news, todo[0]) if todo else []
        follow = [self._call(tool, args) for tool, args in r.follow if tool in offered]
        if retry:  # the error listed valid values: try the closest one, once
            tool, args = retry[0]
            return [self._text(f"{said}Retry: {tool} with a value the error listed."),
                    self._call(tool, args)]
        if todo:
            return self._step(todo[0], said, book, follow, max_tokens,
                              look_first=STATE_OPEN not in system)
        if follow:  # what its offloaded results hold is all that is left to read
            return [self._text(f"{said}Next: read the offloaded results."), *follow]
        answer = self._answer(_task(messages), r)
        return [self._text(apply(rules_in([system]), answer))]  # the rules it can see

    def _preface(self, messages: list[Message], r: Reading, news: dict[str, str]) -> str:
        """What a reply says first: the question it understood, in its first reply to that
        question (a follow-up's too), and the facts the newest results showed."""
        said = f"Noted: {fact_line(news)}\n" if news else ""
        at, task = asked(messages)
        if r.question and not any(m["role"] == "assistant" for m in messages[at + 1:]):
            return f"Question understood: {self.scenario.canonical(task)}.\n{said}"
        return said

    def _step(self, call: Call, said: str, book: list[dict], follow: list[dict],
              max_tokens: int, look_first: bool = True) -> list[dict]:
        """The reply that makes `call`: what it noted, its bookkeeping, the searches and
        ranges of offloaded results (`follow`), then the call; what does not fit in
        `max_tokens` waits. With `look_first`, a reply that views its memory makes no
        other call (without a todo list in view, its memory may make the step needless;
        with one, a pending item is not done, so it reads its memory along with it). A
        reply that asks for a compaction makes the step after it, on the compacted context."""
        head = [self._text(f"{said}Next: {call.label}.")]
        action = [*follow, self._call(call.tool, dict(call.args))]
        if look_first and any(_views_memory(b) for b in book):
            action = []  # what its memory holds may make the step needless: look first
        if any(b.get("name") == COMPACT_TOOL for b in book):
            action = []  # compact first: the step's result then lands in the smaller context
        while book and self._tokens([*head, *book, *action]) > max_tokens:
            if said:  # the bookkeeping records the same facts: say less
                said, head = "", [self._text(f"Next: {call.label}.")]
                continue
            book.pop()  # bookkeeping that does not fit waits for a later turn
        if not any(b["type"] == "tool_use" for b in [*book, *action]):
            action = [self._call(call.tool, dict(call.args))]
        return [*head, *book, *action]

    def _answer(self, task: str, r: Reading) -> str:
        """The answer from what `r` knows: one line per part for a task of several."""
        if not r.parts:
            return self.scenario.answer(r.facts, r.question)
        return self.scenario.combine(task, {part: self.scenario.answer(p.facts, p.question)
                                            for part, p in r.parts.items()})

    def _read_parts(self, system: str, messages: list[Message], visible: str | None
                    ) -> Reading:
        """The request read for its task, or, for a task of several questions, for each
        part it understands (`merged`)."""
        found = self.scenario.parts(task := _task(messages))
        if len(found) == 1:
            return self.reading(system, messages, task, visible)
        return merged({part: self.reading(system, messages, part, visible)
                       for part, understood in found if understood})

    def _news(self, messages: list[Message], r: Reading) -> dict[str, str]:
        """Facts read from the results in the last message (what to note down now): what
        a result its plan cannot name now shows, then each planned call's record."""
        answered = _last_answered(messages, r.offloaded)
        news: dict[str, str] = {}
        for call in (c for c in r.extra if c.key in answered and c.key in r.seen):
            news.update(call.learn(r.seen[call.key]))
        for call in (c for c in r.plan if c.key in answered and c.key in r.seen):
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
            keys = {call_key(b["name"], b["input"]) for b in uses}
            if call.key not in keys:
                break
            outputs.append([result_text(b) for b in blocks(messages[n])
                            if b.get("type") == "tool_result"])
        return len(outputs) == MAX_SAME_CALL and outputs[0] == outputs[1]

    def _bookkeeping(self, system: str, messages: list[Message], offered: set[str],
                     r: Reading, news: dict[str, str], step: Call) -> list[dict]:
        """This turn's bookkeeping calls, of the tools offered: the goal and todo list, a
        note of the news, the notes read back after a compaction, the memory file, and
        `compact` (focused on `step`, the one it is about to take) when the newest usage
        line says the context is past its share."""
        calls = self._todo_calls(system, messages, offered, r) if TODO_WRITE in offered else []
        if WRITE_NOTE in offered and news:
            calls.append(self._call(WRITE_NOTE, {"text": fact_line(news)}))
        if READ_NOTES in offered and _compacted(messages) and not _called(messages, READ_NOTES):
            calls.append(self._call(READ_NOTES, {}))
        if MEMORY_TOOL_NAME in offered:
            calls += [self._call(MEMORY_TOOL_NAME, args)
                      for args in _memory_steps(messages, news)]
        if COMPACT_TOOL in offered and _past_compact_line(messages):
            calls.append(self._call(COMPACT_TOOL, {"focus": step.label[:FOCUS_CHARS]}))
        return calls

    def _todo_calls(self, system: str, messages: list[Message], offered: set[str],
                    r: Reading) -> list[dict]:
        """The goal, set once; the todo list, rewritten when new work came into view, else
        each item the request shows finished (`_found`) ticked with a note of its facts."""
        listed = {label: (mark, tid, note) for mark, tid, label, note in
                  TODO_LINE.findall(system)}
        calls = []
        if STATE_OPEN not in system and SET_GOAL in offered:
            calls.append(self._call(SET_GOAL, {"goal": _task(messages).split("\n")[0][:200]}))
        if any(c.label not in listed for c in r.plan):  # new work came into view
            return [*calls, self._call(TODO_WRITE, {"todos": [
                self._todo(c, r, listed.get(c.label)) for c in r.plan]})]
        for call in r.plan if TODO_UPDATE in offered else []:
            mark, tid, _ = listed[call.label]
            if mark != TODO_MARKS["completed"] and (found := _found(call, r)) is not None:
                calls.append(self._call(TODO_UPDATE, {"id": tid, "status": "completed",
                                                      "note": fact_line(found)}))
        return calls

    @staticmethod
    def _todo(call: Call, r: Reading, listed: tuple[str, str, str] | None) -> dict[str, str]:
        """One item of a rewritten todo list, keeping what the old list or a visible
        result says is done."""
        if r.done(call):
            return {"subject": call.label, "status": "completed",
                    "note": fact_line(_found(call, r) or {})}
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
        return self.write_summary(prompt).text

    def write_summary(self, prompt: str) -> WrittenSummary:
        """`summarize`'s summary with what it followed and the words of the prompt it did
        not understand."""
        return write_summary(prompt, self.scenario, read, summary_words=self.summary_words,
                             count_tokens=self.counter.count_text)

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


def _memory_steps(messages: list[Message], news: dict[str, str]) -> list[dict[str, Any]]:
    """The memory tool's inputs for this turn, as a model told to check its memory first
    uses it: view the folder when neither a view of it nor its findings file is visible;
    read the findings file when it is known to exist (the folder lists it, a write to it
    is visible) unless a read of it is visible (a cleared read is no read: after a
    compaction it reads its memory again, looking before it acts when no todo list
    is in view, `_step`); write the
    news to it (create it, or insert at the top once it is known to exist). A create
    refused because the file exists is redone as an insert."""
    uses = _memory_uses(messages)
    viewed, known, listed = _memory_state(uses)
    texts = _unwritten(uses) + ([f"- {fact_line(news)}\n"] if news else [])
    steps: list[dict[str, Any]] = []
    if MEMORY_ROOT not in viewed and not known:
        steps.append({"command": "view", "path": MEMORY_ROOT})
    if MEMORY_FILE not in viewed and (listed or known):
        steps.append({"command": "view", "path": MEMORY_FILE})
    for text in texts:
        steps.append({"command": "insert", "path": MEMORY_FILE, "insert_line": 0,
                      "insert_text": text} if known else
                     {"command": "create", "path": MEMORY_FILE, "file_text": text})
        known = True
    return steps


def _found(call: Call, r: Reading) -> dict[str, str] | None:
    """What `call` found, as the request shows it: its visible result, else the facts
    known from records (a summary that kept a result whose item was never ticked); None
    when neither shows it."""
    if call.key in r.seen:
        return call.record(r.seen[call.key])
    if call.known(r.facts):
        return {f.name: r.facts[f.name] for f in call.facts if not f.from_error}
    return None


def _last_answered(messages: list[Message], offloaded: dict[tuple[str, str], str]
                   ) -> set[tuple[str, str] | None]:
    """The calls the last message answers, with the offloaded results whose file a
    search or range in it read back."""
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return set()
    asked = {b["id"]: call_key(b["name"], b["input"])
             for b in blocks(messages[-2]) if b.get("type") == "tool_use"}
    answered = {asked.get(b.get("tool_use_id")) for b in blocks(messages[-1])
                if b.get("type") == "tool_result"}
    read_back = {json.loads(key[1]).get("path") for key in answered
                 if key and key[0] in (SEARCH_OFFLOADED, READ_OFFLOADED)}
    return answered | {key for key, path in offloaded.items() if path in read_back}


def _compacted(messages: list[Message]) -> bool:
    """Whether a compaction left its mark: a summary, or a cleared result."""
    request = json.dumps(messages)
    return any(mark in request for mark in (USER_PREFIX, ASSISTANT_PREFIX, PLACEHOLDER))


def _called(messages: list[Message], tool: str) -> bool:
    """Whether a visible reply calls `tool`."""
    return any(b.get("type") == "tool_use" and b["name"] == tool
               for m in messages for b in blocks(m))


def _memory_state(uses: list[tuple[dict[str, Any], str, bool]]) -> tuple[set[str], bool, bool]:
    """What the visible memory calls show: the paths viewed (a cleared view is none),
    whether the findings file is known to exist, whether a view of the folder lists it."""
    viewed = {args.get("path") for args, text, _ in uses
              if args.get("command") == "view" and text != PLACEHOLDER}
    known = any(MEMORY_FILE in text and (not error or "already exists" in text)
                for _, text, error in uses)
    listed = any(args.get("path") == MEMORY_ROOT and MEMORY_FILE in text
                 for args, text, _ in uses)
    return viewed, known, listed


def _unwritten(uses: list[tuple[dict[str, Any], str, bool]]) -> list[str]:
    """The texts of creates refused because the file exists, not inserted since."""
    inserted = {args.get("insert_text") for args, _, _ in uses if args.get("command") == "insert"}
    return [args["file_text"] for args, text, error in uses
            if args.get("command") == "create" and error and "already exists" in text
            and args.get("file_text") not in inserted]


def _views_memory(block: dict[str, Any]) -> bool:
    return block.get("name") == MEMORY_TOOL_NAME and block["input"].get("command") == "view"


def _past_compact_line(messages: list[Message]) -> bool:
    """Whether the newest context-usage line says the context is past the share at which
    to call `compact`, and the reply it answers did not call it already."""
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return False
    if any(b.get("name") == COMPACT_TOOL for b in blocks(messages[-2])):
        return False
    read = read_usage_line(_text_of(messages[-1]))
    return read is not None and read[1] is not None and read[0] >= read[1]


def _memory_uses(messages: list[Message]) -> list[tuple[dict[str, Any], str, bool]]:
    """(input, result text, is_error) of every visible memory-tool call with its result."""
    calls = {b["id"]: b["input"] for m in messages for b in blocks(m)
             if b.get("type") == "tool_use" and b.get("name") == MEMORY_TOOL_NAME}
    return [(calls[b["tool_use_id"]], result_text(b), bool(b.get("is_error")))
            for m in messages for b in blocks(m)
            if b.get("type") == "tool_result" and b.get("tool_use_id") in calls]


def _visible(system: str, messages: list[Message], tools: list[dict[str, Any]]) -> str:
    """Every text the request shows: system prompt, the user's texts, tool results, tool
    descriptions; of its own words only the values it noted (not its prose, not its call
    arguments)."""
    texts = [system, json.dumps(tools)]
    for message in messages:
        for block in blocks(message):
            if block.get("type") == "text" and message["role"] == "user":
                texts.append(block["text"])
            elif block.get("type") == "text":
                texts += [value for _, _, value in read_facts(block["text"])]
            elif block.get("type") == "tool_result":
                texts.append(result_text(block))
    return "\n".join(texts)


def _listed(error: str) -> list[str]:
    """The valid values a tool error lists ("...; topics: a, b, c."), if any."""
    found = LISTED.search(error.strip())
    return found.group(1).split(", ") if found else []


def _closest(key: tuple[str, str], error: str) -> tuple[str, dict[str, Any]]:
    """The failed call again, its string argument closest to a listed value replaced."""
    tool, args = key[0], json.loads(key[1])
    listed = _listed(error)
    pairs = [(difflib.SequenceMatcher(None, str(v), item).ratio(), name, item)
             for name, v in args.items() if isinstance(v, str) for item in listed]
    _, name, item = max(pairs, default=(0, None, None))
    return tool, ({**args, name: item} if name else args)


def _failed(errors: list[tuple[tuple[str, str], str]],
            retried: dict[tuple[str, str], tuple[str, str]], seen: dict[tuple[str, str], str],
            told: set[tuple[str, str]]) -> tuple[set[tuple[str, str]], list[tuple[str, Any]]]:
    """The calls given up (failed twice, answered with valid values, or told missing),
    and the retries to make: each failed call whose error lists valid values, not yet
    retried, with the closest of them."""
    failures = Counter(key for key, _ in errors)  # a passing error is tried again
    failed = {key for key, text in errors if failures[key] >= MAX_SAME_CALL
              or _listed(text) or key in told} - set(seen)
    retry = [_closest(key, text) for key, text in errors if key not in retried
             and key not in seen and key not in retried.values() and _listed(text)]
    return failed, retry


def _retries(errors: list[tuple[tuple[str, str], str]], calls: list[tuple[str, str]]
             ) -> dict[tuple[str, str], tuple[str, str]]:
    """Failed call -> the later call that retried it with a value its error listed."""
    out = {}
    for key, text in errors:
        listed, args = _listed(text), json.loads(key[1])
        for tool, other in calls[calls.index(key) + 1:] if key in calls else []:
            changed = [k for k, v in json.loads(other).items() if args.get(k) != v]
            if tool == key[0] and len(changed) == 1 and json.loads(other)[changed[0]] in listed:
                out[key] = (tool, other)
                break
    return out


def _task(messages: list[Message]) -> str:
    """The task the request sets: the newest question its user asked (`asked.py`)."""
    return asked(messages)[1]


def _text_of(message: Message) -> str:
    return "\n".join(b["text"] for b in blocks(message) if b.get("type") == "text")


def _result(key: tuple[str, str], block: dict[str, Any], records: list[str],
            errors: list[tuple[tuple[str, str], str]], seen: dict[tuple[str, str], str],
            offload: OffloadReading) -> None:
    """Read one tool result: notes and memory read back are records, an error is kept
    (in order), any other result is what its call showed (`_take`)."""
    text = result_text(block)
    if key[0] == READ_NOTES or key[0] == MEMORY_TOOL_NAME:
        records.append(_whole_lines(text))
    elif block.get("is_error"):
        errors.append((key, text))
    else:
        _take(key, text, seen, offload)


def _whole_lines(text: str) -> str:
    """`text` without the line the agent's result cap cut short, nor its note: a record
    cut mid-value ("files = a.py, b.p") is no record."""
    return text[:kept_chars(text)].rpartition("\n")[0] if cut_chars(text) else text


def _take(key: tuple[str, str], text: str, seen: dict[tuple[str, str], str],
          offload: OffloadReading) -> None:
    """Read one result that is not an error: a placeholder or an "unchanged" stand-in
    shows nothing new (the earlier result stands), an offloaded result's preview,
    search or range goes to `offload`, any other is what the call showed."""
    if text != PLACEHOLDER and not is_unchanged(text) and not offload.take(key, text):
        seen[key] = text
