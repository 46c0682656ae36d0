"""The agent loop: measure, compact if needed, call the model, run the tools.

Each turn:
1. build the request: the system prompt (with what the features add, e.g. the task
   state) and the tools (the user's, then the features');
2. preflight: count the whole request *before* calling, and let the features act: the
   compactor (`compactor.py`) compacts when the request is over the trigger;
3. call the model (if the API refuses the request as too long, or the reply fills the
   model's context window, the compactor compacts harder and the call is retried once);
4. run every tool call of the reply and append the results; the stop rules
   (`rules.py`) may end the run after the round.
A reply without tool calls is the answer.

Two lists are kept apart: `Run.messages` is the live context, which compactions rewrite,
and `Run.transcript` is every message ever sent or received, which nothing rewrites.
Everything that happens is announced as an event (`events.py`) to the features and the
`on_event` listener; with a `SessionStore`, a feature writes it to disk as it happens
(`recorder.py`), so `resume()` continues where a run stopped.

The loop knows nothing of any feature: each attaches at the hook points of `hooks.py`,
and `features.py` builds the list from the settings. Per-run state lives on the `Run`.

A run that ended with an answer can go on with a follow-up question (`ask()`): a new
user turn in the same conversation.

Left out: streaming, parallel tool execution (calls run in order) and human turns in the
middle of a run (before its answer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .compactor import Compactor, Outcome
from .events import Event, Failed, Finished, ModelReplied, ToolCalled, ToolReturned
from .features import assemble
from .history import Message, blocks, call_key
from .hooks import Feature, Stop
from .models.base import Model, Reply
from .rules import one_line
from .run import Run, part_of
from .settings import DEFAULTS, Settings
from .strategies import Compaction, Strategy, check_counter
from .tokens import CHARS_PER_TOKEN, TokenCounter
from .tools import Toolbox, truncate
from .vocab import COMPACT_TOOL, PAUSED_AFTER_COMPACTION, WINDOW_EXCEEDED
from .workspace import Workspace

__all__ = ["MAX_RESULT_SHARE", "SYSTEM_PROMPT", "Agent", "Run", "part_of"]

MAX_RESULT_SHARE = DEFAULTS.result_cap  # the default result cap (`Settings.result_cap`)
HTTP_BAD_REQUEST, HTTP_TOO_LARGE = 400, 413
PROMPT_TOO_LONG = "prompt is too long"  # the API's words when a request is over the window
WINDOW_FULL = (f"the model's context window filled up during its reply (stop reason "
               f"{WINDOW_EXCEEDED}) and compacting harder did not make room; lower the "
               f"budget to fit the model's window, or lower max_output_tokens")
SYSTEM_PROMPT = (
    "You are a careful agent working on the user's task with tools. Finish the task, then "
    "answer in plain text. Keep track of what you have done."
)


class Agent:
    """A tool-using agent that keeps its context under its budget with its strategy.

    Every knob comes from `settings`; keyword arguments override single knobs, e.g.
    `Agent(model, budget=8_000, strategy="trim")` (the model is handed over itself)."""

    def __init__(self, model: Model, *, tools: Iterable[Callable[..., Any]] = (),
                 system: str = SYSTEM_PROMPT, settings: Settings = DEFAULTS,
                 workspace: Workspace | None = None,
                 on_event: Callable[[Event], None] | None = None, store: Any = None,
                 counter: TokenCounter | None = None, **knobs: Any):
        self.settings = settings = settings.with_changes(**knobs)
        self.model, self.system, self.user_tools = model, system, list(tools)
        self.workspace, self.on_event = workspace, on_event
        self.counter = check_counter(counter) if counter is not None else TokenCounter()
        self.features: list[Feature] = []  # filled below; the compactor hands them its events
        self.compactor = Compactor(model, settings, self.counter, emit=self._emit,
                                   toolbox=self._toolbox, features=self.features)
        self.features += assemble(settings, self.compactor, self.counter, model=model,
                                  workspace=workspace, store=store)

    budget = property(lambda self: self.compactor.budget,
                      lambda self, tokens: setattr(self.compactor, "budget", tokens))
    strategy = property(lambda self: self.compactor.strategy)
    pinned = property(lambda self: self._feature("pinned"))  # texts back after a compaction
    before_compaction = property(lambda self: self._feature("before"))  # hooks whose text
    after_compaction = property(lambda self: self._feature("after"))  # comes back after it
    memory = property(lambda self: self._feature("folder"))  # the memory tool's folder

    def _feature(self, name: str) -> Any:
        return next((getattr(f, name) for f in self.features if hasattr(f, name)), None)

    # --- the loop ---------------------------------------------------------------------
    def run(self, task: str, max_turns: int | None = None) -> Run:
        """Work on `task` until the model answers, fails, or `max_turns` pass (by default
        the settings' `max_turns`)."""
        if not isinstance(task, str) or not task.strip():
            raise ValueError("the task must be a non-empty string")
        run = Run(task=task)
        for feature in self.features:
            feature.start(run)
        self._append(run, {"role": "user", "content": task})
        return self._loop(run, max_turns)

    def resume(self, run: Run, max_turns: int | None = None) -> Run:
        """Continue a failed, interrupted or `max_turns` run from its stored session (or from
        memory). A run that ends with the model's answer has nothing to continue: that is a
        `ValueError`, and nothing is sent."""
        stored = next(filter(None, (feature.stored(run) for feature in self.features)), None)
        if run.status == "finished" or _answered(stored[0] if stored else run.messages):
            raise ValueError("this run already finished with the model's answer, so there is "
                             "nothing to resume; start a new one with run()")
        if stored:  # the store's copy: what was saved up to the failure
            run.messages, run.transcript = stored
        for feature in self.features:
            feature.resume(run)
        run.reopen()
        if run.messages and run.messages[-1]["role"] == "assistant":  # its calls were not run
            self._run_tools(run, run.messages[-1], self._toolbox(run))
        run.status, run.error = "running", None
        return self._loop(run, max_turns)

    def ask(self, run: Run, question: str, max_turns: int | None = None) -> Run:
        """Play on `run`'s answered conversation with a follow-up `question` (`follow_up`)."""
        self._append(run, follow_up(run, question))
        return self._loop(run, max_turns)

    def _loop(self, run: Run, max_turns: int | None) -> Run:
        try:
            return self._turns(run, max_turns or self.settings.max_turns)
        except KeyboardInterrupt:  # the run (and its transcript) survives an interrupt
            return self._stop(run, Stop("interrupted by the user; resume() continues the run",
                                        "interrupted"))

    def _turns(self, run: Run, max_turns: int) -> Run:
        toolbox = self._toolbox(run)
        for _ in range(max_turns):
            run.turn += 1
            overhead = self._preflight(run, toolbox.schemas)  # 1. and 2.
            if overhead is None:
                return run
            reply = self._call(run, toolbox.schemas, overhead)  # 3.
            if reply is None:
                return run
            self._record_reply(run, reply, sent=overhead + run.tokens(self.counter).total)
            if reply.stop_reason == PAUSED_AFTER_COMPACTION:
                continue  # the API compacted and paused: send the request again to go on
            if not reply.tool_uses:  # the answer, or "refusal": the task is out of scope
                declined = reply.stop_reason == "refusal"
                run.answer, run.status = reply.text, "unsupported" if declined else "finished"
                self._emit(run, Finished(run.turn, reply.text,
                                         reason="unsupported" if declined else "end_turn"))
                return run
            self._run_tools(run, run.messages[-1], toolbox)  # 4.
            for feature in self.features:
                if stop := feature.after_round(run):
                    return self._stop(run, stop)
        run.status = "max_turns"
        self._emit(run, Finished(run.turn, run.answer or "", reason="max_turns"))
        return run

    def _preflight(self, run: Run, schemas: list[dict[str, Any]]) -> int | None:
        """Rebuild the system prompt, count it and the tools (returned; None: the run
        stopped), let the features act (the compactor compacts over the trigger)."""
        run.system = self._system(run)
        overhead = self.counter.count([], run.system, schemas)
        for feature in self.features:
            if stop := feature.before_request(run, schemas, overhead):
                self._stop(run, stop)
                return None
        self._emit(run, self.compactor.turn_started(run, overhead))
        return overhead

    def _call(self, run: Run, schemas: list[dict[str, Any]], overhead: int) -> Reply | None:
        """The model's reply; None when the call failed and the run ended. An overflow (a
        refusal for length, or a reply that filled the model's window, `_ask`) compacts
        harder and retries once; a second one ends the run."""
        for retry in (False, True):
            reply, stop, overflow = _ask(self.model, run, schemas,
                                         self.settings.max_output_tokens)
            if stop is None:
                return reply
            harder = (self.compactor.harder(run, schemas, overhead)
                      if not retry and overflow else Outcome())
            if harder.compaction is None:  # nothing removed (or a bug in the strategy)
                self._stop(run, harder.stop or stop)
                return None
        return None  # not reached: the retry returns a reply or fails

    def _record_reply(self, run: Run, reply: Reply, sent: int) -> None:
        """Keep `reply` and its usage; `sent` is the local count of the request it answers
        (a refusal for length may have compacted it since the turn started)."""
        run.usage.append(reply.usage)
        taken = [feature.after_reply(run, reply, sent) for feature in self.features]
        self._append(run, reply.as_message(), live=not any(taken))
        self._emit(run, ModelReplied(run.turn, reply.usage, reply.stop_reason, reply.text,
                                     len(reply.tool_uses)))

    def _run_tools(self, run: Run, assistant: Message, toolbox: Toolbox) -> None:
        limit = int(self.budget * self.settings.result_cap) * CHARS_PER_TOKEN
        results = []
        for call in (b for b in blocks(assistant) if b.get("type") == "tool_use"):
            key = call_key(call["name"], call["input"])
            self._emit(run, ToolCalled(run.turn, call["name"], call["input"], call["id"],
                                       repeat=key in run.calls_seen and key[0] != COMPACT_TOOL))
            run.calls_seen.add(key)
            result = _shaped(self.features, run, call, toolbox.call(call))
            text = result["content"]
            result["content"] = truncate(text, limit)
            results.append(result)
            self._emit(run, ToolReturned(
                run.turn, call["name"], call["id"], bool(result.get("is_error")),
                self.counter.count_text(result["content"]), truncated=len(text) > limit))
        added = [block for feature in self.features
                 for block in feature.after_tools(run, results, toolbox.schemas)]
        self._append(run, {"role": "user", "content": results + added})

    # --- on demand ------------------------------------------------------------------------
    def compact(self, run: Run, strategy: str | Strategy | None = None,
                focus: str | None = None) -> Compaction | None:
        """Compact `run`'s live context now, even under the trigger, towards the target.

        `strategy` (a name or object; default: the agent's) does it, `focus` is what summaries
        keep in most detail (Claude Code's `/compact focus`). Returns what it did (`changed`
        False and a `note`: nothing to do); None when the run stopped (stuck, `run.error`)."""
        run.system, schemas = self._system(run), self._toolbox(run).schemas
        overhead = self.counter.count([], run.system, schemas)
        done = self.compactor.compact_now(run, schemas, overhead, strategy, focus)
        if done.stop:
            self._stop(run, done.stop)
        return done.compaction

    # --- building a request, and bookkeeping ----------------------------------------------
    def _toolbox(self, run: Run) -> Toolbox:
        return Toolbox([*self.user_tools, *(fn for f in self.features for fn in f.tools(run))])

    def _system(self, run: Run) -> str:
        added = "\n\n".join(text for feature in self.features if (text := feature.system(run)))
        return f"{self.system}\n\n{added}" if added else self.system

    def _append(self, run: Run, message: Message, live: bool = True) -> None:
        """Add `message` to the context and transcript (unless a feature took it in)."""
        if live:
            run.add(message)
        for feature in self.features:
            feature.on_message(run, message)

    def _emit(self, run: Run, event: Event) -> None:
        run.events.append(event)
        for feature in self.features:
            feature.on_event(run, event)
        if self.on_event:
            self.on_event(event)

    def _stop(self, run: Run, stop: Stop) -> Run:
        """End the run as failed: `run.error` is the reason (or a strategy bug's traceback)."""
        run.status, run.error = "failed", stop.error or stop.message
        self._emit(run, Failed(run.turn, stop.message, stop.reason))
        return run


def _shaped(features: list[Feature], run: Run, call: dict[str, Any],
            result: dict[str, Any]) -> dict[str, Any]:
    """`result` as each feature passes it on (e.g. a large one offloaded to a file)."""
    for feature in features:
        result = feature.on_result(run, call, result)
    return result


def follow_up(run: Run, question: str) -> Message:
    """The user turn that asks `question` after `run`'s answer (or refusal), with `run`
    made ready to play on: its `task` becomes `question` (what its answer is graded
    against); its context and transcript keep every turn before it."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("the question must be a non-empty string")
    if run.status not in ("finished", "unsupported") or not _answered(run.messages):
        raise ValueError(f"the run's status is {run.status!r}, not an answer: resume() it "
                         "to its answer first, then ask a follow-up")
    run.task, run.answer, run.status, run.error = question, None, "running", None
    return {"role": "user", "content": question}


def _answered(messages: list[Message]) -> bool:
    """The history ends with an assistant message that calls no tool: the model's answer
    (sending it again would ask for a reply to an answer, with no new user turn)."""
    return bool(messages) and messages[-1]["role"] == "assistant" and not any(
        b.get("type") == "tool_use" for b in blocks(messages[-1]))


def _ask(model: Model, run: Run, schemas: list[dict[str, Any]], max_tokens: int
         ) -> tuple[Reply | None, Stop | None, bool]:
    """(the reply, None, False), or (None, why there is none, whether it overflowed): a
    refusal for length (413, or 400 "prompt is too long"), or a reply cut off because it
    filled the model's window (stop reason `model_context_window_exceeded`; dropped)."""
    try:
        reply = model.create(system=run.system, messages=run.messages, tools=schemas,
                             max_tokens=max_tokens)
    except Exception as exc:  # the model's failure ends the run, never the kernel
        return None, Stop(one_line(exc), "model"), _too_long(exc)
    if reply.stop_reason == WINDOW_EXCEEDED:
        return None, Stop(WINDOW_FULL, "model"), True
    return reply, None, False


def _too_long(exc: BaseException) -> bool:
    """Whether the API refused the request for its length (413, or 400 saying so)."""
    status = getattr(exc, "status", None)
    return status == HTTP_TOO_LARGE or (
        status == HTTP_BAD_REQUEST and PROMPT_TOO_LONG in str(exc).lower())
