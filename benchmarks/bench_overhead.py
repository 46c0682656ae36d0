"""What does managing the context cost per turn, next to LangChain's `trim_messages`?

Before every model call an agent measures its history and decides whether to compact
(concept C1). This benchmark times that per-turn work on synthetic agent histories of
100, 1,000 and 5,000 messages (the task plus 50, 500 and 2,500 turns; a turn is an
assistant message and the user message answering it). The mix is the one of
`bench_counting.py`: 70 % tool turns (1-3 calls, each answered by a JSON result of
1-20 KB), 30 % text turns, built with `random.Random(0)`. The last `T` turns are the
same at every size, so per-turn costs at different sizes are directly comparable.

The history minus its last `T` turns is set up (untimed); then the turns are appended
one at a time and after each one the following is timed (median over the appended turns;
the slow methods are timed only on the last few):

  ours      `Tally.append` of the turn's two messages (exact tiktoken counts, only the new
            messages are encoded), the system prompt's count (a cache hit) and the
            decision `total > 0.8 * budget`. This is the *decision path*; the strategy
            itself runs only when the decision says so, and is timed separately below.
  recount   `counter.count(messages)` with a warm counter, the agent loop's way before it
            kept a `Tally` (one cache lookup per old message, one encode per new one).
  naive     a fresh `TokenCounter().count(messages)`: every message encoded again.
  lc-tiktoken  `trim_messages(strategy="last", max_tokens=0.8*budget, start_on="human",
            include_system=True)` with a tiktoken (o200k_base) list counter, the one
            LangChain's docs show, over the same history as LangChain messages
            (`SystemMessage`, `HumanMessage`, `AIMessage` with `tool_calls`,
            `ToolMessage`); the conversion happens outside the timed region.
  lc-approx `trim_messages` with the same settings and LangChain's own fast counter,
            `count_tokens_approximately`.
  floor     tiktoken encoding the new turn's texts and nothing else.
  trim-when-triggered  one `TrimTurns()` call on the whole history (warm counter):
            what the decision costs on the turns where it says "compact". It validates
            and walks the whole list, so it grows with the history.

The budget is Claude's 200,000-token window; every history here is over its trigger, so
`trim_messages` really trims. After the run, exactness is checked: the tally must equal
a fresh exact count of the whole history.

    python benchmarks/bench_overhead.py [--quick]

`--quick` skips the 5,000-message history and times fewer turns. Prints a Markdown table
and writes nothing. `run(quick)` returns the numbers.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(HERE.parent))

from jupyter_compaction.history import block_text, blocks, validate  # noqa: E402
from jupyter_compaction.strategies import TrimTurns  # noqa: E402
from jupyter_compaction.tokens import Tally, TokenCounter, ensure_encoding  # noqa: E402


def _sibling(name: str):
    """Load another benchmark module of this folder by path (benchmarks/ is no package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


counting = _sibling("bench_counting")

SIZES = {"full": (100, 1_000, 5_000), "quick": (100, 1_000)}
BUDGET = 200_000  # Claude's context window
TRIGGER = 0.8
SYSTEM = ("You are a careful agent working on the user's task with tools. Finish the task, "
          "then answer in plain text. Keep track of what you have done.")
TASK = ("Task: audit every late shipment in the ledger and report the affected orders and "
        "waybills.")
# How many of the last appended turns each method is timed on, by history size.
TURNS = {
    "full": {"fast": 20, "approx": {100: 20, 1_000: 20, 5_000: 10},
             "slow": {100: 20, 1_000: 5, 5_000: 3}, "trigger": {100: 10, 1_000: 5, 5_000: 3}},
    "quick": {"fast": 10, "approx": {100: 10, 1_000: 5},
              "slow": {100: 5, 1_000: 2}, "trigger": {100: 3, 1_000: 2}},
}
METHODS = ("ours", "recount", "naive", "lc_tiktoken", "lc_approx", "floor", "trim_triggered")
LABELS = {
    "ours": "ours: `Tally.append` + decision",
    "recount": "warm recount (per-message cache hits, no running total)",
    "naive": "naive: fresh full recount",
    "lc_tiktoken": "`trim_messages` + tiktoken counter",
    "lc_approx": "`trim_messages` + `count_tokens_approximately`",
    "floor": "floor: encode the new turn only",
    "trim_triggered": "ours when triggered: one `TrimTurns()` call",
}
GOALS = {"lc_tiktoken": 500.0, "lc_approx": 20.0, "floor": 5.0}  # ours must be this much
# faster than the two LangChain configurations (at >= 1,000 messages), and within this
# factor of the floor


# --- the histories ------------------------------------------------------------------------


def _turn(rng: random.Random, tag: str, calls: list[int]) -> list[dict]:
    """One turn: an assistant message and the user message answering it."""
    if rng.random() < counting.TOOL_TURN_SHARE:
        uses = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            calls[0] += 1
            uses.append({"type": "tool_use", "id": f"toolu_{tag}{calls[0]:06d}",
                         "name": rng.choice(counting.TOOLS), "input": {"page": calls[0]}})
        text = [{"type": "text", "text": counting._prose(rng, rng.randint(5, 40))}]
        results = [{"type": "tool_result", "tool_use_id": u["id"],
                    "content": counting._json_result(rng, rng.randint(*counting.RESULT_BYTES))}
                   for u in uses]
        return [{"role": "assistant", "content": text + uses},
                {"role": "user", "content": results}]
    return [{"role": "assistant", "content": counting._prose(rng, rng.randint(20, 200))},
            {"role": "user", "content": counting._prose(rng, rng.randint(5, 60))}]


def build(size: int, tail_turns: int, seed: int = 0) -> tuple[list[dict], list[list[dict]]]:
    """(prefix, tail): the task and `size/2 - tail_turns` turns, then `tail_turns` turns.

    The tail is drawn first, so it is the same at every size; prefix + flattened tail is a
    valid history of `size + 1` messages."""
    rng, calls = random.Random(seed), [0]
    tail = [_turn(rng, "t", calls) for _ in range(tail_turns)]
    prefix = [{"role": "user", "content": TASK}]
    for _ in range(size // 2 - tail_turns):
        prefix += _turn(rng, "p", calls)
    return prefix, tail


def to_langchain(messages: list[dict]) -> list[Any]:
    """The same history as LangChain messages, with the system prompt first."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = [SystemMessage(SYSTEM)]
    for m in messages:
        if m["role"] == "assistant":
            parts = blocks(m)
            text = "".join(b["text"] for b in parts if b["type"] == "text")
            calls = [{"name": b["name"], "args": b["input"], "id": b["id"]}
                     for b in parts if b["type"] == "tool_use"]
            out.append(AIMessage(content=text, tool_calls=calls))
        elif isinstance(m["content"], str):
            out.append(HumanMessage(m["content"]))
        else:
            for b in m["content"]:
                if b["type"] == "tool_result":
                    out.append(ToolMessage(content=b["content"], tool_call_id=b["tool_use_id"]))
                else:
                    out.append(HumanMessage(block_text(b)))
    return out


def tiktoken_counter(encoding) -> Callable[[list[Any]], int]:
    """The list counter LangChain's docs show, on o200k_base: 3 tokens per message, plus
    the content, plus each tool call's name and JSON arguments."""

    def count(messages: list[Any]) -> int:
        total = 3  # the reply's priming
        for message in messages:
            total += 3
            content = message.content
            if not isinstance(content, str):
                content = json.dumps(content)
            total += len(encoding.encode(content, disallowed_special=()))
            for call in getattr(message, "tool_calls", None) or ():
                total += len(encoding.encode(call["name"] + json.dumps(call["args"]),
                                             disallowed_special=()))
        return total

    return count


# --- timing ---------------------------------------------------------------------------------


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def measure(size: int, quick: bool) -> dict[str, Any]:
    """Every method at one history size: median seconds per turn and how many turns."""
    from langchain_core.messages import trim_messages
    from langchain_core.messages.utils import count_tokens_approximately

    plan = TURNS["quick" if quick else "full"]
    tail_turns = plan["fast"]
    prefix, tail = build(size, tail_turns)
    full = prefix + [m for turn in tail for m in turn]
    validate(full)
    encoding = ensure_encoding()
    lc_full = to_langchain(full)
    # index into lc_full after each tail turn: LangChain has one ToolMessage per result
    lc_ends, n = [], len(to_langchain(prefix))
    for turn in tail:
        n += len(to_langchain(turn)) - 1  # minus the SystemMessage each call adds
        lc_ends.append(n)
    ends = [len(prefix) + 2 * (i + 1) for i in range(tail_turns)]
    samples: dict[str, list[float]] = {m: [] for m in METHODS}
    kept: dict[str, int] = {}

    gc.collect()
    gc.disable()
    try:
        # ours, the floor and the warm recount, interleaved turn by turn so that a change
        # in the machine's load hits all three alike, in a rotating order (whichever touches
        # a new turn's strings first pays a cold-cache penalty). Each has its own counter,
        # set up on the prefix (untimed), so every tail message is new to every counter.
        counter, warm = TokenCounter(), TokenCounter()
        tally = Tally(counter, prefix)
        warm.count(prefix)
        counter.count([], SYSTEM)
        decisions = []

        def ours(turn, end):
            for message in turn:
                tally.append(message)
            decisions.append(tally.total + counter.count([], SYSTEM) > TRIGGER * BUDGET)

        def floor(turn, end):
            for text in [block_text(b) for m in turn for b in blocks(m)]:
                encoding.encode(text, disallowed_special=())

        def recount(turn, end):
            warm.count(full[:end])

        cheap = (("ours", ours), ("floor", floor), ("recount", recount))
        for i, (turn, end) in enumerate(zip(tail, ends, strict=True)):
            for name, fn in cheap[i % 3:] + cheap[:i % 3]:
                samples[name].append(_timed(lambda fn=fn, t=turn, e=end: fn(t, e))[0])
        ours_total = tally.total

        # LangChain with the approximate counter, then with tiktoken (the slowest)
        for name, token_counter, k in (
                ("lc_approx", count_tokens_approximately, plan["approx"][size]),
                ("lc_tiktoken", tiktoken_counter(encoding), plan["slow"][size])):
            for end in lc_ends[-k:]:
                view = lc_full[:end]
                seconds, trimmed = _timed(lambda view=view, tc=token_counter: trim_messages(
                    view, max_tokens=int(TRIGGER * BUDGET), token_counter=tc, strategy="last",
                    start_on="human", include_system=True))
                samples[name].append(seconds)
            kept[name] = len(trimmed)

        # naive: a fresh counter (its encoding loaded before the clock) recounts everything
        fresh_total = None
        for end in ends[-plan["slow"][size]:]:
            view = full[:end]
            fresh = TokenCounter()
            _ = fresh.encoding
            seconds, fresh_total = _timed(lambda view=view, fresh=fresh: fresh.count(view))
            samples["naive"].append(seconds)

        # when the decision says "compact": one TrimTurns call on the whole history
        for end in ends[-plan["trigger"][size]:]:
            view = full[:end]
            seconds, compaction = _timed(lambda view=view: TrimTurns()(
                view, goal=int(TRIGGER * BUDGET), counter=warm))
            samples["trim_triggered"].append(seconds)
    finally:
        gc.enable()

    median = {m: statistics.median(s) for m, s in samples.items()}
    is_tool = [isinstance(turn[1]["content"], list) for turn in tail]
    tool = [x for x, t in zip(samples["ours"], is_tool, strict=True) if t]
    text = [x for x, t in zip(samples["ours"], is_tool, strict=True) if not t]

    def paired(a: str, b: str) -> float:  # the same turns, timed back to back
        return statistics.median(x / y for x, y in zip(samples[a], samples[b], strict=True))

    return {
        "messages": len(full),
        "lc_messages": len(lc_full),
        "tokens": ours_total,
        "history_chars": sum(len(block_text(b)) for m in full for b in blocks(m)),
        "turns_timed": {m: len(s) for m, s in samples.items()},
        "ours_per_turn_s": samples["ours"],
        "floor_per_turn_s": samples["floor"],
        "median_s": median,
        "exact": ours_total == fresh_total,
        "fresh_total": fresh_total,
        "decisions": {"compact": sum(decisions), "of": len(decisions)},
        "trimmed_to_tokens": compaction.tokens_after,
        "lc_kept_messages": kept,
        "ratios": {
            "lc_tiktoken_over_ours": median["lc_tiktoken"] / median["ours"],
            "lc_approx_over_ours": median["lc_approx"] / median["ours"],
            "ours_over_floor": paired("ours", "floor"),
            "naive_over_ours": median["naive"] / median["ours"],
            "recount_over_ours": paired("recount", "ours"),
            "trim_triggered_over_ours": median["trim_triggered"] / median["ours"],
            "lc_approx_over_floor": median["lc_approx"] / median["floor"],
        },
        "ours_by_kind_s": {kind: statistics.median(picked) if picked else None
                           for kind, picked in (("tool", tool), ("text", text))},
        "turns_by_kind": {"tool": len(tool), "text": len(text)},
    }


def _paired(a: list[float], b: list[float]) -> float:
    """Median of per-turn ratios: the tail turns are the same at every size."""
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def run(quick: bool = False) -> dict:
    """Measure every size and check the goals; see the module docstring."""
    sizes = SIZES["quick" if quick else "full"]
    by_size = {str(size): measure(size, quick) for size in sizes}
    first, last = by_size[str(sizes[0])], by_size[str(sizes[-1])]
    big = [r for s, r in by_size.items() if int(s) >= 1_000]
    goals = {
        "lc_tiktoken": min(r["ratios"]["lc_tiktoken_over_ours"] for r in big),
        "lc_approx": min(r["ratios"]["lc_approx_over_ours"] for r in big),
        "floor": max(r["ratios"]["ours_over_floor"] for r in by_size.values()),
    }
    return {
        "quick": quick,
        "budget": BUDGET,
        "trigger": TRIGGER,
        "sizes": list(sizes),
        "by_size": by_size,
        "exact": all(r["exact"] for r in by_size.values()),
        "flatness": _paired(last["ours_per_turn_s"], first["ours_per_turn_s"]),
        "floor_flatness": _paired(last["floor_per_turn_s"], first["floor_per_turn_s"]),
        "goals": {
            "lc_tiktoken": {"worst": goals["lc_tiktoken"], "goal": GOALS["lc_tiktoken"],
                            "met": goals["lc_tiktoken"] >= GOALS["lc_tiktoken"]},
            "lc_approx": {"worst": goals["lc_approx"], "goal": GOALS["lc_approx"],
                          "met": goals["lc_approx"] >= GOALS["lc_approx"]},
            "floor": {"worst": goals["floor"], "goal": GOALS["floor"],
                      "met": goals["floor"] <= GOALS["floor"]},
        },
    }


# --- the report -----------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    ms = seconds * 1_000
    return f"{ms:,.3f}" if ms < 10 else f"{ms:,.1f}"


def _x(ratio: float) -> str:
    return f"{ratio:,.1f}x" if ratio < 100 else f"{ratio:,.0f}x"


def table(result: dict) -> str:
    sizes = [str(s) for s in result["sizes"]]
    rows = result["by_size"]
    head = " | ".join(f"{int(s):,} msgs" for s in sizes)
    lines = [
        "Median cost of one turn, in ms (turns timed in brackets). Histories: "
        + "; ".join(f"{int(s):,} messages = {rows[s]['messages']:,} with the task, "
                    f"{rows[s]['tokens']:,} tokens" for s in sizes)
        + f". Budget {result['budget']:,} tokens, trigger {result['trigger']:.0%}."
        + (" [quick]" if result["quick"] else ""),
        "",
        f"| method | {head} |",
        "|---|" + "---:|" * len(sizes),
    ]
    for method in METHODS:
        cells = " | ".join(f"{_ms(rows[s]['median_s'][method])} "
                           f"({rows[s]['turns_timed'][method]})" for s in sizes)
        lines.append(f"| {LABELS[method]} | {cells} |")
    lines += ["", f"| ratio | {head} |", "|---|" + "---:|" * len(sizes)]
    for key, label in (
            ("lc_tiktoken_over_ours", "`trim_messages` + tiktoken / ours (goal >= 500x)"),
            ("lc_approx_over_ours", "`trim_messages` + approx / ours (goal >= 20x)"),
            ("ours_over_floor", "ours / floor, same turn (goal <= 5x)"),
            ("naive_over_ours", "naive recount / ours"),
            ("recount_over_ours", "warm recount / ours, same turn"),
            ("trim_triggered_over_ours", "one `TrimTurns()` call / ours"),
            ("lc_approx_over_floor", "`trim_messages` + approx / floor (the most an exact "
             "counter could reach)")):
        lines.append(f"| {label} | " + " | ".join(_x(rows[s]["ratios"][key]) for s in sizes)
                     + " |")
    goals = result["goals"]
    verdict = {True: "met", False: "MISSED"}
    lines += [
        "",
        f"- Exact: the tally equals a fresh exact count of the whole history at every size: "
        f"{'yes' if result['exact'] else 'NO'}"
        + " (" + ", ".join(f"{rows[s]['tokens']:,}" for s in sizes) + " tokens).",
        f"- Flat: ours at {int(sizes[-1]):,} messages / ours at {int(sizes[0]):,} messages, "
        f"turn by turn (the same turns): {result['flatness']:.2f}x (the floor: "
        f"{result['floor_flatness']:.2f}x).",
        "- Ours by kind of turn (ms, median): " + "; ".join(
            f"{int(s):,} msgs: tool turns {_ms(rows[s]['ours_by_kind_s']['tool'])} "
            f"({rows[s]['turns_by_kind']['tool']}), text turns "
            f"{_ms(rows[s]['ours_by_kind_s']['text'])} ({rows[s]['turns_by_kind']['text']})"
            for s in sizes) + ".",
        "- \"Same turn\" ratios are medians of per-turn ratios (both timed on the same turn, "
        "back to back, in rotating order); the others are ratios of medians.",
        f"- Goal >= 500x vs `trim_messages` + tiktoken at >= 1,000 messages: "
        f"{verdict[goals['lc_tiktoken']['met']]} (worst {_x(goals['lc_tiktoken']['worst'])}).",
        f"- Goal >= 20x vs `trim_messages` + approx at >= 1,000 messages: "
        f"{verdict[goals['lc_approx']['met']]} (worst {_x(goals['lc_approx']['worst'])}).",
        f"- Goal within 5x of the floor: {verdict[goals['floor']['met']]} "
        f"(worst {_x(goals['floor']['worst'])}).",
        "- `trim_messages` kept (messages, last size): "
        + ", ".join(f"{k} {v:,}" for k, v in rows[sizes[-1]]["lc_kept_messages"].items())
        + f"; `TrimTurns` trimmed to {rows[sizes[-1]]['trimmed_to_tokens']:,} tokens.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 messages only")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
