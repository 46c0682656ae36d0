"""Anchor the local token count to what the model's API reports it counted.

The agent counts every request with tiktoken (`tokens.py`) before sending it; the API then
reports, in each reply's `Usage`, how many input tokens it really counted (uncached +
cache read + cache write). The two differ: another tokenizer, and framing the API adds
around tools and messages. `UsageAnchor` keeps, for one run, the ratio of the reported
count to the local count of the same request, and the agent reads three things from it:

- `estimate(local)`: the local count times the ratio, the size the API will most likely
  report for the next request;
- `over(local, trigger)`: whether that estimate, or the count the API reported for the
  previous request of the same context, is over the trigger. A reported count over the
  trigger thus compacts on the next turn even when the local count is under it (the
  context only grows between compactions); `rebase()` forgets that count after a
  compaction, when the context it described is gone;
- `to_local(tokens)`: the other way round, the local count the API would report as
  `tokens`: the target a compaction aims for, in the units the strategies measure.

The ratio starts at 1 (no report yet: the local count stands) and is smoothed: each new
report moves it `SMOOTHING` of the way to the newest reported/local ratio, so one odd
call does not swing the trigger and a change in what the context holds (prose, code,
JSON) is followed within a few calls. A model that reports its counts exactly (the
simulated model) keeps the ratio at exactly 1, so nothing changes for it.

Left out: the ratio is per run and kept in memory only (it is not written to the session
store; a run rebuilt from it starts again from 1); summary calls are not observed (their
request is not the agent's); a reply that reports no input tokens is ignored; and a ratio
under 1 is shown but never used to compact *later* than the local count says: the
estimate is at least the local count, since a count that is too low risks a refused
request while one that is too high only compacts a little early (and test stand-ins
report made-up, tiny usage). The stuck check and the compaction after a refusal for
length still read the local count.
"""

from __future__ import annotations

from dataclasses import dataclass

SMOOTHING = 0.5  # how far each new report moves the ratio towards its own reported/local


@dataclass
class UsageAnchor:
    """The running reported/local ratio of one run and the last reported count."""

    ratio: float = 1.0  # reported / local, smoothed; 1 until the first report
    reports: int = 0  # how many replies reported their input tokens
    last_local: int = 0  # the local count of the last request whose count was reported
    last_reported: int = 0  # what the API reported for it
    live_reported: int = 0  # the same, while its context is live (0 after a compaction)

    def observe(self, local: int, reported: int) -> None:
        """Take one reply's reported input tokens for a request counted `local` locally."""
        if local <= 0 or reported <= 0:
            return
        seen = reported / local
        self.ratio = seen if not self.reports else self.ratio + SMOOTHING * (seen - self.ratio)
        self.reports += 1
        self.last_local, self.last_reported = local, reported
        self.live_reported = reported

    def estimate(self, local: int) -> int:
        """The tokens the API will likely count for a request counted `local` locally."""
        return round(local * max(self.ratio, 1.0))

    def to_local(self, tokens: int) -> int:
        """The local count of a request the API would likely count as `tokens`."""
        return int(tokens / max(self.ratio, 1.0))

    def over(self, local: int, trigger: int) -> bool:
        """Whether a request counted `local` locally should compact before it is sent."""
        return self.estimate(local) > trigger or self.live_reported > trigger

    def rebase(self) -> None:
        """The context was rewritten: the last reported count no longer describes it."""
        self.live_reported = 0

    def line(self) -> str:
        """The last reported request in words: "local 1200, reported 1560, ratio 1.30"."""
        if not self.reports:
            return "no input tokens reported yet (ratio 1)"
        return (f"local {self.last_local}, reported {self.last_reported}, "
                f"ratio {self.ratio:.2f}")
