"""Replay a recorded agent session turn by turn, with no model calls.

`replay(session, strategy, budget)` walks every model call of a loaded session (see
`sessions`) in order. At each call it records what the session itself sent (the local
token count of its messages, and the input tokens the API reported, where logged), then
feeds the same new messages to a context managed by one of this library's strategies,
and records where that strategy would have compacted (the agent's rule: over the
default trigger's share of the budget, down to the default target's share), what it
would have dropped (`evaluation.dropped_facts`) and how big
each summary prompt and summary were. The session's own compactions are marked at the
call they preceded. After such a compaction the replayed context does not restart from
the session's summary: it keeps going with the strategy's own context and the session's
later messages, so the two approaches can be compared from the same point. The cost is
linear in the session: each message is counted once, into running totals.

The report (`Replay.text`) leads with what a learner should see first: how many
compactions were wasted (freed under `STUCK_RATIO`, 10 %), how many calls stayed over the
budget and by how much, and the peak; its columns are named (`LABELS`: the local count of
the logged messages is not what the API reported, which includes the system prompt and
tools).

Summaries are written by `offline_summary`, a deterministic extractive stand-in (the
task, the tools called, the files touched, the last notes; it says so in its first line
and the report names it), by a Claude model (`summarizer_for("claude-haiku-4-5")`), or by
any `summarizer(prompt)` passed in.

Credentials are redacted (`redact.py`) in the summary prompts and summaries (as the
strategies do everywhere), in the dropped facts (`evaluation.dropped_facts`) and the
warnings, and the text report is stripped of control characters.

Left out: the system prompt and tool definitions, which a session log does not hold:
the reported numbers include them and the local counts cannot, which is the gap a lesson
shows. Nothing here imports IPython or plotly.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from . import strategies
from .compactor import due
from .evaluation import dropped_facts
from .events import Compacted, Event, ModelReplied, TurnStarted
from .history import Message, block_text, blocks
from .models.base import Usage
from .redact import safe
from .replay_turn import ReplayTurn
from .run import part_of
from .sessions import RecordedSession, SessionCompaction
from .settings import DEFAULTS
from .strategies.base import STUCK_RATIO, Strategy, Summarizer
from .summaries import SECTIONS
from .tokens import Tally, TokenCounter
from .vocab import UNKNOWN, Entry, read_tagged, read_transcript

DEFAULT_BUDGET = 100_000
SUMMARY_NOTES = 3  # the last assistant notes an offline summary keeps
SUMMARY_FILES = 12  # the most recent files it lists
FACT_SCAN_CHARS = 200_000  # the most of one dropped message read for its facts
FILE_KEYS = ("file_path", "path", "notebook_path")  # the inputs that name a file
OFFLINE = "offline"  # the name of the offline stand-in summarizer
OFFLINE_METHOD = "offline stand-in: extracted without a model by replay.offline_summary"
OFFLINE_LABEL = f"({OFFLINE_METHOD})"


def offline_summary(prompt: str) -> str:
    """A structured summary extracted from a summary prompt: no model, no invention. It
    reads the prompt only through `vocab`'s readers and says first that it is a stand-in."""
    # 1. the prompt's sections, and the transcript's entries
    sections = read_tagged(prompt)
    entries = read_transcript(sections.get("turns", ""))
    calls = [e for e in entries if e.kind == "call"]
    # 2. each section of the summary, from those entries only
    files = _files(calls)
    parts = {
        "Goal": [(sections.get("task") or UNKNOWN).split("\n")[0]],
        "Progress": _progress(sections.get("previous-summary", ""), calls),
        "Key Decisions": [f"- {n}" for n in _notes(entries)] or ["- none stated"],
        "Files Modified": [f"- touched: {', '.join(files[-SUMMARY_FILES:])}"] if files
        else ["- none"],
        "Next Steps": ["- continue from the newest turn"],
    }
    # 3. the sections in the summary's order, under the stand-in's label
    return OFFLINE_LABEL + "\n" + "\n".join(
        f"## {name}\n" + "\n".join(parts[name]) for name in SECTIONS)


def _progress(previous: str, calls: list[Entry]) -> list[str]:
    """The progress lines: the previous summary's tool-call line, if any, then this
    transcript's tool calls, most frequent first."""
    earlier = [ln for ln in previous.splitlines() if ln.startswith("- ") and "tool calls" in ln]
    if not calls:
        return [*earlier[-1:], "- no tool calls"]
    counts = Counter(e.who for e in calls)
    return [*earlier[-1:], "- tool calls: " + ", ".join(
        f"{name} x{n}" for name, n in counts.most_common())]


