"""Replaying strategies on the shipped sessions: the figures are fresh counts, the
session's own compaction is marked, and the command line prints the same numbers."""

import json

import pytest

from jupyter_compaction import cli, sessions
from jupyter_compaction.evaluation import dropped_facts
from jupyter_compaction.replay import offline_summary, replay, run
from jupyter_compaction.strategies.summary_call import SUMMARY_INPUT_TOKENS
from jupyter_compaction.summaries import SECTIONS
from jupyter_compaction.tokens import TokenCounter

SHIPPED = sessions.shipped()
FULL = SHIPPED[-1]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_json_figures_are_fresh_counts(path, capsys):
    assert cli.main(["replay", str(path), "--budget", "20000", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    session, counter = sessions.load(path), TokenCounter()
    reported = {(u.segment, u.index): u.input_tokens for u in session.usage}
    calls = [(s, i) for s, seg in enumerate(session.segments)
             for i, m in enumerate(seg) if m["role"] == "assistant"]
    assert [(t["segment"], t["messages"]) for t in figures["turns"]] == calls
    for t in figures["turns"]:
        segment = session.segments[t["segment"]]
        assert t["local"] == counter.count(segment[: t["messages"]])
        assert t["reported"] == reported.get((t["segment"], t["messages"]))
        assert t["replayed"] <= t["local"] or t["segment"] > 0
        assert sum(t["parts"].values()) == t["replayed"]
    for c in figures["compactions"]:
        assert c["tokens_after"] < c["tokens_before"]


def test_the_sessions_own_compaction_is_marked():
    result = run(str(FULL), "off", 100_000)
    (mark,) = result.session_compactions
    first_after = next(t for t in result.turns if t.segment == 1)
    assert mark.turn == first_after.turn and first_after.session_compacted
    assert mark.reported_before == 170_251
    assert mark.summary_tokens == TokenCounter().count_text(
        sessions.load(FULL).compactions[0].summary)
    assert result.compactions == []  # "off" never compacts, so its context is the session's
    assert all(t.replayed == t.local for t in result.turns if t.segment == 0)


def test_a_compaction_records_what_it_dropped_and_its_prompt():
    session = sessions.load(FULL)
    result = replay(session, "compact", 50_000)
    first = result.compactions[0]
    turn = result.turns[first.turn - 1]
    before = session.segments[0][: turn.messages]
    assert first.tokens_before == TokenCounter().count(before)
    # the 40k-token history goes to the summarizer in bounded chunks: no prompt is larger
    assert 0 < first.summary_prompt_tokens <= SUMMARY_INPUT_TOKENS
    assert first.summary_tokens < 1_000
    assert first.dropped_facts and set(first.dropped_facts) <= set(dropped_facts(before, []))
    assert all(t.replayed <= 50_000 for t in result.turns)


def test_offline_summary_reads_only_its_prompt():
    prompt = ("<task>\nFix the parser\n</task>\n\n<turns>\n[assistant] Reading the file.\n"
              "[assistant called tool] Read({'file_path': 'lib/parser.ex'})\n</turns>")
    summary = offline_summary(prompt)
    assert [ln[3:] for ln in summary.splitlines() if ln.startswith("## ")] == list(SECTIONS)
    assert "Fix the parser" in summary and "Read x1" in summary and "lib/parser.ex" in summary
    assert "Reading the file." in summary


def test_bad_input_is_one_line(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    (tmp_path / "empty.jsonl").write_text('{"type": "progress", "uuid": "a"}\n')
    assert cli.main(["replay", str(tmp_path / "empty.jsonl")]) == 2
    assert "no conversation" in capsys.readouterr().err
