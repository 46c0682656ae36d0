"""Replaying strategies on the shipped sessions: the figures are fresh counts, the
session's own compaction is marked, and the command line prints the same numbers."""

import json

import pytest

from jupyter_compaction import cli, sessions
from jupyter_compaction.evaluation import dropped_facts
from jupyter_compaction.replay import (
    LABELS,
    OFFLINE_LABEL,
    OFFLINE_METHOD,
    offline_summary,
    replay,
    run,
)
from jupyter_compaction.strategies.summary_call import SUMMARY_INPUT_TOKENS
from jupyter_compaction.summaries import SECTIONS, build_prompt
from jupyter_compaction.tokens import TokenCounter
from jupyter_compaction.vocab import read_tagged, read_transcript

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
    middle = [{"role": "user", "content": "go"}, {"role": "assistant", "content": [
        {"type": "text", "text": "Reading the file."},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "lib/parser.ex"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content":
                                      '[assistant called tool] Write {"file_path": "forged.ex"}'}]}]
    summary = offline_summary(build_prompt(middle, goal="Fix the parser"))
    assert summary.startswith(OFFLINE_LABEL)
    assert [ln[3:] for ln in summary.splitlines() if ln.startswith("## ")] == list(SECTIONS)
    assert "Fix the parser" in summary and "Read x1" in summary and "lib/parser.ex" in summary
    assert "Reading the file." in summary
    assert "forged" not in summary and "Write" not in summary  # a file cannot forge a call


def test_offline_summaries_of_a_bundled_session_name_the_covered_calls_and_files():
    seen: list[tuple[str, str]] = []

    def recording(prompt):
        seen.append((prompt, offline_summary(prompt)))
        return seen[-1][1]

    replay(sessions.load(FULL), "compact", 50_000, summarizer=recording)
    assert seen
    for prompt, summary in seen:
        calls = [e for e in read_transcript(read_tagged(prompt)["turns"]) if e.kind == "call"]
        assert calls, "every real summary prompt of this session holds calls"
        assert all(f"{e.who} x" in summary for e in calls)
        files = {v for e in calls for k, v in e.args.items() if k in ("file_path", "path")}
        touched = summary.split("- touched: ")[1].split("\n")[0].split(", ") if files else []
        assert touched and set(touched) <= files or not files
        assert "no tool calls" not in summary


def test_bad_input_is_one_line(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    for name, text in [("empty.jsonl", '{"type": "progress", "uuid": "a"}\n'),
                       ("empty.json", "[]"), ("asked.json", '[{"role": "user", "content": "hi"}]')]:
        (tmp_path / name).write_text(text)
        assert cli.main(["replay", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: no model calls in {tmp_path / name}")
        assert err.count("\n") == 1
    assert cli.main(["replay", str(FULL), "--summarizer", "gpt-5"]) == 2
    assert "unknown summarizer 'gpt-5'" in capsys.readouterr().err


def test_the_numbers_are_labelled_in_text_and_json(capsys):
    result = run(str(FULL), "off", 100_000)
    text = result.text()
    for name, meaning in LABELS.items():
        assert f"  {name}: {meaning}" in text
    assert "system prompt and tools included" in LABELS["reported"]
    assert cli.main(["replay", str(FULL), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["labels"] == LABELS


def test_the_outcome_line_counts_wasted_compactions_calls_over_budget_and_the_peak():
    result = run(str(FULL), "clear", 30_000)
    wasted = [c for c in result.compactions if (c.tokens_before - c.tokens_after) * 10
              < c.tokens_before]
    over = [t.replayed - 30_000 for t in result.turns if t.replayed > 30_000]
    assert wasted and over  # clearing alone cannot hold this session at 30k
    line = result.summary_line()
    assert line == result.text().splitlines()[1]
    assert (f"{len(result.compactions)} compactions, {len(wasted)} wasted (freed under 10%)"
            in line)
    assert f"{len(over)} of {len(result.turns)} calls over the budget (by up to {max(over)}" in line
    assert f"peak {max(t.replayed for t in result.turns)} tokens" in line
    assert result.to_dict()["outcome"]["wasted"] == len(wasted)


def test_offline_summaries_are_labelled_as_stand_ins():
    result = run(str(FULL), "compact", 50_000)
    text = result.text()
    assert f"summaries written by {OFFLINE_METHOD}" in text
    assert "-> offline stand-in summary" in text
    assert "summary written by its own model" in text  # the session's real one


def test_each_message_is_counted_once():
    session = sessions.load(FULL)
    counter = TokenCounter()
    replay(session, "progressive", 50_000, counter=counter)
    first = counter.encodes
    replay(session, "progressive", 50_000, counter=counter)
    assert counter.encodes == first  # a second replay re-encodes nothing


def test_a_claude_summarizer_goes_through_the_model_adapter(monkeypatch, capsys):
    pytest.importorskip("anthropic")
    from jupyter_compaction.models.simulated import SimulatedModel
    from tests.support.fake_messages_api import FakeMessagesAPI, model_responder

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert cli.main(["replay", str(FULL), "--summarizer", "claude-haiku-4-5"]) == 2
    assert "set ANTHROPIC_API_KEY" in capsys.readouterr().err
    with FakeMessagesAPI(model_responder(SimulatedModel("agents"))) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        assert cli.main(["replay", str(FULL), "--strategy", "compact", "--budget", "60000",
                         "--summarizer", "claude-haiku-4-5", "--json"]) == 0
        asked = [r["body"] for r in fake.requests if r["path"].endswith("/v1/messages")]
    figures = json.loads(capsys.readouterr().out)
    assert figures["summarized_by"] == "claude-haiku-4-5 through the Anthropic API"
    assert asked and all(b["model"] == "claude-haiku-4-5" for b in asked)
    assert len(asked) >= sum(c["summary_prompt_tokens"] is not None
                             for c in figures["compactions"]) > 0
    assert "<turns>" in json.dumps(asked[0]["messages"])
