"""The overhead benchmark's histories, LangChain conversion and counters are sound.

Timings are not asserted; the full run is exercised by test_run_quick.py.
"""

from pathlib import Path

import pytest

from jupyter_compaction import validate
from jupyter_compaction.tokens import Tally, TokenCounter, ensure_encoding
from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_overhead.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_overhead")


@pytest.fixture(scope="module")
def history(bench):
    prefix, tail = bench.build(100, 10)
    return prefix, tail, prefix + [m for turn in tail for m in turn]


def test_histories_are_valid_deterministic_and_share_their_tail(bench, history):
    prefix, tail, full = history
    validate(full)
    assert len(full) == 101 and len(tail) == 10
    assert all(len(turn) == 2 for turn in tail)
    assert bench.build(100, 10) == (prefix, tail)
    assert bench.build(1_000, 10)[1] == tail  # the timed turns are the same at every size
    kinds = {type(m["content"]).__name__ for m in full[1:]}
    assert kinds == {"str", "list"}  # text turns and tool turns


def test_langchain_conversion_keeps_every_call_and_result(bench, history):
    from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

    full = history[2]
    lc = bench.to_langchain(full)
    assert isinstance(lc[0], SystemMessage)
    uses = [b for m in full if isinstance(m["content"], list) for b in m["content"]
            if b["type"] == "tool_use"]
    calls = [c for m in lc if isinstance(m, AIMessage) for c in m.tool_calls]
    results = [m for m in lc if isinstance(m, ToolMessage)]
    assert [c["id"] for c in calls] == [u["id"] for u in uses]
    assert [r.tool_call_id for r in results] == [u["id"] for u in uses]


def test_trim_messages_as_configured_returns_a_valid_tail(bench, history):
    from langchain_core.messages import HumanMessage, SystemMessage, trim_messages

    lc = bench.to_langchain(history[2])
    counter = bench.tiktoken_counter(ensure_encoding())
    kept = trim_messages(lc, max_tokens=20_000, token_counter=counter, strategy="last",
                         start_on="human", include_system=True)
    assert isinstance(kept[0], SystemMessage) and isinstance(kept[1], HumanMessage)
    assert 2 <= len(kept) < len(lc) and counter(kept) <= 20_000


def test_the_tally_is_exact(history):
    prefix, tail, full = history
    tally = Tally(TokenCounter(), prefix)
    for turn in tail:
        for message in turn:
            tally.append(message)
    assert tally.total == TokenCounter().count(full)
