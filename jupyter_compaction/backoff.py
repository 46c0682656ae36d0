"""When the summarizer rests: the back-off after summary calls that fail or free too little.

A summarizing compaction costs a model call. When that call fails (the service is down,
the reply has no text) or its compaction frees little, calling it again next turn would
cost as much and help as little, so the summarizer *rests*: `SummaryBackoff` (one per
run, kept on `Run.backoff`) says for how long.

- A failed call rests `SUMMARY_REST_TURNS` turns, each later failure `REST_GROWTH` times
  longer than the one before; once back, one weak compaction is enough to rest for good.
- A compaction that frees less than `STUCK_RATIO` (10 %) of the messages is weak; `WEAK_IN_A_ROW`
  weak ones in a row mean the summarizer does not help: it rests for the rest of the run.
- A summary compaction that changes nothing (a summary longer than what it replaces) is
  refused for this turn.

While it rests, or when a compaction is refused, the agent trims instead (with a fallback
summary, `fallback_summary.py`) and the compaction's note gives the reason: the
`Resting` or `FreedNothing` exception this module raises or returns.

Left out: *what* stands in (`Compactor._trim_instead`) and retrying within a turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from .strategies import Compaction
from .strategies.base import STUCK_RATIO
from .summarizers import SummaryFailed

SUMMARY_REST_TURNS = 30  # after a failed summary call: no summary for this many turns, ...
REST_GROWTH = 2  # ... and this many times longer after each later failure
WEAK_IN_A_ROW = 2  # weak summary compactions in a row that mean the summarizer does not help
REST_OF_RUN = 2**62  # `resume_at` of a summarizer that rests for good


class Resting(SummaryFailed):
    """The summarizer is resting after failing or freeing too little."""


class FreedNothing(Exception):
    """The summary call answered, but its compaction left the history as it was."""


@dataclass
class SummaryBackoff:
    """One run's back-off state: when the summarizer may be called again, and why not."""

    resume_at: int = 0  # no summary call before this turn
    weak: int = 0  # weak summary compactions in a row
    rests: int = 0  # rests after failed summary calls so far

    def check(self, turn: int) -> None:
        """Raise `Resting` if the summarizer may not be called at `turn`."""
        if turn < self.resume_at:
            raise Resting("the summarizer rests " + (
                "for the rest of the run" if self.resume_at == REST_OF_RUN
                else f"until turn {self.resume_at}"))

    def failed(self, turn: int) -> None:
        """A summary call failed at `turn`: rest, each time longer than the last."""
        self.resume_at = turn + SUMMARY_REST_TURNS * REST_GROWTH ** self.rests
        self.rests += 1
        self.weak = WEAK_IN_A_ROW - 1  # once back, one weak compaction is enough

    def judge(self, result: Compaction) -> Exception | None:
        """After a summary call answered: why its compaction `result` must not stand (the
        summarizer now rests for good, or nothing changed), else None."""
        weak = result.saved < STUCK_RATIO * result.tokens_before
        self.weak = self.weak + 1 if weak else 0
        if self.weak >= WEAK_IN_A_ROW:
            self.resume_at, self.weak = REST_OF_RUN, 0
            return Resting(f"it failed or freed too little {WEAK_IN_A_ROW} times in a row; "
                           f"the summarizer rests for the rest of the run")
        if not result.changed:  # e.g. a summary longer than what it replaces
            return FreedNothing(result.note.split(";")[0])
        return None