def _files(calls: list[Entry]) -> list[str]:
    """The files the calls name (`FILE_KEYS`), each once, in the order first named."""
    return list(dict.fromkeys(value for e in calls for key, value in e.args.items()
                              if key in FILE_KEYS and isinstance(value, str)))


def _notes(entries: list[Entry]) -> list[str]:
    """The first line of each of the last `SUMMARY_NOTES` assistant notes."""
    firsts = (e.body.strip().split("\n")[0].strip() for e in entries
              if e.kind == "said" and e.who == "assistant")
    return [first for first in firsts if first][-SUMMARY_NOTES:]


@dataclass
class ReplayCompaction:
    """What the strategy did before one call."""

    turn: int
    kind: str
    tokens_before: int
    tokens_after: int
    dropped: int
    cleared: int
    dropped_facts: list[str] = field(default_factory=list)
    summary_prompt_tokens: int | None = None
    summary_tokens: int | None = None


@dataclass
class SessionMark:
    """A compaction the session did itself, at the call it preceded."""

    turn: int
    trigger: str
    reported_before: int | None
    summary_tokens: int


LABELS = {
    "local": "local count of the logged messages (o200k_base; no system prompt or tools)",
    "reported": "input tokens the API reported (system prompt and tools included)",
    "replayed": "local count of the strategy's context at this call",
}


@dataclass
class Replay:
    source: str
    strategy: str
    budget: int
    turns: list[ReplayTurn] = field(default_factory=list)
    compactions: list[ReplayCompaction] = field(default_factory=list)
    session_compactions: list[SessionMark] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    summarized_by: str = OFFLINE_METHOD  # who wrote the summaries, in words
    labels: dict[str, str] = field(default_factory=lambda: dict(LABELS))

    @property
    def trigger_at(self) -> int:
        """Over this many tokens the agent would compact (its default trigger)."""
        return DEFAULTS.with_changes(budget=self.budget).trigger_at

    @property
    def target_at(self) -> int:
        """The size a compaction aims at (the agent's default target)."""
        return DEFAULTS.with_changes(budget=self.budget).target_at

    @property
    def wasted(self) -> list[ReplayCompaction]:
        """The compactions that freed under `STUCK_RATIO` of their tokens."""
        return [c for c in self.compactions
                if c.tokens_before - c.tokens_after < STUCK_RATIO * c.tokens_before]

    @property
    def over_budget(self) -> list[ReplayTurn]:
        """The calls whose replayed context was still over the budget."""
        return [t for t in self.turns if t.replayed > self.budget]

    @property
    def peak(self) -> int:
        return max((t.replayed for t in self.turns), default=0)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "outcome": self.outcome()}

    def outcome(self) -> dict[str, Any]:
        """What the strategy achieved, in figures: `summary_line` in words."""
        over = [t.replayed - self.budget for t in self.over_budget]
        return {"compactions": len(self.compactions), "wasted": len(self.wasted),
                "calls": len(self.turns), "over_budget": len(over),
                "most_over": max(over, default=0),
                "mean_over": round(sum(over) / len(over)) if over else 0, "peak": self.peak}

    def summary_line(self) -> str:
        """One line a learner reads first: wasted compactions, calls over budget, peak."""
        o = self.outcome()
        over = (f"{o['over_budget']} of {o['calls']} calls over the budget (by up to "
                f"{o['most_over']} tokens, {o['mean_over']} on average)" if o["over_budget"]
                else f"no call of {o['calls']} over the budget")
        return (f"{self.strategy}: {o['compactions']} compactions, {o['wasted']} wasted (freed "
                f"under {STUCK_RATIO:.0%}); {over}; peak {o['peak']} tokens "
                f"(budget {self.budget})")

    def events(self) -> list[Event]:
        """The replay as agent events, for the live chart: one `TurnStarted` per call (the
        strategy's context), a `Compacted` per compaction, a `ModelReplied` carrying the
        reported input tokens where the log has them."""
        marks = {c.turn: c for c in self.compactions}
        out: list[Event] = []
        for t in self.turns:
            if t.turn in marks:
                c = marks[t.turn]
                out.append(Compacted(t.turn, c.kind, c.tokens_before, c.tokens_after,
                                     c.cleared, c.dropped, tuple(c.dropped_facts)))
            out.append(TurnStarted(t.turn, t.replayed, self.budget, self.trigger_at, t.parts))
            if t.reported is not None:
                out.append(ModelReplied(t.turn, Usage(input_tokens=t.reported), "logged"))
        return out

    def head_lines(self) -> list[str]:
        """The report without its per-call table: the session, the outcome, the session's
        own compactions, the strategy's."""
        lines = [f"{self.source}: {len(self.turns)} model calls, strategy {self.strategy}, "
                 f"budget {self.budget} (compacts over {self.trigger_at})", self.summary_line()]
        if any(c.summary_tokens is not None for c in self.compactions):
            lines.append(f"summaries written by {self.summarized_by}")
        for m in self.session_compactions:
            lines.append(f"session compacted itself before call {m.turn} ({m.trigger}): "
                         f"{m.reported_before} reported tokens -> a {m.summary_tokens}-token "
                         "summary written by its own model")
        for c in self.compactions:
            prompt = (f", summary prompt {c.summary_prompt_tokens} -> {self._summary_kind()} "
                      f"{c.summary_tokens} tokens" if c.summary_prompt_tokens else "")
            lines.append(f"call {c.turn}: {c.kind} {c.tokens_before} -> {c.tokens_after} "
                         f"tokens, dropped {c.dropped} messages, cleared {c.cleared} results, "
                         f"{len(c.dropped_facts)} facts gone{prompt}")
        return [safe(line) for line in lines]  # the source path is the user's text

    def _summary_kind(self) -> str:
        return "offline stand-in summary" if self.summarized_by == OFFLINE_METHOD else "summary"

    def table_lines(self) -> list[str]:
        """The per-call table, its columns named first."""
        legend = [f"  {name}: {meaning}" for name, meaning in self.labels.items()]
        lines = ["columns:", *legend,
                 f"{'call':>5} {'messages':>8} {'local':>8} {'reported':>9} {'replayed':>9}"]
        for t in self.turns:
            mark = "  <- session compacted" if t.session_compacted else ""
            reported = "" if t.reported is None else t.reported
            lines.append(f"{t.turn:>5} {t.messages:>8} {t.local:>8} {reported:>9} "
                         f"{t.replayed:>9}{mark}")
        return lines

    def text(self) -> str:
        """A plain-text report: the session, the outcome, the compactions, every call."""
        return safe("\n".join([*self.head_lines(), *self.table_lines()]))


