"""What comes back after a compaction: the newest files read, pinned text, hook content."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner
from jupyter_compaction.events import Compacted, ToolCalled
from jupyter_compaction.history import blocks, validate
from jupyter_compaction.restore import RESTORED
from jupyter_compaction.settings import DEFAULTS


def play(**knobs):
    with runner.start("debug", budget=8_000, strategy="compact", task_state=False,
                      **knobs) as session:
        return session.play()


def test_restore_must_be_a_number_of_files():
    with pytest.raises(ValueError, match=r"restore must be a whole number \(at least 0\) of files"):
        DEFAULTS.with_changes(restore=-1)


def test_the_newest_files_read_come_back_as_a_tool_round_after_a_summary():
    run = play(restore=3)
    restored = [c for c in run.of(Compacted) if "restored" in c.note]
    assert restored
    rounds = [n for n, m in enumerate(run.transcript) if m["role"] == "assistant"
              and blocks(m)[0].get("text") == RESTORED]
    assert rounds
    calls = [b for b in blocks(run.transcript[rounds[0]]) if b.get("type") == "tool_use"]
    answers = blocks(run.transcript[rounds[0] + 1])
    assert calls and all(c["name"] == "read_file" for c in calls)
    assert [a["tool_use_id"] for a in answers] == [c["id"] for c in calls]
    assert all(c["input"]["path"] in restored[0].note for c in calls)
    validate(run.messages)


def test_restored_files_are_counted_in_the_compaction():
    plain, back = play().of(Compacted), play(restore=3).of(Compacted)
    first = next(c for c in back if "restored" in c.note)
    same = next(c for c in plain if c.turn == first.turn)
    assert first.tokens_after > same.tokens_after


def test_hooks_and_pinned_text_come_back_after_every_compaction():
    with runner.start("debug", budget=8_000, strategy="trim") as session:
        seen = []
        session.agent.pinned.append("Always cite the config file.")
        session.agent.before_compaction.append(lambda run: f"before turn {run.turn}")
        session.agent.after_compaction.append(
            lambda run, result: seen.append(result.kind) or f"after {result.kind}")
        run = session.play()
    assert seen and run.compactions
    last_user = blocks(run.compactions[0].messages[-1])
    texts = [b["text"] for b in last_user if b.get("type") == "text"]
    turn = run.of(Compacted)[0].turn
    assert texts[-3:] == ["Always cite the config file.", f"before turn {turn}",
                          f"after {seen[0]}"]
    assert "3 pinned or hook texts" in run.of(Compacted)[0].note
    assert not [e for e in run.of(ToolCalled) if e.id.startswith("toolu_restore")]
    assert all(RESTORED not in str(m) for m in run.transcript)  # trimming wrote no summary
