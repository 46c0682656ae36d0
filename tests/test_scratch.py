"""`scratch()`: one temporary folder per run, gone on success, error, SIGTERM and SIGINT."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from jupyter_compaction.scratch import PREFIX, scratch

ROOT = Path(__file__).resolve().parents[1]
HOLD = """
import sys, tempfile, time
from jupyter_compaction.scratch import scratch
with scratch() as root:
    tempfile.mkdtemp(prefix="compaction-work-")  # what a run leaves in it
    print(root, flush=True)
    time.sleep(60)
"""


def test_the_folder_is_the_default_while_the_run_lasts_and_gone_after(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with scratch() as root:
        assert root.parent == tmp_path and root.name.startswith(PREFIX)
        assert tempfile.gettempdir() == os.environ["TMPDIR"] == str(root)
        Path(tempfile.mkdtemp()).joinpath("file").write_text("x")
    assert list(tmp_path.iterdir()) == []
    assert os.environ["TMPDIR"] == str(tmp_path) and tempfile.gettempdir() == str(tmp_path)


def test_an_exception_removes_the_folder_and_passes_through(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(ZeroDivisionError), scratch():
        raise ZeroDivisionError
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 128 + signal.SIGTERM),
                                         (signal.SIGINT, -signal.SIGINT)])
def test_a_stopped_run_leaves_nothing(tmp_path, sig, status):
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-c", HOLD], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    root = Path(run.stdout.readline().strip())
    assert root.parent == tmp_path and any(root.iterdir())
    run.send_signal(sig)
    assert run.wait(timeout=30) == status
    assert list(tmp_path.iterdir()) == []


def test_every_command_runs_in_a_scratch_folder(tmp_path, monkeypatch, capsys):
    from jupyter_compaction import cli

    seen = []
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(cli, "sessions_clean", lambda args: seen.append(
        tempfile.mkdtemp()) or 0)
    assert cli.main(["sessions", "clean", str(tmp_path / "none")]) == 0
    assert Path(seen[0]).parent.parent == tmp_path and list(tmp_path.iterdir()) == []