def _strategy(name: str, summarizer: Summarizer):
    return strategies.configure(strategies.get(name), summarizer=summarizer)


def replay(session: RecordedSession, strategy: str = DEFAULTS.strategy,
           budget: int = DEFAULT_BUDGET, summarizer: Summarizer = offline_summary,
           counter: TokenCounter | None = None, summarizer_name: str | None = None) -> Replay:
    """Walk `session` call by call and replay `strategy` on it at `budget` (see module).

    Each message is counted once: running totals (`tokens.Tally`) grow with the session,
    and only a compaction recounts the (budget-sized) context it leaves."""
    if not isinstance(budget, int) or budget <= 0:
        raise ValueError(f"budget must be a positive number of tokens, not {budget!r}")
    counter = counter or TokenCounter()
    who = summarizer_name or (OFFLINE_METHOD if summarizer is offline_summary
                              else getattr(summarizer, "__name__", "a summarizer passed in"))
    out = Replay(session.source, strategy, budget, warnings=[safe(w) for w in session.warnings],
                 summarized_by=who)
    walk = _Walk(out, _strategy(strategy, summarizer), counter,
                 {(u.segment, u.index): u.input_tokens for u in session.usage})
    for s, segment in enumerate(session.segments):
        own = next((c for c in session.compactions if c.segment == s), None)
        walk.segment(s, segment, own)
    return out


