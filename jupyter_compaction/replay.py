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
later messages, so the two approaches can be compared from the same point.

Summaries are written by `offline_summary`, a deterministic extractive summarizer (the
task, the tools called, the files touched, the last notes), or by any `summarizer(prompt)`
passed in, such as one bound to Claude.

Left out: the system prompt and tool definitions, which a session log does not hold:
the reported numbers include them and the local counts cannot, which is the gap a lesson
shows. Nothing here imports IPython or plotly.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from . import strategies
from .agent import part_of
from .evaluation import dropped_facts
from .events import Compacted, Event, ModelReplied, TurnStarted
from .history import Message
from .models.base import Usage
from .sessions import RecordedSession
from .settings import DEFAULTS
from .strategies.base import Summarizer
from .summaries import SECTIONS
from .tokens import TokenCounter
from .vocab import UNKNOWN, read_tagged, read_transcript

DEFAULT_BUDGET = 100_000
SUMMARY_NOTES = 3  # the last assistant notes an offline summary keeps
SUMMARY_FILES = 12  # the most recent files it lists
FILE_KEYS = ("file_path", "path", "notebook_path")  # the inputs that name a file
OFFLINE_METHOD = "offline stand-in: extracted without a model by replay.offline_summary"
OFFLINE_LABEL = f"({OFFLINE_METHOD})"


def offline_summary(prompt: str) -> str:
    """A structured summary extracted from a summary prompt: no model, no invention. It
    reads the prompt only through `vocab`'s readers and says first that it is a stand-in."""
    sections = read_tagged(prompt)
    entries = read_transcript(sections.get("turns", ""))
    calls = [e for e in entries if e.kind == "call"]
    counts = Counter(e.who for e in calls)
    files = list(dict.fromkeys(value for e in calls for key, value in e.args.items()
                               if key in FILE_KEYS and isinstance(value, str)))
    notes = [first for e in entries if e.kind == "said" and e.who == "assistant"
             and (first := e.body.strip().split("\n")[0].strip())][-SUMMARY_NOTES:]
    earlier = [ln for ln in sections.get("previous-summary", "").splitlines()
               if ln.startswith("- ") and "tool calls" in ln]
    parts = {
        "Goal": [(sections.get("task") or UNKNOWN).split("\n")[0]],
        "Progress": [*earlier[-1:], "- tool calls: " + ", ".join(
            f"{name} x{n}" for name, n in counts.most_common()) if calls else "- no tool calls"],
        "Key Decisions": [f"- {n}" for n in notes] or ["- none stated"],
        "Files Modified": [f"- touched: {', '.join(files[-SUMMARY_FILES:])}"] if files
        else ["- none"],
        "Next Steps": ["- continue from the newest turn"],
    }
    return OFFLINE_LABEL + "\n" + "\n".join(
        f"## {name}\n" + "\n".join(parts[name]) for name in SECTIONS)


@dataclass
class ReplayTurn:
    """One model call of the session."""

    turn: int
    segment: int
    messages: int  # messages the session sent with this call
    local: int  # their local token count
    reported: int | None  # input tokens the API reported (system prompt and tools included)
    replayed: int  # local tokens of the strategy's context at this call, after compaction
    session_compacted: bool = False  # the session's own compaction happened right before
    parts: dict[str, int] = field(default_factory=dict)  # `replayed` by chart part


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


@dataclass
class Replay:
    source: str
    strategy: str
    budget: int
    turns: list[ReplayTurn] = field(default_factory=list)
    compactions: list[ReplayCompaction] = field(default_factory=list)
    session_compactions: list[SessionMark] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def trigger_at(self) -> int:
        """Over this many tokens the agent would compact (its default trigger)."""
        return int(DEFAULTS.trigger * self.budget)

    @property
    def target_at(self) -> int:
        """The size a compaction aims at (the agent's default target)."""
        return int(DEFAULTS.target * self.budget)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

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

    def text(self) -> str:
        """A plain-text report: the session, its own compactions, the strategy's."""
        head = (f"{self.source}: {len(self.turns)} model calls, strategy {self.strategy}, "
                f"budget {self.budget} (compacts over {self.trigger_at})")
        lines = [head]
        for m in self.session_compactions:
            lines.append(f"session compacted itself before call {m.turn} ({m.trigger}): "
                         f"{m.reported_before} reported tokens -> a {m.summary_tokens}-token "
                         "summary")
        for c in self.compactions:
            prompt = (f", summary prompt {c.summary_prompt_tokens} -> summary "
                      f"{c.summary_tokens} tokens" if c.summary_prompt_tokens else "")
            lines.append(f"call {c.turn}: {c.kind} {c.tokens_before} -> {c.tokens_after} "
                         f"tokens, dropped {c.dropped} messages, cleared {c.cleared} results, "
                         f"{len(c.dropped_facts)} facts gone{prompt}")
        lines.append(f"{'call':>5} {'messages':>8} {'local':>8} {'reported':>9} {'replayed':>9}")
        for t in self.turns:
            mark = "  <- session compacted" if t.session_compacted else ""
            reported = "" if t.reported is None else t.reported
            lines.append(f"{t.turn:>5} {t.messages:>8} {t.local:>8} {reported:>9} "
                         f"{t.replayed:>9}{mark}")
        return "\n".join(lines)


