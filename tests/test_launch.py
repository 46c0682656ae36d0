"""`jupyter-compaction lab` finds the lessons and starts a JupyterLab that answers."""

import os
import secrets
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from jupyter_compaction.launch import FIRST_LESSON, lab_command, lessons_dir


def test_finds_the_checkouts_lessons_from_anywhere(tmp_path):
    folder = lessons_dir(cwd=tmp_path)
    assert (folder / FIRST_LESSON).is_file()


def test_a_folder_without_lessons_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr("jupyter_compaction.launch.__file__", str(tmp_path / "x" / "launch.py"))
    with pytest.raises(FileNotFoundError, match="repository root"):
        lessons_dir(cwd=tmp_path)


def test_command_opens_the_first_lesson_and_allows_root_only_for_root():
    folder = Path("/somewhere/lessons")
    as_user = lab_command(folder, is_root=False, browser=False, port=9999)
    assert as_user[-4:] == [str(folder / FIRST_LESSON), f"--ServerApp.root_dir={folder}",
                            "--port=9999", "--no-browser"]
    assert "--allow-root" not in as_user
    assert lab_command(folder, is_root=True)[-1] == "--allow-root"


def test_the_command_really_starts_jupyterlab(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(8)
    command = lab_command(lessons_dir(), port=port, browser=False) + [
        "--ip=127.0.0.1", f"--IdentityProvider.token={token}"]
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)}
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                url = f"http://127.0.0.1:{port}/api/contents/{FIRST_LESSON}?token={token}"
                with urllib.request.urlopen(url, timeout=2) as reply:
                    assert reply.status == 200
                break
            except OSError:
                assert server.poll() is None, "jupyter lab exited"
                assert time.monotonic() < deadline, "jupyter lab did not answer"
                time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=20)