class _Walk:
    """One replay under way: the strategy's context and its running count, filled into the
    report `out` call by call."""

    def __init__(self, out: Replay, managed: Strategy, counter: TokenCounter,
                 reported: dict[tuple[int, int], int | None]):
        self.out, self.managed, self.counter, self.reported = out, managed, counter, reported
        self.context: list[Message] = []
        self.held = Tally(counter, part=part_of)  # the strategy's context

    def segment(self, s: int, segment: list[Message], own: SessionCompaction | None) -> None:
        """Replay segment `s` of the session; `own` is the session's compaction that
        opened it, if any."""
        # 1. a later segment opens with the session's summary: the replayed context keeps
        #    its own instead
        fed = 1 if s and self.context and self.context[-1]["role"] == "user" else 0
        sent = Tally(self.counter)  # what the session itself sent in this segment
        for i, message in enumerate(segment):
            if message["role"] != "assistant":
                continue
            # 2. the messages since the last call join the strategy's context
            self._feed(segment[fed:i])
            fed = i + 1
            # 3. the session's own count of what it sent with this call
            for m in segment[len(sent.per_message):i]:
                sent.append(m)
            # 4. the call, the strategy compacting first where the agent would
            self._call(s, i, sent.total, own)
            own = None  # the session's compaction preceded this segment's first call only
            self._feed([message])
        # 5. the segment's tail (results and a last message no call followed)
        self._feed(segment[fed:])

    def _feed(self, messages: list[Message]) -> None:
        for m in messages:
            self.context.append(m)
            self.held.append(m)

    def _call(self, s: int, i: int, local: int, own: SessionCompaction | None) -> None:
        """Record call `i` of segment `s`: the session's own compaction before it, the
        strategy's (where due), and the sizes sent."""
        out = self.out
        turn = len(out.turns) + 1
        if own is not None:
            out.session_compactions.append(SessionMark(
                turn, own.trigger, own.tokens_before, self.counter.count_text(own.summary)))
        if due(self.managed, self.held.total, out.trigger_at):
            self._compact(turn)
        out.turns.append(ReplayTurn(turn, s, i, local, self.reported.get((s, i)),
                                    self.held.total, own is not None, dict(self.held.by_part)))

    def _compact(self, turn: int) -> None:
        """Run the strategy on the context; a change is recorded and becomes the context."""
        result = self.managed(self.context, goal=self.out.target_at, counter=self.counter)
        if not result.changed:
            return
        count = self.counter.count_text
        self.out.compactions.append(ReplayCompaction(
            turn, result.kind, result.tokens_before, result.tokens_after, result.dropped,
            len(result.cleared), _dropped(self.context, result.messages),
            count(result.summary_prompt) if result.summary_prompt else None,
            count(result.summary) if result.summary else None))
        self.context = list(result.messages)
        self.held.reset(self.context)


def _dropped(before: list[Message], after: list[Message]) -> list[str]:
    """`evaluation.dropped_facts(before, after)`, computed on the messages the compaction
    removed or rewrote only (what a kept message says is in `after` by definition), each
    text read up to `FACT_SCAN_CHARS`: past that, a giant tool output's facts are not
    counted, which keeps its cost bounded."""
    kept = {id(m) for m in after}
    gone = [{"role": m["role"], "content": [{"type": "text", "text": block_text(b)[
        :FACT_SCAN_CHARS]} for b in blocks(m)]} for m in before if id(m) not in kept]
    return dropped_facts(gone, after)


def summarizer_for(name: str | None) -> tuple[Summarizer, str]:
    """`(summarizer, who it is in words)` for `name`: None or "offline" for the offline
    stand-in, or a Claude model id, asked through the same model adapter and summary call
    as the agent's "aux" summarizer (it needs ANTHROPIC_API_KEY)."""
    if name in (None, OFFLINE):
        return offline_summary, OFFLINE_METHOD
    if not name.startswith("claude"):
        raise ValueError(f"unknown summarizer {name!r}; use '{OFFLINE}' or a Claude model id "
                         "such as 'claude-haiku-4-5'")
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise ValueError(f"set ANTHROPIC_API_KEY to summarize with {name}, or leave the "
                         "summarizer out for the offline stand-in")
    from .models.anthropic import AnthropicModel
    from .summarizers import make_summarizer

    model = AnthropicModel(name)
    summarize = make_summarizer(model, model=model, system="", tools=[], usage=[])
    return summarize, f"{name} through the Anthropic API"


def run(path: str, strategy: str | None = None, budget: int | None = None,
        summarizer: str | None = None) -> Replay:
    """Load the session at `path` and replay `strategy` on it, its summaries written by
    `summarizer` (see `summarizer_for`); one-line `ValueError`s (a failed summary call is a
    `RuntimeError`). None stands for the default strategy, `DEFAULT_BUDGET` and the
    offline stand-in."""
    from . import sessions

    summarize, who = summarizer_for(summarizer)
    session = sessions.load(path)
    if not any(m["role"] == "assistant" for s in session.segments for m in s):
        raise ValueError(f"no model calls in {sessions.shown(path)}: the file holds no "
                         "assistant message; pass a session log or a message list with replies")
    return replay(session, strategy or DEFAULTS.strategy, budget or DEFAULT_BUDGET,
                  summarize, summarizer_name=who)