def _strategy(name: str, summarizer: Summarizer):
    return strategies.configure(strategies.get(name), summarizer=summarizer)


def replay(session: RecordedSession, strategy: str = DEFAULTS.strategy,
           budget: int = DEFAULT_BUDGET, summarizer: Summarizer = offline_summary,
           counter: TokenCounter | None = None) -> Replay:
    """Walk `session` call by call and replay `strategy` on it at `budget` (see module)."""
    if not isinstance(budget, int) or budget <= 0:
        raise ValueError(f"budget must be a positive number of tokens, not {budget!r}")
    counter = counter or TokenCounter()
    managed = _strategy(strategy, summarizer)
    reported = {(u.segment, u.index): u.input_tokens for u in session.usage}
    out = Replay(session.source, strategy, budget, warnings=list(session.warnings))
    context: list[Message] = []
    for s, segment in enumerate(session.segments):
        fed = 0
        if s and context and context[-1]["role"] == "user":
            fed = 1  # the session's summary: the replayed context keeps its own instead
        own = next((c for c in session.compactions if c.segment == s), None)
        for i, message in enumerate(segment):
            if message["role"] != "assistant":
                continue
            context = [*context, *segment[fed:i]]
            fed = i + 1
            tokens = counter.count(context)
            turn = len(out.turns) + 1
            if own is not None:
                out.session_compactions.append(SessionMark(
                    turn, own.trigger, own.tokens_before, counter.count_text(own.summary)))
            if strategy != "off" and tokens > out.trigger_at:
                result = managed(context, budget=out.target_at, counter=counter)
                if result.changed:
                    out.compactions.append(ReplayCompaction(
                        turn, result.kind, result.tokens_before, result.tokens_after,
                        result.dropped, len(result.cleared),
                        _dropped(context, result.messages),
                        counter.count_text(result.summary_prompt)
                        if result.summary_prompt else None,
                        counter.count_text(result.summary) if result.summary else None))
                    context = result.messages
            out.turns.append(ReplayTurn(
                turn, s, i, counter.count(segment[:i]), reported.get((s, i)),
                counter.count(context), own is not None, _parts(context, counter)))
            own = None
            context = [*context, message]
        context = [*context, *segment[fed:]]
    return out


def _dropped(before: list[Message], after: list[Message]) -> list[str]:
    """`evaluation.dropped_facts(before, after)`, computed on the messages the compaction
    removed or rewrote only: what a kept message says is in `after` by definition."""
    kept = {id(m) for m in after}
    return dropped_facts([m for m in before if id(m) not in kept], after)


def _parts(messages: list[Message], counter: TokenCounter) -> dict[str, int]:
    """Tokens of `messages` by chart part (messages, tool results, summary)."""
    totals: dict[str, int] = {}
    for m in messages:
        totals[part_of(m)] = totals.get(part_of(m), 0) + counter.count_message(m)
    return totals


def run(path: str, strategy: str | None = None, budget: int | None = None) -> Replay:
    """Load the session at `path` and replay `strategy` on it (one-line `ValueError`s);
    None stands for the default strategy and `DEFAULT_BUDGET`."""
    from . import sessions

    session = sessions.load(path)
    if not session.segments:
        raise ValueError(f"{path}: no conversation found in the log; is it a session log?")
    return replay(session, strategy or DEFAULTS.strategy, budget or DEFAULT_BUDGET)
