"""The scaling benchmark's inputs are what it claims: scaled copies of the real session
that load as one valid thread with every copy distinct, and a giant tool output; its
measurement reports every figure. Timings are not asserted (they depend on the machine)."""

import json
from pathlib import Path

import pytest

from jupyter_compaction import sessions
from jupyter_compaction.history import validate
from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_replay_scale.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_replay_scale")


def test_a_scaled_session_is_one_valid_thread_of_distinct_copies(bench):
    one = sessions.load(next(p for p in sessions.shipped() if p.name == bench.SOURCE))
    per_copy = sum(len(s) for s in one.segments)
    text = "\n".join(bench.scaled_lines(per_copy + 1))
    session = sessions.loads(text)
    assert sum(len(s) for s in session.segments) == 2 * per_copy
    assert len(session.compactions) == 2 and len(session.usage) == 2 * len(one.usage)
    for segment in session.segments:
        validate(segment)
    ids = [b["id"] for s in session.segments for m in s for b in m["content"]
           if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert len(ids) == len(set(ids))
    assert "[copy 0]" in text and "[copy 1]" in text
    # the published log's missing parent, once per copy, in one counted warning
    assert session.warnings == [w for w in session.warnings if "2 times" in w]


def test_the_giant_output_is_one_tool_result_of_the_promised_size(bench, tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(bench.big_output_lines(1)) + "\n")
    session = sessions.load(path)
    sizes = [len(b["content"]) for m in session.messages for b in m["content"]
             if isinstance(b, dict) and b.get("type") == "tool_result"
             and isinstance(b["content"], str)]
    assert max(sizes) >= 2**20
    figures = bench.measure(path)
    assert set(figures) == {"messages", "calls", "compactions", "bytes", "load_s", "replay_s",
                            "memory_x"}
    assert figures["messages"] == sum(len(s) for s in session.segments)
    assert json.dumps(figures)
