"""The fallback summary: what trimming keeps of the turns it drops when summarizing fails."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import Compacted
from jupyter_compaction.fallback_summary import (
    FALLBACK_TOKENS,
    INTRO,
    fallback_summary,
    with_fallback,
)
from jupyter_compaction.history import blocks, message_text, validate
from jupyter_compaction.strategies import TrimTurns
from jupyter_compaction.summaries import ASSISTANT_PREFIX, USER_PREFIX, find_summary
from jupyter_compaction.tokens import TokenCounter

COUNTER = TokenCounter()
KEY = "sk-ant-api03-" + "x7" * 20


def turn(k: int, name: str = "read_file", **args) -> list[dict]:
    args = args or {"path": f"docs/part{k}.md"}
    return [{"role": "assistant", "content": [
                {"type": "text", "text": f"Noted: part{k} = DOC-{100 + k}\nthinking on"},
                {"type": "tool_use", "id": f"toolu_{k}", "name": name, "input": args}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{k}",
                 "content": f"part {k} mentions ORD-{2000 + k}; " + "text " * 150}]}]


def history(turns: int) -> list[dict]:
    return [{"role": "user", "content": "Task: read every part."},
            *[m for k in range(turns) for m in turn(k)]]


def test_it_lists_calls_notes_written_files_and_identifiers_redacted():
    dropped = [*turn(0), *turn(1, "write_file", path="out/report.md", content="done"),
               *turn(2, "http_get", url="https://api.example.com",
                     headers=f"x-api-key: {KEY}")]
    text = fallback_summary(dropped, None, COUNTER)
    assert text.startswith(INTRO)
    sections = text.split("## ")[1:]
    assert [s.splitlines()[0] for s in sections] == [
        "Files Modified", "Assistant Notes", "Tool Calls", "Identifiers Seen"]
    assert "- out/report.md" in sections[0]
    assert "- Noted: part0 = DOC-100" in sections[1] and "thinking on" not in text
    assert 'read_file {"path": "docs/part0.md"}' in sections[2]
    assert "- ORD-2000" in sections[3] and "docs/part0.md" not in sections[3]  # shown above
    assert KEY not in text and "[REDACTED Anthropic key]" in text


def test_an_identifier_inside_a_longer_one_is_still_listed():
    dropped = [*turn(0, "lookup", order="ORD-10420"), *turn(1, "lookup", order="ORD-1042")]
    dropped[3]["content"][0]["content"] = "see ORD-104 too"
    text = fallback_summary(dropped, None, COUNTER)
    assert "- ORD-104\n" in text + "\n" and "- ORD-1042\n" not in text + "\n"


def test_it_is_bounded_and_says_what_it_left_out():
    dropped = history(40)[1:]
    text = fallback_summary(dropped, None, COUNTER, limit=FALLBACK_TOKENS)
    assert COUNTER.count_text(text) <= FALLBACK_TOKENS
    assert text.endswith(f"more items left out to stay under {FALLBACK_TOKENS} tokens]")
    # oldest first: what was seen first is kept, the newest is what is left out
    assert "- Noted: part0 = DOC-100" in text and "part39" not in text


def test_an_earlier_fallback_is_merged_item_by_item():
    first = fallback_summary(turn(0), None, COUNTER)
    second = fallback_summary(turn(1), first, COUNTER)
    for fact in ("docs/part0.md", "DOC-100", "ORD-2000", "docs/part1.md", "ORD-2001"):
        assert fact in second, fact
    assert second.count("## Tool Calls") == 1 and second.count(INTRO) == 1
    assert fallback_summary(turn(1), second, COUNTER) == second  # nothing new, nothing lost


def test_a_model_written_summary_is_kept_quoted_in_front():
    earlier = "## Goal\nread every part\n## Progress\n- ticket = TCK-77"
    text = fallback_summary(turn(3), earlier, COUNTER)
    assert text.split("\n")[1:6] == ["## Earlier Summary", "> ## Goal", "> read every part",
                                     "> ## Progress", "> - ticket = TCK-77"]
    again = fallback_summary(turn(4), text, COUNTER)
    assert "> - ticket = TCK-77" in again and "docs/part3.md" in again


@pytest.mark.parametrize(("role", "prefix"), [("assistant", ASSISTANT_PREFIX),
                                              ("user", USER_PREFIX)])
def test_it_replaces_the_trimmed_turns_in_the_strategys_role(role, prefix):
    messages = history(8)
    trimmed = TrimTurns()(messages, goal=1_000, counter=COUNTER)
    out = with_fallback(messages, trimmed, COUNTER, role)
    validate(out.messages)
    holder = out.messages[1] if role == "assistant" else out.messages[0]
    assert holder["role"] == role
    assert any(b.get("text", "").startswith(prefix) for b in blocks(holder))
    assert out.dropped == trimmed.dropped and out.tokens_after == COUNTER.count(out.messages)
    assert trimmed.tokens_after < out.tokens_after < out.tokens_before
    assert "docs/part0.md" in find_summary(out.messages)


def test_nothing_trimmed_means_no_summary():
    messages = history(2)
    trimmed = TrimTurns()(messages, goal=10**6, counter=COUNTER)
    assert with_fallback(messages, trimmed, COUNTER, "assistant") is trimmed


def down(prompt: str) -> str:
    raise RuntimeError("summary service down")


def test_a_run_with_a_failing_summarizer_keeps_its_first_read_and_finishes():
    run = runner.play("agents", budget=6_000, strategy="summarize", task_state=False,
                      summarizer=down)
    assert any(e.note.startswith("summary failed") for e in run.of(Compacted))
    first = next(b["input"]["path"] for m in run.transcript for b in blocks(m)
                 if b.get("type") == "tool_use" and "path" in b["input"])
    live = "\n".join(message_text(m) for m in run.messages)
    assert first in find_summary(run.messages) and first in live
    # the simulated model reads the notes it wrote in the trimmed turns, so it finishes
    # without re-reading; trimming alone (no fallback summary) loops until stopped as stuck
    assert run.status == "finished" and run.repeats == 0
    assert scenarios.load("agents").is_correct(run.answer)
    bare = runner.play("agents", budget=6_000, strategy="trim", task_state=False)
    assert scenarios.load("agents").outcome(bare) == "stuck" and bare.repeats > run.repeats


@pytest.mark.parametrize("scenario", ["logistics", "debug"])
def test_with_task_state_the_answer_stays_right(scenario):
    # the task-state tools' calls are left out: a todo note's facts inside a JSON call
    # line would be read back with the rest of the line stuck to them
    run = runner.play(scenario, budget=6_000, strategy="summarize", summarizer=down)
    summary = find_summary(run.messages) or ""
    assert any(e.note.startswith("summary failed") for e in run.of(Compacted))
    assert "todo_update" not in summary and "task_set_goal" not in summary
    assert run.status == "finished" and scenarios.load(scenario).is_correct(run.answer)
