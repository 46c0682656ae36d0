"""Unchanged re-reads deduplicated: a line while the earlier result is in view, the
content for a changed file or an earlier read compaction cleared or removed."""

from __future__ import annotations

from jupyter_compaction.agent import Agent
from jupyter_compaction.dedup import DedupReads
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.run import Run
from jupyter_compaction.vocab import PLACEHOLDER, is_unchanged
from tests.support.scripted import Scripted

FILES = {"a.md": "alpha " * 50}


def read_file(path: str) -> str:
    """Read a file."""
    return FILES[path]


def use(ident: str, name: str = "read_file", **args) -> Reply:
    args = args or {"path": "a.md"}
    return Reply([{"type": "tool_use", "id": ident, "name": name, "input": args}],
                 "tool_use", Usage(1, 1))


def results(run) -> dict[str, str]:
    return {b["tool_use_id"]: b["content"] for m in run.transcript
            if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"}


def played(*replies: Reply, dedup: bool = True, change=None):
    model = Scripted([*replies, Reply([{"type": "text", "text": "ok"}], "end_turn", Usage(1, 1))],
                     before=None if change is None else
                     (lambda _, request: change(len(request["messages"]))))
    return Agent(model, tools=[read_file], task_state=False, dedup_reads=dedup).run("go")


def test_an_unchanged_re_read_in_view_is_one_line():
    FILES["a.md"] = "alpha " * 50
    run = played(use("t1"), use("t2"))
    seen = results(run)
    assert seen["t1"] == FILES["a.md"]
    assert seen["t2"] == "[unchanged since turn 1: the same call's result is still in the " \
                         "context above]"
    assert results(played(use("t1"), use("t2"), dedup=False))["t2"] == FILES["a.md"]


def test_a_changed_file_is_read_whole():
    FILES["a.md"] = "alpha " * 50

    def edit(sent: int) -> None:
        if sent == 3:  # after the first read: the file changes
            FILES["a.md"] = "beta " * 50

    seen = results(played(use("t1"), use("t2"), use("t3"), change=edit))
    assert seen["t2"] == "beta " * 50 and is_unchanged(seen["t3"])
    assert "turn 2" in seen["t3"]  # the newest earlier read is the one it stands for


def earlier_run(content: str | None) -> Run:
    """A run whose context held the first read of a.md (`content`; None: removed)."""
    run = Run(task="go", turn=1)
    DedupReads().on_result(run, {"id": "t1", "name": "read_file", "input": {"path": "a.md"}},
                           {"type": "tool_result", "tool_use_id": "t1", "content": "A"})
    run.messages = [{"role": "user", "content": "go"}]
    if content is not None:
        run.messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                               "name": "read_file", "input": {"path": "a.md"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                          "content": content}]}]
    run.turn = 5
    return run


def again(run: Run) -> str:
    return DedupReads().on_result(
        run, {"id": "t2", "name": "read_file", "input": {"path": "a.md"}},
        {"type": "tool_result", "tool_use_id": "t2", "content": "A"})["content"]


def test_an_earlier_read_compaction_cleared_or_removed_gives_the_content_again():
    assert is_unchanged(again(earlier_run("A")))
    assert again(earlier_run(PLACEHOLDER)) == "A"  # cleared
    assert again(earlier_run(None)) == "A"  # removed (trimmed or summarized)
    run = earlier_run(None)
    again(run)
    assert run.results_seen[("read_file", '{"path": "a.md"}')].turn == 5  # the new read


def test_writes_and_errors_are_never_deduplicated():
    run = earlier_run("A")
    note = {"id": "n1", "name": "write_note", "input": {"text": "x"}}
    answer = {"type": "tool_result", "tool_use_id": "n1", "content": "Noted in NOTES.md."}
    guard = DedupReads()
    assert guard.on_result(run, note, answer) == answer
    assert guard.on_result(run, {**note, "id": "n2"}, {**answer, "tool_use_id": "n2"}) == {
        **answer, "tool_use_id": "n2"}
    failed = {"type": "tool_result", "tool_use_id": "t2", "content": "A", "is_error": True}
    assert guard.on_result(run, {"id": "t2", "name": "read_file",
                                 "input": {"path": "a.md"}}, failed) == failed
