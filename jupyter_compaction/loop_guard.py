"""Circuit breakers for runs that go round in circles across compactions.

The simulated model never makes an identical call a third time in a row when it got the
same result twice; that rule cannot see a longer loop. After a compaction an agent may
forget what it did, redo the same calls, get the same results, fill its context, be
compacted again and start over: each turn looks new, the run as a whole learns nothing,
and it spends its turns up to `max_turns`. Production agents stop such runs (Claude
Code's and Hermes' loop detectors do), and so does this one.

`LoopGuard` keeps every (call, result digest) pair the run has made, and splits the run
into windows, one per stretch between two compactions. A window that made calls, all of
them pairs made before (the same call with the same result), learned nothing; when the
last `STALE_WINDOWS` windows with calls all learned nothing, the run is stuck. A window
that makes one new call, or gets one new result, resets the count: re-reading a lost fact
and then moving on is what compaction is expected to cost.

`CompactionBreaker` watches the compactions themselves, as Claude Code's breaker does:
`FAILED_IN_A_ROW` failed attempts in a row, or `REFILLED_IN_A_ROW` compactions in a row
that each cost a model call (a summary call of ours, or the API's own compaction step)
and each left the context over the trigger, and compacting again is pointless (the stop
rule that reads it is `rules.Breaker`). A breaker stops wasted effort: a compaction that
costs no call (clear, trim) never counts towards the second rule, however often
it runs over the trigger.

Left out: loops inside a single window (the context grows until it is compacted, so the
window closes) and loops whose results change each time (a clock, a counter): those
learn something each time, as far as the guard can tell.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from .history import Message, blocks, result_text

FAILED_IN_A_ROW = 3  # failed compaction attempts in a row that stop the run
REFILLED_IN_A_ROW = 3  # paid compactions in a row that left the context over the trigger
STALE_WINDOWS = 2  # this many windows in a row with only repeated calls: the run is stuck

Pair = tuple[str, str, str]  # tool name, input as sorted JSON, digest of the result


@dataclass
class LoopGuard:
    """Counts the windows in a row, between compactions, that made only repeated calls."""

    seen: set[Pair] = field(default_factory=set)
    compactions: int = 0  # compactions seen so far: the current window's number
    window: set[Pair] = field(default_factory=set)  # the current window's calls
    learned: bool = False  # whether the current window made a call not made before
    # the closed windows, in a row up to now, that made calls and none of them new
    stale: list[set[Pair]] = field(default_factory=list)

    def check(self, assistant: Message, results: Message, compactions: int) -> str | None:
        """Record one turn's calls and results (`compactions`: how many the run has made
        so far); the reason to stop the run, or None."""
        if compactions != self.compactions:
            self._close()
            self.compactions = compactions
        for pair in pairs(assistant, results):
            self.learned |= pair not in self.seen
            self.seen.add(pair)
            self.window.add(pair)
        if len(self.stale) < STALE_WINDOWS:
            return None
        calls = len({pair[:2] for window in self.stale for pair in window})
        return (f"stuck in a loop: after each of its last {STALE_WINDOWS} compactions the "
                f"agent repeated the same calls with the same results ({calls} distinct "
                f"calls, nothing new learned), so the run stopped instead of spending turns")

    def _close(self) -> None:
        """End the current window (a compaction happened)."""
        if not self.window:  # no call since the last compaction: nothing to judge
            return
        self.stale = [] if self.learned else [*self.stale, self.window]
        self.window, self.learned = set(), False


def pairs(assistant: Message, results: Message) -> list[Pair]:
    """(tool, input, result digest) for each call of `assistant` answered in `results`."""
    outputs = {b["tool_use_id"]: b for b in blocks(results) if b.get("type") == "tool_result"}
    found = []
    for use in blocks(assistant):
        if use.get("type") == "tool_use" and use["id"] in outputs:
            result = outputs[use["id"]]
            text = f"{bool(result.get('is_error'))}\n{result_text(result)}"
            found.append((use["name"], json.dumps(use.get("input", {}), sort_keys=True,
                                                  default=str),
                          hashlib.sha1(text.encode()).hexdigest()[:16]))
    return found


@dataclass
class CompactionBreaker:
    """One run's compaction attempts, as the circuit breaker counts them (on `Run.breaker`)."""

    failed: int = 0  # failed attempts in a row
    refilled: int = 0  # paid compactions in a row that left the context over the trigger
    api_turn: int | None = None  # the turn of the API's newest compaction
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
            self.api_turn = turn
        return self.attempted("the API's compaction came back with null content" if null
                              else "", over=again, paid=True)
