"""`SessionStore.clean()` and `jupyter-compaction sessions clean`: the folders a killed run
left without `meta.json` go, and nothing else does."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from jupyter_compaction import store as store_module
from jupyter_compaction.cli import main
from jupyter_compaction.store import SETTLE_SECONDS, SessionStore

OLD = time.time() - 10 * SETTLE_SECONDS


def age(folder: Path) -> Path:
    """Make `folder` and its files look untouched for a while."""
    for path in [*folder.iterdir(), folder]:
        os.utime(path, (OLD, OLD))
    return folder


def killed_start(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A compaction's child session whose start was killed after its context, before its
    meta.json (the write of meta.json dies half-way, leaving its temporary file)."""
    parent = store.start({"task": "t"})
    real = store_module.write_atomic

    def dies_on_meta(path: Path, data: object) -> None:
        if path.name == store_module.META:
            path.with_name(f".{path.name}.4242.tmp").write_text('{"sess')
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(store_module, "write_atomic", dies_on_meta)
    with pytest.raises(KeyboardInterrupt):
        store.start({"task": "t"}, parent=parent, context=[{"role": "user", "content": "x"}])
    monkeypatch.setattr(store_module, "write_atomic", real)
    (folder,) = [f for f in store.root.iterdir() if f.name != parent]
    return age(folder)


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    store = SessionStore(tmp_path)
    killed = killed_start(store, monkeypatch)
    complete = age(tmp_path / store.list()[0].session_id)
    empty = tmp_path / "20260101T000000-0badc0de"
    empty.mkdir()
    damaged = tmp_path / "20260101T000001-deadbeef"  # a meta.json, though broken: kept
    damaged.mkdir()
    (damaged / "meta.json").write_text("{not json")
    foreign = tmp_path / "20260101T000002-cafef00d"  # holds a file the store never writes
    foreign.mkdir()
    (foreign / "my-notes.txt").write_text("mine")
    notes = tmp_path / "notes"  # not named like a session
    notes.mkdir()
    fresh = tmp_path / "20260101T000003-5eed5eed"  # may be starting right now
    fresh.mkdir()
    (fresh / "context.json").write_text("[]")
    for folder in (empty, damaged, foreign, notes):
        age(folder)
    return {"killed": killed, "empty": empty, "complete": complete, "damaged": damaged,
            "foreign": foreign, "notes": notes, "fresh": fresh}


def test_clean_removes_only_folders_a_killed_run_left(layout: dict[str, Path]) -> None:
    store = SessionStore(layout["complete"].parent)
    expected = sorted([layout["killed"], layout["empty"]])
    assert store.clean(dry_run=True) == expected
    assert all(folder.exists() for folder in layout.values())
    assert store.clean() == expected
    assert not any(folder.exists() for folder in expected)
    kept = {name for name, folder in layout.items() if folder.exists()}
    assert kept == {"complete", "damaged", "foreign", "notes", "fresh"}
    assert store.clean() == []
    assert [s.session_id for s in store.list()] == [layout["complete"].name]
    assert len(store.problems) == 4  # damaged, foreign, notes and fresh: still reported


def test_a_folder_still_starting_is_left_until_it_settles(layout: dict[str, Path]) -> None:
    store = SessionStore(layout["fresh"].parent)
    assert layout["fresh"] not in store.incomplete()
    assert layout["fresh"] in store.incomplete(settle=0)


def test_a_store_that_does_not_exist_has_nothing_to_clean(tmp_path: Path) -> None:
    assert SessionStore(tmp_path / "none").clean() == []
    assert not (tmp_path / "none").exists()


def test_the_command_says_what_it_removed(layout: dict[str, Path],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = str(layout["complete"].parent)
    assert main(["sessions", "clean", root, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"would remove 2 incomplete session folders (no meta.json) in {root}")
    assert layout["killed"].name in out and layout["empty"].name in out
    assert layout["killed"].exists()
    assert main(["sessions", "clean", root]) == 0
    out = capsys.readouterr().out
    assert out.startswith("removed 2 ") and layout["killed"].name in out
    assert not layout["killed"].exists()
    assert main(["sessions", "clean", root]) == 0
    assert capsys.readouterr().out.startswith("removed 0 ")


def test_the_command_refuses_a_missing_folder_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "clean", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a folder" in err and "Traceback" not in err
