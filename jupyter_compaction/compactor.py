"""The compaction pipeline: when to compact, and what one compaction goes through.

The agent's loop (`agent.py`) asks the `Compactor` before every request; the compactor
compacts when the request is over the trigger (`Settings.trigger_at`, read in the model's
own count as far as its reports tell: `usage_anchor.py`), or when the settings'
`trigger_rule`, a function, says so (`trigger_rule.py`). One compaction, step by step:

1. check there is room at all (`rules.no_room`);
2. read the texts features want back after it (`Feature.before_compaction`);
3. shrink: run the strategy towards the target (`Settings.target_at`, well below the
   trigger) with a summarizer wrapped so that a failed summary call is a `SummaryFailed`;
4. back off: a failed or useless summary call sends the summarizer to rest
   (`backoff.py`), and trimming stands in, with a fallback summary of the trimmed turns
   (`fallback_summary.py`);
5. check it is not stuck (`rules.compaction_stuck`);
6. restore: the newest files read, and the features' texts (`restore.py`);
7. accept: the result becomes the live context (the transcript keeps every message);
8. announce: a `Compacted` event.

Each compaction at the trigger is counted by the run's circuit breaker
(`loop_guard.CompactionBreaker`): failed attempts, and compactions that cost a model call
(a summary call, the API's summary step) yet leave the context over the trigger, stop the
run once there are three in a row; a compaction that costs no call (clear, trim) is never
counted as left over the trigger.

Each step returns an `Outcome`, never an exception: the compaction (None when there was
none), why trimming stood in, and a `Stop` when the run must end. Any exception but a
failed summary call is a bug in the strategy (or a hook), and ends the run with its
traceback (`rules.strategy_bug`). After the API refused a request as too long, `harder`
compacts again, down to the newest turn if it must.

Left out: compacting in the background, and more than one retry after a refusal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import strategies as strategies_module
from .backoff import Resting
from .evaluation import dropped_facts
from .events import Compacted, Event, TurnStarted
from .fallback_summary import FALLBACK_TOKENS, with_fallback
from .history import Message
from .hooks import Feature, Stop
from .models.base import Model, Reply, Usage
from .restore import restore
from .rules import (
    breaker_stop,
    compaction_stuck,
    no_room,
    one_line,
    strategy_bug,
    trim_failed,
)
from .settings import Settings
from .strategies import (
    Compaction,
    CompressionStuck,
    FunctionFailed,
    NoCompaction,
    Strategy,
    TrimTurns,
    configure,
)
from .summarizers import SummaryFailed, make_summarizer
from .tokens import TokenCounter
from .tools import Toolbox
from .trigger_rule import TriggerRule
from .usage_anchor import UsageAnchor

if TYPE_CHECKING:
    from .run import Run

TOO_LONG_NOTE = ("the model refused the request as too long (or its reply filled the "
                 "model's window); compacted harder and retried")


@dataclass(frozen=True)
class Outcome:
    """What one compaction did: the compaction (None: there was none), why trimming stood
    in for the strategy ("" when it did not), why the run must stop (None: it goes on),
    and why it failed: a failed summary call, or nothing changed ("" when it compacted)."""

    compaction: Compaction | None = None
    fallback: str = ""
    stop: Stop | None = None
    failure: str | None = ""  # why it failed (the circuit breaker counts it), "" when it
    # compacted, None when it was no attempt (the summarizer rested, trimming stood in)
    paid: bool = False  # it cost a model call: a summary call of ours, or the API's step


class Compactor(Feature):
    """Keeps a run's context under its budget with one strategy (see the steps above)."""

    def __init__(self, model: Model, settings: Settings, counter: TokenCounter, *,
                 emit: Callable[[Run, Event], None], toolbox: Callable[[Run], Toolbox],
                 features: list[Feature]):
        self.model, self.settings, self.counter = model, settings, counter
        self.budget = settings.budget
        self.strategy = self.configured(settings.strategy)
        self.emit, self.toolbox, self.features = emit, toolbox, features
        rule = settings.trigger_rule
        self.rule = rule if rule is None or isinstance(rule, TriggerRule) else TriggerRule(rule)

    def configured(self, strategy: str | Strategy) -> Strategy:
        """The strategy named (or given), with the settings' summary role."""
        return configure(strategies_module.get(strategy) if isinstance(strategy, str)
                         else strategy, role=self.settings.summary_role)

    # --- when: before each request ---------------------------------------------------------
    def before_request(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                       ) -> Stop | None:
        """Compact when the request is over the trigger (in the API's own count); the
        circuit breaker (`loop_guard.CompactionBreaker`) counts each such attempt."""
        try:
            if not self.over(run, schemas, overhead):
                return None
            outcome = self.compact(run, schemas, overhead)
            if outcome.stop or outcome.failure is None:
                return outcome.stop
            over = self.over(run, schemas, overhead)  # still, right after it
        except FunctionFailed as exc:  # the trigger rule raised or answered neither
            return strategy_bug(exc)
        return breaker_stop(run.breaker.attempted(outcome.failure, over, outcome.paid))

    def over(self, run: Run, schemas: list[dict[str, Any]], overhead: int) -> bool:
        """Whether to compact before this request: the trigger rule's answer when there
        is one, else the request over the trigger."""
        if self.rule is None or isinstance(self.strategy, NoCompaction):
            return due(self.strategy, overhead + run.tokens(self.counter).total,
                       self.settings.trigger_at, run.anchor)
        return self.rule(self.counter, run.messages, run.system, schemas, self.budget,
                         self.settings.trigger)

    def after_reply(self, run: Run, reply: Reply, sent: int) -> bool:
        run.anchor.observe(sent, reply.usage.total_input)  # the API's count of that request
        return False

    def turn_started(self, run: Run, overhead: int) -> TurnStarted:
        """The event that announces a turn: its size, locally and in the API's count."""
        local = overhead + run.tokens(self.counter).total
        parts = {"system": overhead, "messages": 0, "tool_results": 0, "summary": 0,
                 **run.tokens(self.counter).by_part}
        return TurnStarted(run.turn, local, self.budget, self.settings.trigger_at, parts,
                           target_at=self.settings.target_at,
                           anchored=run.anchor.estimate(local),
                           reported_before=run.anchor.last_reported)

    # --- one compaction ---------------------------------------------------------------------
    def compact_now(self, run: Run, schemas: list[dict[str, Any]], overhead: int,
                    strategy: str | Strategy | None = None, focus: str | None = None
                    ) -> Outcome:
        """A compaction asked for (by `%compact` or by the model) with `strategy` (default:
        the agent's) and `focus`, what the summaries should keep in most detail."""
        if focus is not None and not isinstance(focus, str):
            raise ValueError(f"focus must be text, e.g. 'the open invoices', not {focus!r}")
        chosen = self.strategy if strategy is None else self.configured(strategy)
        if focus and focus.strip():
            chosen = configure(chosen, focus=" ".join(focus.split()))
        return self.compact(run, schemas, overhead, chosen)

    def compact(self, run: Run, schemas: list[dict[str, Any]], overhead: int,
                strategy: Strategy | None = None) -> Outcome:
        """Compact the messages towards the target (in the model's own count, as the
        trigger reads it; less `overhead`, the system prompt and tools)."""
        before, room = run.messages, self.budget - overhead
        goal = self.settings.goal(overhead, run.anchor.to_local)
        if stop := no_room(overhead, self.budget):  # 1. room
            return Outcome(stop=stop)
        try:
            early = [text for f in self.features for text in f.before_compaction(run)]  # 2.
            shrunk = self._shrink(run, schemas, goal, strategy)  # 3. and 4.
            result = shrunk.compaction
            stop = shrunk.stop or compaction_stuck(result, room, self.budget)  # 5.
            if stop:
                return Outcome(stop=stop)
            if result.changed:
                result = self._restored(run, result, goal, early)  # 6.
        except CompressionStuck as exc:  # a strategy may say so itself
            return Outcome(stop=Stop(str(exc)))
        except Exception as exc:  # a bug in the strategy or a hook
            return Outcome(stop=strategy_bug(exc))
        if result.changed:
            self._accept(run, result)  # 7.
        if result.changed or shrunk.fallback:  # else: under the budget, nothing worth doing
            self._announce(run, before, result, shrunk.fallback)  # 8.
        failure = shrunk.failure if shrunk.fallback else (
            "" if result.changed else f"it changed nothing ({result.note or result.kind})")
        return Outcome(result, shrunk.fallback, failure=failure, paid=shrunk.paid)

    def harder(self, run: Run, schemas: list[dict[str, Any]], overhead: int) -> Outcome:
        """After a refusal for length: compact to the target, or (if that frees nothing)
        to the task and the newest turn; no compaction when nothing could be removed."""
        if isinstance(self.strategy, NoCompaction):
            return Outcome()
        before = run.messages
        try:
            shrunk = self._shrink(run, schemas, self.settings.goal(overhead))
            if shrunk.stop:  # the refusal itself is what the run reports
                return Outcome()
            result, fallback = shrunk.compaction, shrunk.fallback
            if not result.changed:
                result, fallback = TrimTurns()(before, goal=0, counter=self.counter), ""
        except CompressionStuck:
            return Outcome()
        except Exception as exc:  # a bug in the strategy
            return Outcome(stop=strategy_bug(exc))
        if not result.changed:
            return Outcome()
        self._accept(run, result)
        self._announce(run, before, result, "; ".join(n for n in (TOO_LONG_NOTE, fallback) if n))
        return Outcome(result, fallback)

    # --- the steps --------------------------------------------------------------------------
    def _shrink(self, run: Run, schemas: list[dict[str, Any]], goal: int,
                strategy: Strategy | None = None) -> Outcome:
        """The compaction of `strategy` (default: the agent's) towards `goal` tokens of
        messages, or trimming's when a summary call failed or the summarizer rests."""
        summarizer = make_summarizer(self.settings.summarizer, model=self.model,
                                     system=run.system, tools=schemas,
                                     usage=run.summary_usage, history=lambda: run.messages)
        called = []

        def summarize(prompt: str) -> str:
            run.backoff.check(run.turn)  # raises Resting while the summarizer rests
            called.append(prompt)
            try:
                return summarizer(prompt)
            except Exception as exc:  # the call failed: say so to us, not to the strategy
                raise SummaryFailed(one_line(exc)) from exc

        strategy = configure(strategy or self.strategy, summarizer=summarize)
        try:
            result = strategy(run.messages, goal=goal, counter=self.counter)
        except SummaryFailed as exc:  # a failed or resting summary call: trim instead
            if not isinstance(exc, Resting):
                run.backoff.failed(run.turn)
            return self._trim_instead(run, goal, strategy, exc.reason)
        if result.iterations and not called:  # the API summarized: its steps are the cost
            run.summary_usage.append(Usage(iterations=list(result.iterations)))
        refused = run.backoff.judge(result) if called else None
        if refused is not None:  # trimming stands in at once
            return self._trim_instead(run, goal, strategy, refused)
        return Outcome(result, paid=bool(called or result.iterations))

    def _trim_instead(self, run: Run, goal: int, strategy: Strategy, failure: BaseException
                      ) -> Outcome:
        """Trim down to the target, leaving room for a fallback summary of the trimmed
        turns, so this turn really frees space and the trimmed turns' calls, files and
        identifiers stay; the note says so even when there was nothing to trim."""
        before = run.messages
        try:
            result = TrimTurns()(before, goal=max(goal - FALLBACK_TOKENS, 0),
                                 counter=self.counter)
            result = with_fallback(before, result, self.counter,
                                   _role_of(strategy, self.settings.summary_role))
        except Exception as again:  # e.g. InvalidHistory: no strategy can go on from here
            return Outcome(stop=trim_failed(again))
        if not result.changed:
            result = dataclasses.replace(result, note="")
        verb = "skipped" if isinstance(failure, Resting) else "failed"
        return Outcome(result, f"summary {verb} ({one_line(failure)}); " + (
            "trimmed instead" if result.changed else "nothing to trim, history unchanged"),
            failure=None if isinstance(failure, Resting) else f"a summary call failed: "
            f"{one_line(failure)}")

    def _restored(self, run: Run, result: Compaction, goal: int, early: list[str]
                  ) -> Compaction:
        """`result` with the newest files read again and the features' texts after it
        (the transcript records the round the agent added)."""
        texts = [*early, *(text for f in self.features for text in f.after_compaction(run, result))]
        if not self.settings.restore and not texts:
            return result
        out = restore(result, run.transcript, self.toolbox(run), self.counter,
                      files=self.settings.restore, goal=goal, texts=texts, tag=str(run.turn))
        run.transcript.extend(out.messages[len(result.messages):])
        return out

    def _accept(self, run: Run, result: Compaction) -> None:
        """Make `result` the live context (the transcript keeps every original)."""
        run.compactions.append(result)
        run.messages = list(result.messages)  # ours to grow; the record stays as it was
        run.tokens(self.counter).reset(run.messages)
        run.anchor.rebase()
        for feature in self.features:
            feature.on_compacted(run)

    def _announce(self, run: Run, before: list[Message], result: Compaction,
                  fallback: str) -> None:
        usage = run.summary_usage[-1] if result.summary and run.summary_usage else None
        self.emit(run, Compacted(
            run.turn, result.kind, result.tokens_before, result.tokens_after,
            cleared=len(result.cleared), dropped=result.dropped,
            dropped_facts=tuple(dropped_facts(before, result.messages)),
            summary_prompt=result.summary_prompt, summary=result.summary,
            note="; ".join(n for n in (fallback, result.note) if n), summary_usage=usage,
            steps=tuple((s.kind, s.tokens_before, s.tokens_after) for s in result.layers)))


def due(strategy: Strategy, tokens: int, trigger_at: int,
        anchor: UsageAnchor | None = None) -> bool:
    """The trigger decision, written once (the compactor and `replay` read it): a strategy
    that compacts, and a request of `tokens` over `trigger_at`, read through `anchor` (the
    API's own count so far) where there is one."""
    return (not isinstance(strategy, NoCompaction)
            and (anchor or UsageAnchor()).over(tokens, trigger_at))


def _role_of(strategy: Strategy, chosen: str | None) -> str:
    """The role a strategy gives its summaries: the chosen one, its own (or its layers'),
    else "user" (whole-history compaction's)."""
    roles = [getattr(s, "role", None) for s in (strategy, *getattr(strategy, "layers", ()))]
    return chosen or next((r for r in roles if r), "user")
