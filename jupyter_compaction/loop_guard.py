"""Circuit breakers for runs that go round in circles across compactions.

The simulated model never makes an identical call a third time in a row when it got the
same result twice; that rule cannot see a longer loop. After a compaction an agent may
forget what it did, redo the same calls, get the same results, fill its context, be
compacted again and start over: each turn looks new, the run as a whole learns nothing,
and it spends its turns up to `max_turns`. Production agents stop such runs (Claude
Code's and Hermes' loop detectors do), and so does this one.

`LoopGuard` splits the run into windows, one per stretch between two compactions, and
asks of each whether it made progress: a call on the task's tools that was never made
before, or that got a result it never got before (a changed file, an error), or a write
to the agent's own state (task state, notes, memory: `own_state`) with a line it never
wrote before. Reading its own notes or memory back is not progress, and neither is
writing the same findings again: a growing notes file no longer hides a loop. A window
that made calls and no progress only re-read what it had read before; when the last
`STALE_WINDOWS` windows with calls all made no progress, the run is stuck, and the
reason names the calls it kept repeating. A window with progress resets the count:
re-reading a lost fact and then moving on is what compaction is expected to cost, up to a
point: a run whose last `THRASH_WINDOWS` windows that read something new read again,
together, at least `THRASH_SHARE` as many results as they read new is thrashing (as a
paging system does when its working set does not fit): each compaction drops what the
next steps still need, and the run spends its turns re-reading (at 4,000 and 8,000 tokens
such runs went to `max_turns` progressing a file at a time); it is stopped too. A
result deduplicated as unchanged (`dedup.py`) is a repeat of the one it stands for; an
offloaded result (`offload.py`) is judged by its preview without the file's path (each
read gets a file of its own), and reading an offloaded file back is not progress: what it
holds came with the read that made it.

`CompactionBreaker` watches the compactions themselves, as Claude Code's breaker does:
`FAILED_IN_A_ROW` failed attempts in a row, or `REFILLED_IN_A_ROW` compactions in a row
that each cost a model call (a summary call of ours, or the API's own compaction step)
and each left the context over the trigger, and compacting again is pointless (the stop
rule that reads it is `rules.Breaker`). A breaker stops wasted effort: a compaction that
costs no call (clear, trim) never counts towards the second rule, however often
it runs over the trigger.

Left out: loops inside a single window (the context grows until it is compacted, so the
window closes), loops whose results change each time (a clock, a counter): those
learn something each time, as far as the guard can tell, and the meaning of a line
written (a line reworded is a new line).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .history import Message, blocks, result_text
from .vocab import (
    COMPACT_TOOL,
    MEMORY_TOOL_NAME,
    READ_NOTES,
    READ_OFFLOADED,
    SEARCH_OFFLOADED,
    SET_GOAL,
    TODO_UPDATE,
    TODO_WRITE,
    WRITE_NOTE,
    is_unchanged,
    offloaded_path,
)

FAILED_IN_A_ROW = 3  # failed compaction attempts in a row that stop the run
REFILLED_IN_A_ROW = 3  # paid compactions in a row that left the context over the trigger
STALE_WINDOWS = 2  # this many windows in a row without progress: the run is stuck
THRASH_WINDOWS = 3  # the last this many windows that read something new, together
THRASH_SHARE = 0.5  # re-reading at least this share of what they read new: thrashing
NAMED_CALLS = 4  # the repeated calls a reason names (and counts the rest)
OFFLOAD_TOOLS = (READ_OFFLOADED, SEARCH_OFFLOADED)
STATE_WRITES = (SET_GOAL, TODO_WRITE, TODO_UPDATE, WRITE_NOTE, COMPACT_TOOL)

Pair = tuple[str, str, str]  # tool name, input as sorted JSON, digest of the result


def own_state(name: str, args: dict[str, Any]) -> str | None:
    """"write" for a call that changes the agent's own state (task state, notes, memory,
    a compaction it asks for), "read" for one that reads it back, None for a call on the
    task's tools."""
    if name in STATE_WRITES or (name == MEMORY_TOOL_NAME and args.get("command") != "view"):
        return "write"
    return "read" if name in (READ_NOTES, MEMORY_TOOL_NAME) else None


