"""The session store survives crashes, restarts and damaged files.

- **Atomic writes**: a crash in the middle of replacing `state.json` / `meta.json` /
  `context.json` (simulated by making `json.dump` write half its output and die, or
  `os.replace` fail) leaves the previous version readable.
- **Torn appends**: a JSONL file cut at any byte of its last line reads back as every
  complete line before it, the torn one reported; the next append starts a line of its own.
- **Kernel restart**: a fresh `SessionStore` on the same folder, in this process and in a
  subprocess, lists every run and its parent chain; a run whose process died in the middle
  of a turn (`os._exit` inside a tool) is resumed from disk alone and finishes.
- **Damaged files**: garbage or wrong-shaped `meta.json`, a missing one, a non-directory
  in the root, binary junk, torn lines, a parent that is gone and a parent chain that
  loops are reported in `store.problems` and skipped; none of them raises.
- **Awkward text**: characters `str.splitlines()` would split on (U+2028, U+0085, ...)
  round-trip through the JSONL files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import store as store_module
from jupyter_compaction.agent import Agent, Run
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.runner import play
from jupyter_compaction.store import SessionStore
from tests.support.scripted import Scripted

REPO = Path(__file__).resolve().parents[2]
TASK = {"task": "t", "model": "m", "strategy": "s", "budget": 1}


class HalfWrite:
    """The store's `open`, whose files write half of what they are given and then crash."""

    def __call__(self, path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = open(path, mode, *args, **kwargs)  # noqa: SIM115 - handed back to the caller
        if "w" in mode or "a" in mode:
            write = f.write

            def half(data: Any) -> int:
                write(data[: len(data) // 2])
                f.flush()
                raise OSError("simulated crash in the middle of a write")

            f.write = half
        return f


# -- atomic writes ----------------------------------------------------------------------------

def test_a_crash_while_replacing_state_leaves_the_old_state(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    store = SessionStore(tmp_path)
    sid = store.start(TASK)
    store.save_state(sid, {"goal": "old", "todos": []})
    monkeypatch.setattr(store_module, "open", HalfWrite(), raising=False)
    with pytest.raises(OSError, match="simulated crash"):
        store.save_state(sid, {"goal": "new " * 1000, "todos": []})
    monkeypatch.undo()
    assert store.state(sid) == {"goal": "old", "todos": []}
    assert SessionStore(tmp_path).state(sid) == {"goal": "old", "todos": []}
    assert [s.session_id for s in SessionStore(tmp_path).list()] == [sid]


def test_a_failing_rename_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    store = SessionStore(tmp_path)
    sid = store.start(TASK)
    store.save_state(sid, {"goal": "old"})

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store_module.os, "replace", broken_replace)
    with pytest.raises(OSError):
        store.save_state(sid, {"goal": "new"})
    monkeypatch.undo()
    assert store.state(sid) == {"goal": "old"}
    assert store.info(sid).meta["task"] == "t"


def test_a_crash_while_starting_a_child_session_keeps_the_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    store = SessionStore(tmp_path)
    parent = store.start(TASK)
    store.append_message(parent, {"role": "user", "content": "hello"})
    monkeypatch.setattr(store_module, "open", HalfWrite(), raising=False)
    with pytest.raises(OSError):
        store.start(TASK, parent=parent, context=[{"role": "user", "content": "x" * 5000}])
    monkeypatch.undo()
    fresh = SessionStore(tmp_path)
    assert [s.session_id for s in fresh.list()] == [parent]  # the half-made child is skipped
    assert len(fresh.problems) == 1 and "unreadable session" in fresh.problems[0]
    assert fresh.transcript(parent) == [{"role": "user", "content": "hello"}]


# -- torn appends -------------------------------------------------------------------------------

def stored_run(tmp_path: Path) -> tuple[SessionStore, Run]:
    store = SessionStore(tmp_path / "sessions")
    run = play("agents", budget=6000, store=store, workdir=str(tmp_path / "ws"))
    assert run.status == "finished" and len(run.compactions) >= 2
    return store, run


def test_a_torn_last_line_at_every_byte_is_skipped_and_reported(tmp_path: Path) -> None:
    store, run = stored_run(tmp_path)
    path = store.root / run.session_id / "messages.jsonl"
    whole = path.read_bytes()
    last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    expected = store.transcript(run.session_id)[:-1]
    step = max(1, (len(whole) - last_start) // 40)
    for cut in range(last_start + 1, len(whole) - 1, step):
        path.write_bytes(whole[:cut])
        reader = SessionStore(store.root)
        assert reader.transcript(run.session_id) == expected, cut
        assert len(reader.problems) == 1 and "line" in reader.problems[0]
    path.write_bytes(whole)
    assert SessionStore(store.root).transcript(run.session_id) == run.transcript


def test_the_next_append_after_a_torn_line_is_not_lost(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    sid = store.start(TASK)
    store.append_message(sid, {"role": "user", "content": "one"})
    with open(tmp_path / sid / "messages.jsonl", "ab") as f:
        f.write(b'{"role": "assistant", "content": [{"type": "te')  # the crash
    store.append_message(sid, {"role": "user", "content": "after the crash"})
    store.append_event(sid, {"kind": "finished", "turn": 1, "answer": "", "reason": "end_turn"})
    assert store.transcript(sid) == [{"role": "user", "content": "one"},
                                     {"role": "user", "content": "after the crash"}]
    assert len(store.problems) == 1


def test_a_run_whose_last_line_was_torn_resumes_and_keeps_the_rest(tmp_path: Path) -> None:
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()


    call = {"type": "tool_use", "id": "toolu_1", "name": "shout", "input": {"text": "hi"}}
    store = SessionStore(tmp_path)
    agent = Agent(Scripted([Reply([call], "tool_use", Usage(1, 1)), RuntimeError("down"),
                            Reply([{"type": "text", "text": "done"}], usage=Usage(1, 1))]),
                  tools=[shout], task_state=False, store=store)
    run = agent.run("go")
    assert run.status == "failed"
    path = tmp_path / run.session_id / "messages.jsonl"
    path.write_bytes(path.read_bytes()[:-7])  # the tool results' line is torn
    run = agent.resume(run)  # the assistant's call is answered again, on a fresh line
    assert run.status == "finished" and run.answer == "done"
    assert [m["role"] for m in store.transcript(run.session_id)] == \
        ["user", "assistant", "user", "assistant"]


# -- kernel restart -------------------------------------------------------------------------------

LIST_SCRIPT = textwrap.dedent("""
    import json, sys
    from jupyter_compaction.store import SessionStore
    store = SessionStore(sys.argv[1])
    runs = {}
    for info in store.list():
        runs.setdefault(info.run_id, []).append(info.session_id)
    chains = {run: [s.session_id for s in store.chain(store.latest(run))] for run in runs}
    print(json.dumps({"chains": chains, "problems": store.problems,
                      "lengths": {r: len(store.transcript(store.latest(r))) for r in runs}}))
""")


def test_a_restart_lists_every_run_and_its_chain(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    runs = [play(name, budget=6000, store=store, workdir=str(tmp_path / name))
            for name in ("agents", "debug", "logistics")]
    (store.root / "stray-file.txt").write_text("not a session")  # a non-directory
    reopened = SessionStore(store.root)
    listed = reopened.list()
    assert {s.run_id for s in listed} == {reopened.chain(r.session_id)[0].session_id
                                          for r in runs}
    assert len(listed) == sum(len(r.compactions) + 1 for r in runs)
    for run in runs:
        chain = reopened.chain(run.session_id)
        assert len(chain) == len(run.compactions) + 1
        assert chain[0].parent_session_id is None
        assert all(b.parent_session_id == a.session_id for a, b in zip(chain, chain[1:],
                                                                       strict=False))
        assert reopened.latest(chain[0].run_id) == run.session_id
        assert reopened.transcript(run.session_id) == run.transcript
    out = subprocess.run([sys.executable, "-c", LIST_SCRIPT, str(store.root)], cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=True)
    seen = json.loads(out.stdout)
    assert seen["problems"] == []
    assert seen["chains"] == {
        reopened.chain(r.session_id)[0].run_id: [s.session_id
                                                for s in reopened.chain(r.session_id)]
        for r in runs}
    assert sorted(seen["lengths"].values()) == sorted(len(r.transcript) for r in runs)


CRASH_SCRIPT = textwrap.dedent("""
    import os, sys
    from jupyter_compaction import scenarios
    from jupyter_compaction.agent import Agent
    from jupyter_compaction.models.simulated import SimulatedModel
    from jupyter_compaction.store import SessionStore
    spec = scenarios.load("debug")
    workspace = spec.prepare(sys.argv[2])
    tools = spec.tools(workspace)
    calls = 0
    def crashing(fn):
        def wrapped(**kwargs):
            global calls
            calls += 1
            if calls == 7:
                os._exit(1)  # the kernel dies in the middle of a turn
            return fn(**kwargs)
        wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
        wrapped.__signature__ = __import__("inspect").signature(fn)
        return wrapped
    agent = Agent(SimulatedModel(spec), tools=[crashing(t) for t in tools], budget=5000,
                  task_state=False, store=SessionStore(sys.argv[1]), workspace=workspace)
    agent.run(spec.task, max_turns=40)
""")


def test_a_run_killed_mid_turn_is_listed_and_resumed_after_a_restart(tmp_path: Path) -> None:
    from jupyter_compaction import scenarios
    from jupyter_compaction.models.simulated import SimulatedModel

    root, ws = tmp_path / "sessions", tmp_path / "ws"
    done = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, str(root), str(ws)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    store = SessionStore(root)
    (run_id,) = {s.run_id for s in store.list()}
    latest = store.latest(run_id)
    chain = store.chain(latest)
    assert len(chain) >= 2, "the run had compacted before it died"
    before = store.transcript(latest)
    assert before[-1]["role"] == "assistant"  # it died running this reply's tool call
    spec = scenarios.load("debug")
    from jupyter_compaction.workspace import Workspace
    workspace = Workspace(ws)
    model = SimulatedModel(spec)
    agent = Agent(model, tools=spec.tools(workspace), budget=5000,
                  task_state=False, store=store, workspace=workspace)
    run = agent.resume(Run(task=chain[0].meta["task"], session_id=latest), max_turns=40)
    assert run.status == "finished" and spec.is_correct(run.answer)
    assert run.transcript[:len(before)] == before
    assert SessionStore(root).transcript(run.session_id) == run.transcript
    assert store.problems == []


# -- damaged files --------------------------------------------------------------------------------

DAMAGE = {
    "garbage meta": lambda d: (d / "meta.json").write_text("{not json"),
    "binary meta": lambda d: (d / "meta.json").write_bytes(b"\xff\xfe\x00\x81" * 10),
    "empty meta": lambda d: (d / "meta.json").write_text(""),
    "meta is a list": lambda d: (d / "meta.json").write_text("[1, 2, 3]"),
    "meta is null": lambda d: (d / "meta.json").write_text("null"),
    "meta without ids": lambda d: (d / "meta.json").write_text('{"task": "x"}'),
    "meta with wrong types": lambda d: (d / "meta.json").write_text(
        json.dumps({"session_id": d.name, "run_id": 5, "created": 7})),
    "meta of another folder": lambda d: (d / "meta.json").write_text(
        json.dumps({"session_id": "elsewhere", "run_id": "elsewhere", "created": "x"})),
    "meta is a folder": lambda d: (d / "meta.json").mkdir(),
    "no meta": lambda d: None,
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_sessions_are_reported_and_skipped(tmp_path: Path, damage: str) -> None:
    store, run = stored_run(tmp_path)
    broken = store.root / "20000101T000000-deadbeef"
    broken.mkdir()
    (broken / "messages.jsonl").write_text('{"role": "user", "content": "orphan"}\n')
    DAMAGE[damage](broken)
    (store.root / "README.txt").write_text("a file, not a session")
    reader = SessionStore(store.root)
    listed = reader.list()
    assert broken.name not in {s.session_id for s in listed}
    assert len(listed) == len(run.compactions) + 1
    assert reader.problems == [f"{broken.name}: unreadable session "
                               f"({reader.problems[0].split('(')[1].split(')')[0]}) skipped"]
    assert reader.transcript(run.session_id) == run.transcript  # the good run is untouched


def test_junk_lines_inside_jsonl_files_are_skipped(tmp_path: Path) -> None:
    store, run = stored_run(tmp_path)
    first = store.chain(run.session_id)[0].session_id
    path = store.root / first / "messages.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1:1] = [b"\xff\xfe garbage", b"42", b"[]", b'"a string"', b"{torn"]
    path.write_bytes(b"\n".join(lines))
    reader = SessionStore(store.root)
    assert reader.transcript(run.session_id) == run.transcript
    assert len(reader.problems) == 5
    events_path = store.root / first / "events.jsonl"
    events_path.write_bytes(events_path.read_bytes() + b'{"kind": "turn_st')
    assert len(reader.events(run.session_id)) == len(run.events)


def test_a_missing_or_looping_parent_ends_the_chain_without_raising(tmp_path: Path) -> None:
    store, run = stored_run(tmp_path)
    chain = store.chain(run.session_id)
    meta_path = store.root / chain[0].session_id / "meta.json"
    meta_path.write_text("{garbage")  # the root session's meta is damaged
    reader = SessionStore(store.root)
    partial = reader.chain(run.session_id)
    assert [s.session_id for s in partial] == [s.session_id for s in chain[1:]]
    assert any("parent of" in p for p in reader.problems)
    assert reader.transcript(run.session_id) == [m for s in chain[1:] for m in
                                                 store_module.read_lines(
                                                     store.root / s.session_id /
                                                     "messages.jsonl")]
    # a chain that loops back on itself (a hand-edited meta) ends instead of spinning
    second = chain[1].session_id
    meta = json.loads((store.root / second / "meta.json").read_text())
    (store.root / second / "meta.json").write_text(json.dumps({**meta,
                                                               "parent_session_id": second}))
    assert [s.session_id for s in SessionStore(store.root).chain(second)] == [second]


def test_an_empty_or_missing_root_lists_nothing(tmp_path: Path) -> None:
    assert SessionStore(tmp_path / "nope").list() == []
    assert not (tmp_path / "nope").exists(), "reading never creates the folder"
    (tmp_path / "file").write_text("x")
    assert SessionStore(tmp_path / "file").list() == []


# -- awkward text ---------------------------------------------------------------------------------

AWKWARD = "a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\x1dh\x1ei\rj\r\nk \ud800 surrogate \U0001f600"


def test_text_with_line_separators_round_trips(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    sid = store.start(TASK)
    message = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                            "content": AWKWARD}]}
    store.append_message(sid, message)
    store.append_message(sid, {"role": "assistant", "content": "after"})
    got = SessionStore(tmp_path).transcript(sid)
    assert len(got) == 2 and store.problems == []
    assert got[0]["content"][0]["content"] == AWKWARD  # even the lone surrogate, exactly


def test_a_run_reading_files_with_line_separators_is_stored_whole(tmp_path: Path) -> None:
    def read(path: str) -> str:
        """Read a file full of unusual line breaks."""
        return f"{path}: " + AWKWARD.replace("\ud800", "?") * 20

    replies = [Reply([{"type": "tool_use", "id": f"toolu_{n}", "name": "read",
                       "input": {"path": f"f{n}.js"}}], "tool_use", Usage(1, 1))
               for n in range(3)] + [Reply([{"type": "text", "text": "done"}], usage=Usage(1, 1))]

    store = SessionStore(tmp_path)
    run = Agent(Scripted(replies), tools=[read], task_state=False, store=store).run("read them")
    assert run.status == "finished"
    assert SessionStore(tmp_path).transcript(run.session_id) == run.transcript
    assert len(run.transcript) == 8


def test_writes_go_through_a_temporary_file_in_the_same_folder(tmp_path: Path,
                                                               monkeypatch) -> None:
    seen: list[tuple[str, str]] = []
    real = os.replace

    def spy(src: Any, dst: Any) -> None:
        seen.append((str(src), str(dst)))
        real(src, dst)

    monkeypatch.setattr(store_module.os, "replace", spy)
    store = SessionStore(tmp_path)
    sid = store.start(TASK, context=[{"role": "user", "content": "x"}])
    store.save_state(sid, {"goal": "g"})
    assert [Path(d).name for _, d in seen] == ["context.json", "meta.json", "state.json"]
    assert all(Path(s).parent == Path(d).parent and Path(s).name.startswith(".")
               for s, d in seen)
    assert sorted(p.name for p in (tmp_path / sid).iterdir()) == \
        ["context.json", "meta.json", "state.json"]


def test_every_session_of_the_chain_holds_the_task_state(tmp_path: Path) -> None:
    """A compaction starts a child session; it must hold the task state at once, not only
    after its first tool call, or a run that answers right after a compaction leaves its
    newest session without one."""
    store = SessionStore(tmp_path)
    run = play("agents", budget=5_000, strategy="summarize", store=store)
    chain = store.chain(run.session_id)
    assert len(chain) > 1
    for session in chain[1:]:
        assert "todos" in store.state(session.session_id), session.session_id
    assert store.state(run.session_id) == json.loads(json.dumps(asdict(run.task_state)))
