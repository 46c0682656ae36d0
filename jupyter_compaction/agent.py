"""The minimal agent loop: measure, compact if needed, call the model, run the tools.

Each turn:
1. rebuild the system prompt (the base prompt plus the rendered task state);
2. count the whole request *before* calling (preflight), and when it is over the trigger
   (`Settings.trigger_at`, in the model's own count as far as the input tokens it
   reported so far tell: `usage_anchor.py`) run the strategy, asking for the target
   (`Settings.target_at`, well below the trigger, so the next turns have room before
   compacting again), then check that it was not stuck (still over the budget after
   freeing less than 10 %);
3. call the model (if the API refuses the request as too long, compact harder and retry
   the call once); 4. run every tool call of the reply and append the results; a run that
   keeps redoing the same calls with the same results after each compaction stops as
   stuck (`loop_guard.py`).
A reply without tool calls is the answer.

Two lists are kept apart: `Run.messages` is the live context, which compactions rewrite,
and `Run.transcript` is every message ever sent or received, which nothing rewrites.
Everything that happens is announced as an event (`events.py`), and, with a
`SessionStore`, written to disk as it happens, so a crash, a model error or a stuck
compaction loses nothing and `resume()` continues where the run stopped.

`Agent.compact(run, strategy, focus)` compacts a run's context on demand (the `%compact`
magic), through the same steps as the trigger does. When a summary call fails or frees
too little, the summarizer rests (`backoff.py`) and trimming stands in.

Left out: streaming, parallel tool execution (calls run in order) and human turns in the
middle of a run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import strategies as strategies_module
from .asked_compaction import compact_tool, usage_line
from .backoff import Resting, SummaryBackoff
from .evaluation import dropped_facts
from .events import (
    Compacted,
    Event,
    Failed,
    Finished,
    ModelReplied,
    ToolCalled,
    ToolReturned,
    TurnStarted,
)
from .fallback_summary import FALLBACK_TOKENS, with_fallback
from .history import COMPACTION, Message, blocks, call_key
from .loop_guard import LoopGuard
from .memory_tool import MemoryFolder
from .models.base import Model, Reply, Usage
from .restore import hook_texts, restore
from .settings import DEFAULTS, Settings
from .store import SessionStore
from .strategies import (
    Compaction,
    CompressionStuck,
    NoCompaction,
    Strategy,
    TrimTurns,
    call_strategy,
    check_counter,
    check_stuck,
    configure,
)
from .summaries import is_summary
from .summarizers import make_summarizer
from .task_state import TaskState, notes_tools
from .tokens import CHARS_PER_TOKEN, Tally, TokenCounter
from .tools import Toolbox, truncate
from .usage_anchor import UsageAnchor
from .workspace import Workspace

MEMORY_FOLDER = "memories"  # the memory tool's folder, inside the workspace
MAX_RESULT_SHARE = 0.25  # one tool result may fill at most this share of the budget
HTTP_BAD_REQUEST, HTTP_TOO_LARGE = 400, 413
PAUSED_AFTER_COMPACTION = "compaction"  # the stop reason of a reply paused by the API
PROMPT_TOO_LONG = "prompt is too long"  # the API's words when a request is over the window
SYSTEM_PROMPT = (
    "You are a careful agent working on the user's task with tools. Finish the task, then "
    "answer in plain text. Keep track of what you have done."
)


def part_of(message: Message) -> str:
    """Which stack of the token chart a message belongs to."""
    kinds = [b.get("type") for b in blocks(message)]
    if any(b.get("type") == "text" and is_summary(b["text"]) for b in blocks(message)):
        return "summary"
    return "tool_results" if "tool_result" in kinds else "messages"


@dataclass
class Run:
    """Everything about one run; `transcript` is never compacted."""

    task: str
    messages: list[Message] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    usage: list[Usage] = field(default_factory=list)
    summary_usage: list[Usage] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    answer: str | None = None
    status: str = "running"  # "finished", "unsupported", "failed" or "max_turns"
    error: str | None = None
    session_id: str | None = None
    turn: int = 0
    system: str = ""
    task_state: TaskState | None = None
    scenario: str | None = None
    outcome: str | None = None  # against the truth of its workspace: "correct", "wrong (...)"
    question: str | None = None  # the declared question the task was understood as, restated
    calls_seen: set[tuple[str, str]] = field(default_factory=set, repr=False)
    tally: Tally | None = field(default=None, repr=False)  # running token count of messages
    anchor: UsageAnchor = field(default_factory=UsageAnchor, repr=False)  # reported/local
    backoff: SummaryBackoff = field(default_factory=SummaryBackoff, repr=False)
    loop_guard: LoopGuard = field(default_factory=LoopGuard, repr=False)  # see loop_guard.py

    def of(self, kind: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def peak_context(self) -> int:
        return max((e.tokens for e in self.of(TurnStarted)), default=0)

    @property
    def tokens_sent(self) -> int:
        """Input tokens of every call, summary calls included."""
        return sum(u.total_input for u in self.usage + self.summary_usage)

    @property
    def repeats(self) -> int:
        """Tool calls repeated with the same input: re-reads and repeated lookups."""
        return sum(e.repeat for e in self.of(ToolCalled))

    @property
    def summary(self) -> str | None:
        return next((c.summary for c in reversed(self.compactions) if c.summary), None)

    def __repr__(self) -> str:
        graded = f", {self.outcome}" if self.outcome else ""
        asked = f"; Question: {self.question}" if self.question else ""
        return (f"<Run {self.status}{graded}: {self.turn} turns, peak {self.peak_context} "
                f"tokens, {len(self.compactions)} compactions, {self.repeats} repeats{asked}>")


class Agent:
    """A tool-using agent that keeps its context under its budget with its strategy.

    Every knob comes from `settings` (see `settings.py`); keyword arguments override
    single knobs, e.g. `Agent(model, budget=8_000, strategy="trim")`. `settings.model`
    is not read here: the agent is handed the model itself.
    """

    def __init__(
        self,
        model: Model,
        *,
        tools: Iterable[Callable[..., Any]] = (),
        system: str = SYSTEM_PROMPT,
        settings: Settings = DEFAULTS,
        workspace: Workspace | None = None,
        on_event: Callable[[Event], None] | None = None,
        store: SessionStore | None = None,
        counter: TokenCounter | None = None,
        **knobs: Any,
    ):
        self.settings = settings = settings.with_changes(**knobs)
        if settings.notes and workspace is None:
            raise ValueError("notes=True needs a workspace to keep the notes file in")
        if settings.memory and workspace is None:
            raise ValueError("memory=True needs a workspace to keep the memory folder in")
        self.model, self.system, self.budget = model, system, settings.budget
        self.user_tools = list(tools)
        self.workspace, self.on_event, self.store = workspace, on_event, store
        self.counter = check_counter(counter) if counter is not None else TokenCounter()
        self.strategy = self._configured(settings.strategy)
        self.memory = (MemoryFolder(workspace.root / MEMORY_FOLDER)
                       if settings.memory and workspace else None)
        self._asked: str | None = None  # the focus of a compaction the model asked for
        self.pinned: list[str] = []  # texts re-attached after every compaction (restore.py)
        self.before_compaction: list[Callable[[Run], str | None]] = []  # hooks whose text ...
        self.after_compaction: list[Callable[[Run, Compaction], str | None]] = []  # ... comes back

    # --- building one request -------------------------------------------------------
    def _toolbox(self, state: TaskState | None) -> Toolbox:
        box = Toolbox(self.user_tools)
        for fn in (state.tools() if state else []):
            box.add(fn)
        for fn in (notes_tools(self.workspace) if self.settings.notes else []):
            box.add(fn)
        if self.memory:
            box.add(self.memory.tool())
        if self.settings.compact_at is not None:
            box.add(compact_tool(self._ask))
        return box

    def _system(self, state: TaskState | None) -> str:
        rendered = state.render() if state else ""
        return f"{self.system}\n\n{rendered}" if rendered else self.system

    # --- the loop ---------------------------------------------------------------------
    def run(self, task: str, max_turns: int | None = None) -> Run:
        """Work on `task` until the model answers, fails, or `max_turns` pass (by default
        the settings' `max_turns`)."""
        if not isinstance(task, str) or not task.strip():
            raise ValueError("the task must be a non-empty string")
        run = Run(task=task, task_state=TaskState() if self.settings.task_state else None)
        if self.store:
            run.session_id = self.store.start(self._meta(task))
        self._append(run, {"role": "user", "content": task})
        return self._loop(run, max_turns)

    def resume(self, run: Run, max_turns: int | None = None) -> Run:
        """Continue a failed, interrupted or `max_turns` run from its stored session (or from
        memory). A run that ends with the model's answer has nothing to continue: that is a
        `ValueError`, and nothing is sent."""
        stored = bool(self.store and run.session_id)
        messages = self.store.context(run.session_id) if stored else run.messages
        if run.status == "finished" or _answered(messages):
            raise ValueError("this run already finished with the model's answer, so there is "
                             "nothing to resume; start a new one with run()")
        if stored:
            run.messages = messages
            run.transcript = self.store.transcript(run.session_id)
        run.tally = None  # rebuilt from the (restored) context on the next turn
        run.loop_guard.stale.clear()  # a resumed run gets its windows afresh
        run.calls_seen = {call_key(b["name"], b["input"]) for m in run.transcript[:-1]
                          for b in blocks(m) if b.get("type") == "tool_use"}
        if run.messages and run.messages[-1]["role"] == "assistant":  # its calls were not run
            self._run_tools(run, run.messages[-1], self._toolbox(run.task_state))
        run.status, run.error = "running", None
        return self._loop(run, max_turns)

    def _loop(self, run: Run, max_turns: int | None) -> Run:
        try:
            return self._turns(run, max_turns or self.settings.max_turns)
        except KeyboardInterrupt:  # the run (and its transcript) survives an interrupt
            return self._fail(run, "interrupted by the user; resume() continues the run",
                              "interrupted")

    def _turns(self, run: Run, max_turns: int) -> Run:
        toolbox = self._toolbox(run.task_state)
        for _ in range(max_turns):
            run.turn += 1
            schemas = toolbox.schemas
            overhead = self._preflight(run, schemas)
            if overhead is None:
                return run
            reply = self._call(run, schemas, overhead)
            if reply is None:
                return run
            self._record_reply(run, reply, sent=overhead + self._tally(run).total)
            if reply.stop_reason == PAUSED_AFTER_COMPACTION:
                continue  # the API compacted and paused: send the request again to go on
            if not reply.tool_uses:
                declined = reply.stop_reason == "refusal"  # the task is outside its scope
                run.answer, run.status = reply.text, "unsupported" if declined else "finished"
                self._emit(run, Finished(run.turn, reply.text,
                                         reason="unsupported" if declined else "end_turn"))
                return run
            self._run_tools(run, run.messages[-1], toolbox)
            if loop := run.loop_guard.check(*run.messages[-2:], len(run.compactions)):
                return self._fail(run, loop, "stuck")
        run.status = "max_turns"
        self._emit(run, Finished(run.turn, run.answer or "", reason="max_turns"))
        return run

    def _preflight(self, run: Run, schemas: list[dict[str, Any]]) -> int | None:
        """Rebuild the system prompt, compact when the request is over the trigger (in the
        API's own count as far as its reports tell, `usage_anchor.py`) and announce the
        turn. The tokens of the system prompt and tools; None when the run had to stop."""
        trigger = self.settings.trigger_at
        run.system = self._system(run.task_state)
        overhead = self.counter.count([], run.system, schemas)
        if (not isinstance(self.strategy, NoCompaction)
                and run.anchor.over(overhead + self._tally(run).total, trigger)
                and self._compact(run, schemas, overhead) is None):
            return None
        if self._asked is not None and self._compact_as_asked(run, schemas, overhead) is None:
            return None
        local = overhead + self._tally(run).total
        self._emit(run, TurnStarted(run.turn, local, self.budget, trigger,
                                    self._parts(run, overhead),
                                    target_at=self.settings.target_at,
                                    anchored=run.anchor.estimate(local),
                                    reported_before=run.anchor.last_reported))
        return overhead

    def _call(self, run: Run, schemas: list[dict[str, Any]], overhead: int) -> Reply | None:
        """The model's reply; None when the call failed and the run ended. A refusal for
        length (413, or 400 "prompt is too long") compacts harder and retries once."""
        for retry in (False, True):
            try:
                return self.model.create(system=run.system, messages=run.messages,
                                         tools=schemas,
                                         max_tokens=self.settings.max_output_tokens)
            except Exception as exc:  # the model's failure ends the run, never the kernel
                if retry or not _too_long(exc) or not self._compact_harder(run, schemas,
                                                                            overhead):
                    self._fail(run, _one_line(exc), "model")
                    return None
        return None  # not reached: the retry returns a reply or fails

    def _compact_harder(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                        ) -> bool:
        """After a refusal for length: compact to the target, or (if that frees nothing)
        to the task and the newest turn; False when nothing could be removed."""
        if isinstance(self.strategy, NoCompaction):
            return False
        goal = self.settings.goal(overhead)
        before = run.messages
        try:
            result, fallback = self._shrink(run, schemas, goal)
            if not result.changed:
                result, fallback = TrimTurns()(before, goal=0, counter=self.counter), ""
        except Exception:  # e.g. stuck; the refusal itself is what the run reports
            return False
        if not result.changed:
            return False
        self._accept(run, result)
        self._announce(run, before, result, "; ".join(
            n for n in ("the model refused the request as too long; compacted harder and "
                        "retried", fallback) if n))
        return True

    # --- compaction: shrink, check, accept, announce ---------------------------------
    def compact(self, run: Run, strategy: str | Strategy | None = None,
                focus: str | None = None
                ) -> Compaction | None:
        """Compact `run`'s live context now, even under the trigger, towards the target.

        `strategy` (a name or a strategy object; default: the agent's) does the work, and
        `focus` tells the summaries what to keep in most detail (as `/compact focus` does
        in Claude Code). The transcript keeps every message; a `Compacted` event and the
        store record the change as at any turn. Returns what the strategy did (`changed`
        is False, and `note` says why, when there was nothing to do); None when
        compaction is stuck, which ends the run as it would at a turn (`run.error`)."""
        if focus is not None and not isinstance(focus, str):
            raise ValueError(f"focus must be text, e.g. 'the open invoices', not {focus!r}")
        chosen = self.strategy if strategy is None else self._configured(strategy)
        if focus and focus.strip():
            chosen = configure(chosen, focus=" ".join(focus.split()))
        run.system = self._system(run.task_state)
        schemas = self._toolbox(run.task_state).schemas
        return self._compact(run, schemas, self.counter.count([], run.system, schemas),
                             chosen)

    def _compact(self, run: Run, schemas: list[dict[str, Any]], overhead: int,
                 strategy: Strategy | None = None) -> Compaction | None:
        """Compact the messages towards the target (in the model's own count, as the
        trigger reads it; less the system prompt and tools, `overhead`) with `strategy`
        (default: the agent's); None when the run had to stop because compaction is stuck."""
        before, room = run.messages, self.budget - overhead
        goal = self.settings.goal(overhead, run.anchor.to_local)
        try:
            if room <= 0:  # nothing any strategy does to the messages can help
                raise _Stuck(f"compaction is stuck: the system prompt and tools alone take "
                             f"{overhead} tokens, over the budget of {self.budget}; "
                             f"raise the budget")
            early = hook_texts(self.before_compaction, run)
            result, fallback = self._shrink(run, schemas, goal, strategy)
            check_stuck(result, room)
        except (CompressionStuck, _Stuck) as exc:
            return self._stuck(run, str(exc))
        if result.changed:
            result = self._restored(run, result, goal, early)
            self._accept(run, result)
        if result.changed or fallback:  # else: under the budget, nothing worth doing yet
            self._announce(run, before, result, fallback)
        return result

    def _shrink(self, run: Run, schemas: list[dict[str, Any]], goal: int,
                strategy: Strategy | None = None) -> tuple[Compaction, str]:
        """The compaction of `strategy` (default: the agent's) towards `goal` tokens of
        messages and, when it failed and trimming stood in, why."""
        summarizer = make_summarizer(self.settings.summarizer, model=self.model,
                                     system=run.system, tools=schemas,
                                     usage=run.summary_usage, history=lambda: run.messages)
        called = []

        def summarize(prompt: str) -> str:
            run.backoff.check(run.turn)  # raises Resting while the summarizer rests
            called.append(prompt)
            return summarizer(prompt)

        strategy = configure(strategy or self.strategy, summarizer=summarize)
        try:
            result = call_strategy(strategy, run.messages, goal=goal, counter=self.counter)
        except CompressionStuck:
            raise
        except Exception as exc:  # a failed summary call: trim this turn instead
            if not isinstance(exc, Resting):
                run.backoff.failed(run.turn)
            return self._trim_instead(run, goal, strategy, exc)
        refused = run.backoff.judge(result) if called else None
        if refused is not None:  # trimming stands in at once
            return self._trim_instead(run, goal, strategy, refused)
        return result, ""

    def _trim_instead(self, run: Run, goal: int, strategy: Strategy, failure: Exception
                      ) -> tuple[Compaction, str]:
        """Trim down to the target, leaving room for a fallback summary of the trimmed
        turns (`fallback_summary.py`), so this turn really frees space and the trimmed
        turns' calls, files and identifiers stay; the note says so even when there was
        nothing to trim."""
        try:
            before = run.messages
            result = TrimTurns()(before, goal=max(goal - FALLBACK_TOKENS, 0),
                                 counter=self.counter)
            result = with_fallback(before, result, self.counter,
                                   _role_of(strategy, self.settings.summary_role))
        except Exception as again:  # e.g. InvalidHistory: no strategy can go on from here
            raise _Stuck(f"compaction failed: {_one_line(again)}") from again
        if not result.changed:
            result = dataclasses.replace(result, note="")
        verb = "skipped" if isinstance(failure, Resting) else "failed"
        return result, (f"summary {verb} ({_one_line(failure)}); "
                        + ("trimmed instead" if result.changed
                           else "nothing to trim, history unchanged"))

    def _accept(self, run: Run, result: Compaction) -> None:
        """Make `result` the live context (the transcript keeps every original)."""
        run.compactions.append(result)
        run.messages = list(result.messages)  # ours to grow; the record stays as it was
        self._tally(run).reset(run.messages)
        run.anchor.rebase()
        if self.store and run.session_id:
            run.session_id = self.store.start(self._meta(run.task), parent=run.session_id,
                                              context=run.messages)
            self._save_state(run)  # each session of the chain holds the task state it began with

    def _announce(self, run: Run, before: list[Message], result: Compaction,
                  fallback: str) -> None:
        usage = run.summary_usage[-1] if result.summary and run.summary_usage else None
        self._emit(run, Compacted(
            run.turn, result.kind, result.tokens_before, result.tokens_after,
            cleared=len(result.cleared), dropped=result.dropped,
            dropped_facts=tuple(dropped_facts(before, result.messages)),
            summary_prompt=result.summary_prompt, summary=result.summary,
            note="; ".join(n for n in (fallback, result.note) if n), summary_usage=usage))

    def _record_reply(self, run: Run, reply: Reply, sent: int) -> None:
        """Keep `reply` and its usage; `sent` is the local count of the request it answers
        (a refusal for length may have compacted it since the turn started)."""
        run.usage.append(reply.usage)
        run.anchor.observe(sent, reply.usage.total_input)
        if not self._continue_paused(run, reply.as_message()):
            self._append(run, reply.as_message())
        self._emit(run, ModelReplied(run.turn, reply.usage, reply.stop_reason, reply.text,
                                     len(reply.tool_uses)))

    def _run_tools(self, run: Run, assistant: Message, toolbox: Toolbox) -> None:
        limit = int(self.budget * MAX_RESULT_SHARE) * CHARS_PER_TOKEN
        results = []
        for call in (b for b in blocks(assistant) if b.get("type") == "tool_use"):
            key = call_key(call["name"], call["input"])
            self._emit(run, ToolCalled(run.turn, call["name"], call["input"], call["id"],
                                       repeat=key in run.calls_seen))
            run.calls_seen.add(key)
            result = toolbox.call(call)
            text = result["content"]
            result["content"] = truncate(text, limit)
            results.append(result)
            self._emit(run, ToolReturned(
                run.turn, call["name"], call["id"], bool(result.get("is_error")),
                self.counter.count_text(result["content"]), truncated=len(text) > limit))
        self._append(run, {"role": "user", "content": results + self._usage(run, results,
                                                                            toolbox)})
        self._save_state(run)

    # --- compaction the model asks for (asked_compaction.py) ------------------------------
    def _ask(self, focus: str) -> None:
        self._asked = focus

    def _compact_as_asked(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                          ) -> Compaction | None:
        """The compaction the model asked for with `compact`, with its focus (None: stuck)."""
        focus, self._asked = " ".join((self._asked or "").split()), None
        chosen = configure(self.strategy, focus=focus) if focus else self.strategy
        return self._compact(run, schemas, overhead, chosen)

    def _usage(self, run: Run, results: list[dict[str, Any]], toolbox: Toolbox
               ) -> list[dict[str, Any]]:
        """The context-usage line for this round of results, when `usage_line` is on."""
        if not self.settings.usage_line:
            return []
        used = (self.counter.count([], run.system, toolbox.schemas) + self._tally(run).total
                + self.counter.count_message({"role": "user", "content": results}))
        return [{"type": "text", "text": usage_line(used, self.budget,
                                                    self.settings.compact_at)}]

    def _continue_paused(self, run: Run, message: Message) -> bool:
        """Join a reply to the assistant turn the API paused after a server compaction (a
        message of `compaction` blocks alone, sent back as the turn's start, which the
        reply continues); False when the last message is no such pause."""
        last = run.messages[-1] if run.messages else None
        if not last or last["role"] != "assistant" or not all(
                b.get("type") == COMPACTION for b in blocks(last)):
            return False
        joined = {"role": "assistant", "content": [*blocks(last), *message["content"]]}
        run.messages[-1] = joined
        if run.transcript and run.transcript[-1] is last:
            run.transcript[-1] = joined
        run.tally = None
        if self.store and run.session_id:  # the store keeps the wire: pause, then the rest
            self.store.append_message(run.session_id, message)
        return True

    # --- what comes back after a compaction (restore.py) ----------------------------------
    def _restored(self, run: Run, result: Compaction, goal: int, early: list[str]
                  ) -> Compaction:
        """`result` with the newest files read again, the pinned texts and the hooks' texts
        after it (the transcript records the round the agent added)."""
        texts = [*self.pinned, *early, *hook_texts(self.after_compaction, run, result)]
        if not self.settings.restore and not texts:
            return result
        out = restore(result, run.transcript, self._toolbox(run.task_state), self.counter,
                      files=self.settings.restore, goal=goal, texts=texts, tag=str(run.turn))
        run.transcript.extend(out.messages[len(result.messages):])
        return out

    # --- bookkeeping ------------------------------------------------------------------
    def _save_state(self, run: Run) -> None:
        if self.store and run.session_id and run.task_state:
            self.store.save_state(run.session_id, dataclasses.asdict(run.task_state))

    def _configured(self, strategy: str | Strategy) -> Strategy:
        """The strategy named (or given), with the settings' summary role."""
        return configure(strategies_module.get(strategy) if isinstance(strategy, str)
                         else strategy, role=self.settings.summary_role)

    def _tally(self, run: Run) -> Tally:
        if run.tally is None:
            run.tally = Tally(self.counter, run.messages, part=part_of)
        return run.tally

    def _append(self, run: Run, message: Message) -> None:
        run.messages.append(message)
        if run.tally is not None:
            run.tally.append(message)
        run.transcript.append(message)
        if self.store and run.session_id:
            self.store.append_message(run.session_id, message)

    def _emit(self, run: Run, event: Event) -> None:
        run.events.append(event)
        if self.store and run.session_id:
            self.store.append_event(run.session_id, event.to_dict())
        if self.on_event:
            self.on_event(event)

    def _fail(self, run: Run, message: str, reason: str) -> Run:
        run.status, run.error = "failed", message
        self._emit(run, Failed(run.turn, message, reason))
        return run

    def _stuck(self, run: Run, message: str) -> None:
        """End the run because compaction cannot go on; None tells the loop to stop."""
        self._fail(run, message, "stuck")

    def _parts(self, run: Run, overhead: int) -> dict[str, int]:
        return {"system": overhead, "messages": 0, "tool_results": 0, "summary": 0,
                **self._tally(run).by_part}

    def _meta(self, task: str) -> dict[str, Any]:
        return {"task": task[:500], "model": getattr(self.model, "name", "?"),
                "strategy": getattr(self.strategy, "name", str(self.strategy)),
                "budget": self.budget}


def _answered(messages: list[Message]) -> bool:
    """The history ends with an assistant message that calls no tool: the model's answer
    (sending it again would ask for a reply to an answer, with no new user turn)."""
    return bool(messages) and messages[-1]["role"] == "assistant" and not any(
        b.get("type") == "tool_use" for b in blocks(messages[-1]))


def _too_long(exc: BaseException) -> bool:
    """Whether the API refused the request for its length (413, or 400 saying so)."""
    status = getattr(exc, "status", None)
    return status == HTTP_TOO_LARGE or (
        status == HTTP_BAD_REQUEST and PROMPT_TOO_LONG in str(exc).lower())


def _role_of(strategy: Strategy, chosen: str | None) -> str:
    """The role a strategy gives its summaries: the chosen one, its own (or its layers'),
    else "user" (whole-history compaction's)."""
    roles = [getattr(s, "role", None) for s in (strategy, *getattr(strategy, "layers", ()))]
    return chosen or next((r for r in roles if r), "user")


class _Stuck(Exception):
    """Compaction cannot go on; the message says why and what to do."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no details'}"