@dataclass
class LoopGuard:
    """Counts the windows in a row, between compactions, that made no progress."""

    seen: set[Pair] = field(default_factory=set)  # the task calls made, with their results
    written: set[str] = field(default_factory=set)  # the lines written to its own state
    compactions: int = 0  # compactions seen so far: the current window's number
    window: dict[str, None] = field(default_factory=dict)  # the current window's reads
    called: bool = False  # whether the current window made any call
    progressed: bool = False  # whether the current window made progress
    # the closed windows, in a row up to now, that made calls and no progress
    stale: list[dict[str, None]] = field(default_factory=list)
    fresh: int = 0  # the current window's task calls with a result not seen before
    again: dict[str, None] = field(default_factory=dict)  # and those seen before
    # the last `THRASH_WINDOWS` closed windows that read something new: how many new
    # results each read, and what it read again
    recent: list[tuple[int, dict[str, None]]] = field(default_factory=list)

    def check(self, assistant: Message, results: Message, compactions: int) -> str | None:
        """Record one turn's calls and results (`compactions`: how many the run has made
        so far); the reason to stop the run, or None."""
        if compactions != self.compactions:
            self._close()
            self.compactions = compactions
        for name, args, result in calls(assistant, results):
            self.called = True
            if own_state(name, args) != "write":
                self.window[_label(name, args)] = None
            self.progressed |= self._new(name, args, result)
        if self._thrashing():
            return (f"thrashing: in its last {THRASH_WINDOWS} windows between compactions "
                    f"the agent read again at least {THRASH_SHARE:.0%} as many results as it "
                    f"read new ({_named([a for _, a in self.recent])}), so each compaction "
                    f"drops what the next steps still need and the run would spend its turns "
                    f"re-reading; raise the budget or the target, or keep findings in task "
                    f"state")
        if len(self.stale) < STALE_WINDOWS:
            return None
        return (f"stuck in a loop: after each of its last {STALE_WINDOWS} compactions the "
                f"agent repeated the same calls with the same results ({_named(self.stale)}) "
                f"and wrote nothing new to its task state, memory or notes, so the run "
                f"stopped instead of spending turns")

    def _new(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> bool:
        """Whether one call made progress (and remember what it did)."""
        kind = own_state(name, args)
        if kind == "write":
            lines = _lines(args) - self.written
            self.written |= lines
            return bool(lines)
        text = result_text(result)
        if kind == "read":
            return False  # its own state read back
        if path := offloaded_path(text):
            text = text.replace(path, "")  # each read gets a file of its own
        pair = (name, json.dumps(args, sort_keys=True, default=str),
                hashlib.sha1(f"{bool(result.get('is_error'))}\n{text}".encode())
                .hexdigest()[:16])
        new = pair not in self.seen and not is_unchanged(text)  # a stand-in is the same
        self.seen.add(pair)
        if not new:
            self.again[_label(name, args)] = None
        elif name not in OFFLOAD_TOOLS:  # an offloaded result read back holds nothing new
            self.fresh += 1
            return True
        return False

    def afresh(self) -> None:
        """Forget the windows judged so far (a resumed run is judged anew); what was read
        and written stays known."""
        self.stale.clear()
        self.recent.clear()

    def _thrashing(self) -> bool:
        """Whether the last `THRASH_WINDOWS` windows that read something new read again,
        together, at least `THRASH_SHARE` as many results as they read new."""
        again = sum(len(repeated) for _, repeated in self.recent)
        return (len(self.recent) == THRASH_WINDOWS
                and again >= THRASH_SHARE * sum(fresh for fresh, _ in self.recent))

    def _close(self) -> None:
        """End the current window (a compaction happened)."""
        if not self.called:  # no call since the last compaction: nothing to judge
            return
        self.stale = [] if self.progressed else [*self.stale, self.window]
        if self.fresh:  # a window that read nothing new is judged by `stale` alone
            self.recent = [*self.recent, (self.fresh, self.again)][-THRASH_WINDOWS:]
        self.window, self.progressed, self.called = {}, False, False
        self.fresh, self.again = 0, {}


def calls(assistant: Message, results: Message) -> list[tuple[str, dict[str, Any], dict]]:
    """(tool, input, result block) for each call of `assistant` answered in `results`."""
    outputs = {b["tool_use_id"]: b for b in blocks(results) if b.get("type") == "tool_result"}
    return [(use["name"], use.get("input") or {}, outputs[use["id"]])
            for use in blocks(assistant)
            if use.get("type") == "tool_use" and use["id"] in outputs]


def pairs(assistant: Message, results: Message) -> list[Pair]:
    """(tool, input, result digest) for each call of `assistant` answered in `results`."""
    return [(name, json.dumps(args, sort_keys=True, default=str),
             hashlib.sha1(f"{bool(result.get('is_error'))}\n{result_text(result)}".encode())
             .hexdigest()[:16]) for name, args, result in calls(assistant, results)]


def _named(windows: list[dict[str, None]]) -> str:
    """The distinct calls of `windows`, counted, the first `NAMED_CALLS` named."""
    repeated = list(dict.fromkeys(c for window in windows for c in window))
    named = ", ".join(repeated[:NAMED_CALLS]) + (
        f" and {len(repeated) - NAMED_CALLS} more" if len(repeated) > NAMED_CALLS else "")
    return f"{len(repeated)} distinct calls: {named}"


def _lines(value: Any) -> set[str]:
    """The non-empty lines of every text in a call's input (lists and objects too)."""
    if isinstance(value, dict):
        return {line for item in value.values() for line in _lines(item)}
    if isinstance(value, list):
        return {line for item in value for line in _lines(item)}
    return {line.strip() for line in str(value).splitlines() if line.strip()}


def _label(name: str, args: dict[str, Any]) -> str:
    """A call as a reason names it: `read_file path=a.md`."""
    shown = ", ".join(f"{key}={value}" for key, value in args.items())
    return f"{name} {shown[:60]}".strip()


@dataclass
class CompactionBreaker:
    """One run's compaction attempts, as the circuit breaker counts them (on `Run.breaker`)."""

    failed: int = 0  # failed attempts in a row
    refilled: int = 0  # paid compactions in a row that left the context over the trigger
    api_turn: int | None = None  # the turn of the API's newest compaction
    api_compactions: int = 0  # the API's compactions so far (the loop guard's windows)
    tripped: str | None = None  # why the run must stop, once it must

    def attempted(self, failure: str = "", over: bool = False, paid: bool = False
                  ) -> str | None:
        """Record an attempt (`failure`: why it failed, "" when it compacted; `over`: the
        context was over the trigger right after it; `paid`: it cost a model call); the
        reason to stop, in one line, once a count reaches its limit."""
        if failure:  # a failure neither breaks nor extends a run of refills
            self.failed += 1
        else:  # a compaction: under the trigger resets the refills, a paid one over adds
            self.failed = 0
            if not over:
                self.refilled = 0
            elif paid:  # a free compaction over the trigger wastes no call: not counted
                self.refilled += 1
        if self.failed >= FAILED_IN_A_ROW:
            self.tripped = (
                f"compaction is stuck: {self.failed} compaction attempts in a row failed (the "
                f"last: {failure}); use a strategy that needs no summary call (trim or clear), "
                f"check the summarizer, or raise the budget")
        elif self.refilled >= REFILLED_IN_A_ROW:
            self.tripped = (
                f"compaction is stuck: the context was back over the trigger right after each "
                f"of the last {self.refilled} compactions that cost a model call; raise the "
                f"budget, keep less (a lower target or result cap, a shorter summary), or use "
                f"a strategy that needs no summary call (clear or trim)")
        return self.tripped

    def api_compacted(self, turn: int, null: bool) -> str | None:
        """The API compacted at `turn` (`null`: its block has no content, a failure); it
        compacting again on the next turn means its view was over the trigger right after."""
        again = self.api_turn is not None and turn - self.api_turn <= 1
        if not null:
            self.api_turn, self.api_compactions = turn, self.api_compactions + 1
        return self.attempted("the API's compaction came back with null content" if null
                              else "", over=again, paid=True)
